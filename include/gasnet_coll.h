/* gasnet_coll.h: collectives. The GASNet-EX collectives on any team
 * (gex_Coll_BroadcastNB, gex_Coll_ReduceToOneNB, gex_Coll_ReduceToAllNB;
 * the barrier is in gasnetex.h), then the GASNet-1 collectives
 * (gasnet_coll_*) in gexx_coll_g1.h. */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H
#define _GASNET_COLL_H

#include <gasnetex.h>

GEXX_BEGIN_EXTERNC

/* The client's reduction (GEX_OP_USER, GEX_OP_USER_NC): combines `count`
 * elements, arg2_and_out[i] = arg1[i] (op) arg2_and_out[i]. For
 * GEX_OP_USER_NC, arg1 holds the contribution of the lower-ranked members. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

/* Collective over `tm`, non-blocking: the event completes when this rank's
 * part is done (its dst written; its src may be reused). Every member calls
 * the team's collectives in the same order with the same root, sizes and
 * operation. Broadcast: nbytes from root's src to every member's dst (the
 * root's too). */
extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                        size_t nbytes, gex_Flags_t flags);
/* Reductions of dt_cnt elements of dt (dt_sz bytes each) with op; fn and
 * cdata for GEX_OP_USER / _USER_NC only. ToOne: the result lands in root's
 * dst; ToAll: in every member's dst. src and dst may be the same buffer. */
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                          gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t fn, void *cdata, gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                          size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t fn, void *cdata, gex_Flags_t flags);

GEXX_END_EXTERNC

#include <gexx_coll_g1.h>

#endif /* GASNET_COLL_H */
