// The interface every conduit implements: segments, reachability and
// progress. Core owns the protocol; a transport owns the bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace gexx::bootstrap {
class Bootstrap;
}

namespace gexx::transport {

// The wire header of an active message. Core fills it in and reads it back;
// a transport carries it (with up to 16 arguments and the payload).
struct AmHeader {
  uint8_t kind = 0;      // core::am::Kind
  uint8_t category = 0;  // core::am::Category
  uint8_t handler = 0;
  uint8_t nargs = 0;
  uint32_t src = 0;      // sending rank
  uint32_t credits = 0;  // request credits returned to the receiver of this message
  uint64_t nbytes = 0;   // payload length
  uint64_t dest = 0;     // Long: destination address as the initiator named it
};

// Two lanes per receiver, so a reply never waits behind requests: replies
// can always drain, which is what makes sending them deadlock-free.
enum class AmLane : uint8_t { Request = 0, Reply = 1 };

// Space reserved for one outgoing message; the sender writes the payload at
// `payload` (up to `capacity` bytes) and then commits.
struct AmSlot {
  void *payload = nullptr;
  size_t capacity = 0;
  uint32_t peer = 0;
  AmLane lane = AmLane::Request;
  uint64_t where = 0;   // transport's own
  uint32_t length = 0;  // transport's own
  uint8_t queue = 0;    // transport's own
};

// Where a transport hands incoming messages: implemented by core. `payload`
// stays valid until the call returns.
void deliver_am(const AmHeader &h, const int32_t *args, void *payload);

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
  // Active messages. am_reserve claims room for a message of `nargs`
  // arguments and `payload` bytes toward `peer` on `lane`; false when there is
  // none now (the caller polls and retries). am_commit publishes it.
  virtual bool am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload,
                          AmSlot &slot) = 0;
  virtual void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) = 0;
  // am_reserve, a copy of the `nbytes` bytes at `payload` into the slot and
  // am_commit, in one call: the path of every message whose payload, if
  // any, travels in the queue. False when there is no room now.
  virtual bool am_send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
                       const void *payload, size_t nbytes) {
    AmSlot slot;
    if (!am_reserve(peer, lane, h.nargs, nbytes, slot)) return false;
    if (nbytes) std::memcpy(slot.payload, payload, nbytes);
    am_commit(slot, h, args);
    return true;
  }
  // Delivers incoming messages (only replies when `replies_only`) through
  // deliver_am; true if any arrived.
  virtual bool am_poll(bool replies_only) = 0;
  virtual size_t am_max_medium() const = 0;
  // False when one client thread at a time calls in (GASNET_SEQ, PARSYNC):
  // the receive side then takes no locks.
  virtual void am_set_concurrent(bool concurrent) = 0;
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
