/* gasnet.h: the GASNet-1 API of gexx, written on the GASNet-EX objects.
 *
 * A client defines exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR
 * before including this header (the installed .mak, .pc and CMake package
 * add it).
 */
#ifndef GASNET_H
#define GASNET_H
#define _INCLUDED_GASNET_H

#ifdef _INCLUDED_GASNET_TOOLS_H
#error "gexx: include gasnet.h before gasnet_tools.h"
#endif

#include <gasnetex.h>
#include <gasnet_core.h>

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

extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- job control ---- */
extern int gasnet_init(int *argc, char ***argv);
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                         uintptr_t minheapoffset);
extern GEXX_NORETURN void gasnet_exit(int exitcode);
extern gasnet_node_t gasnet_mynode(void);
extern gasnet_node_t gasnet_nodes(void);
extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);
extern char *gasnet_getenv(const char *name);
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                                   gex_Segment_t *segment_p);

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

#endif /* GASNET_H */
