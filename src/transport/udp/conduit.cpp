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

// The router's network transport: the channel itself, built from the
// variables, and what it tells the router.
class Network : public Channel {
 public:
  Network(bootstrap::Bootstrap &boot, AmSink &sink) : Channel(boot, sink, limits()) {}

  size_t max_medium() const { return kMaxMedium; }
  size_t packed_medium() const { return kMaxMedium; }
  size_t inline_put() const { return copy_put(); }
  // Small NB/NBI puts and gets in a burst travel as AMs (src/rma/remote.cpp),
  // which leave bundled: a datagram for many rather than one each.
  size_t am_rma_max() const { return 16000; }
  // VIS packs every piece a message carries (see vis.cpp's cut-over).
  size_t vis_pack_piece_max() const { return kMaxMedium; }

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
};

}  // namespace
}  // namespace udp

std::unique_ptr<Transport> open_conduit(bootstrap::Bootstrap &boot, AmSink &sink,
                                        uint64_t host_area_bytes) {
  return pshm::open_routed<udp::Network>("udp", boot, sink, host_area_bytes);
}

}  // namespace gexx::transport
