// The smp conduit's library opens the shared-memory transport.
#include "transport/transport.hpp"

namespace gexx::transport {
std::unique_ptr<Transport> open_conduit(bootstrap::Bootstrap &boot, AmSink &sink) {
  return smp::open(boot, true, sink);
}
}  // namespace gexx::transport
