// The per-sender AM lanes: sizing, framing, wrap-around, back-pressure, and
// several single-producer senders against one receiver.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "am_collect.hpp"
#include "transport/smp/am_lanes.hpp"

using gexx::transport::AmHeader;
using gexx::transport::AmLane;
using gexx::transport::AmSlot;
using gexx::transport::smp::AmLanes;

using gexx::test::collect;
using gexx::test::g_got;
using gexx::test::Got;

namespace {

// The lanes of a host of `ranks` ranks, seen from each rank; all open
// unless `open` is false.
struct Host {
  explicit Host(uint32_t ranks, bool open = true)
      : mem(new (std::align_val_t(4096)) unsigned char[AmLanes::bytes(ranks)]()), rank(ranks) {
    for (uint32_t r = 0; r < ranks; ++r) {
      rank[r].init(mem.get(), ranks, r);
      rank[r].set_concurrent(false);
    }
    for (uint32_t r = 0; r < ranks && open; ++r) {
      for (uint32_t s = 0; s < ranks; ++s) {
        for (AmLane lane : {AmLane::Request, AmLane::Reply}) {
          rank[s].set_open(r, lane);
          rank[r].accept(s, lane);
        }
      }
    }
  }
  struct Free {
    void operator()(unsigned char *p) { ::operator delete[](p, std::align_val_t(4096)); }
  };
  std::unique_ptr<unsigned char[], Free> mem;
  std::vector<AmLanes> rank;
};

int32_t arg_of(uint32_t src, unsigned i, int msg) {
  return static_cast<int32_t>(src * 100000 + msg * 17 + i);
}

bool send(AmLanes &from, uint32_t src, uint32_t to, AmLane lane, unsigned nargs, size_t nbytes,
          int msg) {
  AmSlot slot;
  slot.peer = to;
  slot.lane = lane;
  if (!from.reserve(to, lane, nargs, nbytes, slot)) return false;
  EXPECT_GE(slot.capacity, nbytes);
  std::memset(slot.payload, msg & 0xFF, nbytes);
  AmHeader h;
  h.category = 1;
  h.nargs = static_cast<uint8_t>(nargs);
  h.src = src;
  h.nbytes = nbytes;
  h.credits = 3;
  int32_t args[16];
  for (unsigned i = 0; i < nargs; ++i) args[i] = arg_of(src, i, msg);
  from.commit(slot, h, args);
  return true;
}

}  // namespace

TEST(AmLanes, DepthShrinksWithRanksAndStopsAboveSixtyFour) {
  EXPECT_EQ(AmLanes::depth_for(1), AmLanes::kMaxDepth);
  EXPECT_EQ(AmLanes::depth_for(2), 256u);
  EXPECT_EQ(AmLanes::depth_for(16), 256u);
  EXPECT_EQ(AmLanes::depth_for(17), 128u);
  EXPECT_EQ(AmLanes::depth_for(64), 64u);
  EXPECT_EQ(AmLanes::depth_for(65), 0u);
  EXPECT_EQ(AmLanes::bytes(65), 0u);
  // A receiver's lanes stay within their budget (plus one control line each).
  for (uint32_t n = 17; n <= 64; ++n)
    EXPECT_LE(AmLanes::bytes(n) / n, AmLanes::kReceiverBytes + 2 * n * 64) << n;
}

TEST(AmLanes, OnlySmallMessagesFit) {
  EXPECT_TRUE(AmLanes::fits(0, 0));
  EXPECT_TRUE(AmLanes::fits(8, 64));
  EXPECT_FALSE(AmLanes::fits(8, 65));
  EXPECT_TRUE(AmLanes::fits(16, 0));
  EXPECT_FALSE(AmLanes::fits(9, 1));
  Host host(2);
  AmSlot slot;
  EXPECT_FALSE(host.rank[0].reserve(1, AmLane::Request, 2, 100, slot));
}

TEST(AmLanes, ReceiverPollsALaneOnceToldItIsOpen) {
  Host host(3, false);
  std::vector<Got> got;
  g_got = &got;
  EXPECT_FALSE(host.rank[1].is_open(0, AmLane::Reply));
  host.rank[1].set_open(0, AmLane::Reply);
  EXPECT_TRUE(host.rank[1].is_open(0, AmLane::Reply));
  EXPECT_FALSE(host.rank[1].is_open(0, AmLane::Request));
  ASSERT_TRUE(send(host.rank[1], 1, 0, AmLane::Reply, 1, 0, 7));
  EXPECT_FALSE(host.rank[0].has_work(false));
  EXPECT_EQ(host.rank[0].poll(false, 10, collect), 0);
  host.rank[0].accept(1, AmLane::Reply);
  host.rank[0].accept(1, AmLane::Reply);  // once is enough; twice is harmless
  EXPECT_TRUE(host.rank[0].has_work(true));
  EXPECT_EQ(host.rank[0].poll(false, 10, collect), 1);
  EXPECT_FALSE(host.rank[0].has_work(false));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].args[0], arg_of(1, 0, 7));
}

TEST(AmLanes, DeliversArgumentsAndPayloadsInOrderAcrossWrapAround) {
  Host host(2);
  std::vector<Got> got;
  g_got = &got;
  int sent = 0;
  for (int i = 0; i < 5000; ++i) {
    unsigned nargs = static_cast<unsigned>(i % 17);
    size_t nbytes = nargs > AmLanes::kInlineArgs ? 0 : static_cast<size_t>(i * 7) % 65;
    while (!send(host.rank[0], 0, 1, AmLane::Request, nargs, nbytes, i))
      host.rank[1].poll(false, 1000, collect);
    ++sent;
    if (i % 3 == 0) host.rank[1].poll(false, 2, collect);
  }
  while (host.rank[1].poll(false, 1000, collect) > 0) {
  }
  EXPECT_EQ(host.rank[1].poll(true, 1000, collect), 0);
  ASSERT_EQ(got.size(), static_cast<size_t>(sent));
  for (int i = 0; i < sent; ++i) {
    const Got &g = got[static_cast<size_t>(i)];
    unsigned nargs = static_cast<unsigned>(i % 17);
    size_t nbytes = nargs > AmLanes::kInlineArgs ? 0 : static_cast<size_t>(i * 7) % 65;
    ASSERT_EQ(g.h.nargs, nargs) << i;
    ASSERT_EQ(g.h.nbytes, nbytes) << i;
    ASSERT_EQ(g.h.credits, 3u);
    for (unsigned k = 0; k < nargs; ++k) ASSERT_EQ(g.args[k], arg_of(0, k, i)) << i;
    ASSERT_EQ(g.payload, std::vector<unsigned char>(nbytes, static_cast<unsigned char>(i)));
    ASSERT_EQ(g.payload_addr % 64, 0u);
  }
}

TEST(AmLanes, FullLaneRefusesUntilTheReceiverDrains) {
  Host host(3);
  std::vector<Got> got;
  g_got = &got;
  int accepted = 0;
  while (send(host.rank[2], 2, 0, AmLane::Reply, 1, 8, accepted)) ++accepted;
  EXPECT_EQ(accepted, static_cast<int>(AmLanes::depth_for(3)));
  // Other lanes toward the same receiver are not affected.
  EXPECT_TRUE(send(host.rank[2], 2, 0, AmLane::Request, 1, 8, 0));
  EXPECT_TRUE(send(host.rank[1], 1, 0, AmLane::Reply, 1, 8, 0));
  EXPECT_EQ(host.rank[0].poll(true, 1, collect), 2);  // one from each sender
  EXPECT_TRUE(send(host.rank[2], 2, 0, AmLane::Reply, 1, 8, 0));
  EXPECT_FALSE(send(host.rank[2], 2, 0, AmLane::Reply, 1, 8, 0));
}

TEST(AmLanes, StaleSlotsAndPayloadsNeverLookLikeAMessage) {
  // Payloads and arguments equal to the stamps a slot will carry next must
  // not pass for a message, lap after lap.
  Host host(1);
  std::vector<Got> got;
  g_got = &got;
  uint32_t depth = AmLanes::depth_for(1);
  for (int lap = 0; lap < 40; ++lap) {
    int n = 0;
    while (send(host.rank[0], 0, 0, AmLane::Request, 16, 0, lap * 1000 + n)) ++n;
    EXPECT_EQ(n, static_cast<int>(depth));
    EXPECT_EQ(host.rank[0].poll(false, 1 << 20, collect), n);
    EXPECT_EQ(host.rank[0].poll(false, 1 << 20, collect), 0);
  }
  EXPECT_EQ(got.size(), size_t{40} * depth);
}

TEST(AmLanes, SendersInParallelWithTwoReceivingThreadsLoseNothing) {
  constexpr uint32_t kRanks = 4;
  constexpr int kEach = 30000;
  Host host(kRanks);
  host.rank[0].set_concurrent(true);
  std::atomic<bool> stop{false};
  std::vector<Got> got[2];
  std::vector<std::thread> receivers;
  for (int t = 0; t < 2; ++t) {
    receivers.emplace_back([&, t] {
      g_got = &got[t];
      while (!stop.load()) {
        host.rank[0].poll(false, 64, collect);
        host.rank[0].poll(true, 64, collect);
      }
      while (host.rank[0].poll(false, 64, collect) + host.rank[0].poll(true, 64, collect) > 0) {
      }
    });
  }
  std::vector<std::thread> senders;
  for (uint32_t s = 1; s < kRanks; ++s) {
    senders.emplace_back([&host, s] {
      for (int i = 0; i < kEach; ++i) {
        AmLane lane = i % 3 ? AmLane::Request : AmLane::Reply;
        while (!send(host.rank[s], s, 0, lane, 2, static_cast<size_t>(i % 65), i))
          std::this_thread::yield();
      }
    });
  }
  for (auto &t : senders) t.join();
  stop.store(true);
  for (auto &t : receivers) t.join();
  std::vector<std::vector<bool>> seen(kRanks, std::vector<bool>(kEach, false));
  for (auto &v : got) {
    for (const Got &g : v) {
      ASSERT_LT(g.h.src, kRanks);
      int i = (g.args[1] - static_cast<int32_t>(g.h.src * 100000) - 1) / 17;
      ASSERT_EQ(g.args[0], arg_of(g.h.src, 0, i));
      ASSERT_FALSE(seen[g.h.src][static_cast<size_t>(i)]) << "delivered twice";
      seen[g.h.src][static_cast<size_t>(i)] = true;
      ASSERT_EQ(g.payload, std::vector<unsigned char>(static_cast<size_t>(i % 65),
                                                      static_cast<unsigned char>(i)));
    }
  }
  for (uint32_t s = 1; s < kRanks; ++s)
    for (int i = 0; i < kEach; ++i) ASSERT_TRUE(seen[s][static_cast<size_t>(i)]) << s << " " << i;
}
