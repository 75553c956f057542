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

// A GASNet-1 try call polls once, then tests (an EX test returns 0 when done).
int ready(int ex_result) {
  return ex_result == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}

// What each call is named in errors and the trace.
constexpr Call k_gasnet_put{"gasnet_put", Op::Put};
constexpr Call k_gasnet_put_bulk{"gasnet_put_bulk", Op::Put};
constexpr Call k_gasnet_get{"gasnet_get", Op::Get};
constexpr Call k_gasnet_get_bulk{"gasnet_get_bulk", Op::Get};
constexpr Call k_gasnet_put_nb{"gasnet_put_nb", Op::PutNB};
constexpr Call k_gasnet_put_nb_bulk{"gasnet_put_nb_bulk", Op::PutNB};
constexpr Call k_gasnet_get_nb{"gasnet_get_nb", Op::GetNB};
constexpr Call k_gasnet_get_nb_bulk{"gasnet_get_nb_bulk", Op::GetNB};
constexpr Call k_gasnet_put_nbi{"gasnet_put_nbi", Op::PutNBI};
constexpr Call k_gasnet_put_nbi_bulk{"gasnet_put_nbi_bulk", Op::PutNBI};
constexpr Call k_gasnet_get_nbi{"gasnet_get_nbi", Op::GetNBI};
constexpr Call k_gasnet_get_nbi_bulk{"gasnet_get_nbi_bulk", Op::GetNBI};
constexpr Call k_gasnet_put_val{"gasnet_put_val", Op::Put};
constexpr Call k_gasnet_put_nb_val{"gasnet_put_nb_val", Op::PutNB};
constexpr Call k_gasnet_put_nbi_val{"gasnet_put_nbi_val", Op::PutNBI};
constexpr Call k_gasnet_get_val{"gasnet_get_val", Op::Get};
constexpr Call k_gasnet_get_nb_val{"gasnet_get_nb_val", Op::GetNB};
constexpr Call k_gasnet_memset{"gasnet_memset", Op::Memset};
constexpr Call k_gasnet_memset_nb{"gasnet_memset_nb", Op::MemsetNB};
constexpr Call k_gasnet_memset_nbi{"gasnet_memset_nbi", Op::MemsetNBI};

}  // namespace

extern "C" {

void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_blocking(k_gasnet_put, node, dest, src, nbytes);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_blocking(k_gasnet_put_bulk, node, dest, src, nbytes);
}
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_blocking(k_gasnet_get, dest, node, src, nbytes);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_blocking(k_gasnet_get_bulk, dest, node, src, nbytes);
}

gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gexx::capi::put_nb(k_gasnet_put_nb, node, dest, src, nbytes, GEX_EVENT_NOW);
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gexx::capi::put_nb(k_gasnet_put_nb_bulk, node, dest, src, nbytes, GEX_EVENT_DEFER);
}
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_nb(k_gasnet_get_nb, dest, node, src, nbytes);
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_nb(k_gasnet_get_nb_bulk, dest, node, src, nbytes);
}
void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_nbi(k_gasnet_put_nbi, node, dest, src, nbytes, GEX_EVENT_NOW);
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gexx::capi::put_nbi(k_gasnet_put_nbi_bulk, node, dest, src, nbytes, GEX_EVENT_DEFER);
}
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_nbi(k_gasnet_get_nbi, dest, node, src, nbytes);
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gexx::capi::get_nbi(k_gasnet_get_nbi_bulk, dest, node, src, nbytes);
}

void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  gexx::capi::put_value(k_gasnet_put_val, node, dest, value, nbytes);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                                  size_t nbytes) {
  gexx::capi::put_value(k_gasnet_put_nb_val, node, dest, value, nbytes);
  return GASNET_INVALID_HANDLE;
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                        size_t nbytes) {
  gexx::capi::put_value(k_gasnet_put_nbi_val, node, dest, value, nbytes);
}
gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_value(k_gasnet_get_val, node, src, nbytes);
}
// The value handle is the value itself: the get completes at initiation.
gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::capi::get_value(k_gasnet_get_nb_val, node, src, nbytes);
}
gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle) {
  return handle;
}

// EX has no memset: these complete before they return.
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::capi::memset(k_gasnet_memset, node, dest, val, nbytes);
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::capi::memset(k_gasnet_memset_nb, node, dest, val, nbytes);
  return GASNET_INVALID_HANDLE;
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::capi::memset(k_gasnet_memset_nbi, node, dest, val, nbytes);
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
