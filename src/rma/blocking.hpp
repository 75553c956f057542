// Blocking put and get: on a host whose segments are cross-mapped, a copy
// into or out of the peer's mapping. `api` names the caller in errors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gexx::rma {

void put_blocking(const char *api, uint32_t rank, void *dest, const void *src, size_t nbytes);
void get_blocking(const char *api, void *dest, uint32_t rank, const void *src, size_t nbytes);

}  // namespace gexx::rma
