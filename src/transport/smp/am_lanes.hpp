// Per-(sender, receiver) AM lanes: the smp conduit's path for small messages
// from senders that inject from one thread at a time (GASNET_SEQ, PARSYNC).
//
// A lane is a ring with exactly one producer (one sender rank, one receiver
// rank, one AmLane kind) of `depth` 64-byte header slots, each paired with
// one 64-byte block in a parallel array. A message takes exactly one slot:
// its header with up to 8 arguments, and in the block either a payload of up
// to 64 bytes or all 16 arguments (more than 8, then no payload). The
// producer keeps its tail in its own memory: claiming a slot is a plain
// increment, and it publishes by a release store of position + 1 into the
// slot's stamp. With no locked instruction, the stores of successive
// messages pipeline instead of each waiting for the receiver to hand the
// previous message's line back (as the shared AmRing's claim does); and the
// producer prefetches for write the slot two ahead, so that line is its own
// by the time the stores get there. The receiver checks each lane's next
// stamp, delivers arguments and payload in place, and publishes its head
// once per drain; the producer reads that head only when its cached copy
// says the lane is full. Every message takes one slot, so every slot is
// rewritten each lap and a stale stamp is always position + 1 - depth:
// 32-bit stamps cannot be mistaken, and payloads live apart from the stamps.
//
// A receiver polls only the lanes opened toward it: a sender's first small
// message of each kind to a receiver goes through the receiver's AmRing,
// marked as opening the lane (the transport does this), and from then on the
// receiver's poll reads that lane's next stamp. So an idle poll reads one
// line per lane in use toward this rank, not 2 * N lines.
//
// What does not fit, what finds its lane full, and everything a GASNET_PAR
// sender injects (its threads would race on the tail) goes through the
// receiver's shared AmRing. AMs are unordered, so splitting is allowed.
// Receivers with several threads in the engine (GASNET_PAR, a progress
// thread) drain each lane under a flag of their own.
//
// Memory: 2 * N^2 lanes for N ranks on the host, touched only once used. Up
// to 16 ranks a lane has 256 slots (32 KiB), enough for every request credit
// toward a peer; above, a receiver's lanes share 1 MiB (fewer slots each, the
// ring takes the rest of a burst), and above 64 ranks there are no lanes,
// only the rings.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>

#include "transport/smp/am_header.hpp"
#include "transport/transport.hpp"
#include "util/copy.hpp"

namespace gexx::transport::smp {

struct alignas(64) AmLaneSlot {
  std::atomic<uint32_t> stamp;  // position + 1 (mod 2^32) of the message published here
  uint32_t src;
  uint64_t nbytes;
  uint64_t dest;
  uint16_t credits;
  uint8_t kind;
  uint8_t category;  // and the flags (am_header.hpp)
  uint8_t handler;
  uint8_t nargs;
  int32_t args[8];  // all of them up to 8; beyond, the block holds all 16
};
static_assert(sizeof(AmLaneSlot) == 64, "one cache line per header");

class AmLanes {
 public:
  static constexpr uint32_t kMaxDepth = 256;
  static constexpr uint32_t kMinDepth = 64;
  static constexpr size_t kReceiverBytes = size_t{1} << 20;
  static constexpr uint32_t kInlineArgs = 8;
  static constexpr size_t kBlock = 64;
  static constexpr uint32_t kPrefetchAhead = 2;

  // Slots per lane with `ranks` ranks on the host; 0: no lanes.
  static uint32_t depth_for(uint32_t ranks);
  // Bytes of every lane of the host (0 without lanes). Zeroed memory is a
  // set of empty lanes.
  static size_t bytes(uint32_t ranks) {
    uint32_t d = depth_for(ranks);
    return d ? size_t{2} * ranks * ranks * lane_bytes(d) : 0;
  }
  static bool fits(unsigned nargs, size_t payload) {
    return nargs <= kInlineArgs ? payload <= kBlock : payload == 0;
  }

  void init(void *area, uint32_t ranks, uint32_t me);
  bool enabled() const { return depth_ != 0; }

  // Producer side: one thread at a time per process. A lane is used once
  // the receiver was told that it is open. reserve: false when the lane is
  // full (or the message does not fit).
  bool is_open(uint32_t peer, AmLane lane) const {
    return out_[peer * 2 + static_cast<uint32_t>(lane)].open;
  }
  void set_open(uint32_t peer, AmLane lane) {
    out_[peer * 2 + static_cast<uint32_t>(lane)].open = true;
  }
  bool reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload, AmSlot &out) {
    if (!fits(nargs, payload)) return false;
    Writer &w = out_[peer * 2 + static_cast<uint32_t>(lane)];
    uint64_t pos;
    if (!claim(w, pos)) return false;
    out.where = pos;
    out.payload = w.blocks + size_t{static_cast<uint32_t>(pos) & mask_} * kBlock;
    out.capacity = nargs > kInlineArgs ? 0 : kBlock;
    return true;
  }
  void commit(const AmSlot &slot, const AmHeader &h, const int32_t *args) {
    Writer &w = out_[slot.peer * 2 + static_cast<uint32_t>(slot.lane)];
    publish(w, slot.where, h, args);
  }
  // reserve, a copy of the payload and commit in one step.
  bool send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args, const void *payload,
            size_t nbytes) {
    if (!fits(h.nargs, nbytes)) return false;
    Writer &w = out_[peer * 2 + static_cast<uint32_t>(lane)];
    uint64_t pos;
    if (!claim(w, pos)) return false;
    if (nbytes)
      std::memcpy(w.blocks + size_t{static_cast<uint32_t>(pos) & mask_} * kBlock, payload, nbytes);
    publish(w, pos, h, args);
    return true;
  }

  // Consumer side. Whether an open lane toward this rank (only Reply lanes
  // when `replies_only`) has a message: one read per open lane.
  bool has_work(bool replies_only) const {
    return any_ready(static_cast<uint32_t>(AmLane::Reply)) ||
           (!replies_only && any_ready(static_cast<uint32_t>(AmLane::Request)));
  }
  // Polls the lane from `sender` from now on (once told it is open).
  void accept(uint32_t sender, AmLane lane);
  // Delivers up to `budget` messages from each open lane toward this rank
  // (only Reply lanes when `replies_only`); returns how many in all. Safe
  // to call from several threads when concurrent: one drains a lane at a
  // time.
  int poll(bool replies_only, int budget, AmSink &sink);
  void set_concurrent(bool on) { concurrent_ = on; }

 private:
  struct alignas(64) Control {
    std::atomic<uint64_t> head;  // first position not yet consumed (receiver)
  };
  struct Reader {
    AmLaneSlot *slots = nullptr;
    uint64_t head = 0;  // next position to consume (by the thread draining)
    // The stamp at head and the value that makes it a message: what poll
    // reads, also without the lane's lock (drain checks again).
    std::atomic<const std::atomic<uint32_t> *> next{nullptr};
    std::atomic<uint32_t> want{1};
    std::atomic<bool> busy{false};  // a thread drains the lane (only when concurrent_)
    bool ready() const {
      return next.load(std::memory_order_relaxed)->load(std::memory_order_relaxed) ==
             want.load(std::memory_order_relaxed);
    }
  };
  struct Writer {
    uint64_t tail = 0;        // next position to claim
    uint64_t head_cache = 0;  // the receiver's head when we last looked
    AmLaneSlot *slots = nullptr;
    char *blocks = nullptr;
    Control *ctl = nullptr;
    bool open = false;  // we told the receiver
  };
  // Whether an open lane of `kind` toward this rank has a message.
  bool any_ready(uint32_t kind) const {
    uint32_t n = nopen_[kind].load(std::memory_order_acquire);
    const Reader *open = open_[kind].get();
    for (uint32_t j = 0; j < n; ++j)
      if (open[j].ready()) return true;
    return false;
  }
  static size_t lane_bytes(uint32_t depth) {
    return sizeof(Control) + size_t{depth} * (sizeof(AmLaneSlot) + kBlock);
  }
  bool claim(Writer &w, uint64_t &pos) {
    if (w.tail - w.head_cache >= depth_) {
      // Acquire: the receiver is done reading the slots it freed.
      w.head_cache = w.ctl->head.load(std::memory_order_acquire);
      if (w.tail - w.head_cache >= depth_) return false;
    }
    // Ask for a slot we will soon write while the receiver is done with it,
    // so that its stores need not wait for the line then.
    if (w.tail + kPrefetchAhead - w.head_cache < depth_)
      prefetch_for_write(&w.slots[(w.tail + kPrefetchAhead) & mask_]);
    pos = w.tail++;
    return true;
  }
  void publish(Writer &w, uint64_t pos, const AmHeader &h, const int32_t *args) {
    uint32_t idx = static_cast<uint32_t>(pos) & mask_;
    AmLaneSlot &s = w.slots[idx];
    store_header(s, h);
    if (h.nargs <= kInlineArgs) {
      for (unsigned i = 0; i < h.nargs; ++i) s.args[i] = args[i];
    } else {
      std::memcpy(w.blocks + size_t{idx} * kBlock, args, h.nargs * sizeof(int32_t));
    }
    // A payload or argument block moved by the C library's copy: its stores
    // must be seen before the stamp (util/copy.hpp says why).
    if (h.nbytes || h.nargs > kInlineArgs) util::store_fence();
    s.stamp.store(static_cast<uint32_t>(pos + 1), std::memory_order_release);
  }
  int drain(Reader &in, int budget, AmSink &sink);

  char *lane_at(uint32_t receiver, uint32_t sender, uint32_t kind) const {
    return area_ + ((size_t{receiver} * ranks_ + sender) * 2 + kind) * lane_bytes_;
  }
  // A lane: its Control line, then the header slots, then the blocks.
  static AmLaneSlot *slots_of(char *lane) {
    return reinterpret_cast<AmLaneSlot *>(lane + sizeof(Control));
  }
  static Control *control_of(AmLaneSlot *slots) {
    return reinterpret_cast<Control *>(reinterpret_cast<char *>(slots) - sizeof(Control));
  }

  char *area_ = nullptr;
  uint32_t ranks_ = 0;
  uint32_t me_ = 0;
  uint32_t depth_ = 0;
  uint32_t mask_ = 0;
  size_t lane_bytes_ = 0;
  std::unique_ptr<Writer[]> out_;  // [peer * 2 + kind]: our lanes toward peer
  // The open lanes toward us, per kind, in the order they opened: the
  // first nopen_ entries are set; accepted_ [sender * 2 + kind] says which.
  std::unique_ptr<Reader[]> open_[2];
  std::atomic<uint32_t> nopen_[2] = {0, 0};
  std::unique_ptr<bool[]> accepted_;
  std::mutex accept_mutex_;  // adds to the open lists
  bool concurrent_ = true;
};

}  // namespace gexx::transport::smp
