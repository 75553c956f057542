// An AmHeader as the smp queues' 64-byte slots (AmRingSlot, AmLaneSlot)
// hold it: the same fields, narrowed, packed with the slot's own so that a
// header and its first arguments fill one cache line. The flags share the
// category's byte (a category needs two bits, the flags four).
#pragma once

#include <cstdint>

#include "transport/transport.hpp"

namespace gexx::transport::smp {

// Asks for the line holding p in a state this core may write, ahead of the
// stores (a hint: no effect on what memory holds).
inline void prefetch_for_write(const void *p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char *>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

template <typename Slot>
void store_header(Slot &s, const AmHeader &h) {
  s.kind = h.kind;
  s.category = static_cast<uint8_t>(h.category | (h.flags & wire::kFlagsMask) << 4);
  s.handler = h.handler;
  s.nargs = h.nargs;
  s.src = h.src;
  s.credits = static_cast<uint16_t>(h.credits);  // at most 1 + the credits toward one peer
  s.nbytes = h.nbytes;
  s.dest = h.dest;
}

template <typename Slot>
AmHeader load_header(const Slot &s) {
  AmHeader h;
  h.kind = s.kind;
  h.category = s.category & 0x0F;
  h.flags = static_cast<uint8_t>(s.category >> 4);
  h.handler = s.handler;
  h.nargs = s.nargs;
  h.src = s.src;
  h.credits = s.credits;
  h.nbytes = s.nbytes;
  h.dest = s.dest;
  return h;
}

}  // namespace gexx::transport::smp
