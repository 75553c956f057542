#include <gtest/gtest.h>

#include <thread>
#include <tuple>
#include <vector>

#include "coll/shm_barrier.hpp"

using gexx::coll::BarrierValue;
using gexx::coll::combine;
using gexx::coll::ShmBarrier;

constexpr uint32_t kAnon = 1, kMismatch = 2;

TEST(BarrierCombine, AnonymousTakesTheNamedValue) {
  BarrierValue r = combine({0, kAnon}, {7, 0});
  EXPECT_EQ(r.id, 7);
  EXPECT_EQ(r.flags, 0u);
  r = combine({7, 0}, {0, kAnon});
  EXPECT_EQ(r.id, 7);
  EXPECT_EQ(combine({0, kAnon}, {0, kAnon}).flags, kAnon);
}

TEST(BarrierCombine, DifferentNamesMismatch) {
  EXPECT_EQ(combine({1, 0}, {2, 0}).flags, kMismatch);
  EXPECT_EQ(combine({5, 0}, {5, 0}).flags, 0u);
  EXPECT_EQ(combine({5, 0}, {5, 0}).id, 5);
}

TEST(BarrierCombine, MismatchFlagWins) {
  EXPECT_EQ(combine({0, kMismatch}, {0, kAnon}).flags, kMismatch);
  EXPECT_EQ(combine({3, 0}, {3, kMismatch}).flags, kMismatch);
}

class ShmBarrierAlgorithms : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {};

// Threads stand in for ranks: both algorithms (dissemination, and the
// shared word used when oversubscribed), power-of-two and other sizes.
TEST_P(ShmBarrierAlgorithms, ThreadsAsRanksCompleteEveryGeneration) {
  const uint32_t kRanks = std::get<0>(GetParam()), kRounds = 2000;
  std::vector<char> area(ShmBarrier::area_size(kRanks) + 64);
  void *aligned =
      reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(area.data()) + 63) & ~63ull);
  ShmBarrier::init_area(aligned, kRanks, true, std::get<1>(GetParam()));
  std::vector<int> counter(kRounds, 0);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (uint32_t r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      ShmBarrier b(aligned, r, kRanks);
      for (uint32_t i = 0; i < kRounds; ++i) {
        __atomic_fetch_add(&counter[i], 1, __ATOMIC_RELAXED);
        // Rank 0 names some barriers differently: every rank must see it.
        bool odd = r == 0 && i % 7 == 3;
        uint64_t g = b.arrive({static_cast<int32_t>(odd ? i + 1 : i), r == 1 ? kAnon : 0});
        while (!b.done(g)) std::this_thread::yield();
        // Everyone counted itself in before anyone left the barrier.
        if (__atomic_load_n(&counter[i], __ATOMIC_RELAXED) != static_cast<int>(kRanks)) ++bad;
        // Rank 1 is anonymous; rank 0's odd name clashes only with rank 2's.
        BarrierValue v = b.result();
        if (i % 7 == 3 && kRanks > 2) {
          if (v.flags != kMismatch) ++bad;
        } else {
          int32_t want = static_cast<int32_t>(i % 7 == 3 ? i + 1 : i);
          if (v.id != want || v.flags != 0) ++bad;
        }
      }
    });
  }
  for (auto &t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ShmBarrierAlgorithms,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 5u, 8u),
                                            ::testing::Bool()));
