/* gexx_coll_g1.h: the GASNet-1 collectives (gasnet_coll_*), included by
 * gasnet_coll.h; not for inclusion on its own.
 *
 * The names, types and flag values are those of GASNet 1.29's and GASNet-EX
 * 2020.10's gasnet_coll.h; the semantics are those of GASNet's collectives
 * notes (docs/gasnet1-collectives.md says what gexx does). As in GASNet-EX,
 * a collective handle is a gex_Event_t and the sync calls are the
 * gex_Event_* calls. One image per process; the whole-job team only. */
#ifndef GEXX_COLL_G1_H
#define GEXX_COLL_G1_H

#ifndef GASNET_COLL_H
#error "gexx: include <gasnet_coll.h>, not <gexx_coll_g1.h>"
#endif

GEXX_BEGIN_EXTERNC

/* Flags of the data-movement and computational collectives. Exactly one
 * IN_ sync flag, one OUT_ sync flag and one of SINGLE / LOCAL. */
#define GASNET_COLL_IN_NOSYNC (1 << 0)
#define GASNET_COLL_IN_MYSYNC (1 << 1)
#define GASNET_COLL_IN_ALLSYNC (1 << 2)
#define GASNET_COLL_OUT_NOSYNC (1 << 3)
#define GASNET_COLL_OUT_MYSYNC (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC (1 << 5)
#define GASNET_COLL_SYNC_FLAG_MASK (0x3F)

#define GASNET_COLL_SINGLE (1 << 6)
#define GASNET_COLL_LOCAL (1 << 7)
#define GASNET_COLL_AGGREGATE (1 << 8)
#define GASNET_COLL_FIXED_THREADS_PER_NODE (1 << 9)
#define GASNET_COLL_DST_IN_SEGMENT (1 << 10)
#define GASNET_COLL_SRC_IN_SEGMENT (1 << 11)
#define GASNET_COLL_DISABLE_AUTOTUNE (1 << 18)
#define GASNET_COLL_NO_IMAGES (1 << 19)

/* Flags of a reduction function (gasnet_coll_fn_entry_t.flags). */
#define GASNET_COLL_AMSAFE (1 << 0)
#define GASNET_COLL_NONCOMM (1 << 1)

/* gasnet_image_t, the reduction function types and gasnet_coll_init are
 * in gexx_legacy.h (part of gasnetex.h and gasnet.h). */

/* A collective's handle is an event: sync it with gasnet_coll_wait_sync /
 * try_sync (the gex_Event_* calls). */
typedef gex_Event_t gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE GEX_EVENT_INVALID

/* Teams: the whole job only. */
struct gexx_g1_team_s;
typedef struct gexx_g1_team_s *gasnet_team_handle_t;
extern struct gexx_g1_team_s gexx_g1_team_all;
#define GASNET_TEAM_ALL (&gexx_g1_team_all)

/* Syncs (GASNet-EX's redirects). */
#define gasnet_coll_try_sync(event) gex_Event_Test(event)
#define gasnet_coll_try_sync_some(pevent, numevents) gex_Event_TestSome(pevent, numevents, 0)
#define gasnet_coll_try_sync_all(pevent, numevents) gex_Event_TestAll(pevent, numevents, 0)
#define gasnet_coll_wait_sync(event) gex_Event_Wait(event)
#define gasnet_coll_wait_sync_some(pevent, numevents) gex_Event_WaitSome(pevent, numevents, 0)
#define gasnet_coll_wait_sync_all(pevent, numevents) gex_Event_WaitAll(pevent, numevents, 0)

/* The team barrier: GASNet-1's split-phase barrier on the team. */
extern void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id);

/* Data movement. src/dst: one address; the M forms take address lists
 * (SINGLE: one per image of the team; LOCAL: this process's images). */
extern gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                                     gasnet_image_t srcimage, void *src,
                                                     size_t nbytes, int flags);
extern void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                  void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_broadcastM_nb(gasnet_team_handle_t team,
                                                      void *const dstlist[],
                                                      gasnet_image_t srcimage, void *src,
                                                      size_t nbytes, int flags);
extern void gasnet_coll_broadcastM(gasnet_team_handle_t team, void *const dstlist[],
                                   gasnet_image_t srcimage, void *src, size_t nbytes, int flags);

extern gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                                   gasnet_image_t srcimage, void *src,
                                                   size_t nbytes, int flags);
extern void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_scatterM_nb(gasnet_team_handle_t team,
                                                    void *const dstlist[], gasnet_image_t srcimage,
                                                    void *src, size_t nbytes, int flags);
extern void gasnet_coll_scatterM(gasnet_team_handle_t team, void *const dstlist[],
                                 gasnet_image_t srcimage, void *src, size_t nbytes, int flags);

extern gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team,
                                                  gasnet_image_t dstimage, void *dst, void *src,
                                                  size_t nbytes, int flags);
extern void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                               void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gatherM_nb(gasnet_team_handle_t team,
                                                   gasnet_image_t dstimage, void *dst,
                                                   void *const srclist[], size_t nbytes, int flags);
extern void gasnet_coll_gatherM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                                void *const srclist[], size_t nbytes, int flags);

extern gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst,
                                                      void *src, size_t nbytes, int flags);
extern void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                   int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_allM_nb(gasnet_team_handle_t team,
                                                       void *const dstlist[], void *const srclist[],
                                                       size_t nbytes, int flags);
extern void gasnet_coll_gather_allM(gasnet_team_handle_t team, void *const dstlist[],
                                    void *const srclist[], size_t nbytes, int flags);

extern gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src,
                                                    size_t nbytes, int flags);
extern void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                 int flags);
extern gasnet_coll_handle_t gasnet_coll_exchangeM_nb(gasnet_team_handle_t team,
                                                     void *const dstlist[], void *const srclist[],
                                                     size_t nbytes, int flags);
extern void gasnet_coll_exchangeM(gasnet_team_handle_t team, void *const dstlist[],
                                  void *const srclist[], size_t nbytes, int flags);

/* Element-wise reduction (as GASNet 1.x implements it): every image
 * contributes elem_count elements of elem_size bytes at src; dst on dstimage
 * gets, for each element, the images' values folded in image order with
 * fn_tbl[func] (called with result_count == left_count). src_blksz and
 * src_offset must be 0. */
extern gasnet_coll_handle_t gasnet_coll_reduce_nb(gasnet_team_handle_t team,
                                                  gasnet_image_t dstimage, void *dst, void *src,
                                                  size_t src_blksz, size_t src_offset,
                                                  size_t elem_size, size_t elem_count,
                                                  gasnet_coll_fn_handle_t func, int func_arg,
                                                  int flags);
extern void gasnet_coll_reduce(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                               void *src, size_t src_blksz, size_t src_offset, size_t elem_size,
                               size_t elem_count, gasnet_coll_fn_handle_t func, int func_arg,
                               int flags);
extern gasnet_coll_handle_t gasnet_coll_reduceM_nb(gasnet_team_handle_t team,
                                                   gasnet_image_t dstimage, void *dst,
                                                   void *const srclist[], size_t src_blksz,
                                                   size_t src_offset, size_t elem_size,
                                                   size_t elem_count, gasnet_coll_fn_handle_t func,
                                                   int func_arg, int flags);
extern void gasnet_coll_reduceM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                                void *const srclist[], size_t src_blksz, size_t src_offset,
                                size_t elem_size, size_t elem_count, gasnet_coll_fn_handle_t func,
                                int func_arg, int flags);

/* Tuning: gexx's collectives have no tunable parameters and keep no
 * profile, so there is no state to dump. With a file name, rank 0 writes a
 * file saying so; with NULL (no file named) nothing is written. Other
 * tuning entry points (gasnet_coll_loadTuningState, the tree and
 * dissemination setters, autotuning) are not provided. */
extern void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team);

GEXX_END_EXTERNC

#endif /* GEXX_COLL_G1_H */
