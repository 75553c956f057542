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

/* gexx internals the inline operations below read (not client API): the
 * head of every domain. `key` is GEXX_AD_LIVE ^ dt while the domain lives;
 * `direct` has `direct_size` entries, one per team rank, saying where this
 * process maps that rank's segment (local null: not mapped, or a domain
 * whose operations never use the CPU); `by_job` the same by job rank
 * (GEX_FLAG_RANK_IS_JOBRANK), `by_job_size` entries (0: none kept). */
struct gexx_ad_direct {
  uint64_t base;  /* the segment's address in its owner's address space */
  uint64_t limit; /* the largest offset of a word of the domain's type in it */
  char *local;    /* where this process maps it */
};
struct gexx_ad_head {
  uint32_t key;
  gex_OP_t ops;
  gex_Rank_t direct_size;
  const struct gexx_ad_direct *direct;
  gex_Rank_t by_job_size;
  const struct gexx_ad_direct *by_job;
};
#define GEXX_AD_LIVE 0x61644144u

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
#define GEXX_AD_DECLARE(tcode, type)                                                              \
  extern gex_Event_t(gex_AD_OpNB_##tcode)(gex_AD_t ad, type * result_p, gex_Rank_t tgt_rank,      \
                                          void *tgt_addr, gex_OP_t opcode, type operand1,         \
                                          type operand2, gex_Flags_t flags);                      \
  extern int(gex_AD_OpNBI_##tcode)(gex_AD_t ad, type * result_p, gex_Rank_t tgt_rank,             \
                                   void *tgt_addr, gex_OP_t opcode, type operand1, type operand2, \
                                   gex_Flags_t flags);                                            \
  extern int(gex_AD_OpBlocking_##tcode)(gex_AD_t ad, type * result_p, gex_Rank_t tgt_rank,        \
                                        void *tgt_addr, gex_OP_t opcode, type operand1,           \
                                        type operand2, gex_Flags_t flags);
GEXX_AD_DECLARE(I32, int32_t)
GEXX_AD_DECLARE(U32, uint32_t)
GEXX_AD_DECLARE(I64, int64_t)
GEXX_AD_DECLARE(U64, uint64_t)
GEXX_AD_DECLARE(FLT, float)
GEXX_AD_DECLARE(DBL, double)
#undef GEXX_AD_DECLARE

/* Inline operations: toward a word this process maps (smp, or a same-host
 * peer of a domain whose path is not the network's atomics), the common
 * operations are performed right here, as the library would perform them
 * (sequentially consistent CPU atomics on the same word, so atomic with
 * respect to every other operation of the domain). Anything else (another
 * operation, a target not mapped, a flag asking for more, any misuse) is a
 * call of the library's function, which performs it or names the misuse.
 * Define GEXX_AD_NO_INLINE before including this header to always call. */
#if defined(__GNUC__) && !defined(GEXX_AD_NO_INLINE)

#define GEXX_AD_FETCHING                                                               \
  (GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | \
   GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_GET)

/* The word of an operation the inline path may perform, else null. */
#define GEXX_AD_WORD(tcode, type)                                                                 \
  static inline __attribute__((always_inline)) type *gexx_ad_word_##tcode(                        \
      gex_AD_t ad, type *result_p, gex_Rank_t rank, void *addr, gex_OP_t op, gex_Flags_t flags) { \
    const struct gexx_ad_head *h = (const struct gexx_ad_head *)(void *)ad;                       \
    const struct gexx_ad_direct *d;                                                               \
    gex_Rank_t n;                                                                                 \
    uint64_t off;                                                                                 \
    if (__builtin_expect(!h || h->key != (GEXX_AD_LIVE ^ GEX_DT_##tcode), 0)) return 0;           \
    d = h->direct;                                                                                \
    n = h->direct_size;                                                                           \
    if (flags & GEX_FLAG_RANK_IS_JOBRANK) {                                                       \
      d = h->by_job;                                                                              \
      n = h->by_job_size;                                                                         \
    }                                                                                             \
    if (__builtin_expect(                                                                         \
            !(op & h->ops) || (op & (op - 1)) || rank >= n || (flags & GEX_FLAG_AD_MY_RANK) ||    \
                ((uintptr_t)addr & (sizeof(type) - 1)) || (!result_p && (op & GEXX_AD_FETCHING)), \
            0))                                                                                   \
      return 0;                                                                                   \
    d += rank;                                                                                    \
    off = (uint64_t)(uintptr_t)addr - d->base;                                                    \
    if (__builtin_expect(off > d->limit || !d->local, 0)) return 0;                               \
    return (type *)(void *)(d->local + off);                                                      \
  }

/* Integer types: every operation with a builtin of its own (MULT, MIN, MAX
 * go to the library). Returns 0 when it did nothing. Bit tests, most used
 * first: `op` is one bit, and ADD/FADD then costs one test before its
 * instruction (no call, no jump table). */
#define GEXX_AD_APPLY_INT(tcode, type)                                                \
  static inline __attribute__((always_inline)) int gexx_ad_apply_##tcode(             \
      type *p, type *result_p, gex_OP_t op, type a, type b) {                         \
    type old;                                                                         \
    if (op & (GEX_OP_ADD | GEX_OP_FADD))                                              \
      old = __atomic_fetch_add(p, a, __ATOMIC_SEQ_CST);                               \
    else if (op & (GEX_OP_INC | GEX_OP_FINC))                                         \
      old = __atomic_fetch_add(p, (type)1, __ATOMIC_SEQ_CST);                         \
    else if (op & (GEX_OP_CAS | GEX_OP_FCAS)) {                                       \
      old = a;                                                                        \
      __atomic_compare_exchange_n(p, &old, b, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    } else if (op & GEX_OP_GET)                                                       \
      old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                     \
    else if (op & (GEX_OP_SET | GEX_OP_SWAP))                                         \
      old = __atomic_exchange_n(p, a, __ATOMIC_SEQ_CST);                              \
    else if (op & (GEX_OP_SUB | GEX_OP_FSUB))                                         \
      old = __atomic_fetch_sub(p, a, __ATOMIC_SEQ_CST);                               \
    else if (op & (GEX_OP_DEC | GEX_OP_FDEC))                                         \
      old = __atomic_fetch_sub(p, (type)1, __ATOMIC_SEQ_CST);                         \
    else if (op & (GEX_OP_AND | GEX_OP_FAND))                                         \
      old = __atomic_fetch_and(p, a, __ATOMIC_SEQ_CST);                               \
    else if (op & (GEX_OP_OR | GEX_OP_FOR))                                           \
      old = __atomic_fetch_or(p, a, __ATOMIC_SEQ_CST);                                \
    else if (op & (GEX_OP_XOR | GEX_OP_FXOR))                                         \
      old = __atomic_fetch_xor(p, a, __ATOMIC_SEQ_CST);                               \
    else                                                                              \
      return 0;                                                                       \
    if (op & GEXX_AD_FETCHING) *result_p = old;                                       \
    return 1;                                                                         \
  }

/* Floating types: ADD, SUB (a compare-and-swap loop on the word's bits, as
 * the library's), GET, SET, SWAP; the others go to the library. The word is
 * reached as an integer of its size (`bits`, may_alias) so that the prior
 * value stays in a register through the loop. */
typedef uint32_t __attribute__((may_alias)) gexx_ad_bits32;
typedef uint64_t __attribute__((may_alias)) gexx_ad_bits64;
#define GEXX_AD_APPLY_FP(tcode, type, bits)                                                      \
  static inline __attribute__((always_inline)) type gexx_ad_val_##tcode(bits u) {                \
    union {                                                                                      \
      bits u;                                                                                    \
      type f;                                                                                    \
    } x;                                                                                         \
    x.u = u;                                                                                     \
    return x.f;                                                                                  \
  }                                                                                              \
  static inline __attribute__((always_inline)) bits gexx_ad_bits_##tcode(type f) {               \
    union {                                                                                      \
      type f;                                                                                    \
      bits u;                                                                                    \
    } x;                                                                                         \
    x.f = f;                                                                                     \
    return x.u;                                                                                  \
  }                                                                                              \
  static inline __attribute__((always_inline)) int gexx_ad_apply_##tcode(                        \
      type *p, type *result_p, gex_OP_t op, type a, type b) {                                    \
    bits *w = (bits *)(void *)p;                                                                 \
    bits old;                                                                                    \
    (void)b;                                                                                     \
    if (op & (GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB)) {                            \
      if (op & (GEX_OP_SUB | GEX_OP_FSUB)) a = -a;                                               \
      old = __atomic_load_n(w, __ATOMIC_SEQ_CST);                                                \
      while (!__atomic_compare_exchange_n(w, &old,                                               \
                                          gexx_ad_bits_##tcode(gexx_ad_val_##tcode(old) + a), 1, \
                                          __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {                 \
      }                                                                                          \
    } else if (op & GEX_OP_GET) {                                                                \
      old = __atomic_load_n(w, __ATOMIC_SEQ_CST);                                                \
    } else if (op & (GEX_OP_SET | GEX_OP_SWAP)) {                                                \
      old = __atomic_exchange_n(w, gexx_ad_bits_##tcode(a), __ATOMIC_SEQ_CST);                   \
    } else {                                                                                     \
      return 0;                                                                                  \
    }                                                                                            \
    if (op & GEXX_AD_FETCHING) *result_p = gexx_ad_val_##tcode(old);                             \
    return 1;                                                                                    \
  }

/* One form's inline function: the word's operation here, else the library. */
#define GEXX_AD_INLINE_FORM(form, ret, done, tcode, type)                                    \
  static inline __attribute__((always_inline))                                               \
  ret gexx_AD_Op##form##_##tcode(gex_AD_t ad, type *result_p, gex_Rank_t rank, void *addr,   \
                                 gex_OP_t op, type a, type b, gex_Flags_t flags) {           \
    type *p = gexx_ad_word_##tcode(ad, result_p, rank, addr, op, flags);                     \
    if (__builtin_expect(p && gexx_ad_apply_##tcode(p, result_p, op, a, b), 1)) return done; \
    return (gex_AD_Op##form##_##tcode)(ad, result_p, rank, addr, op, a, b, flags);           \
  }
#define GEXX_AD_INLINE(tcode, type)                                    \
  GEXX_AD_INLINE_FORM(NB, gex_Event_t, GEX_EVENT_INVALID, tcode, type) \
  GEXX_AD_INLINE_FORM(NBI, int, 0, tcode, type)                        \
  GEXX_AD_INLINE_FORM(Blocking, int, 0, tcode, type)

GEXX_AD_WORD(I32, int32_t)
GEXX_AD_WORD(U32, uint32_t)
GEXX_AD_WORD(I64, int64_t)
GEXX_AD_WORD(U64, uint64_t)
GEXX_AD_WORD(FLT, float)
GEXX_AD_WORD(DBL, double)
GEXX_AD_APPLY_INT(I32, int32_t)
GEXX_AD_APPLY_INT(U32, uint32_t)
GEXX_AD_APPLY_INT(I64, int64_t)
GEXX_AD_APPLY_INT(U64, uint64_t)
GEXX_AD_APPLY_FP(FLT, float, gexx_ad_bits32)
GEXX_AD_APPLY_FP(DBL, double, gexx_ad_bits64)
GEXX_AD_INLINE(I32, int32_t)
GEXX_AD_INLINE(U32, uint32_t)
GEXX_AD_INLINE(I64, int64_t)
GEXX_AD_INLINE(U64, uint64_t)
GEXX_AD_INLINE(FLT, float)
GEXX_AD_INLINE(DBL, double)
#undef GEXX_AD_WORD
#undef GEXX_AD_APPLY_INT
#undef GEXX_AD_APPLY_FP
#undef GEXX_AD_INLINE
#undef GEXX_AD_INLINE_FORM

/* A call by name performs inline where it can; the functions' addresses
 * (no parenthesis after the name) are the library's. */
#define gex_AD_OpNB_I32(...) gexx_AD_OpNB_I32(__VA_ARGS__)
#define gex_AD_OpNB_U32(...) gexx_AD_OpNB_U32(__VA_ARGS__)
#define gex_AD_OpNB_I64(...) gexx_AD_OpNB_I64(__VA_ARGS__)
#define gex_AD_OpNB_U64(...) gexx_AD_OpNB_U64(__VA_ARGS__)
#define gex_AD_OpNB_FLT(...) gexx_AD_OpNB_FLT(__VA_ARGS__)
#define gex_AD_OpNB_DBL(...) gexx_AD_OpNB_DBL(__VA_ARGS__)
#define gex_AD_OpNBI_I32(...) gexx_AD_OpNBI_I32(__VA_ARGS__)
#define gex_AD_OpNBI_U32(...) gexx_AD_OpNBI_U32(__VA_ARGS__)
#define gex_AD_OpNBI_I64(...) gexx_AD_OpNBI_I64(__VA_ARGS__)
#define gex_AD_OpNBI_U64(...) gexx_AD_OpNBI_U64(__VA_ARGS__)
#define gex_AD_OpNBI_FLT(...) gexx_AD_OpNBI_FLT(__VA_ARGS__)
#define gex_AD_OpNBI_DBL(...) gexx_AD_OpNBI_DBL(__VA_ARGS__)
#define gex_AD_OpBlocking_I32(...) gexx_AD_OpBlocking_I32(__VA_ARGS__)
#define gex_AD_OpBlocking_U32(...) gexx_AD_OpBlocking_U32(__VA_ARGS__)
#define gex_AD_OpBlocking_I64(...) gexx_AD_OpBlocking_I64(__VA_ARGS__)
#define gex_AD_OpBlocking_U64(...) gexx_AD_OpBlocking_U64(__VA_ARGS__)
#define gex_AD_OpBlocking_FLT(...) gexx_AD_OpBlocking_FLT(__VA_ARGS__)
#define gex_AD_OpBlocking_DBL(...) gexx_AD_OpBlocking_DBL(__VA_ARGS__)

#endif /* __GNUC__ && !GEXX_AD_NO_INLINE */

GEXX_END_EXTERNC

#endif /* GASNET_RATOMIC_H */
