#include "coll/shm_barrier.hpp"

#include <new>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "util/config.hpp"

namespace gexx::coll {

namespace {
constexpr uint32_t kAnonymous = 1;  // GASNET_BARRIERFLAG_ANONYMOUS

// The central state word: generation (16 bits), count (14), value (34).
constexpr uint32_t kMaxCentralRanks = (1u << 14) - 1;
uint64_t make_state(uint64_t gen, uint64_t count, BarrierValue v) {
  return (gen & 0xFFFF) << 48 | count << 34 | static_cast<uint64_t>(v.flags & 3) << 32 |
         static_cast<uint32_t>(v.id);
}
uint64_t state_gen(uint64_t s) {
  return s >> 48;
}
uint64_t state_count(uint64_t s) {
  return (s >> 34) & kMaxCentralRanks;
}
BarrierValue state_value(uint64_t s) {
  return {static_cast<int32_t>(static_cast<uint32_t>(s)), static_cast<uint32_t>((s >> 32) & 3)};
}
}  // namespace

size_t ShmBarrier::area_size(uint32_t ranks) {
  return sizeof(Header) + sizeof(Slot) * 2 * ranks * dissemination_rounds(ranks);
}

void ShmBarrier::init_area(void *area, uint32_t ranks, bool creator, bool central) {
  if (!creator) return;
  auto *h = new (area) Header;
  h->central = central && ranks <= kMaxCentralRanks ? 1 : 0;
  h->state.store(make_state(0, 0, {0, kAnonymous}), std::memory_order_relaxed);
  h->result.store(0, std::memory_order_relaxed);
  auto *s = reinterpret_cast<Slot *>(static_cast<char *>(area) + sizeof(Header));
  for (size_t i = 0; i < 2 * static_cast<size_t>(ranks) * dissemination_rounds(ranks); ++i) {
    new (&s[i].gen) std::atomic<uint64_t>(0);
    new (&s[i].value) std::atomic<uint64_t>(0);
  }
  std::atomic_thread_fence(std::memory_order_release);
}

std::unique_ptr<ShmBarrier> ShmBarrier::open(bootstrap::Bootstrap &boot, void *area, uint32_t rank,
                                             uint32_t ranks, bool oversubscribed) {
  std::string algorithm = config::get_list("GASNET_BARRIER")[0];
  bool central = algorithm == "central" || (algorithm == "auto" && oversubscribed);
  init_area(area, ranks, rank == 0, central);
  boot.barrier();  // laid out before anyone reads it
  return std::make_unique<ShmBarrier>(area, rank, ranks);
}

ShmBarrier::ShmBarrier(void *area, uint32_t rank, uint32_t ranks)
    : hdr_(static_cast<Header *>(area)),
      slots_(reinterpret_cast<Slot *>(static_cast<char *>(area) + sizeof(Header))),
      central_(hdr_->central != 0),
      rank_(rank),
      ranks_(ranks),
      rounds_(dissemination_rounds(ranks)) {}

void ShmBarrier::arrive_central(BarrierValue v) {
  uint64_t old = hdr_->state.load(std::memory_order_acquire);
  for (;;) {
    BarrierValue all = combine(state_value(old), v);
    central_gen_ = state_gen(old);
    if (state_count(old) + 1 == ranks_) {
      // Last to arrive: nobody else can touch the word until the next
      // generation opens, which this store does.
      hdr_->result.store(pack(all), std::memory_order_relaxed);
      hdr_->state.store(make_state(central_gen_ + 1, 0, {0, kAnonymous}),
                        std::memory_order_release);
      return;
    }
    uint64_t next = make_state(central_gen_, state_count(old) + 1, all);
    if (hdr_->state.compare_exchange_weak(old, next, std::memory_order_acq_rel,
                                          std::memory_order_acquire))
      return;
  }
}

void ShmBarrier::publish() {
  Slot &s = slot(gen_, rank_, round_);
  s.value.store(pack(acc_), std::memory_order_relaxed);
  s.gen.store(gen_, std::memory_order_release);
  published_ = true;
}

uint64_t ShmBarrier::arrive(BarrierValue v) {
  ++gen_;
  if (central_) {
    arrive_central(v);
    done(gen_);
    return gen_;
  }
  acc_ = v;
  round_ = 0;
  published_ = false;
  done(gen_);
  return gen_;
}

bool ShmBarrier::done(uint64_t gen) {
  if (central_ && completed_ < gen_ &&
      state_gen(hdr_->state.load(std::memory_order_acquire)) != (central_gen_ & 0xFFFF)) {
    result_ = unpack(hdr_->result.load(std::memory_order_relaxed));
    completed_ = gen_;
  }
  while (!central_ && completed_ < gen_ && round_ < rounds_) {
    if (!published_) publish();
    uint32_t partner = (rank_ + ranks_ - (1u << round_) % ranks_) % ranks_;
    Slot &s = slot(gen_, partner, round_);
    if (s.gen.load(std::memory_order_acquire) != gen_) break;
    acc_ = combine(acc_, unpack(s.value.load(std::memory_order_relaxed)));
    ++round_;
    published_ = false;
  }
  if (!central_ && completed_ < gen_ && round_ == rounds_) {
    result_ = acc_;
    completed_ = gen_;
  }
  return static_cast<int64_t>(completed_ - gen) >= 0;
}

}  // namespace gexx::coll
