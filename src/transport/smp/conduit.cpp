// The smp conduit's library opens the shared-memory transport.
#include "transport/transport.hpp"

namespace gexx::transport {
std::unique_ptr<Transport> open_conduit(bootstrap::Bootstrap &boot, AmSink &sink,
                                        uint64_t host_area_bytes) {
  return smp::open(boot, true, sink, host_area_bytes);
}
}  // namespace gexx::transport
