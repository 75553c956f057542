// The interface every conduit implements: segments, active-message bytes,
// RMA, progress and a capability record. Core owns the protocol (handlers,
// credits, events); a transport owns the bytes and knows nothing of
// barriers or collectives. It is opened with the sink its incoming AMs go to
// and the size of the host area its caller lays out. A network conduit
// reuses pshm::Router (transport/pshm/router.hpp) for its same-host peers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace gexx::bootstrap {
class Bootstrap;
}

namespace gexx::transport {

// The AM wire vocabulary: what core writes into an AmHeader and reads back.
// A transport may look at these to route a message (a request or a reply
// queue, how many payload bytes travel) but never acts on the protocol.
namespace wire {
enum Kind : uint8_t { kRequest = 0, kReply = 1, kCredit = 2 };  // kCredit: credits only
enum Category : uint8_t { kShort = 0, kMedium = 1, kLong = 2 };
// AmHeader::flags. kPackedLong: a Long whose payload travels in the message
// (the receiving engine copies it to `dest`); any other Long's payload is
// at `dest` before the message is published. kDeferrable: a request whose
// initiator waits for its reply only by polling, in a burst of such
// requests (core/burst.hpp), which a network transport may hold back to
// send it with others toward the same peer; the initiator's next poll sends
// it at the latest.
enum Flag : uint8_t { kPackedLong = 1, kDeferrable = 2 };
constexpr uint8_t kFlagsMask = 0x0F;  // flags fit four bits (the smp queues pack them)
// The four bits above kFlagsMask are a transport's own (the ofi conduit's
// bundles mark a message that another follows); core never sees them set.
constexpr uint8_t kTransportFlags = 0xF0;
constexpr unsigned kMaxArgs = 16;
}  // namespace wire

// The wire header of an active message. Core fills it in and reads it back;
// a transport carries it (with up to 16 arguments and the payload).
struct AmHeader {
  uint8_t kind = 0;      // wire::Kind
  uint8_t category = 0;  // wire::Category
  uint8_t handler = 0;
  uint8_t nargs = 0;
  uint32_t src = 0;      // sending rank
  uint32_t credits = 0;  // request credits returned to the receiver of this message
  uint8_t flags = 0;     // wire::Flag bits
  uint64_t nbytes = 0;   // payload length
  uint64_t dest = 0;     // Long: destination address as the initiator named it
};
static_assert(sizeof(AmHeader) == 32, "flags sit in what was padding");

// Two lanes per receiver, so a reply never waits behind requests: replies
// can always drain, which is what makes sending them deadlock-free.
enum class AmLane : uint8_t { Request = 0, Reply = 1 };

// How long an RMA put's source stays as it is. transient: the caller may
// change it as soon as rma_put returns done. stable: the caller leaves it
// alone until the put's RmaCompletion completes (a blocking put, a put
// whose local completion is deferred: GEX_EVENT_DEFER), so the transport
// may send from it where it would otherwise copy it.
enum class PutSource : uint8_t { transient, stable };

// What a call that may not finish at once did:
//   done    finished (an AM is out; a put's source may be reused),
//   posted  started: wait for its RmaCompletion (a put's source is busy until then),
//   retry   nothing happened for lack of room now: poll, then call again.
enum class Result : uint8_t { done, posted, retry };

// One range of a peer's segment (its owner's address) in an RMA operation
// that moves several (Transport::rma_put_runs, rma_get_runs).
struct RemoteRun {
  uint64_t remote = 0;
  size_t len = 0;
};

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

// Where a transport hands incoming messages: implemented by core and given
// to the transport when it opens. `payload` stays valid until the call
// returns. One call per message.
class AmSink {
 public:
  virtual ~AmSink() = default;
  virtual void deliver(const AmHeader &h, const int32_t *args, void *payload) = 0;
};

// What a transport can do, filled in when it opens and fixed from then on
// (core reads it once, not per operation).
struct Capabilities {
  // Largest Medium payload (and packed Long) one message carries.
  size_t max_medium = 0;
  // Most AM credits one message's header carries (AmHeader::credits as this
  // transport's wire narrows it); core rejects a configuration beyond it.
  uint32_t max_am_credits = UINT32_MAX;
  // The Medium payload that moves packed data (VIS) to a network peer
  // fastest: max_medium where one large message beats several, less where a
  // provider turns large messages into a rendezvous or streams them no
  // faster (0: no network peers).
  size_t packed_medium = 0;
  // Largest RMA put toward a peer that is not mapped here whose source is
  // copied at once (rma_put returns done); larger puts are posted.
  size_t inline_put = 0;
  // Most remote ranges one rma_put_runs or rma_get_runs operation moves
  // toward a peer that is not mapped here (1: one operation per range; at
  // most kMaxRemoteRuns).
  static constexpr size_t kMaxRemoteRuns = 8;
  size_t rma_runs = 1;
  // NB and NBI puts and gets toward a peer that is not mapped here, of up
  // to this many bytes, go as internal AMs marked wire::kDeferrable (the
  // transport may carry a burst of them in one message) instead of the
  // transport's rma_put/rma_get; 0: never (src/rma/remote.cpp).
  size_t am_rma_max = 0;
  // VIS: contiguous pieces up to this many bytes are packed into messages
  // rather than put by rma_put (src/vis/vis.cpp); 0: VIS's own rule.
  size_t vis_pack_piece_max = 0;
  // Native remote atomics: for each operand type, the gex_OP_t bits the
  // transport performs itself (Transport::atomic); zero where it has none
  // (core then performs atomics with the CPU, at the target).
  enum AtomicType : uint8_t { kI32, kU32, kI64, kU64, kFlt, kDbl, kAtomicTypes };
  uint64_t atomic_ops[kAtomicTypes] = {};
  // Memory kinds a segment may have (MemoryKind bits); host memory only today.
  enum MemoryKind : uint32_t { kHostMemory = 1 };
  uint32_t memory_kinds = kHostMemory;
  // By job rank: 1 when this process can load and store that rank's
  // segment once attached (PeerSegment::local is then set).
  std::vector<uint8_t> load_store;
  // Every peer's segment is mapped here: rma_put/rma_get are never needed.
  bool all_segments_mapped = false;
};

struct PeerSegment {
  uint64_t owner_base = 0;  // address in the owner's address space
  uint64_t size = 0;
  char *local = nullptr;  // where this process can load and store it; null if not mapped
};

// Counts RMA operations a transport carries until they complete: each adds
// to `pending` as it is posted and takes away as it completes (from poll).
// Core waits on it for blocking calls, events and NBI.
struct RmaCompletion {
  std::atomic<uint64_t> pending{0};
  bool done() const { return pending.load(std::memory_order_acquire) == 0; }
};

// Fatal: a native atomic asked of a transport whose capabilities offer none
// (a gexx bug). Defined in atomics/domain.cpp.
[[noreturn]] void no_native_atomics(const char *transport);

class Transport {
 public:
  virtual ~Transport() = default;

  virtual const char *name() const = 0;
  virtual const Capabilities &capabilities() const = 0;
  // Largest segment this rank may attach, as this host can back it.
  virtual uint64_t max_segment_size() const = 0;
  // Collective: creates this rank's segment and makes every peer's known.
  virtual void attach_segment(uint64_t size) = 0;
  virtual const PeerSegment &segment(uint32_t rank) const = 0;
  // Memory shared by the ranks of this host, of the size asked for at open,
  // zeroed at creation; what lives there is the caller's (core and coll lay
  // out intra-host collectives in it). Every host rank maps the same bytes.
  virtual void *host_area() const = 0;
  // Where this rank sits: the lowest job rank of its host and of its
  // neighbourhood (the ranks it shares memory with, a subset of the host).
  struct Locality {
    uint32_t host_first = 0;
    uint32_t nbrhd_first = 0;
  };
  virtual Locality locality() const = 0;
  virtual uint32_t ranks_on_host() const = 0;
  // True when every rank of the job uses this rank's host area for
  // intra-host collectives (one shared-memory group): the barrier then
  // runs there; otherwise it runs over active messages.
  virtual bool job_in_host_area() const = 0;
  // More ranks on this host than cores: waiting ranks must yield at once.
  virtual bool oversubscribed() const = 0;
  // Active messages. am_reserve claims room for a message of `nargs`
  // arguments and `payload` bytes toward `peer` on `lane` (done), or finds
  // none now (retry: the caller polls and calls again). am_commit publishes it.
  virtual Result am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload,
                            AmSlot &slot) = 0;
  virtual void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) = 0;
  // am_reserve, a copy of the `nbytes` bytes at `payload` into the slot and
  // am_commit, in one call: the path of every message whose payload, if
  // any, travels in the queue. done, or retry when there is no room now.
  virtual Result am_send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
                         const void *payload, size_t nbytes) {
    AmSlot slot;
    if (am_reserve(peer, lane, h.nargs, nbytes, slot) == Result::retry) return Result::retry;
    if (nbytes) std::memcpy(slot.payload, payload, nbytes);
    am_commit(slot, h, args);
    return Result::done;
  }
  // The whole transport's progress: delivers incoming messages to the sink
  // given at open (only replies when `replies_only`) and completes RMA
  // operations (their RmaCompletion counts go down). True if any message
  // arrived. Every wait in core polls through here.
  virtual bool poll(bool replies_only) = 0;
  // A poll from a test of an operation in flight (gex_Event_Test and its
  // kin): poll(false), except that a burst the transport holds to send in
  // one message (core/burst.hpp) stays held while it is younger than
  // util::kBurstGap, and a transport whose read is a system call may skip
  // it within util::kTestPollGap of its previous poll. A client that tests
  // each operation as it starts it and the ones before it (UPC++ after
  // every rput and atomic) would otherwise send its burst one operation at
  // a time, and pay a read per test. Transports that hold nothing need not
  // override it.
  virtual bool poll_in_test() { return poll(false); }
  // False when one client thread at a time calls in (GASNET_SEQ, PARSYNC):
  // the receive side then takes no locks.
  virtual void am_set_concurrent(bool concurrent) = 0;
  // RMA toward a peer whose segment is not mapped here (segment(peer).local
  // is null); `remote` is an address in that segment as its owner sees it.
  // rma_put returns done when `src` may be reused at once (it was copied),
  // posted when that waits for `done` (never done for a stable source that
  // the transport sends from). Transports that map every segment
  // (capabilities().all_segments_mapped) never get these calls.
  virtual Result rma_put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                         RmaCompletion &done, PutSource source) = 0;
  virtual void rma_get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes,
                       RmaCompletion &done) = 0;
  // Up to capabilities().rma_runs ranges of one peer's segment in one
  // operation where the network can (libfabric's multi-range writes and
  // reads): the put's bytes lie back to back at `src`, at most inline_put
  // in all, and are copied at once (the call returns done); the get's land
  // back to back at `dest`. Others move each range on its own.
  virtual Result rma_put_runs(uint32_t peer, const RemoteRun *runs, size_t n, const void *src,
                              RmaCompletion &done) {
    const char *from = static_cast<const char *>(src);
    Result r = Result::done;
    for (size_t i = 0; i < n; from += runs[i].len, ++i)
      if (rma_put(peer, runs[i].remote, from, runs[i].len, done, PutSource::transient) !=
          Result::done)
        r = Result::posted;
    return r;
  }
  virtual void rma_get_runs(void *dest, uint32_t peer, const RemoteRun *runs, size_t n,
                            RmaCompletion &done) {
    char *to = static_cast<char *>(dest);
    for (size_t i = 0; i < n; to += runs[i].len, ++i)
      rma_get(to, peer, runs[i].remote, runs[i].len, done);
  }
  // A native remote atomic (capabilities().atomic_ops[type] has `op`, one
  // gex_OP_t bit): the word at `remote` (owner's address) of peer's segment,
  // through the network even when the peer is this rank or mapped here (an
  // atomic domain that uses these uses them for every target: the network's
  // atomics need not be atomic with respect to the CPU's). Operands travel
  // as the low bytes of `a` and `b` (CAS/FCAS: `a` compared, `b` stored).
  // `done` counts it until the prior value is at `result` (when not null).
  virtual void atomic(uint32_t peer, uint64_t remote, Capabilities::AtomicType type, uint32_t op,
                      uint64_t a, uint64_t b, void *result, RmaCompletion &done) {
    (void)peer, (void)remote, (void)type, (void)op, (void)a, (void)b, (void)result, (void)done;
    no_native_atomics(name());
  }
  // Called by gasnet_exit before the rank leaves: a transport that delivers
  // reliably by sending again (udp) sends what is queued and waits, for a
  // bounded time, for its peers to take it, since after this it sends
  // nothing more. Others have nothing to do.
  virtual void drain() {}
  // Why max_segment_size() is what it is: the limits that set it.
  virtual std::string segment_limits() const = 0;
  // One line for verbose output: where the segments live.
  virtual std::string describe() const = 0;
};

namespace smp {
// Shared memory among bootstrap's host_ranks(); `whole_job`: fatal unless
// that is every rank of the job (the smp conduit). Incoming AMs go to `sink`;
// host_area() has `host_area_bytes` bytes.
std::unique_ptr<Transport> open(bootstrap::Bootstrap &boot, bool whole_job, AmSink &sink,
                                uint64_t host_area_bytes);
}  // namespace smp

// The transport of the conduit this library was built for (one object per
// conduit defines it: transport/<conduit>/conduit.cpp). Collective. Incoming
// AMs go to `sink`, which outlives the transport; host_area() has
// `host_area_bytes` bytes.
std::unique_ptr<Transport> open_conduit(bootstrap::Bootstrap &boot, AmSink &sink,
                                        uint64_t host_area_bytes);

}  // namespace gexx::transport
