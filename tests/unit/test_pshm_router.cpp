// The pshm router: which peers go through shared memory and which through
// the network, that every call follows that decision, and the capability
// record it builds from its two transports.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transport/pshm/router.hpp"
#include "transport/pshm/routes.hpp"

namespace tp = gexx::transport;
using tp::pshm::Routes;

namespace {

std::vector<uint32_t> network_peers(const Routes &r) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < r.network.size(); ++i)
    if (r.through_network(i)) out.push_back(i);
  return out;
}

}  // namespace

TEST(PshmRoutes, WholeHostIsOneNeighbourhoodByDefault) {
  // Ranks 0-3 here, 4 and 5 on another host.
  Routes r = Routes::compute(6, {0, 1, 2, 3}, 1, 0);
  EXPECT_EQ(network_peers(r), (std::vector<uint32_t>{4, 5}));
  EXPECT_TRUE(r.any_network);
  EXPECT_EQ(r.locality.host_first, 0u);
  EXPECT_EQ(r.locality.nbrhd_first, 0u);
}

TEST(PshmRoutes, SupernodeMaxSizeSplitsTheHostIntoConsecutiveGroups) {
  Routes r = Routes::compute(6, {0, 1, 2, 3}, 3, 2);
  EXPECT_EQ(network_peers(r), (std::vector<uint32_t>{0, 1, 4, 5}));
  EXPECT_EQ(r.locality.host_first, 0u);
  EXPECT_EQ(r.locality.nbrhd_first, 2u);
  // A last group that is not full.
  Routes last = Routes::compute(5, {0, 1, 2, 3, 4}, 4, 2);
  EXPECT_EQ(network_peers(last), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(last.locality.nbrhd_first, 4u);
}

TEST(PshmRoutes, SupernodeOfOneSendsEveryPeerButOurselvesThroughTheNetwork) {
  Routes r = Routes::compute(3, {0, 1, 2}, 2, 1);
  EXPECT_EQ(network_peers(r), (std::vector<uint32_t>{0, 1}));
  EXPECT_FALSE(r.through_network(2));
  EXPECT_EQ(r.locality.nbrhd_first, 2u);
}

TEST(PshmRoutes, HostRanksNeedNotBeConsecutiveJobRanks) {
  // Ranks placed round-robin over two hosts: 1, 3 and 5 are here.
  Routes r = Routes::compute(6, {1, 3, 5}, 5, 2);
  EXPECT_EQ(network_peers(r), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r.locality.host_first, 1u);
  EXPECT_EQ(r.locality.nbrhd_first, 5u);
  Routes whole = Routes::compute(6, {1, 3, 5}, 3, 0);
  EXPECT_EQ(network_peers(whole), (std::vector<uint32_t>{0, 2, 4}));
  EXPECT_EQ(whole.locality.nbrhd_first, 1u);
}

TEST(PshmRoutes, OneHostJobNeedsNoNetwork) {
  for (uint64_t maxsize : {uint64_t{0}, uint64_t{4}, uint64_t{100}}) {
    Routes r = Routes::compute(4, {0, 1, 2, 3}, 2, maxsize);
    EXPECT_FALSE(r.any_network) << maxsize;
    EXPECT_TRUE(network_peers(r).empty()) << maxsize;
  }
}

namespace {

// What a transport under the router was asked to do.
struct Calls {
  std::vector<uint32_t> reserve, commit, send, put, get;
  int polls = 0;
  int young_kept = 0;  // polls asked to keep young bursts (poll_in_test)
  bool concurrent = false;
};

constexpr uint64_t kSegBytes = 4096;

// Stands for the smp transport: maps every rank of a 4-rank job at a fake
// address, delivers nothing.
class FakeSmp final : public tp::Transport {
 public:
  explicit FakeSmp(Calls &c) : c_(c), segs_(4) {
    caps_.max_medium = 65536;
    caps_.load_store.assign(4, 1);
    caps_.all_segments_mapped = true;
  }
  const char *name() const override { return "fake-smp"; }
  const tp::Capabilities &capabilities() const override { return caps_; }
  uint64_t max_segment_size() const override { return 1 << 20; }
  void attach_segment(uint64_t size) override {
    for (uint32_t r = 0; r < segs_.size(); ++r) {
      segs_[r].owner_base = 0x10000 * (r + 1);
      segs_[r].size = size;
      segs_[r].local = storage_ + r * 16;
    }
  }
  const tp::PeerSegment &segment(uint32_t rank) const override { return segs_[rank]; }
  void *host_area() const override { return nullptr; }
  Locality locality() const override { return {0, 0}; }
  uint32_t ranks_on_host() const override { return 4; }
  bool job_in_host_area() const override { return true; }
  bool oversubscribed() const override { return false; }
  tp::Result am_reserve(uint32_t peer, tp::AmLane, unsigned, size_t, tp::AmSlot &slot) override {
    c_.reserve.push_back(peer);
    slot.peer = peer;
    slot.payload = storage_;
    return tp::Result::done;
  }
  void am_commit(tp::AmSlot &slot, const tp::AmHeader &, const int32_t *) override {
    c_.commit.push_back(slot.peer);
  }
  tp::Result am_send(uint32_t peer, tp::AmLane, const tp::AmHeader &, const int32_t *, const void *,
                     size_t) override {
    c_.send.push_back(peer);
    return tp::Result::done;
  }
  bool poll(bool) override {
    ++c_.polls;
    return false;
  }
  void am_set_concurrent(bool on) override { c_.concurrent = on; }
  tp::Result rma_put(uint32_t peer, uint64_t, const void *, size_t, tp::RmaCompletion &,
                     tp::PutSource) override {
    c_.put.push_back(peer);
    return tp::Result::done;
  }
  void rma_get(void *, uint32_t peer, uint64_t, size_t, tp::RmaCompletion &) override {
    c_.get.push_back(peer);
  }
  std::string segment_limits() const override { return "fake limits"; }
  std::string describe() const override { return "fake smp"; }

 private:
  Calls &c_;
  tp::Capabilities caps_;
  std::vector<tp::PeerSegment> segs_;
  char storage_[256] = {};
};

// Stands for a conduit's network transport: has room for `room` messages,
// posts every put, and reports an arrival on each poll.
class FakeNet {
 public:
  FakeNet(Calls &c, int room) : c_(c), room_(room) {}
  tp::Result am_reserve(uint32_t peer, tp::AmLane, unsigned, size_t payload, tp::AmSlot &slot) {
    c_.reserve.push_back(peer);
    if (room_ == 0) return tp::Result::retry;
    --room_;
    slot.peer = peer;
    slot.payload = buffer;
    slot.length = static_cast<uint32_t>(payload);
    return tp::Result::done;
  }
  void am_commit(tp::AmSlot &slot, const tp::AmHeader &, const int32_t *) {
    c_.commit.push_back(slot.peer);
    last_payload.assign(buffer, buffer + slot.length);
  }
  bool poll(bool, bool keep_young_bursts) {
    ++c_.polls;
    c_.young_kept += keep_young_bursts;
    return true;
  }
  void set_concurrent(bool on) { c_.concurrent = on; }
  tp::Result rma_put(uint32_t peer, uint64_t, const void *, size_t, tp::RmaCompletion &done,
                     tp::PutSource) {
    c_.put.push_back(peer);
    done.pending.fetch_add(1);
    return tp::Result::posted;
  }
  void rma_get(void *, uint32_t peer, uint64_t, size_t, tp::RmaCompletion &) {
    c_.get.push_back(peer);
  }
  void attach_segment(void *base, uint64_t size) {
    attached_base = base;
    attached_size = size;
  }
  size_t max_medium() const { return 4000; }
  size_t inline_put() const { return 256; }
  size_t packed_medium() const { return 12288; }
  std::string describe() const { return "fake network"; }

  char buffer[64] = {};
  std::string last_payload;
  void *attached_base = nullptr;
  uint64_t attached_size = 0;

 private:
  Calls &c_;
  int room_;
};

using FakeRouter = tp::pshm::Router<FakeNet>;

// Rank 1 of 4 ranks on one host, supernodes of 2: ranks 0 and 1 share
// memory, 2 and 3 go through the network.
struct Split {
  Calls smp, net;
  FakeNet *net_ptr;
  std::unique_ptr<FakeRouter> router;
  explicit Split(int room = 8) {
    auto n = std::make_unique<FakeNet>(net, room);
    net_ptr = n.get();
    router = std::make_unique<FakeRouter>("fake", 1, 4, std::make_unique<FakeSmp>(smp),
                                          Routes::compute(4, {0, 1, 2, 3}, 1, 2), std::move(n));
  }
};

}  // namespace

TEST(PshmRouter, ActiveMessagesFollowTheRoutes) {
  Split s;
  tp::AmHeader h;
  h.category = tp::wire::kMedium;
  int32_t args[1] = {};
  for (uint32_t peer = 0; peer < 4; ++peer)
    EXPECT_EQ(s.router->am_send(peer, tp::AmLane::Request, h, args, "abc", 3), tp::Result::done);
  // Neighbours: smp's one-call path; network peers: reserve, copy, commit.
  EXPECT_EQ(s.smp.send, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(s.smp.reserve.empty());
  EXPECT_EQ(s.net.reserve, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(s.net.commit, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(s.net_ptr->last_payload, "abc");

  tp::AmSlot slot;
  ASSERT_EQ(s.router->am_reserve(0, tp::AmLane::Reply, 0, 0, slot), tp::Result::done);
  s.router->am_commit(slot, h, args);
  ASSERT_EQ(s.router->am_reserve(3, tp::AmLane::Reply, 0, 0, slot), tp::Result::done);
  s.router->am_commit(slot, h, args);
  EXPECT_EQ(s.smp.reserve, (std::vector<uint32_t>{0}));
  EXPECT_EQ(s.smp.commit, (std::vector<uint32_t>{0}));
  EXPECT_EQ(s.net.commit, (std::vector<uint32_t>{2, 3, 3}));
}

TEST(PshmRouter, NetworkOutOfRoomAsksForARetryAndCommitsNothing) {
  Split s(0);
  tp::AmHeader h;
  int32_t args[1] = {};
  EXPECT_EQ(s.router->am_send(2, tp::AmLane::Request, h, args, nullptr, 0), tp::Result::retry);
  EXPECT_TRUE(s.net.commit.empty());
  tp::AmSlot slot;
  EXPECT_EQ(s.router->am_reserve(3, tp::AmLane::Request, 0, 0, slot), tp::Result::retry);
}

TEST(PshmRouter, RmaGoesToTheNetworkAndSaysWhetherItWasPosted) {
  Split s;
  tp::RmaCompletion done;
  char buf[8] = {};
  EXPECT_EQ(s.router->rma_put(3, 0x30000, buf, 8, done, tp::PutSource::transient),
            tp::Result::posted);
  s.router->rma_get(buf, 2, 0x20000, 8, done);
  EXPECT_EQ(s.net.put, (std::vector<uint32_t>{3}));
  EXPECT_EQ(s.net.get, (std::vector<uint32_t>{2}));
  EXPECT_TRUE(s.smp.put.empty());
  EXPECT_FALSE(done.done());
}

TEST(PshmRouter, PollIsBothTransportsProgress) {
  Split s;
  EXPECT_TRUE(s.router->poll(false));  // the network had an arrival
  EXPECT_EQ(s.smp.polls, 1);
  EXPECT_EQ(s.net.polls, 1);
  EXPECT_EQ(s.net.young_kept, 0);
  // A test's poll: both again, the network's keeping young bursts.
  EXPECT_TRUE(s.router->poll_in_test());
  EXPECT_EQ(s.smp.polls, 2);
  EXPECT_EQ(s.net.polls, 2);
  EXPECT_EQ(s.net.young_kept, 1);
  s.router->am_set_concurrent(true);
  EXPECT_TRUE(s.smp.concurrent);
  EXPECT_TRUE(s.net.concurrent);
}

TEST(PshmRouter, SegmentsOfNetworkPeersAreNotMappedAndOursIsRegistered) {
  Split s;
  s.router->attach_segment(kSegBytes);
  for (uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(s.router->segment(r).owner_base, 0x10000u * (r + 1)) << r;
    EXPECT_EQ(s.router->segment(r).size, kSegBytes) << r;
    EXPECT_EQ(s.router->segment(r).local != nullptr, r < 2) << r;
  }
  EXPECT_EQ(s.net_ptr->attached_base, s.router->segment(1).local);
  EXPECT_EQ(s.net_ptr->attached_size, kSegBytes);
}

TEST(PshmRouter, CapabilitiesCombineBothTransports) {
  Split s;
  const tp::Capabilities &c = s.router->capabilities();
  EXPECT_EQ(c.max_medium, 4000u);  // the smaller of the two
  EXPECT_EQ(c.inline_put, 256u);
  EXPECT_EQ(c.packed_medium, 4000u);  // at most max_medium
  EXPECT_EQ(c.load_store, (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_FALSE(c.all_segments_mapped);
  EXPECT_EQ(c.memory_kinds, tp::Capabilities::kHostMemory);
  for (uint64_t ops : c.atomic_ops) EXPECT_EQ(ops, 0u);
  EXPECT_FALSE(s.router->job_in_host_area());
  EXPECT_EQ(s.router->locality().nbrhd_first, 0u);
  EXPECT_EQ(s.router->describe(), "conduit fake: fake network; fake smp");
}

TEST(PshmRouter, WithoutNetworkPeersItIsTheSmpTransport) {
  Calls smp;
  FakeRouter r("fake", 1, 4, std::make_unique<FakeSmp>(smp), Routes::compute(4, {0, 1, 2, 3}, 1, 0),
               nullptr);
  const tp::Capabilities &c = r.capabilities();
  EXPECT_EQ(c.max_medium, 65536u);
  EXPECT_EQ(c.load_store, (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_TRUE(c.all_segments_mapped);
  EXPECT_TRUE(r.job_in_host_area());
  EXPECT_FALSE(r.poll(true));
  EXPECT_EQ(smp.polls, 1);
  r.attach_segment(kSegBytes);
  for (uint32_t p = 0; p < 4; ++p) EXPECT_NE(r.segment(p).local, nullptr) << p;
  EXPECT_EQ(r.describe(), "conduit fake: no peer over the network; fake smp");
}
