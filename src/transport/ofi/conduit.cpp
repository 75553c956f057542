// The ofi conduit: the pshm router over the smp transport (ranks of this
// host in our supernode, through shared memory) and libfabric (every other
// peer). GASNET_SUPERNODE_MAXSIZE=1 sends every peer but ourselves through
// the network. Ranks of other hosts (ssh spawner) are always network peers.
#include <cstdint>
#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "transport/ofi/am_channel.hpp"
#include "transport/ofi/fabric.hpp"
#include "transport/ofi/rma.hpp"
#include "transport/pshm/router.hpp"
#include "transport/transport.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::transport {

namespace ofi {
namespace {

// libfabric's part: AMs and RMA toward the peers the router sends here.
class Network {
 public:
  Network(bootstrap::Bootstrap &boot, AmSink &sink)
      : boot_(boot), fabric_(boot, config::get_string("GASNET_OFI_PROVIDER")) {
    AmChannel::Limits limits;
    limits.depth_total = config::get_int("GASNET_NETWORKDEPTH_TOTAL");
    limits.depth_per_peer = config::get_int("GASNET_NETWORKDEPTH_PP");
    int64_t inline_limit = config::get_int("GASNET_INLINESEND_LIMIT");
    limits.inline_limit = inline_limit < 0 ? SIZE_MAX : static_cast<size_t>(inline_limit);
    limits.direct_min = config::get_bytes("GASNET_OFI_DIRECTSEND_MIN");
    am_ = std::make_unique<AmChannel>(fabric_, boot.size(), limits, sink);
    rma_ =
        std::make_unique<RmaChannel>(fabric_, config::get_bytes("GASNET_NONBULKPUT_BOUNCE_LIMIT"));
    int64_t am_rma = config::get_int("GASNET_OFI_AM_RMA_MAX");
    am_rma_max_ = am_rma >= 0 ? static_cast<size_t>(am_rma) : fabric_.offloaded() ? 0 : 16000;
  }
  ~Network() {
    rma_.reset();  // buffers and registrations before the endpoint
    am_.reset();
  }
  // Before the rank leaves: what its active messages cost the network, for
  // GASNET_VERBOSEENV (the udp conduit says the same of its datagrams).
  void drain() {
    util::note("ofi conduit: %llu active-message sends (a bundle counts once), %llu RMA operations",
               static_cast<unsigned long long>(am_->sends()),
               static_cast<unsigned long long>(rma_->posts()));
  }

  Result am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload, AmSlot &slot) {
    return am_->reserve(peer, lane, nargs, payload, slot);
  }
  void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) {
    am_->commit(slot, h, args);
  }
  Result am_send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
                 const void *payload, size_t nbytes) {
    return am_->send(peer, lane, h, args, payload, nbytes);
  }
  // The completion queue is shared: this also completes RMA.
  bool poll(bool replies_only, bool keep_young_bursts) {
    return am_->poll(replies_only, keep_young_bursts);
  }
  void set_concurrent(bool concurrent) { fabric_.set_concurrent(concurrent); }
  // (A stable source changes nothing here: sources up to the bounce limit
  // are copied for the provider's small-write path.)
  Result rma_put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                 RmaCompletion &done, PutSource) {
    return rma_->put(peer, remote, src, nbytes, done);
  }
  void rma_get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes, RmaCompletion &done) {
    rma_->get(dest, peer, remote, nbytes, done);
  }
  size_t rma_runs() const { return rma_->runs(); }
  Result rma_put_runs(uint32_t peer, const RemoteRun *runs, size_t n, const void *src,
                      RmaCompletion &done) {
    return rma_->put_runs(peer, runs, n, src, done);
  }
  void rma_get_runs(void *dest, uint32_t peer, const RemoteRun *runs, size_t n,
                    RmaCompletion &done) {
    rma_->get_runs(dest, peer, runs, n, done);
  }
  void attach_segment(void *base, uint64_t size) { rma_->attach(boot_, base, size); }
  void atomic_ops(uint64_t ops[Capabilities::kAtomicTypes]) const { rma_->atomic_ops(ops); }
  void atomic(uint32_t peer, uint64_t remote, Capabilities::AtomicType type, uint32_t op,
              uint64_t a, uint64_t b, void *result, RmaCompletion &done) {
    rma_->atomic(peer, remote, type, op, a, b, result, done);
  }
  size_t max_medium() const { return AmChannel::kMaxMedium; }
  // net streams 64 KiB messages best (a strided put of 512-byte pieces,
  // testvisperf: 1.3 GB/s in 12 KiB messages, 3.0 in 64 KiB); over
  // tcp;ofi_rxm a message past its 16 KiB eager size goes by rendezvous,
  // and tcp moved 64 KiB ones no faster (1.10 against 1.16 GB/s): 12 KiB.
  size_t packed_medium() const {
    const std::string &p = fabric_.provider();
    bool net = p.rfind("net", 0) == 0 && p.find("rxm") == std::string::npos;
    return net ? AmChannel::kMaxMedium : 12288;
  }
  size_t inline_put() const { return rma_->bounce_limit(); }
  // Small NB/NBI RMA as AMs (src/rma/remote.cpp): where software at the
  // target performs the provider's RMA anyway, a burst of AMs leaves in one
  // send (AmChannel::hold) where each fi_write or fi_read costs one.
  size_t am_rma_max() const { return am_rma_max_; }
  std::string describe() const {
    return util::format("libfabric provider %s (%sinject %zu bytes)", fabric_.provider().c_str(),
                        fabric_.chosen_by_default() ? "our default for Ethernet; " : "",
                        fabric_.inject_size());
  }

 private:
  bootstrap::Bootstrap &boot_;
  Fabric fabric_;
  std::unique_ptr<AmChannel> am_;
  std::unique_ptr<RmaChannel> rma_;
  size_t am_rma_max_ = 0;
};

}  // namespace
}  // namespace ofi

std::unique_ptr<Transport> open_conduit(bootstrap::Bootstrap &boot, AmSink &sink,
                                        uint64_t host_area_bytes) {
  return pshm::open_routed<ofi::Network>("ofi", boot, sink, host_area_bytes);
}

}  // namespace gexx::transport
