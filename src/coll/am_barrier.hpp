// A split-phase barrier over active messages, for jobs whose ranks do not
// all share this host's shared memory.
//
// Dissemination: in round k rank r sends the value it has combined so far to
// (r + 2^k) mod n in an AM Short request and combines the one that
// (r - 2^k) mod n sent it; after ceil(log2 n) rounds every rank holds the
// combination of all values. A rank can be one generation ahead of another
// (done with the last one while the other still waits for a message of it),
// never two: a rank finishing generation g needs every rank to have arrived
// in g. So received values are kept by (generation parity, round), tagged
// with their generation.
//
// Threads (GASNET_PAR, GASNET_RCV_THREAD): the handler only stores into a
// slot, so it never blocks; done() may run on several threads at once and
// one at a time advances (a try-lock) while the others report what is
// complete. A round's request goes out with GEX_FLAG_IMMEDIATE: when no
// credit or room is free, the next done() tries again, so done() never waits.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "coll/split_barrier.hpp"

namespace gexx::core {
class HandlerTable;
namespace am {
class Engine;
}
}  // namespace gexx::core

namespace gexx::coll {

class AmBarrier final : public SplitBarrier {
 public:
  // One round's value as it travels; the low 32 bits of the generation tell
  // two adjacent generations apart.
  struct Message {
    uint32_t gen = 0;
    uint32_t round = 0;
    BarrierValue value;
  };
  // Sends `m` to `peer`; false when it cannot leave now (retried later).
  using Send = std::function<bool(uint32_t peer, const Message &m)>;

  AmBarrier(uint32_t rank, uint32_t ranks, Send send);
  // The job's: rounds travel through `engine` to gexx's internal barrier
  // handler, which this registers in `handlers`. One per process.
  static std::unique_ptr<AmBarrier> over_am(core::am::Engine &engine, core::HandlerTable &handlers,
                                            uint32_t rank, uint32_t ranks);

  uint64_t arrive(BarrierValue v) override;
  bool done(uint64_t gen) override;
  BarrierValue result() const override { return result_; }

  // What the handler does with a message from rank `src`: stores it for
  // the round that consumes it. Never blocks; fatal if `src` is not that
  // round's partner.
  void receive(uint32_t src, const Message &m);

 private:
  struct alignas(64) Slot {
    std::atomic<uint32_t> gen{0};  // the generation `value` belongs to (low bits)
    std::atomic<uint64_t> value{0};
  };
  Slot &slot(uint32_t gen, uint32_t round) { return slots_[(gen & 1) * rounds_ + round]; }
  bool completed(uint64_t gen) const {
    return static_cast<int64_t>(completed_.load(std::memory_order_acquire) - gen) >= 0;
  }
  // The rank this one sends to (direction +1) or hears from (-1) in `round`.
  uint32_t partner(uint32_t round, int direction) const;
  void advance();  // mutex_ held

  Send send_;
  uint32_t rank_, ranks_, rounds_;
  std::unique_ptr<Slot[]> slots_;  // by generation parity, then round
  std::mutex mutex_;               // one thread at a time in arrive/advance
  uint64_t gen_ = 0;               // the generation this rank is in (or finished)
  uint32_t round_ = 0;             // the next round to finish in gen_
  bool sent_ = false;              // this round's value is out
  BarrierValue acc_, result_{0, 1};
  std::atomic<uint64_t> completed_{0};  // the last generation complete here
};

}  // namespace gexx::coll
