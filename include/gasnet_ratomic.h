/* gasnet_ratomic.h: remote atomics (gex_AD_*), as GASNet-EX specifies them.
 *
 * An atomic domain is created collectively over a team for one data type and
 * a set of operations; every operation of a domain is atomic with respect to
 * every other operation of that domain (docs/atomics.md says how gexx carries
 * each one). Operations are initiated with gex_AD_OpNB_<T> (returns an event),
 * gex_AD_OpNBI_<T> (counts in the thread's GEX_EC_RMW NBI set) or
 * gex_AD_OpBlocking_<T> (complete on return), T one of I32 U32 I64 U64 FLT DBL.
 *
 * Operands: operand1 is the value of SET, SWAP, AND, OR, XOR, ADD, SUB, MULT,
 * MIN, MAX (and their fetching forms) and the comparand of CAS/FCAS, whose
 * operand2 is the value stored on a match. GET, INC, DEC take none. Fetching
 * operations (GET, SWAP, FCAS and the F* forms) write the target's prior
 * value to *result_p once the operation completes. */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H
#define _GASNET_RATOMIC_H

#include <gasnetex.h>
#include <limits.h> /* GASNet's headers bring it, and clients of this one use INT_MAX */

GEXX_BEGIN_EXTERNC

typedef struct gexx_ad_s *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)(uintptr_t)0)

/* Collective over `tm`: every member calls it with the same dt, ops and
 * flags. `ops` is the OR of every gex_OP_t the domain will be used with;
 * the bitwise ones (AND OR XOR FAND FOR FXOR) only for integer types. */
extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                          gex_Flags_t flags);
/* Collective over the domain's team; no operation of it may be in flight. */
extern void gex_AD_Destroy(gex_AD_t ad);

extern gex_TM_t gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t gex_AD_QueryOps(gex_AD_t ad);
extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern void gex_AD_SetCData(gex_AD_t ad, const void *val);
extern void *gex_AD_QueryCData(gex_AD_t ad);

/* The operations, one NB, NBI and blocking form per type. */
#define GEXX_AD_DECLARE(tcode, type)                                                             \
  extern gex_Event_t gex_AD_OpNB_##tcode(gex_AD_t ad, type *result_p, gex_Rank_t tgt_rank,       \
                                         void *tgt_addr, gex_OP_t opcode, type operand1,         \
                                         type operand2, gex_Flags_t flags);                      \
  extern int gex_AD_OpNBI_##tcode(gex_AD_t ad, type *result_p, gex_Rank_t tgt_rank,              \
                                  void *tgt_addr, gex_OP_t opcode, type operand1, type operand2, \
                                  gex_Flags_t flags);                                            \
  extern int gex_AD_OpBlocking_##tcode(gex_AD_t ad, type *result_p, gex_Rank_t tgt_rank,         \
                                       void *tgt_addr, gex_OP_t opcode, type operand1,           \
                                       type operand2, gex_Flags_t flags);
GEXX_AD_DECLARE(I32, int32_t)
GEXX_AD_DECLARE(U32, uint32_t)
GEXX_AD_DECLARE(I64, int64_t)
GEXX_AD_DECLARE(U64, uint64_t)
GEXX_AD_DECLARE(FLT, float)
GEXX_AD_DECLARE(DBL, double)
#undef GEXX_AD_DECLARE

GEXX_END_EXTERNC

#endif /* GASNET_RATOMIC_H */
