// The ofi conduit: ranks of this host in our supernode reach each other
// through the smp transport (shared memory); every other peer through
// libfabric. GASNET_SUPERNODE_MAXSIZE=1 sends every peer but ourselves
// through the network.
//
// Ranks of other hosts (ssh spawner) are always network peers.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "transport/ofi/am_channel.hpp"
#include "transport/ofi/fabric.hpp"
#include "transport/ofi/rma.hpp"
#include "transport/transport.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

namespace gexx::transport {

namespace ofi {
namespace {

class OfiTransport final : public Transport {
 public:
  OfiTransport(bootstrap::Bootstrap &boot, AmSink &sink)
      : boot_(boot), smp_(smp::open(boot, false, sink)), network_(boot.size(), 1) {
    // Supernodes: the ranks of a host, in consecutive groups of at most
    // GASNET_SUPERNODE_MAXSIZE (0: one group); every other peer is reached
    // through the network.
    int64_t maxsize = config::get_int("GASNET_SUPERNODE_MAXSIZE", 0, 1 << 20);
    const auto &host = boot.host_ranks();
    size_t me = std::find(host.begin(), host.end(), boot.rank()) - host.begin();
    size_t group = maxsize > 0 ? static_cast<size_t>(maxsize) : host.size();
    for (size_t i = 0; i < host.size(); ++i) network_[host[i]] = i / group != me / group;
    locality_.host_first = host[0];
    locality_.nbrhd_first = host[me / group * group];
    bool any = false;
    for (uint32_t r = 0; r < boot.size(); ++r) any = any || network_[r];
    // Every rank computes the same answer (the variables must agree), so
    // either all open the fabric, collectively, or none does.
    if (any) {
      fabric_ = std::make_unique<Fabric>(boot, config::get_string("GASNET_OFI_PROVIDER"));
      AmChannel::Limits limits;
      limits.depth_total = config::get_int("GASNET_NETWORKDEPTH_TOTAL", 1, 1 << 20);
      limits.depth_per_peer = config::get_int("GASNET_NETWORKDEPTH_PP", 1, 1 << 20);
      int64_t inline_limit = config::get_int("GASNET_INLINESEND_LIMIT", -1, 1 << 20);
      limits.inline_limit = inline_limit < 0 ? SIZE_MAX : static_cast<size_t>(inline_limit);
      am_ = std::make_unique<AmChannel>(*fabric_, boot.size(), limits, sink);
      rma_ = std::make_unique<RmaChannel>(*fabric_,
                                          config::get_bytes("GASNET_NONBULKPUT_BOUNCE_LIMIT"));
    }
    caps_ = smp_->capabilities();
    caps_.max_medium = std::min(caps_.max_medium, AmChannel::kMaxMedium);
    caps_.inline_put = rma_ ? rma_->bounce_limit() : 0;
    for (uint32_t r = 0; r < boot.size(); ++r)
      if (network_[r]) caps_.load_store[r] = 0;
    caps_.all_segments_mapped = !any;
  }
  ~OfiTransport() override {
    rma_.reset();  // buffers and registrations before the endpoint
    am_.reset();
    fabric_.reset();
  }

  const char *name() const override { return "ofi"; }
  const Capabilities &capabilities() const override { return caps_; }
  uint64_t max_segment_size() const override { return smp_->max_segment_size(); }
  void attach_segment(uint64_t size) override {
    smp_->attach_segment(size);
    segs_.resize(boot_.size());
    for (uint32_t r = 0; r < boot_.size(); ++r) {
      segs_[r] = smp_->segment(r);
      if (network_[r]) segs_[r].local = nullptr;  // reached through the network only
    }
    if (rma_) rma_->attach(boot_, smp_->segment(boot_.rank()).local, segs_[boot_.rank()].size);
  }
  const PeerSegment &segment(uint32_t rank) const override { return segs_[rank]; }
  void *host_area() const override { return smp_->host_area(); }
  Locality locality() const override { return locality_; }
  uint32_t ranks_on_host() const override { return smp_->ranks_on_host(); }
  bool job_in_host_area() const override {
    for (uint8_t net : network_)
      if (net) return false;
    return smp_->job_in_host_area();
  }
  bool oversubscribed() const override { return smp_->oversubscribed(); }

  Result am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload,
                    AmSlot &slot) override {
    if (network_[peer]) return am_->reserve(peer, lane, nargs, payload, slot);
    return smp_->am_reserve(peer, lane, nargs, payload, slot);
  }
  void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) override {
    if (network_[slot.peer]) return am_->commit(slot, h, args);
    smp_->am_commit(slot, h, args);
  }
  Result am_send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
                 const void *payload, size_t nbytes) override {
    // Peers in our neighbourhood keep smp's single-call path (its lanes).
    if (!network_[peer]) return smp_->am_send(peer, lane, h, args, payload, nbytes);
    return Transport::am_send(peer, lane, h, args, payload, nbytes);
  }
  // AMs from both; the network's poll also completes RMA (one completion queue).
  bool poll(bool replies_only) override {
    bool any = smp_->poll(replies_only);
    if (am_) any = am_->poll(replies_only) || any;
    return any;
  }
  void am_set_concurrent(bool concurrent) override {
    smp_->am_set_concurrent(concurrent);
    if (fabric_) fabric_->set_concurrent(concurrent);
  }
  Result rma_put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                 RmaCompletion &done) override {
    return rma_->put(peer, remote, src, nbytes, done);
  }
  void rma_get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes,
               RmaCompletion &done) override {
    rma_->get(dest, peer, remote, nbytes, done);
  }
  std::string segment_limits() const override { return smp_->segment_limits(); }
  std::string describe() const override {
    std::string net =
        fabric_ ? util::format("libfabric provider %s (%sinject %zu bytes)",
                               fabric_->provider().c_str(),
                               fabric_->chosen_by_default() ? "our default for Ethernet; " : "",
                               fabric_->inject_size())
                : std::string("no peer over the network");
    return "conduit ofi: " + net + "; " + smp_->describe();
  }

 private:
  bootstrap::Bootstrap &boot_;
  Capabilities caps_;
  std::unique_ptr<Transport> smp_;
  std::vector<uint8_t> network_;  // by rank: reached through libfabric
  Locality locality_;
  std::unique_ptr<Fabric> fabric_;
  std::unique_ptr<AmChannel> am_;
  std::unique_ptr<RmaChannel> rma_;
  std::vector<PeerSegment> segs_;
};

}  // namespace
}  // namespace ofi

std::unique_ptr<Transport> open_conduit(bootstrap::Bootstrap &boot, AmSink &sink) {
  return std::make_unique<ofi::OfiTransport>(boot, sink);
}

}  // namespace gexx::transport
