// Copies into memory another process may be watching (a put into a mapped
// segment) and out of it (a get).
//
// GASNet's memory model: a blocking put is complete when it returns, so a
// client may put data, then put a flag, and a peer that sees the flag sees
// the data (testacc passes a lock that way). On x86 ordinary stores keep
// that order whatever their width; fast-string (rep movsb) and non-temporal
// stores do not, and the C library's memmove uses them for some sizes (on
// an AMD EPYC with FSRM and AVX-512, glibc 2.36, a memmove put followed by
// a flag put let a peer see the flag first, about once in 10^5 rounds:
// tests/integration/rmaorder.c, job.rma_order_2). So (include/gexx_copy.h,
// shared with the client's inline put and get):
//  * 1, 2, 4 and 8 bytes move as one load and one store of that size (what
//    a typed assignment compiles to; also the cheapest copy there is);
//  * up to GEXX_COPY_INLINE_MAX (8192) bytes, ordinary loads and stores
//    (16-byte vectors up to 128 bytes, above that a call to a 64-byte
//    AVX-512 or a 32-byte AVX2 loop; without AVX2, 16-byte vectors up to
//    2048 bytes): no fence, and as fast as memmove's call at these sizes or
//    faster (bench/copy_bench.c);
//  * a longer put, or one whose ranges overlap, is memmove followed by a
//    store fence, which orders every store of the copy before any later
//    store.
// Loads need nothing: reads through memmove were never seen out of order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gexx_copy.h"

namespace gexx::util {

namespace detail {
template <typename T>
inline void move_one(void *dst, const void *src) {
  T v;
  std::memcpy(&v, src, sizeof v);  // one load (any alignment on x86)
  std::memcpy(dst, &v, sizeof v);  // one store
}

// Returns true when n is one of the sizes moved as a single load and store.
inline bool move_small(void *dst, const void *src, size_t n) {
  switch (n) {
    case 1:
      move_one<uint8_t>(dst, src);
      return true;
    case 2:
      move_one<uint16_t>(dst, src);
      return true;
    case 4:
      move_one<uint32_t>(dst, src);
      return true;
    case 8:
      move_one<uint64_t>(dst, src);
      return true;
    default:
      return false;
  }
}
}  // namespace detail

// Orders the stores before it (a memmove's or memset's included) before
// every store after it.
inline void store_fence() {
  gexx_copy_store_fence_();
}

// A put's copy: its stores are ordered before every later store.
inline void put_copy(void *dst, const void *src, size_t n) {
  if (detail::move_small(dst, src, n)) return;
  gexx_copy_put_(dst, src, n);
}

// A get's copy.
inline void get_copy(void *dst, const void *src, size_t n) {
  if (detail::move_small(dst, src, n)) return;
  gexx_copy_get_(dst, src, n);
}

}  // namespace gexx::util
