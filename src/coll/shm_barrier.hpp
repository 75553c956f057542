// A split-phase barrier among the ranks of one host, in shared memory.
//
// Each rank publishes its (id, flags) and counts itself in; the last to
// arrive combines every rank's value with GASNet's barrier rules and opens
// the next generation. Values combine as: any MISMATCH flag wins; an
// anonymous value takes the other's; two named values with different ids
// are a mismatch.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gexx::coll {

struct BarrierValue {
  int32_t id = 0;
  uint32_t flags = 0;  // GASNET_BARRIERFLAG_* bits
};

BarrierValue combine(BarrierValue a, BarrierValue b);

class ShmBarrier {
 public:
  static size_t area_size(uint32_t ranks);
  static void init_area(void *area, uint32_t ranks, bool creator);

  ShmBarrier(void *area, uint32_t rank, uint32_t ranks);

  // Arrives with `v`; returns the generation it completes.
  uint64_t arrive(BarrierValue v);
  // True once generation `gen` has completed.
  bool done(uint64_t gen) const {
    return static_cast<int64_t>(hdr_->generation.load(std::memory_order_acquire) - gen) >= 0;
  }
  // The combined value of the most recently completed generation.
  BarrierValue result() const;

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> value;
  };
  struct Header {
    alignas(64) std::atomic<uint32_t> arrived;
    alignas(64) std::atomic<uint64_t> generation;
    std::atomic<uint64_t> result;
    uint32_t ranks;
  };

  Header *hdr_;
  Slot *slots_;
  uint32_t rank_, ranks_;
  uint64_t my_generation_ = 0;
};

}  // namespace gexx::coll
