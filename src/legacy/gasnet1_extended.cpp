// The GASNet-1 Extended API (put, get, memset, syncs, access regions),
// written on the GASNet-EX entry points and the rma/ layer.
#include <gasnet.h>

#include "core/progress.hpp"
#include "rma/blocking.hpp"
#include "rma/remote.hpp"

using gexx::rma::get_blocking;
using gexx::rma::put_blocking;
using gexx::trace::Op;

extern "C" {

void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_blocking(__func__, Op::Put, node, dest, src, nbytes);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_blocking(__func__, Op::Put, node, dest, src, nbytes);
}
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_blocking(__func__, Op::Get, dest, node, src, nbytes);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_blocking(__func__, Op::Get, dest, node, src, nbytes);
}

// Transfers complete when the call returns, so handles come back invalid
// (the GASNet-1 value for a completed operation).
gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_blocking(__func__, Op::PutNB, node, dest, src, nbytes);
  return GASNET_INVALID_HANDLE;
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_blocking(__func__, Op::PutNB, node, dest, src, nbytes);
  return GASNET_INVALID_HANDLE;
}
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_blocking(__func__, Op::GetNB, dest, node, src, nbytes);
  return GASNET_INVALID_HANDLE;
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_blocking(__func__, Op::GetNB, dest, node, src, nbytes);
  return GASNET_INVALID_HANDLE;
}
void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_blocking(__func__, Op::PutNBI, node, dest, src, nbytes);
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_blocking(__func__, Op::PutNBI, node, dest, src, nbytes);
}
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_blocking(__func__, Op::GetNBI, dest, node, src, nbytes);
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_blocking(__func__, Op::GetNBI, dest, node, src, nbytes);
}

void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  gexx::rma::put_value(__func__, Op::Put, node, dest, value, nbytes);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                                  size_t nbytes) {
  gexx::rma::put_value(__func__, Op::PutNB, node, dest, value, nbytes);
  return GASNET_INVALID_HANDLE;
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                        size_t nbytes) {
  gexx::rma::put_value(__func__, Op::PutNBI, node, dest, value, nbytes);
}
gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::rma::get_value(__func__, Op::Get, node, src, nbytes);
}
gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  return gexx::rma::get_value(__func__, Op::GetNB, node, src, nbytes);
}
gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle) {
  return handle;
}

void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::rma::memset_blocking(__func__, Op::Memset, node, dest, val, nbytes);
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::rma::memset_blocking(__func__, Op::MemsetNB, node, dest, val, nbytes);
  return GASNET_INVALID_HANDLE;
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gexx::rma::memset_blocking(__func__, Op::MemsetNBI, node, dest, val, nbytes);
}

// Unlike the gex_Event_Test family, GASNet-1's try calls poll.
void gasnet_wait_syncnb(gasnet_handle_t handle) {
  gex_Event_Wait(handle);
}
int gasnet_try_syncnb(gasnet_handle_t handle) {
  gexx::core::poll();
  return gex_Event_Test(handle) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  gex_Event_WaitAll(phandle, numhandles, 0);
}
int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  gexx::core::poll();
  return gex_Event_TestAll(phandle, numhandles, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  gex_Event_WaitSome(phandle, numhandles, 0);
}
int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  gexx::core::poll();
  return gex_Event_TestSome(phandle, numhandles, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
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
  gexx::core::poll();
  return gex_NBI_Test(GEX_EC_GET, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
int gasnet_try_syncnbi_puts(void) {
  gexx::core::poll();
  return gex_NBI_Test(GEX_EC_PUT, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
int gasnet_try_syncnbi_all(void) {
  gexx::core::poll();
  return gex_NBI_Test(GEX_EC_ALL, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gasnet_begin_nbi_accessregion(void) {
  gexx::rma::begin_region(__func__);
}
gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  return gexx::rma::end_region(__func__);
}

}  // extern "C"
