// The shared-memory AM queue: framing, wrap-around, back-pressure, and many
// producers against one consumer.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "am_collect.hpp"
#include "transport/smp/am_ring.hpp"

using gexx::transport::AmHeader;
using gexx::transport::AmSlot;
using gexx::transport::smp::AmRing;

using gexx::test::collect;
using gexx::test::g_got;
using gexx::test::Got;

namespace {

struct Area {
  Area() : mem(new (std::align_val_t(4096)) unsigned char[AmRing::bytes()]()) {
    ring.init(mem.get());
  }
  struct Free {
    void operator()(unsigned char *p) { ::operator delete[](p, std::align_val_t(4096)); }
  };
  std::unique_ptr<unsigned char[], Free> mem;
  AmRing ring;
  std::atomic<uint64_t> head_cache{0};
};

bool send(Area &a, uint32_t src, unsigned nargs, size_t nbytes, unsigned char fill_byte) {
  AmSlot slot;
  if (!a.ring.reserve(nargs, nbytes, a.head_cache, slot)) return false;
  EXPECT_GE(slot.capacity, nbytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(slot.payload) % 16, 0u);
  std::memset(slot.payload, fill_byte, nbytes);
  AmHeader h;
  h.category = 1;
  h.nargs = static_cast<uint8_t>(nargs);
  h.src = src;
  h.nbytes = nbytes;
  int32_t args[16];
  for (unsigned i = 0; i < nargs; ++i) args[i] = static_cast<int32_t>(src * 1000 + i);
  a.ring.commit(slot, h, args);
  return true;
}

}  // namespace

TEST(AmRing, DeliversArgumentsAndPayloadsInOrderAcrossWrapAround) {
  Area a;
  std::vector<Got> got;
  g_got = &got;
  // Sizes chosen so records straddle the end of the ring many times.
  size_t sent = 0;
  for (int i = 0; i < 5000; ++i) {
    unsigned nargs = static_cast<unsigned>(i % 17);
    size_t nbytes = static_cast<size_t>((i * 7919) % 70000) % (AmRing::kMaxMedium + 1);
    while (!send(a, 1, nargs, nbytes, static_cast<unsigned char>(i))) a.ring.drain(1000, collect);
    ++sent;
    if (i % 3 == 0) a.ring.drain(2, collect);
  }
  while (a.ring.drain(1000, collect) > 0) {
  }
  ASSERT_EQ(got.size(), sent);
  for (size_t i = 0; i < got.size(); ++i) {
    unsigned nargs = static_cast<unsigned>(i % 17);
    size_t nbytes = static_cast<size_t>((i * 7919) % 70000) % (AmRing::kMaxMedium + 1);
    ASSERT_EQ(got[i].h.nargs, nargs) << i;
    ASSERT_EQ(got[i].h.nbytes, nbytes) << i;
    for (unsigned k = 0; k < nargs; ++k) ASSERT_EQ(got[i].args[k], static_cast<int32_t>(1000 + k));
    ASSERT_EQ(got[i].payload, std::vector<unsigned char>(nbytes, static_cast<unsigned char>(i)))
        << "message " << i;
    ASSERT_EQ(got[i].payload_addr % 16, 0u);
  }
}

TEST(AmRing, PayloadBytesNeverLookLikeAMessage) {
  // Payloads full of 0x01 bytes would read as a stamp of 0x01010101 if a
  // stale payload could be taken for a header: the ring must not see one.
  // Every message sent must come out, once, with its payload: an empty or
  // short result is a failure, not a vacuous pass.
  Area a;
  std::vector<Got> got;
  g_got = &got;
  size_t sent = 0;
  for (int lap = 0; lap < 40; ++lap) {
    size_t this_lap = 0;
    while (send(a, 2, 0, 60000, 0x01)) ++this_lap;
    ASSERT_GT(this_lap, 0u) << "lap " << lap << ": the drained ring took no message";
    sent += this_lap;
    EXPECT_EQ(a.ring.drain(1 << 20, collect), static_cast<int>(this_lap)) << "lap " << lap;
    EXPECT_FALSE(a.ring.has_work());
    ASSERT_EQ(got.size(), sent) << "lap " << lap;
  }
  for (const Got &g : got) {
    ASSERT_EQ(g.h.src, 2u);
    ASSERT_EQ(g.h.nbytes, 60000u);
    ASSERT_EQ(g.payload, std::vector<unsigned char>(60000, 0x01));
  }
  EXPECT_EQ(a.ring.drain(10, collect), 0);
}

TEST(AmRing, FullRingRefusesUntilTheConsumerFrees) {
  Area a;
  std::vector<Got> got;
  g_got = &got;
  int accepted = 0;
  while (send(a, 3, 16, 0, 0)) ++accepted;  // 16 args: header plus one block each
  EXPECT_EQ(accepted, static_cast<int>(AmRing::kSlots));
  EXPECT_EQ(a.ring.drain(1, collect), 1);
  EXPECT_TRUE(send(a, 3, 16, 0, 0));
  EXPECT_FALSE(send(a, 3, 16, 0, 0));
}

TEST(AmRing, ManyProducersOneConsumerLoseNothing) {
  Area a;
  constexpr int kProducers = 4, kEach = 20000;
  std::atomic<bool> stop{false};
  std::vector<Got> got;
  std::thread consumer([&] {
    g_got = &got;
    while (!stop.load() || a.ring.has_work()) a.ring.drain(64, collect);
  });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&a, p] {
      for (int i = 0; i < kEach; ++i) {
        AmSlot slot;
        size_t nbytes = static_cast<size_t>(i % 5) * 300;
        while (!a.ring.reserve(2, nbytes, a.head_cache, slot)) std::this_thread::yield();
        std::memset(slot.payload, p, nbytes);
        AmHeader h;
        h.category = 1;
        h.nargs = 2;
        h.src = static_cast<uint32_t>(p);
        h.nbytes = nbytes;
        int32_t args[2] = {p, i};
        a.ring.commit(slot, h, args);
      }
    });
  }
  for (auto &t : producers) t.join();
  stop.store(true);
  consumer.join();
  ASSERT_EQ(got.size(), static_cast<size_t>(kProducers * kEach));
  std::vector<int> next(kProducers, 0);
  for (const Got &g : got) {
    int p = g.args[0];
    ASSERT_EQ(g.args[1], next[p]) << "producer " << p << " out of order";
    ++next[p];
    ASSERT_EQ(g.payload, std::vector<unsigned char>(g.h.nbytes, static_cast<unsigned char>(p)));
  }
}

TEST(AmRing, AMessageThatOpensALaneCallsTheHookFirstAndArrivesUnmarked) {
  Area a;
  std::vector<Got> got;
  g_got = &got;
  static std::vector<uint32_t> opened;
  static size_t delivered_before_hook;
  opened.clear();
  a.ring.set_open_hook(
      [](void *ctx, uint32_t src) {
        opened.push_back(src);
        delivered_before_hook = static_cast<std::vector<Got> *>(ctx)->size();
      },
      &got);
  ASSERT_TRUE(send(a, 4, 1, 0, 0));
  AmSlot slot;
  ASSERT_TRUE(a.ring.reserve(0, 0, a.head_cache, slot));
  AmHeader h;
  h.kind = 1;
  h.src = 5;
  a.ring.commit(slot, h, nullptr, true);
  EXPECT_EQ(a.ring.drain(10, collect), 2);
  ASSERT_EQ(opened, std::vector<uint32_t>{5});
  EXPECT_EQ(delivered_before_hook, 1u);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].h.kind, 1);
  EXPECT_EQ(got[1].h.src, 5u);
}
