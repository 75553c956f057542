// Telling a burst from a lone operation, per thread and target rank: an NB
// or NBI operation toward a network peer that starts within
// util::kBurstGap of the end of this thread's previous such operation
// toward the same rank is part of a burst (a loop issuing them). Its
// request is then deferrable (transport::wire::kDeferrable): the transport
// may hold it to send it with the next ones, until this rank's next poll at
// the latest. The first of a burst, and a lone one, leave at once. The gap
// is measured from the previous call's return to this call's start, so a
// call's own work (packing a VIS call's pieces) does not count.
#pragma once

#include <cstdint>

#include "util/cycle_clock.hpp"

namespace gexx::core::burst {

struct Recent {
  uint32_t rank = UINT32_MAX;
  uint64_t at = 0;
};
// The last rank of each of 16 slots (rank mod 16) and when its operation returned.
inline thread_local Recent t_recent[16];

// At the start of an operation toward `rank`: whether it continues a burst.
inline bool continues(uint32_t rank) {
  const Recent &r = t_recent[rank % 16];
  return r.rank == rank && util::cycle_clock() - r.at < util::kBurstGap;
}
// At its return.
inline void ended(uint32_t rank) {
  t_recent[rank % 16] = Recent{rank, util::cycle_clock()};
}

// An operation toward `rank`: `burst` says whether it continues one; its
// end is noted when the scope closes.
struct Scope {
  explicit Scope(uint32_t r) : rank(r), burst(continues(r)) {}
  ~Scope() { ended(rank); }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
  const uint32_t rank;
  const bool burst;
};

}  // namespace gexx::core::burst
