// Put, get and memset on a host whose segments are cross-mapped: each is a
// copy into or out of the peer's mapping, complete when the call returns.
// `api` names the caller in errors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gexx::rma {

void put_blocking(const char *api, uint32_t rank, void *dest, const void *src, size_t nbytes);
void get_blocking(const char *api, void *dest, uint32_t rank, const void *src, size_t nbytes);
void memset_blocking(const char *api, uint32_t rank, void *dest, int value, size_t nbytes);

// Value forms move the low-order `nbytes` bytes of a register-sized value.
void put_value(const char *api, uint32_t rank, void *dest, uint64_t value, size_t nbytes);
uint64_t get_value(const char *api, uint32_t rank, const void *src, size_t nbytes);

}  // namespace gexx::rma
