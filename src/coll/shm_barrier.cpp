#include "coll/shm_barrier.hpp"

#include <new>

namespace gexx::coll {

namespace {
constexpr uint32_t kAnonymous = 1;  // GASNET_BARRIERFLAG_ANONYMOUS
constexpr uint32_t kMismatch = 2;   // GASNET_BARRIERFLAG_MISMATCH

uint64_t pack(BarrierValue v) {
  return static_cast<uint64_t>(v.flags) << 32 | static_cast<uint32_t>(v.id);
}
BarrierValue unpack(uint64_t w) {
  return {static_cast<int32_t>(static_cast<uint32_t>(w)), static_cast<uint32_t>(w >> 32)};
}
}  // namespace

BarrierValue combine(BarrierValue a, BarrierValue b) {
  if ((a.flags | b.flags) & kMismatch) return {0, kMismatch};
  if (a.flags & kAnonymous) return b;
  if (b.flags & kAnonymous) return a;
  if (a.id != b.id) return {0, kMismatch};
  return a;
}

size_t ShmBarrier::area_size(uint32_t ranks) {
  return sizeof(Header) + sizeof(Slot) * ranks;
}

void ShmBarrier::init_area(void *area, uint32_t ranks, bool creator) {
  if (!creator) return;
  auto *h = new (area) Header;
  h->arrived.store(0, std::memory_order_relaxed);
  h->generation.store(0, std::memory_order_relaxed);
  h->result.store(0, std::memory_order_relaxed);
  h->ranks = ranks;
  auto *s = reinterpret_cast<Slot *>(static_cast<char *>(area) + sizeof(Header));
  for (uint32_t i = 0; i < ranks; ++i) new (&s[i]) Slot{0};
  std::atomic_thread_fence(std::memory_order_release);
}

ShmBarrier::ShmBarrier(void *area, uint32_t rank, uint32_t ranks)
    : hdr_(static_cast<Header *>(area)),
      slots_(reinterpret_cast<Slot *>(static_cast<char *>(area) + sizeof(Header))),
      rank_(rank),
      ranks_(ranks) {
  my_generation_ = hdr_->generation.load(std::memory_order_acquire);
}

uint64_t ShmBarrier::arrive(BarrierValue v) {
  uint64_t target = ++my_generation_;
  slots_[rank_].value.store(pack(v), std::memory_order_relaxed);
  // acq_rel: the last arriver sees every slot written before each arrival.
  uint32_t n = hdr_->arrived.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (n == ranks_) {
    BarrierValue all{0, kAnonymous};
    for (uint32_t i = 0; i < ranks_; ++i)
      all = combine(all, unpack(slots_[i].value.load(std::memory_order_relaxed)));
    hdr_->result.store(pack(all), std::memory_order_relaxed);
    hdr_->arrived.store(0, std::memory_order_relaxed);
    hdr_->generation.store(target, std::memory_order_release);
  }
  return target;
}

BarrierValue ShmBarrier::result() const {
  return unpack(hdr_->result.load(std::memory_order_relaxed));
}

}  // namespace gexx::coll
