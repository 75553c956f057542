#include "transport/smp/am_lanes.hpp"

namespace gexx::transport::smp {

uint32_t AmLanes::depth_for(uint32_t ranks) {
  if (ranks == 0) return 0;
  size_t fit = kReceiverBytes / (size_t{2} * ranks * (sizeof(AmLaneSlot) + kBlock));
  uint32_t depth = kMaxDepth;
  while (depth > fit && depth >= kMinDepth) depth /= 2;
  return depth >= kMinDepth ? depth : 0;
}

void AmLanes::init(void *area, uint32_t ranks, uint32_t me) {
  depth_ = depth_for(ranks);
  if (!depth_) return;
  area_ = static_cast<char *>(area);
  ranks_ = ranks;
  me_ = me;
  mask_ = depth_ - 1;
  lane_bytes_ = lane_bytes(depth_);
  out_ = std::make_unique<Writer[]>(size_t{2} * ranks);
  open_[0] = std::make_unique<Reader[]>(ranks);
  open_[1] = std::make_unique<Reader[]>(ranks);
  accepted_ = std::make_unique<bool[]>(size_t{2} * ranks);

  for (uint32_t peer = 0; peer < ranks; ++peer) {
    for (uint32_t kind = 0; kind < 2; ++kind) {
      char *lane = lane_at(peer, me, kind);
      Writer &w = out_[peer * 2 + kind];
      w.ctl = control_of(slots_of(lane));
      w.slots = slots_of(lane);
      w.blocks = reinterpret_cast<char *>(w.slots + depth_);
    }
  }
}

void AmLanes::accept(uint32_t sender, AmLane lane) {
  if (!depth_) return;
  std::lock_guard<std::mutex> lock(accept_mutex_);
  uint32_t kind = static_cast<uint32_t>(lane);
  if (accepted_[sender * 2 + kind]) return;
  accepted_[sender * 2 + kind] = true;
  uint32_t n = nopen_[kind].load(std::memory_order_relaxed);
  Reader &in = open_[kind][n];
  in.slots = slots_of(lane_at(me_, sender, kind));
  in.next.store(&in.slots[0].stamp, std::memory_order_relaxed);
  nopen_[kind].store(n + 1, std::memory_order_release);
}

int AmLanes::poll(bool replies_only, int budget, AmSink &sink) {
  int done = 0;
  for (uint32_t kind = 1;; kind = 0) {
    uint32_t n = nopen_[kind].load(std::memory_order_acquire);
    for (uint32_t j = 0; j < n; ++j) {
      Reader &in = open_[kind][j];
      if (in.ready()) done += drain(in, budget, sink);
    }
    if (kind == 0 || replies_only) return done;
  }
}

int AmLanes::drain(Reader &in, int budget, AmSink &sink) {
  if (concurrent_ && in.busy.exchange(true, std::memory_order_acquire)) return 0;
  AmLaneSlot *slots = in.slots;
  char *blocks = reinterpret_cast<char *>(slots + depth_);
  const uint64_t start = in.head;
  uint64_t h = start;
  for (int n = 0; n < budget; ++n) {
    uint32_t idx = static_cast<uint32_t>(h) & mask_;
    AmLaneSlot &sl = slots[idx];
    if (sl.stamp.load(std::memory_order_acquire) != static_cast<uint32_t>(h + 1)) break;
    AmHeader hdr = load_header(sl);
    char *block = blocks + size_t{idx} * kBlock;
    const int32_t *args = hdr.nargs <= kInlineArgs ? sl.args : reinterpret_cast<int32_t *>(block);
    sink.deliver(hdr, args, block);
    ++h;
  }
  // Once per drain: the producer reads it only when its lane looks full.
  if (h != start) {
    in.head = h;
    in.next.store(&slots[static_cast<uint32_t>(h) & mask_].stamp, std::memory_order_relaxed);
    in.want.store(static_cast<uint32_t>(h + 1), std::memory_order_relaxed);
    control_of(slots)->head.store(h, std::memory_order_release);
  }
  if (concurrent_) in.busy.store(false, std::memory_order_release);
  return static_cast<int>(h - start);
}

}  // namespace gexx::transport::smp
