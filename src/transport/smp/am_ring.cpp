#include "transport/smp/am_ring.hpp"

#include <algorithm>
#include <cstring>

#include "transport/smp/am_header.hpp"
#include "util/copy.hpp"

namespace gexx::transport::smp {

bool AmRing::reserve(unsigned nargs, size_t payload, std::atomic<uint64_t> &head_cache,
                     AmSlot &out) {
  const uint32_t n = slots_for(nargs, payload);
  uint64_t t = ctl_->tail.load(std::memory_order_relaxed);
  uint32_t skip;
  for (;;) {
    uint32_t off = static_cast<uint32_t>(t & (kSlots - 1));
    skip = off + n > kSlots ? kSlots - off : 0;
    uint64_t end = t + skip + n;
    // Acquire/release on the cache too: the consumer's reads of the slots
    // it freed happen before any thread of ours that learns of it reuses them.
    uint64_t head = head_cache.load(std::memory_order_acquire);
    if (end - head > kSlots) {
      head = ctl_->head.load(std::memory_order_acquire);
      head_cache.store(head, std::memory_order_release);
      if (end - head > kSlots) return false;
    }
    if (ctl_->tail.compare_exchange_weak(t, end, std::memory_order_acquire,
                                         std::memory_order_relaxed))
      break;
  }
  // Whether the slots a record as long as this one would take next are
  // free: commit then asks for their lines (prefetch_next).
  {
    const uint64_t end = t + skip + n;
    const uint64_t head = head_cache.load(std::memory_order_relaxed);
    const uint32_t off = static_cast<uint32_t>(end & (kSlots - 1));
    next_free_.store(end + n - head <= kSlots && off + n <= kSlots ? end + 1 : 0,
                     std::memory_order_relaxed);
  }
  if (skip) {
    AmRingSlot &s = slots_[t & (kSlots - 1)];
    s.kind = kSkip;
    s.nslots = static_cast<uint16_t>(skip);
    s.stamp.store(t + 1, std::memory_order_release);
  }
  uint64_t pos = t + skip;
  uint32_t idx = static_cast<uint32_t>(pos & (kSlots - 1));
  out.where = pos;
  out.length = n;
  out.payload = blocks_ + size_t{idx} * kBlock + (nargs > kInlineArgs ? kExtraArgBytes : 0);
  out.capacity = size_t{n} * kBlock - (nargs > kInlineArgs ? kExtraArgBytes : 0);
  return true;
}

void AmRing::commit(const AmSlot &slot, const AmHeader &h, const int32_t *args, bool opens_lane) {
  uint32_t idx = static_cast<uint32_t>(slot.where & (kSlots - 1));
  AmRingSlot &s = slots_[idx];
  store_header(s, h);
  if (opens_lane) s.kind |= kOpensLane;
  s.nslots = static_cast<uint16_t>(slot.length);
  unsigned inline_args = h.nargs < kInlineArgs ? h.nargs : kInlineArgs;
  for (unsigned i = 0; i < inline_args; ++i) s.args[i] = args[i];
  if (h.nargs > kInlineArgs) {
    std::memcpy(blocks_ + size_t{idx} * kBlock, args + kInlineArgs,
                (h.nargs - kInlineArgs) * sizeof(int32_t));
  }
  // A payload or argument block moved by the C library's copy: its stores
  // must be seen before the stamp (util/copy.hpp says why).
  if (h.nbytes || h.nargs > kInlineArgs) util::store_fence();
  s.stamp.store(slot.where + 1, std::memory_order_release);
  prefetch_next(slot);
}

// The next record will most likely start where this one ends and be as
// long: ask for its header slot and blocks now, while the receiver is done
// with them, so that the next copy's stores find the lines in this core's
// cache instead of each waiting for one on the next message's critical
// path (an AM round trip's copies are; these requests, made after the
// stamp, are not). Only slots reserve saw free, up to kPrefetchBytes of
// payload. A hint: under GASNET_PAR another thread's reserve may have moved
// it; that costs a useless prefetch, nothing else.
void AmRing::prefetch_next(const AmSlot &slot) {
  const uint64_t next = next_free_.load(std::memory_order_relaxed);
  if (next != slot.where + slot.length + 1) return;
  const uint32_t off = static_cast<uint32_t>((next - 1) & (kSlots - 1));
  prefetch_for_write(&slots_[off]);
  const char *b = blocks_ + size_t{off} * kBlock;
  const size_t bytes = std::min(size_t{slot.length} * kBlock, kPrefetchBytes);
  for (size_t i = 0; i < bytes; i += 64) prefetch_for_write(b + i);
}

int AmRing::drain(int budget, AmSink &sink) {
  if (concurrent_ && busy_.exchange(true, std::memory_order_acquire)) return 0;
  uint64_t h = head_.load(std::memory_order_relaxed);
  int done = 0;
  while (done < budget) {
    uint32_t idx = static_cast<uint32_t>(h & (kSlots - 1));
    AmRingSlot &s = slots_[idx];
    if (s.stamp.load(std::memory_order_acquire) != h + 1) break;
    uint32_t n = s.nslots;
    if (s.kind != kSkip) {
      if ((s.kind & kOpensLane) && open_hook_) open_hook_(open_ctx_, s.src);
      AmHeader hdr = load_header(s);
      hdr.kind = static_cast<uint8_t>(hdr.kind & ~kOpensLane);
      int32_t args[16];
      char *block = blocks_ + size_t{idx} * kBlock;
      unsigned nargs = hdr.nargs <= 16 ? hdr.nargs : 16;
      unsigned inline_args = nargs < kInlineArgs ? nargs : kInlineArgs;
      for (unsigned i = 0; i < inline_args; ++i) args[i] = s.args[i];
      if (nargs > kInlineArgs) {
        std::memcpy(args + kInlineArgs, block, (nargs - kInlineArgs) * sizeof(int32_t));
        block += kExtraArgBytes;
      }
      sink.deliver(hdr, args, block);
      ++done;
    }
    h += n;
    head_.store(h, std::memory_order_relaxed);
    next_stamp_.store(&slots_[h & (kSlots - 1)].stamp, std::memory_order_relaxed);
    ctl_->head.store(h, std::memory_order_release);
  }
  if (concurrent_) busy_.store(false, std::memory_order_release);
  return done;
}

}  // namespace gexx::transport::smp
