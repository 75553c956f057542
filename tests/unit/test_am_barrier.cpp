#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "barrier_pattern.hpp"
#include "coll/am_barrier.hpp"

using gexx::coll::AmBarrier;
using gexx::coll::BarrierValue;

namespace {
constexpr uint32_t kAnon = 1, kMismatch = 2;

// Ranks in one thread: sends queue up, deliver() runs them in order.
struct Mailboxes {
  explicit Mailboxes(uint32_t n) : boxes(n) {
    for (uint32_t r = 0; r < n; ++r) {
      ranks.push_back(std::make_unique<AmBarrier>(r, n, [this, r](uint32_t peer, const auto &m) {
        boxes[peer].push_back({r, m});
        return true;
      }));
    }
  }
  void deliver(uint32_t to) {
    for (auto &[src, m] : boxes[to]) ranks[to]->receive(src, m);
    boxes[to].clear();
  }
  // Until no message is left, advancing every rank toward generation `gen`.
  void deliver_all(uint64_t gen) {
    for (bool any = true; any;) {
      any = false;
      for (uint32_t r = 0; r < ranks.size(); ++r) {
        any = any || !boxes[r].empty();
        deliver(r);
        ranks[r]->done(gen);
      }
    }
  }
  std::vector<std::deque<std::pair<uint32_t, AmBarrier::Message>>> boxes;
  std::vector<std::unique_ptr<AmBarrier>> ranks;
};
}  // namespace

TEST(AmBarrier, SingleRankCompletesAtOnce) {
  AmBarrier b(0, 1, [](uint32_t, const AmBarrier::Message &) { return false; });
  uint64_t g = b.arrive({9, 0});
  EXPECT_TRUE(b.done(g));
  EXPECT_EQ(b.result().id, 9);
}

// Round k goes to rank + 2^k and is combined from rank - 2^k.
TEST(AmBarrier, RoundsGoToTheirPartners) {
  Mailboxes j(5);
  j.ranks[0]->arrive({0, kAnon});
  ASSERT_EQ(j.boxes[1].size(), 1u);  // round 0: the only one sent before hearing from 4
  EXPECT_EQ(j.boxes[1][0].second.round, 0u);
  for (uint32_t r = 1; r < 5; ++r) j.ranks[r]->arrive({3, 0});
  j.deliver_all(1);
  for (uint32_t r = 0; r < 5; ++r) {
    EXPECT_TRUE(j.ranks[r]->done(1));
    EXPECT_EQ(j.ranks[r]->result().id, 3);
    EXPECT_EQ(j.ranks[r]->result().flags, 0u);
  }
}

// A message of the next generation, arriving before this rank has even
// read the one of this generation, waits for its own and does not complete
// the current one.
TEST(AmBarrier, NextGenerationWaitsForItsArrival) {
  Mailboxes j(2);
  for (auto &b : j.ranks) b->arrive({1, 0});
  j.deliver(0);
  ASSERT_TRUE(j.ranks[0]->done(1));
  uint64_t g = j.ranks[0]->arrive({2, 0});
  ASSERT_EQ(j.boxes[1].size(), 2u);
  j.deliver(1);
  EXPECT_TRUE(j.ranks[1]->done(1));
  EXPECT_FALSE(j.ranks[1]->done(g));
  EXPECT_EQ(j.ranks[1]->result().id, 1);
  EXPECT_FALSE(j.ranks[0]->done(g));
  j.ranks[1]->arrive({5, 0});  // a different name: both see the mismatch
  j.deliver_all(g);
  EXPECT_TRUE(j.ranks[0]->done(g) && j.ranks[1]->done(g));
  EXPECT_EQ(j.ranks[0]->result().flags, kMismatch);
  EXPECT_EQ(j.ranks[1]->result().flags, kMismatch);
}

TEST(AmBarrier, RefusedSendIsRetried) {
  int refusals = 3;
  std::unique_ptr<AmBarrier> b0, b1;
  auto sender = [&](uint32_t r) {
    return [&, r](uint32_t peer, const AmBarrier::Message &m) {
      if (refusals > 0) {
        --refusals;
        return false;
      }
      (peer ? b1 : b0)->receive(r, m);
      return true;
    };
  };
  b0 = std::make_unique<AmBarrier>(0, 2, sender(0));
  b1 = std::make_unique<AmBarrier>(1, 2, sender(1));
  uint64_t g0 = b0->arrive({0, kAnon}), g1 = b1->arrive({0, kAnon});
  bool done0 = false, done1 = false;
  for (int i = 0; i < 10 && !(done0 && done1); ++i) {
    done0 = b0->done(g0);
    done1 = b1->done(g1);
  }
  EXPECT_TRUE(done0 && done1);
  EXPECT_EQ(refusals, 0);
}

class AmBarrierThreads : public ::testing::TestWithParam<uint32_t> {};

// Threads stand in for ranks, handlers run on the sender's thread (as on
// whichever thread polls), a second thread per rank calls done() beside the
// rank's own, and every 5th send is refused.
TEST_P(AmBarrierThreads, EveryGenerationCompletesWithTheAgreedValue) {
  const uint32_t kRanks = GetParam(), kGens = 2000;
  std::vector<std::unique_ptr<AmBarrier>> ranks(kRanks);
  std::vector<std::atomic<uint32_t>> sends(kRanks);
  for (uint32_t r = 0; r < kRanks; ++r) {
    ranks[r] = std::make_unique<AmBarrier>(r, kRanks, [&, r](uint32_t peer, const auto &m) {
      if (sends[r].fetch_add(1, std::memory_order_relaxed) % 5 == 4) return false;
      ranks[peer]->receive(r, m);
      return true;
    });
  }
  std::vector<int> counter(kGens, 0);
  std::atomic<int> bad{0};
  std::atomic<bool> stop{false};
  std::vector<std::atomic<uint64_t>> latest(kRanks);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      while (!stop.load(std::memory_order_relaxed)) {
        ranks[r]->done(latest[r].load());
        std::this_thread::yield();
      }
    });
    threads.emplace_back([&, r] {
      barrier_pattern::run_rank(*ranks[r], r, kRanks, counter, bad,
                                [&](uint64_t g) { latest[r].store(g); });
    });
  }
  for (uint32_t t = 1; t < threads.size(); t += 2) threads[t].join();
  stop = true;
  for (uint32_t t = 0; t < threads.size(); t += 2) threads[t].join();
  EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, AmBarrierThreads, ::testing::Values(2u, 3u, 5u, 8u));
