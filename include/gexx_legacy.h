/* gexx_legacy.h: the GASNet-1 API of gexx, written on the GASNet-EX objects.
 * Part of gasnetex.h (as in GASNet-EX, including gasnetex.h gives the
 * legacy API too); clients include gasnetex.h or gasnet.h, not this file. */
#ifndef GEXX_LEGACY_H
#define GEXX_LEGACY_H

#ifndef GASNETEX_H
#error "gexx: include gasnetex.h or gasnet.h, not gexx_legacy.h"
#endif

GEXX_BEGIN_EXTERNC

/* ---- types ---- */
typedef gex_Rank_t gasnet_node_t;
typedef uint8_t gasnet_handler_t;
typedef gex_Token_t gasnet_token_t;
typedef int32_t gasnet_handlerarg_t;
typedef gex_Event_t gasnet_handle_t;
typedef uintptr_t gasnet_register_value_t;
typedef void *gasnet_threadinfo_t;
#define GASNET_INVALID_HANDLE ((gasnet_handle_t)0)

typedef struct {
  gasnet_handler_t index; /* 0: let gexx pick a free index and write it back */
  void (*fnptr)();
} gasnet_handlerentry_t;

typedef struct {
  void *addr;
  uintptr_t size;
} gasnet_seginfo_t;

typedef struct {
  gasnet_node_t host;      /* index of the node's host */
  gasnet_node_t supernode; /* index of its shared-memory neighbourhood */
  intptr_t offset;         /* local address of its segment minus its own address */
} gasnet_nodeinfo_t;

typedef struct {
  void *addr;
  size_t len;
} gasnet_memvec_t;

#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
/* An unnamed barrier: matches any name and any anonymous barrier (gexx
 * treats it as anonymous). */
#define GASNET_BARRIERFLAG_UNNAMED 4

/* Thread-information hints of the GASNet-1 spec: a function that makes
 * several GASNet calls may say GASNET_BEGIN_FUNCTION() once at its top, and
 * GASNET_POST_THREADINFO(info) hands a handle got by GASNET_GET_THREADINFO()
 * down to the calls of its scope. gexx keeps its per-thread state in
 * thread-local storage, so the handle is only carried. */
#define GASNET_GET_THREADINFO() ((gasnet_threadinfo_t)0)
#define GASNET_POST_THREADINFO(info) \
  gasnet_threadinfo_t gexx_threadinfo_posted_ GASNETT_UNUSED = (info)
#define GASNET_BEGIN_FUNCTION() GASNET_POST_THREADINFO(GASNET_GET_THREADINFO())

extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- job control ---- */
extern int gasnet_init(int *argc, char ***argv);
/* gasnet_init, named for the client's thread mode (see gex_Client_Init). */
extern int GEXX_INIT_FN(int *argc, char ***argv);
#define gasnet_init(argc, argv) GEXX_INIT_FN(argc, argv)
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                         uintptr_t minheapoffset);
extern GEXX_NORETURN void gasnet_exit(int exitcode);
extern gasnet_node_t gasnet_mynode(void);
extern gasnet_node_t gasnet_nodes(void);
/* The names GASNet's own tests read the two values by. */
#define gasneti_mynode (gasnet_mynode())
#define gasneti_nodes (gasnet_nodes())
extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);
extern char *gasnet_getenv(const char *name);
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                                   gex_Segment_t *segment_p);

/* ---- active messages ----
 * Handlers: Short  void fn(gasnet_token_t t, gasnet_handlerarg_t a0, ...);
 *           Medium/Long  void fn(gasnet_token_t t, void *buf, size_t nbytes, a0, ...)
 * Call the numbered forms: gasnet_AMRequestShort2(node, handler, a0, a1). */
extern size_t gasnet_AMMaxArgs(void);
extern size_t gasnet_AMMaxMedium(void);
extern size_t gasnet_AMMaxLongRequest(void);
extern size_t gasnet_AMMaxLongReply(void);
extern int gasnet_AMPoll(void);
/* gasnet_AMPoll() as a call to gexx_AMPoll, which polls with no frame of its
 * own (the hot path of upcxx::progress and of every client's poll loop);
 * &gasnet_AMPoll and (gasnet_AMPoll)() are the library's function. */
extern void gexx_AMPoll(void);
static inline int gexx_AMPoll_(void) {
  gexx_AMPoll();
  return GASNET_OK;
}
#define gasnet_AMPoll() gexx_AMPoll_()
extern int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex);
/* Polls until cond holds, yielding the CPU as gasnet_set_waitmode and an
 * oversubscribed host ask (gexx_wait_relax keeps its spin count in *spins). */
extern void gexx_wait_relax(unsigned *spins);
#define GASNET_BLOCKUNTIL(cond)      \
  do {                               \
    unsigned gexx_spins_ = 0;        \
    while (!(cond)) {                \
      gasnet_AMPoll();               \
      gexx_wait_relax(&gexx_spins_); \
    }                                \
  } while (0)

extern int gexx_AMRequestShort(gasnet_node_t dest, gasnet_handler_t handler, unsigned int numargs,
                               ...);
extern int gexx_AMRequestMedium(gasnet_node_t dest, gasnet_handler_t handler, void *src,
                                size_t nbytes, unsigned int numargs, ...);
extern int gexx_AMRequestLong(gasnet_node_t dest, gasnet_handler_t handler, void *src,
                              size_t nbytes, void *dest_addr, unsigned int numargs, ...);
extern int gexx_AMRequestLongAsync(gasnet_node_t dest, gasnet_handler_t handler, void *src,
                                   size_t nbytes, void *dest_addr, unsigned int numargs, ...);
extern int gexx_AMReplyShort(gasnet_token_t token, gasnet_handler_t handler, unsigned int numargs,
                             ...);
extern int gexx_AMReplyMedium(gasnet_token_t token, gasnet_handler_t handler, void *src,
                              size_t nbytes, unsigned int numargs, ...);
extern int gexx_AMReplyLong(gasnet_token_t token, gasnet_handler_t handler, void *src,
                            size_t nbytes, void *dest_addr, unsigned int numargs, ...);

/* Handler-safe locks: a handler may take one and must release it before it
 * returns; while it is held no AM may be sent. */
typedef gex_HSL_t gasnet_hsl_t;
#define GASNET_HSL_INITIALIZER GEX_HSL_INITIALIZER
extern void gasnet_hsl_init(gasnet_hsl_t *hsl);
extern void gasnet_hsl_destroy(gasnet_hsl_t *hsl);
extern void gasnet_hsl_lock(gasnet_hsl_t *hsl);
extern void gasnet_hsl_unlock(gasnet_hsl_t *hsl);
extern int gasnet_hsl_trylock(gasnet_hsl_t *hsl); /* GASNET_OK or GASNET_ERR_NOT_READY */

/* gexx delivers AMs inside calls that poll (and on the GASNET_RCV_THREAD
 * progress thread), never by interrupt, so holding interrupts has nothing to
 * hold; the pair is checked for balance. */
extern void gasnet_hold_interrupts(void);
extern void gasnet_resume_interrupts(void);

#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2
extern int gasnet_set_waitmode(int wait_mode);

/* Splitting 64-bit values (pointers) into two handler arguments and back. */
#define GASNETI_HIWORD(arg) ((uint32_t)(((uint64_t)(uintptr_t)(arg)) >> 32))
#define GASNETI_LOWORD(arg) ((uint32_t)((uint64_t)(uintptr_t)(arg)))
#define GASNETI_MAKEWORD(hi, lo) \
  ((uint64_t)((((uint64_t)(uint32_t)(hi)) << 32) | ((uint64_t)(uint32_t)(lo))))

/* ---- barriers ---- */
extern void gasnet_barrier_notify(int id, int flags);
extern int gasnet_barrier_wait(int id, int flags);
extern int gasnet_barrier_try(int id, int flags);
extern int gasnet_barrier(int id, int flags);
/* Of the last completed barrier: non-zero if it was anonymous, else 0 with
 * *id set to its name. */
extern int gasnet_barrier_result(int *id);

/* ---- put, get and memset (the remote range must be in the node's segment) ---- */
typedef uintptr_t gasnet_valget_handle_t; /* carries the completed value */

extern void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);

extern void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                           size_t nbytes);
extern gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                         gasnet_register_value_t value, size_t nbytes);
extern void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                               size_t nbytes);
extern gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle);

extern void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- collectives set-up (GASNet-1) ----
 * Collective, at most once, after gasnet_attach and before any other
 * gasnet_coll_* call. images must be NULL (one image per process); fn_tbl
 * lists the reduction functions gasnet_coll_reduce names by index. The
 * collectives themselves are in gasnet_coll.h (gexx_coll_g1.h). */
typedef uint32_t gasnet_image_t;
typedef int32_t gasnet_coll_fn_handle_t;
/* gasnet_coll_reduce calls it element-wise: results[i] = left_operands[i]
 * op right_operands[i] for i < result_count (== left_count). */
typedef void (*gasnet_coll_reduce_fn_t)(void *results, size_t result_count,
                                        const void *left_operands, size_t left_count,
                                        const void *right_operands, size_t elem_size, int flags,
                                        int arg);
typedef struct {
  gasnet_coll_reduce_fn_t fnptr;
  unsigned int flags;
} gasnet_coll_fn_entry_t;
extern void gasnet_coll_init(const gasnet_image_t images[], gasnet_image_t my_image,
                             gasnet_coll_fn_entry_t fn_tbl[], size_t fn_count, int init_flags);

/* ---- synchronisation ---- */
extern void gasnet_wait_syncnb(gasnet_handle_t handle);
extern int gasnet_try_syncnb(gasnet_handle_t handle);
extern void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles);
extern int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles);
extern void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles);
extern int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles);
extern void gasnet_wait_syncnbi_gets(void);
extern void gasnet_wait_syncnbi_puts(void);
extern void gasnet_wait_syncnbi_all(void);
extern int gasnet_try_syncnbi_gets(void);
extern int gasnet_try_syncnbi_puts(void);
extern int gasnet_try_syncnbi_all(void);
extern void gasnet_begin_nbi_accessregion(void);
extern gasnet_handle_t gasnet_end_nbi_accessregion(void);

GEXX_END_EXTERNC

#include <gexx_am_g1.h>

#endif /* GEXX_LEGACY_H */
