// One rank's part in the threads-as-ranks barrier tests, for any barrier
// algorithm: generation after generation, every rank must have counted
// itself in before anyone leaves, and every rank must see the agreed value.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "coll/split_barrier.hpp"

namespace barrier_pattern {

constexpr uint32_t kAnon = 1, kMismatch = 2;

// `counter` has one entry per generation, shared by the ranks; `arrived`
// hears each generation this rank arrives in. Failures add to `bad`.
inline void run_rank(gexx::coll::SplitBarrier &b, uint32_t r, uint32_t ranks,
                     std::vector<int> &counter, std::atomic<int> &bad,
                     const std::function<void(uint64_t)> &arrived = {}) {
  for (uint32_t i = 0; i < counter.size(); ++i) {
    __atomic_fetch_add(&counter[i], 1, __ATOMIC_RELAXED);
    // Rank 1 is anonymous; rank 0 names some barriers differently, which
    // clashes only with rank 2's name.
    bool odd = r == 0 && i % 7 == 3;
    uint64_t g = b.arrive({static_cast<int32_t>(odd ? i + 1 : i), r == 1 ? kAnon : 0});
    if (arrived) arrived(g);
    while (!b.done(g)) std::this_thread::yield();
    if (__atomic_load_n(&counter[i], __ATOMIC_RELAXED) != static_cast<int>(ranks)) ++bad;
    gexx::coll::BarrierValue v = b.result();
    if (i % 7 == 3 && ranks > 2) {
      if (v.flags != kMismatch) ++bad;
    } else {
      int32_t want = static_cast<int32_t>(i % 7 == 3 ? i + 1 : i);
      if (v.id != want || v.flags != 0) ++bad;
    }
  }
}

}  // namespace barrier_pattern
