// The same-host router every network conduit reuses: a peer in this rank's
// neighbourhood (Routes) is reached through the smp transport (shared
// memory: its segment is mapped here, its AMs go through the host's
// queues), every other peer through the conduit's network transport.
// Segments, the host area and the host's facts come from the smp transport;
// the network transport registers this rank's segment for remote access.
//
// `Net` is the conduit's network transport, a concrete class (the router
// calls it directly: no virtual call beyond the client's one into the
// router). It provides:
//   Result am_reserve(uint32_t peer, AmLane, unsigned nargs, size_t payload, AmSlot &);
//   void am_commit(AmSlot &, const AmHeader &, const int32_t *args);
//   (optionally) Result am_send(uint32_t peer, AmLane, const AmHeader &, const int32_t *args,
//                               const void *payload, size_t nbytes);  // Transport::am_send
//   bool poll(bool replies_only, bool keep_young_bursts);  // AM delivery and RMA
//       completion; keep_young_bursts: Transport::poll_in_test's poll
//   void set_concurrent(bool);
//   Result rma_put(uint32_t peer, uint64_t remote, const void *src, size_t, RmaCompletion &,
//                  PutSource);
//   void rma_get(void *dest, uint32_t peer, uint64_t remote, size_t, RmaCompletion &);
// optionally several remote ranges in one operation (Transport::rma_put_runs):
//   size_t rma_runs() const;
//   Result rma_put_runs(uint32_t peer, const RemoteRun *, size_t n, const void *src,
//                       RmaCompletion &);
//   void rma_get_runs(void *dest, uint32_t peer, const RemoteRun *, size_t n, RmaCompletion &);
//   void attach_segment(void *base, uint64_t size);  // collective: registers ours
//   size_t max_medium() const;  size_t inline_put() const;  size_t packed_medium() const;
// optionally the small NB/NBI RMA it would rather carry as AMs (Capabilities::am_rma_max):
//   size_t am_rma_max() const;
// and the VIS pieces it would rather carry packed (Capabilities::vis_pack_piece_max):
//   size_t vis_pack_piece_max() const;
// and optionally native atomics (Transport::atomic):
//   void atomic_ops(uint64_t ops[Capabilities::kAtomicTypes]) const;
//   void atomic(uint32_t peer, uint64_t remote, Capabilities::AtomicType, uint32_t op,
//               uint64_t a, uint64_t b, void *result, RmaCompletion &);
//   std::string describe() const;
// and optionally what gasnet_exit asks before the rank leaves (Transport::drain):
//   void drain();
// and is absent (null) when no peer needs the network.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "transport/pshm/routes.hpp"
#include "transport/transport.hpp"
#include "util/config.hpp"

namespace gexx::transport::pshm {

[[noreturn]] void no_network(const char *conduit, uint32_t peer);

template <typename Net>
class Router final : public Transport {
 public:
  // `rank`, `ranks`: this rank and the job's size. `net` is null exactly
  // when routes.any_network is false.
  Router(const char *conduit, uint32_t rank, uint32_t ranks, std::unique_ptr<Transport> smp,
         Routes routes, std::unique_ptr<Net> net)
      : conduit_(conduit),
        rank_(rank),
        smp_(std::move(smp)),
        routes_(std::move(routes)),
        net_(std::move(net)),
        segs_(ranks) {
    caps_ = smp_->capabilities();
    if (net_) {
      caps_.max_medium = std::min(caps_.max_medium, net_->max_medium());
      caps_.inline_put = net_->inline_put();
      caps_.packed_medium = std::min(caps_.max_medium, net_->packed_medium());
      if constexpr (requires(const Net &n) { n.atomic_ops(caps_.atomic_ops); })
        net_->atomic_ops(caps_.atomic_ops);
      if constexpr (requires(const Net &n) { n.am_rma_max(); })
        caps_.am_rma_max = net_->am_rma_max();
      if constexpr (requires(const Net &n) { n.vis_pack_piece_max(); })
        caps_.vis_pack_piece_max = net_->vis_pack_piece_max();
      if constexpr (requires(const Net &n) { n.rma_runs(); }) caps_.rma_runs = net_->rma_runs();
    }
    for (uint32_t r = 0; r < ranks; ++r)
      if (routes_.through_network(r)) caps_.load_store[r] = 0;
    caps_.all_segments_mapped = !routes_.any_network;
  }
  ~Router() override {
    net_.reset();  // the network first: it may hold registrations of the segment
  }

  const char *name() const override { return conduit_; }
  const Capabilities &capabilities() const override { return caps_; }
  uint64_t max_segment_size() const override { return smp_->max_segment_size(); }
  // Collective: the smp transport creates and maps the segments; peers
  // through the network are not mapped here; the network registers ours.
  void attach_segment(uint64_t size) override {
    smp_->attach_segment(size);
    for (uint32_t r = 0; r < segs_.size(); ++r) {
      segs_[r] = smp_->segment(r);
      if (routes_.through_network(r)) segs_[r].local = nullptr;
    }
    if (net_) net_->attach_segment(smp_->segment(rank_).local, segs_[rank_].size);
  }
  const PeerSegment &segment(uint32_t rank) const override { return segs_[rank]; }
  void *host_area() const override { return smp_->host_area(); }
  Locality locality() const override { return routes_.locality; }
  uint32_t ranks_on_host() const override { return smp_->ranks_on_host(); }
  bool job_in_host_area() const override {
    return !routes_.any_network && smp_->job_in_host_area();
  }
  bool oversubscribed() const override { return smp_->oversubscribed(); }

  Result am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload,
                    AmSlot &slot) override {
    if (routes_.through_network(peer)) return net_->am_reserve(peer, lane, nargs, payload, slot);
    return smp_->am_reserve(peer, lane, nargs, payload, slot);
  }
  void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) override {
    if (routes_.through_network(slot.peer)) return net_->am_commit(slot, h, args);
    smp_->am_commit(slot, h, args);
  }
  Result am_send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
                 const void *payload, size_t nbytes) override {
    // Neighbours keep smp's single-call path (its lanes).
    if (!routes_.through_network(peer)) return smp_->am_send(peer, lane, h, args, payload, nbytes);
    if constexpr (requires(Net & n) { n.am_send(peer, lane, h, args, payload, nbytes); })
      return net_->am_send(peer, lane, h, args, payload, nbytes);
    AmSlot slot;
    if (net_->am_reserve(peer, lane, h.nargs, nbytes, slot) == Result::retry) return Result::retry;
    if (nbytes) std::memcpy(slot.payload, payload, nbytes);
    net_->am_commit(slot, h, args);
    return Result::done;
  }
  // Both transports' progress: shared-memory AMs, then the network's AMs
  // and RMA completions.
  bool poll(bool replies_only) override {
    bool any = smp_->poll(replies_only);
    if (net_) any = net_->poll(replies_only, false) || any;
    return any;
  }
  bool poll_in_test() override {
    bool any = smp_->poll(false);
    if (net_) any = net_->poll(false, true) || any;
    return any;
  }
  void am_set_concurrent(bool concurrent) override {
    smp_->am_set_concurrent(concurrent);
    if (net_) net_->set_concurrent(concurrent);
  }
  // Core sends RMA here only toward peers it does not map: network peers.
  Result rma_put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                 RmaCompletion &done, PutSource source) override {
    if (!net_) no_network(conduit_, peer);
    return net_->rma_put(peer, remote, src, nbytes, done, source);
  }
  void rma_get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes,
               RmaCompletion &done) override {
    if (!net_) no_network(conduit_, peer);
    net_->rma_get(dest, peer, remote, nbytes, done);
  }
  Result rma_put_runs(uint32_t peer, const RemoteRun *runs, size_t n, const void *src,
                      RmaCompletion &done) override {
    if constexpr (requires(Net & t) { t.rma_put_runs(peer, runs, n, src, done); }) {
      if (!net_) no_network(conduit_, peer);
      return net_->rma_put_runs(peer, runs, n, src, done);
    }
    return Transport::rma_put_runs(peer, runs, n, src, done);
  }
  void rma_get_runs(void *dest, uint32_t peer, const RemoteRun *runs, size_t n,
                    RmaCompletion &done) override {
    if constexpr (requires(Net & t) { t.rma_get_runs(dest, peer, runs, n, done); }) {
      if (!net_) no_network(conduit_, peer);
      net_->rma_get_runs(dest, peer, runs, n, done);
      return;
    }
    Transport::rma_get_runs(dest, peer, runs, n, done);
  }
  // Every target of a domain that uses native atomics goes through the
  // network, same-host peers and this rank included.
  void atomic(uint32_t peer, uint64_t remote, Capabilities::AtomicType type, uint32_t op,
              uint64_t a, uint64_t b, void *result, RmaCompletion &done) override {
    if constexpr (requires(Net & n) { n.atomic(peer, remote, type, op, a, b, result, done); }) {
      if (!net_) no_network(conduit_, peer);
      net_->atomic(peer, remote, type, op, a, b, result, done);
    } else {
      Transport::atomic(peer, remote, type, op, a, b, result, done);
    }
  }
  void drain() override {
    if constexpr (requires(Net & n) { n.drain(); })
      if (net_) net_->drain();
  }
  std::string segment_limits() const override { return smp_->segment_limits(); }
  std::string describe() const override {
    std::string net = net_ ? net_->describe() : std::string("no peer over the network");
    return std::string("conduit ") + conduit_ + ": " + net + "; " + smp_->describe();
  }

  // For tests and tools: the decisions this router was built with.
  const Routes &routes() const { return routes_; }

 private:
  const char *conduit_;
  uint32_t rank_;
  std::unique_ptr<Transport> smp_;
  Routes routes_;
  std::unique_ptr<Net> net_;
  Capabilities caps_;
  std::vector<PeerSegment> segs_;
};

// A network conduit's transport (open_conduit): the smp transport for the
// neighbourhood GASNET_SUPERNODE_MAXSIZE allows, and `Net(boot, sink)` for
// every other peer. Every rank computes the same routes (the variable must
// agree), so either all open the network, collectively, or none does.
template <typename Net>
std::unique_ptr<Transport> open_routed(const char *conduit, bootstrap::Bootstrap &boot,
                                       AmSink &sink, uint64_t host_area_bytes) {
  auto smp = smp::open(boot, false, sink, host_area_bytes);
  auto routes = Routes::compute(boot.size(), boot.host_ranks(), boot.rank(),
                                static_cast<uint64_t>(config::get_int("GASNET_SUPERNODE_MAXSIZE")));
  std::unique_ptr<Net> net;
  if (routes.any_network) net = std::make_unique<Net>(boot, sink);
  return std::make_unique<Router<Net>>(conduit, boot.rank(), boot.size(), std::move(smp),
                                       std::move(routes), std::move(net));
}

}  // namespace gexx::transport::pshm
