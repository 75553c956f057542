#include <gtest/gtest.h>

#include <thread>
#include <tuple>
#include <vector>

#include "barrier_pattern.hpp"
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
      barrier_pattern::run_rank(b, r, kRanks, counter, bad);
    });
  }
  for (auto &t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ShmBarrierAlgorithms,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 5u, 8u),
                                            ::testing::Bool()));
