// What every barrier algorithm of the job provides, and the values they
// agree on.
//
// Values combine with GASNet's barrier rules: any MISMATCH flag wins; an
// anonymous value takes the other's; two named values with different ids
// are a mismatch. That combination is idempotent, so the overlapping
// coverage dissemination produces when n is not a power of two is harmless.
#pragma once

#include <cstdint>

namespace gexx::coll {

struct BarrierValue {
  int32_t id = 0;
  uint32_t flags = 0;  // GASNET_BARRIERFLAG_* bits
};

inline BarrierValue combine(BarrierValue a, BarrierValue b) {
  constexpr uint32_t kAnonymous = 1;  // GASNET_BARRIERFLAG_ANONYMOUS
  constexpr uint32_t kMismatch = 2;   // GASNET_BARRIERFLAG_MISMATCH
  if ((a.flags | b.flags) & kMismatch) return {0, kMismatch};
  if (a.flags & kAnonymous) return b;
  if (b.flags & kAnonymous) return a;
  if (a.id != b.id) return {0, kMismatch};
  return a;
}

// One word, for atomics.
inline uint64_t pack(BarrierValue v) {
  return static_cast<uint64_t>(v.flags) << 32 | static_cast<uint32_t>(v.id);
}
inline BarrierValue unpack(uint64_t w) {
  return {static_cast<int32_t>(static_cast<uint32_t>(w)), static_cast<uint32_t>(w >> 32)};
}

// Rounds of a dissemination barrier over `ranks`: ceil(log2 ranks).
inline uint32_t dissemination_rounds(uint32_t ranks) {
  uint32_t r = 0;
  while ((1ull << r) < ranks) ++r;
  return r;
}

// A split-phase barrier among all ranks of the job.
class SplitBarrier {
 public:
  virtual ~SplitBarrier() = default;
  // Arrives with `v`; returns the generation it completes. The previous
  // generation must be complete (done() returned true for it).
  virtual uint64_t arrive(BarrierValue v) = 0;
  // Advances this rank's part as far as the others allow, without waiting;
  // true once generation `gen` has completed here.
  virtual bool done(uint64_t gen) = 0;
  // The combined value of the most recently completed generation.
  virtual BarrierValue result() const = 0;
};

}  // namespace gexx::coll
