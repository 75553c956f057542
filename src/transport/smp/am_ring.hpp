// The shared-memory AM queue of one receiver lane: many producers (every
// rank of the host may send), one consumer (the owner).
//
// A ring of 64-byte header slots, each paired with a payload block of
// kBlock bytes in a parallel array. A message takes n consecutive slots: its
// header in the first, its payload across the n blocks (contiguous, never
// wrapping: a producer that would wrap first claims the tail of the ring as a
// skip record). Producers claim slots with a CAS on `tail` and publish by
// storing the record's absolute position + 1 into its first slot's `stamp`
// (release); the consumer, at absolute position `head`, waits for the stamp
// there to read head + 1 (acquire), runs the message and publishes the new
// head. Positions never repeat (64 bits), only first slots are stamped and
// payloads live apart from the slots, so an old stamp or a payload byte can
// never pass for a new message, and the consumer never writes a slot: each
// header line moves once per message, producer to consumer. After each
// commit the producer prefetches for write the slots its next record of the
// same length would take (when free), so that record's stores do not each
// wait for a line the receiver read a lap ago.
//
// The claim is a locked instruction, which waits for the producer's earlier
// stores (the previous header, whose line the receiver has just read) to
// complete; so small messages of senders that inject from one thread at a
// time take per-sender lanes instead (am_lanes.hpp), and the ring carries
// big payloads, GASNET_PAR senders, what finds its lane full, and each
// lane's first message, marked kOpensLane, which tells the receiver to poll
// that lane from then on.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "transport/transport.hpp"

namespace gexx::transport::smp {

struct alignas(64) AmRingSlot {
  std::atomic<uint64_t> stamp;  // position + 1 of the record published here
  uint64_t nbytes;
  uint64_t dest;
  uint32_t src;
  uint16_t nslots;   // slots this record takes
  uint16_t credits;  // at most 1 + kCredits: fits
  uint8_t kind;      // kSkip, or core's message kind (with kOpensLane)
  uint8_t category;  // and the flags (am_header.hpp)
  uint8_t handler;
  uint8_t nargs;
  int32_t args[7];  // the first seven; the rest open the payload block
};
static_assert(sizeof(AmRingSlot) == 64, "one cache line per header");

struct alignas(64) AmRingControl {
  alignas(64) std::atomic<uint64_t> tail;  // next slot to claim (producers)
  alignas(64) std::atomic<uint64_t> head;  // first slot not yet consumed (consumer)
};

class AmRing {
 public:
  static constexpr uint32_t kSlots = 2048;
  static constexpr uint32_t kBlock = 512;
  static constexpr uint32_t kInlineArgs = 7;
  static constexpr uint32_t kExtraArgBytes = 48;  // args 7..15, 16-byte aligned payload after
  static constexpr uint8_t kSkip = 0xFF;
  static constexpr uint8_t kOpensLane =
      0x80;  // the sender's lane of this kind opens (am_lanes.hpp)
  static constexpr size_t kMaxMedium = 65536;
  // Payload bytes of the next record a producer asks for ahead (reserve).
  static constexpr size_t kPrefetchBytes = 2048;

  static size_t bytes() { return sizeof(AmRingControl) + kSlots * (sizeof(AmRingSlot) + kBlock); }
  // Zeroed shared memory is an empty ring; nothing else to initialise.

  void init(void *area) {
    ctl_ = static_cast<AmRingControl *>(area);
    slots_ = reinterpret_cast<AmRingSlot *>(ctl_ + 1);
    blocks_ = reinterpret_cast<char *>(slots_ + kSlots);
    next_stamp_.store(&slots_[head_.load(std::memory_order_relaxed) & (kSlots - 1)].stamp,
                      std::memory_order_relaxed);
  }

  static uint32_t slots_for(unsigned nargs, size_t payload) {
    size_t bytes = (nargs > kInlineArgs ? kExtraArgBytes : 0) + payload;
    uint32_t n = static_cast<uint32_t>((bytes + kBlock - 1) / kBlock);
    return n ? n : 1;
  }

  // Producer side (any process). `head_cache` is the producer's last view
  // of head, shared by its threads.
  bool reserve(unsigned nargs, size_t payload, std::atomic<uint64_t> &head_cache, AmSlot &out);
  void commit(const AmSlot &slot, const AmHeader &h, const int32_t *args, bool opens_lane = false);

  // Consumer side (the owner). Delivers up to `budget` messages; returns how
  // many. Safe to call from several threads: one consumes at a time.
  int drain(int budget, AmSink &sink);
  // Called with the sender of a message that opens its lane, before the
  // message is delivered.
  using OpenHook = void (*)(void *ctx, uint32_t src);
  void set_open_hook(OpenHook hook, void *ctx) {
    open_hook_ = hook;
    open_ctx_ = ctx;
  }
  void set_concurrent(bool on) { concurrent_ = on; }
  bool has_work() const {
    // Read without the drainer's flag: a pair read across a drain only makes
    // this poll look again (drain checks the stamp itself) or look next time.
    return next_stamp_.load(std::memory_order_relaxed)->load(std::memory_order_relaxed) ==
           head_.load(std::memory_order_relaxed) + 1;
  }

 private:
  AmRingControl *ctl_ = nullptr;
  AmRingSlot *slots_ = nullptr;
  char *blocks_ = nullptr;
  // Consumer state, private to the owner process.
  std::atomic<uint64_t> head_{0};
  // The stamp of the slot at head_, kept by drain: an idle poll reads it
  // without the index arithmetic.
  std::atomic<const std::atomic<uint64_t> *> next_stamp_{nullptr};
  // Producer state, private to this process: 1 + the position where the
  // next record starts when its slots (as many as the last record's) are
  // free, else 0 (reserve sets it, commit prefetches there).
  std::atomic<uint64_t> next_free_{0};
  void prefetch_next(const AmSlot &slot);
  std::atomic<bool> busy_{false};  // a thread is draining (only with concurrent_)
  bool concurrent_ = true;
  OpenHook open_hook_ = nullptr;
  void *open_ctx_ = nullptr;
};

}  // namespace gexx::transport::smp
