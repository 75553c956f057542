// Blocking put, get and memset: a copy into or out of the peer's mapping
// where this process maps its segment, else through the transport
// (rma/remote.hpp); complete when the call returns.
// `api` names the caller in errors; `op` is the form the trace and the
// statistics show (PUT, PUT_NB, PUT_NBI, ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/runtime.hpp"
#include "rma/remote.hpp"
#include "util/copy.hpp"
#include "util/trace.hpp"

namespace gexx::rma {

// Inline: these are the whole cost of a small put or get on this host.
inline void copy_put(const char *api, uint32_t rank, void *dest, const void *src, size_t nbytes) {
  if (nbytes == 0) return;
  if (char *p = core::Runtime::get(api).locate(api, rank, dest, nbytes)) [[likely]]
    util::put_copy(p, src, nbytes);
  else
    remote_put(rank, dest, src, nbytes);
}
inline void copy_get(const char *api, void *dest, uint32_t rank, const void *src, size_t nbytes) {
  if (nbytes == 0) return;
  if (const char *p = core::Runtime::get(api).locate(api, rank, src, nbytes)) [[likely]]
    util::get_copy(dest, p, nbytes);
  else
    remote_get(dest, rank, src, nbytes);
}

// The same, timed and recorded (GASNET_TRACEFILE, GASNET_STATSFILE).
void traced_put(const char *api, trace::Op op, uint32_t rank, void *dest, const void *src,
                size_t nbytes);
void traced_get(const char *api, trace::Op op, void *dest, uint32_t rank, const void *src,
                size_t nbytes);

inline void put_blocking(const char *api, trace::Op op, uint32_t rank, void *dest, const void *src,
                         size_t nbytes) {
  if (trace::active(trace::kPut)) return traced_put(api, op, rank, dest, src, nbytes);
  copy_put(api, rank, dest, src, nbytes);
}

inline void get_blocking(const char *api, trace::Op op, void *dest, uint32_t rank, const void *src,
                         size_t nbytes) {
  if (trace::active(trace::kGet)) return traced_get(api, op, dest, rank, src, nbytes);
  copy_get(api, dest, rank, src, nbytes);
}
void memset_blocking(const char *api, trace::Op op, uint32_t rank, void *dest, int value,
                     size_t nbytes);

// Value forms move the low-order `nbytes` bytes of a register-sized value.
void put_value(const char *api, trace::Op op, uint32_t rank, void *dest, uint64_t value,
               size_t nbytes);
uint64_t get_value(const char *api, trace::Op op, uint32_t rank, const void *src, size_t nbytes);

}  // namespace gexx::rma
