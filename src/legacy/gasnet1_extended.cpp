// The GASNet-1 Extended API (put, get, memset, syncs, access regions),
// written on the GASNet-EX RMA and event entry points (through the entry
// layer's named forms, capi/entry.hpp, so errors and the trace name the
// GASNet-1 call). NB and NBI forms are as asynchronous as the EX ones:
// toward a network peer they return before the transfer completes, and
// the handle or the NBI sync completes it.
//
// Non-bulk puts may reuse the source at return (GEX_EVENT_NOW); bulk puts
// leave it busy until the sync (GEX_EVENT_DEFER).
#include <gasnet.h>

#include "capi/entry.hpp"
#include "util/trace.hpp"

using gexx::capi::Call;
using gexx::trace::Op;

namespace {

gex_TM_t team(const char *api) {
  return gexx::capi::job_tm(api);
}

// A GASNet-1 try call polls once, then tests (an EX test returns 0 when done).
int ready(int ex_result) {
  return ex_result == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}

}  // namespace

extern "C" {

void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_blocking({__func__, Op::Put}, team(__func__), node, dest, src, nbytes, 0);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_blocking({__func__, Op::Put}, team(__func__), node, dest, src, nbytes, 0);
}
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_blocking({__func__, Op::Get}, team(__func__), dest, node, src, nbytes, 0);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_blocking({__func__, Op::Get}, team(__func__), dest, node, src, nbytes, 0);
}

gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gexx::capi::put_nb({__func__, Op::PutNB}, team(__func__), node, dest, src, nbytes,
                            GEX_EVENT_NOW, 0);
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gexx::capi::put_nb({__func__, Op::PutNB}, team(__func__), node, dest, src, nbytes,
                            GEX_EVENT_DEFER, 0);
}
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_nb({__func__, Op::GetNB}, team(__func__), dest, node, src, nbytes, 0);
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_nb({__func__, Op::GetNB}, team(__func__), dest, node, src, nbytes, 0);
}
void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_nbi({__func__, Op::PutNBI}, team(__func__), node, dest, src, nbytes,
                      GEX_EVENT_NOW, 0);
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_nbi({__func__, Op::PutNBI}, team(__func__), node, dest, src, nbytes,
                      GEX_EVENT_DEFER, 0);
}
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_nbi({__func__, Op::GetNBI}, team(__func__), dest, node, src, nbytes, 0);
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_nbi({__func__, Op::GetNBI}, team(__func__), dest, node, src, nbytes, 0);
}

void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  gexx::capi::put_value({__func__, Op::Put}, team(__func__), node, dest, value, nbytes, 0);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                                  size_t nbytes) {
  gexx::capi::put_value({__func__, Op::PutNB}, team(__func__), node, dest, value, nbytes, 0);
  return GASNET_INVALID_HANDLE;
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                        size_t nbytes) {
  gexx::capi::put_value({__func__, Op::PutNBI}, team(__func__), node, dest, value, nbytes, 0);
}
gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_value({__func__, Op::Get}, team(__func__), node, src, nbytes, 0);
}
// The value handle is the value itself: the get completes at initiation.
gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_value({__func__, Op::GetNB}, team(__func__), node, src, nbytes, 0);
}
gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle) {
  return handle;
}

// EX has no memset: these complete before they return.
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::capi::memset({__func__, Op::Memset}, team(__func__), node, dest, val, nbytes);
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::capi::memset({__func__, Op::MemsetNB}, team(__func__), node, dest, val, nbytes);
  return GASNET_INVALID_HANDLE;
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::capi::memset({__func__, Op::MemsetNBI}, team(__func__), node, dest, val, nbytes);
}

// Unlike the gex_Event_Test family, GASNet-1's try calls poll.
void gasnet_wait_syncnb(gasnet_handle_t handle) {
  gex_Event_Wait(handle);
}
int gasnet_try_syncnb(gasnet_handle_t handle) {
  gexx::capi::poll(__func__);
  return ready(gex_Event_Test(handle));
}
void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  gex_Event_WaitAll(phandle, numhandles, 0);
}
int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  gexx::capi::poll(__func__);
  return ready(gex_Event_TestAll(phandle, numhandles, 0));
}
void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  gex_Event_WaitSome(phandle, numhandles, 0);
}
int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  gexx::capi::poll(__func__);
  return ready(gex_Event_TestSome(phandle, numhandles, 0));
}

void gasnet_wait_syncnbi_gets(void) {
  gex_NBI_Wait(GEX_EC_GET, 0);
}
void gasnet_wait_syncnbi_puts(void) {
  gex_NBI_Wait(GEX_EC_PUT, 0);
}
void gasnet_wait_syncnbi_all(void) {
  gex_NBI_Wait(GEX_EC_ALL, 0);
}
int gasnet_try_syncnbi_gets(void) {
  gexx::capi::poll(__func__);
  return ready(gex_NBI_Test(GEX_EC_GET, 0));
}
int gasnet_try_syncnbi_puts(void) {
  gexx::capi::poll(__func__);
  return ready(gex_NBI_Test(GEX_EC_PUT, 0));
}
int gasnet_try_syncnbi_all(void) {
  gexx::capi::poll(__func__);
  return ready(gex_NBI_Test(GEX_EC_ALL, 0));
}
void gasnet_begin_nbi_accessregion(void) {
  gexx::capi::begin_region(__func__);
}
gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  return gexx::capi::end_region(__func__);
}

}  // extern "C"
