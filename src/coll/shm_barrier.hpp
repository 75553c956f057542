// A split-phase barrier among the ranks of one host, in shared memory.
//
// Dissemination: in round r each rank publishes the value it has gathered so
// far in its own cache line and combines the value of rank (me - 2^r) mod n.
// After ceil(log2 n) rounds every rank holds the combination of all values,
// at a cost of one cache-line transfer per round on the critical path.
// When the host has more ranks than cores, ranks that wait are often not
// running, so a second algorithm serves instead: one shared word holds the
// arrival count and the value combined so far, and the last rank to arrive
// completes the generation for everyone. The creator of the area picks the
// algorithm (GASNET_BARRIER), so every rank uses the same one.
//
// The area is part of the host area a transport provides (zeroed shared
// memory of the size asked for at open); its layout is this class's alone.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "coll/split_barrier.hpp"

namespace gexx::bootstrap {
class Bootstrap;
}

namespace gexx::coll {

class ShmBarrier final : public SplitBarrier {
 public:
  static size_t area_size(uint32_t ranks);
  static void init_area(void *area, uint32_t ranks, bool creator, bool central);
  // Collective over the job, every rank of which maps `area` (area_size(ranks)
  // bytes, zeroed): rank 0 lays it out with the algorithm GASNET_BARRIER names
  // ("auto": central when the host has more ranks than cores), then each
  // rank attaches once all may.
  static std::unique_ptr<ShmBarrier> open(bootstrap::Bootstrap &boot, void *area, uint32_t rank,
                                          uint32_t ranks, bool oversubscribed);

  ShmBarrier(void *area, uint32_t rank, uint32_t ranks);
  // The algorithm the area's creator chose: one shared word, or dissemination.
  bool central() const { return central_; }

  uint64_t arrive(BarrierValue v) override;
  bool done(uint64_t gen) override;
  BarrierValue result() const override { return result_; }

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> gen;
    std::atomic<uint64_t> value;
  };
  struct alignas(64) Header {
    uint32_t central;              // 1: the shared-word algorithm
    std::atomic<uint64_t> state;   // central: generation, count and value so far
    std::atomic<uint64_t> result;  // central: the value of the last generation
  };
  Slot &slot(uint64_t gen, uint32_t rank, uint32_t round) const {
    return slots_[((gen & 1) * ranks_ + rank) * rounds_ + round];
  }
  void publish();
  void arrive_central(BarrierValue v);

  Header *hdr_;
  Slot *slots_;
  bool central_;
  uint64_t central_gen_ = 0;  // the shared generation this rank arrived in
  uint32_t rank_, ranks_, rounds_;
  uint64_t gen_ = 0;        // the generation this rank is in (or finished)
  uint64_t completed_ = 0;  // the last generation complete here
  uint32_t round_ = 0;      // next round to finish in gen_
  bool published_ = false;  // this round's value is out
  BarrierValue acc_, result_{0, 1};
};

}  // namespace gexx::coll
