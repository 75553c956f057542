// The interface every conduit implements: segments, reachability and
// progress. Core owns the protocol; a transport owns the bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace gexx::bootstrap {
class Bootstrap;
}

namespace gexx::transport {

struct PeerSegment {
  uint64_t owner_base = 0;  // address in the owner's address space
  uint64_t size = 0;
  char *local = nullptr;  // where this process can load and store it; null if not mapped
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual const char *name() const = 0;
  // Largest segment this rank may attach, as this host can back it.
  virtual uint64_t max_segment_size() const = 0;
  // Collective: creates this rank's segment and makes every peer's known.
  virtual void attach_segment(uint64_t size) = 0;
  virtual const PeerSegment &segment(uint32_t rank) const = 0;
  // Memory shared by the ranks of this host for intra-host collectives.
  virtual void *host_area() const = 0;
  virtual uint32_t ranks_on_host() const = 0;
  // More ranks on this host than cores: waiting ranks must yield at once.
  virtual bool oversubscribed() const = 0;
  // Runs pending work (incoming messages, completions).
  virtual void poll() = 0;
  // Why max_segment_size() is what it is: the limits that set it.
  virtual std::string segment_limits() const = 0;
  // One line for verbose output: where the segments live.
  virtual std::string describe() const = 0;
};

// Size of the host area every transport provides (barrier state and more).
uint64_t host_area_size(uint32_t ranks);

namespace smp {
std::unique_ptr<Transport> open(bootstrap::Bootstrap &boot);
}

}  // namespace gexx::transport
