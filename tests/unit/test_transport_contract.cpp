// The transport contract: the wire vocabulary survives the smp queues'
// narrowed headers, and the default am_send honours retry-aware results.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "am_collect.hpp"
#include "transport/smp/am_lanes.hpp"
#include "transport/smp/am_ring.hpp"
#include "transport/transport.hpp"

namespace tp = gexx::transport;
using gexx::test::collect;
using gexx::test::g_got;
using gexx::test::Got;

namespace {

tp::AmHeader packed_long_header() {
  tp::AmHeader h;
  h.kind = tp::wire::kReply;
  h.category = tp::wire::kLong;
  h.flags = tp::wire::kPackedLong;
  h.handler = 201;
  h.nargs = 3;
  h.src = 7;
  h.credits = 5;
  h.nbytes = 40;
  h.dest = 0x7f0012345670;
  return h;
}

void expect_same(const tp::AmHeader &a, const tp::AmHeader &b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.category, b.category);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.handler, b.handler);
  EXPECT_EQ(a.nargs, b.nargs);
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.credits, b.credits);
  EXPECT_EQ(a.nbytes, b.nbytes);
  EXPECT_EQ(a.dest, b.dest);
}

struct Aligned {
  explicit Aligned(size_t n) : p(new (std::align_val_t(4096)) unsigned char[n]()) {}
  struct Free {
    void operator()(unsigned char *q) { ::operator delete[](q, std::align_val_t(4096)); }
  };
  std::unique_ptr<unsigned char[], Free> p;
};

}  // namespace

TEST(TransportContract, WireVocabularyValuesAreFixed) {
  // Both ends of a network link decode these: they are wire values.
  EXPECT_EQ(tp::wire::kRequest, 0);
  EXPECT_EQ(tp::wire::kReply, 1);
  EXPECT_EQ(tp::wire::kCredit, 2);
  EXPECT_EQ(tp::wire::kShort, 0);
  EXPECT_EQ(tp::wire::kMedium, 1);
  EXPECT_EQ(tp::wire::kLong, 2);
  EXPECT_EQ(tp::wire::kPackedLong & ~tp::wire::kFlagsMask, 0);
  EXPECT_EQ(sizeof(tp::AmHeader), 32u);
}

TEST(TransportContract, RingCarriesEveryHeaderFieldIncludingFlags) {
  Aligned mem(tp::smp::AmRing::bytes());
  tp::smp::AmRing ring;
  ring.init(mem.p.get());
  std::atomic<uint64_t> head_cache{0};
  tp::AmHeader h = packed_long_header();
  int32_t args[16] = {11, -22, 33};
  tp::AmSlot slot;
  ASSERT_TRUE(ring.reserve(h.nargs, h.nbytes, head_cache, slot));
  std::memset(slot.payload, 0xA5, h.nbytes);
  ring.commit(slot, h, args, /*opens_lane=*/true);  // the lane bit must not leak into kind
  std::vector<Got> got;
  g_got = &got;
  EXPECT_EQ(ring.drain(10, collect), 1);
  ASSERT_EQ(got.size(), 1u);
  expect_same(got[0].h, h);
  EXPECT_EQ(got[0].args, (std::vector<int32_t>{11, -22, 33}));
  EXPECT_EQ(got[0].payload, std::vector<unsigned char>(40, 0xA5));
}

TEST(TransportContract, LanesCarryEveryHeaderFieldIncludingFlags) {
  Aligned mem(tp::smp::AmLanes::bytes(2));
  std::vector<tp::smp::AmLanes> rank(2);
  for (uint32_t r = 0; r < 2; ++r) {
    rank[r].init(mem.p.get(), 2, r);
    rank[r].set_concurrent(false);
  }
  rank[0].set_open(1, tp::AmLane::Reply);
  rank[1].accept(0, tp::AmLane::Reply);
  tp::AmHeader h = packed_long_header();
  h.nbytes = 16;
  int32_t args[16] = {1, 2, 3};
  const char payload[16] = "sixteen bytes..";
  ASSERT_TRUE(rank[0].send(1, tp::AmLane::Reply, h, args, payload, sizeof payload));
  std::vector<Got> got;
  g_got = &got;
  EXPECT_EQ(rank[1].poll(true, 10, collect), 1);
  ASSERT_EQ(got.size(), 1u);
  expect_same(got[0].h, h);
  EXPECT_EQ(std::memcmp(got[0].payload.data(), payload, sizeof payload), 0);
}

namespace {

// A transport whose queue has room for `room` messages: enough to drive the
// default am_send. Whatever else is called fails the test.
class OneQueue final : public tp::Transport {
 public:
  explicit OneQueue(int room) : room_(room) {}
  int room_;
  std::vector<tp::AmHeader> committed;
  std::vector<std::vector<char>> payloads;
  char buffer[256] = {};

  tp::Result am_reserve(uint32_t peer, tp::AmLane lane, unsigned, size_t payload,
                        tp::AmSlot &slot) override {
    if (room_ == 0) return tp::Result::retry;
    --room_;
    slot.peer = peer;
    slot.lane = lane;
    slot.payload = buffer;
    slot.capacity = sizeof buffer;
    slot.length = static_cast<uint32_t>(payload);
    return tp::Result::done;
  }
  void am_commit(tp::AmSlot &slot, const tp::AmHeader &h, const int32_t *) override {
    committed.push_back(h);
    payloads.emplace_back(buffer, buffer + slot.length);
  }

  const char *name() const override { return "one-queue"; }
  const tp::Capabilities &capabilities() const override { return caps_; }
  uint64_t max_segment_size() const override { return unexpected<uint64_t>(); }
  void attach_segment(uint64_t) override { unexpected<int>(); }
  const tp::PeerSegment &segment(uint32_t) const override { return seg_; }
  void *host_area() const override { return unexpected<void *>(); }
  Locality locality() const override { return unexpected<Locality>(); }
  uint32_t ranks_on_host() const override { return unexpected<uint32_t>(); }
  bool job_in_host_area() const override { return unexpected<bool>(); }
  bool oversubscribed() const override { return unexpected<bool>(); }
  bool poll(bool) override { return unexpected<bool>(); }
  void am_set_concurrent(bool) override { unexpected<int>(); }
  tp::Result rma_put(uint32_t, uint64_t, const void *, size_t, tp::RmaCompletion &,
                     tp::PutSource) override {
    return unexpected<tp::Result>();
  }
  void rma_get(void *, uint32_t, uint64_t, size_t, tp::RmaCompletion &) override {
    unexpected<int>();
  }
  std::string segment_limits() const override { return unexpected<std::string>(); }
  std::string describe() const override { return unexpected<std::string>(); }

 private:
  template <typename T>
  static T unexpected() {
    ADD_FAILURE() << "the default am_send called more than reserve and commit";
    return T{};
  }
  tp::Capabilities caps_;
  tp::PeerSegment seg_;
};

}  // namespace

TEST(TransportContract, DefaultSendCopiesAndCommitsOrAsksForARetry) {
  OneQueue q(1);
  tp::AmHeader h;
  h.category = tp::wire::kMedium;
  h.nbytes = 5;
  int32_t none[1] = {};
  EXPECT_EQ(q.am_send(3, tp::AmLane::Request, h, none, "hello", 5), tp::Result::done);
  ASSERT_EQ(q.committed.size(), 1u);
  EXPECT_EQ(q.payloads[0], (std::vector<char>{'h', 'e', 'l', 'l', 'o'}));
  // No room: nothing is committed, and the caller is told to come back.
  EXPECT_EQ(q.am_send(3, tp::AmLane::Request, h, none, "again", 5), tp::Result::retry);
  EXPECT_EQ(q.committed.size(), 1u);
}
