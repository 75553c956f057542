// The udp conduit: the pshm router over the smp transport (ranks of this
// host in our supernode, through shared memory) and UDP datagrams made
// reliable by udp::Channel (every other peer). GASNET_SUPERNODE_MAXSIZE=1
// sends every peer but ourselves through the network.
#include <cstdint>
#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "transport/pshm/router.hpp"
#include "transport/transport.hpp"
#include "transport/udp/channel.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

namespace gexx::transport {

namespace udp {
namespace {

class Network {
 public:
  Network(bootstrap::Bootstrap &boot, AmSink &sink) : channel_(boot, sink, limits()) {}

  Result am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload, AmSlot &slot) {
    return channel_.am_reserve(peer, lane, nargs, payload, slot);
  }
  void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) {
    channel_.am_commit(slot, h, args);
  }
  bool poll(bool replies_only) { return channel_.poll(replies_only); }
  void set_concurrent(bool concurrent) { channel_.set_concurrent(concurrent); }
  Result rma_put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                 RmaCompletion &done) {
    return channel_.rma_put(peer, remote, src, nbytes, done);
  }
  void rma_get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes, RmaCompletion &done) {
    channel_.rma_get(dest, peer, remote, nbytes, done);
  }
  void attach_segment(void *base, uint64_t size) { channel_.attach_segment(base, size); }
  size_t max_medium() const { return Channel::kMaxMedium; }
  size_t packed_medium() const { return Channel::kMaxMedium; }
  size_t inline_put() const { return channel_.copy_put(); }
  // Small NB/NBI puts and gets in a burst travel as AMs (src/rma/remote.cpp),
  // which leave bundled: a datagram for many rather than one each.
  size_t am_rma_max() const { return 16000; }
  // VIS packs every piece a message carries (see vis.cpp's cut-over).
  size_t vis_pack_piece_max() const { return Channel::kMaxMedium; }
  std::string describe() const { return channel_.describe(); }
  void drain() { channel_.drain(); }

 private:
  static Channel::Limits limits() {
    Channel::Limits l;
    l.window_bytes = config::get_bytes("GASNET_UDP_WINDOW");
    if (l.window_bytes < Channel::kMaxDatagram) l.window_bytes = Channel::kMaxDatagram;
    uint64_t buf = config::get_bytes("GASNET_UDP_SOCKETBUF");
    l.socket_buffer = static_cast<int>(std::min<uint64_t>(buf, 1u << 30));
    l.copy_put = config::get_bytes("GASNET_NONBULKPUT_BOUNCE_LIMIT");
    l.drop_every = static_cast<uint64_t>(config::get_int("GASNET_UDP_TEST_DROP"));
    l.worker_ip = config::get_string("GASNET_WORKERIP");
    return l;
  }
  Channel channel_;
};

}  // namespace
}  // namespace udp

std::unique_ptr<Transport> open_conduit(bootstrap::Bootstrap &boot, AmSink &sink,
                                        uint64_t host_area_bytes) {
  return pshm::open_routed<udp::Network>("udp", boot, sink, host_area_bytes);
}

}  // namespace gexx::transport
