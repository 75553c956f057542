// The active-message protocol, shared by every conduit: handler dispatch,
// the request/reply rules, request credits, local completion and
// negotiated payloads. A transport only carries the bytes (Transport::am_*).
//
// Credits: a request to a peer takes one of its credits toward it
// (GASNET_AM_CREDITS_PP, less where GASNET_AM_CREDITS_TOTAL shared over the
// peers is smaller); the peer returns it with the reply, or, when the handler
// sends none, banks it and returns the bank on its next message to us or,
// once GASNET_AM_CREDITS_SLACK are banked, in a credit-only message (the
// hidden reply).
#pragma once

#include <gasnetex.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/objects.hpp"
#include "transport/transport.hpp"

namespace gexx::core {
class HandlerTable;
}

namespace gexx::core::am {

// The wire vocabulary is the transport contract's (transport.hpp).
using transport::wire::Category;
using transport::wire::kCredit;
using transport::wire::Kind;
using transport::wire::kLong;
using transport::wire::kMaxArgs;
using transport::wire::kMedium;
using transport::wire::kReply;
using transport::wire::kRequest;
using transport::wire::kShort;

// One AM to inject, as the C entry points describe it.
struct Message {
  const char *api;
  Category category;
  gex_AM_Index_t handler;
  unsigned nargs;
  const gex_AM_Arg_t *args;
  const void *src;
  size_t nbytes;
  void *dest;
  gex_Event_t *lc_opt;
  gex_Flags_t flags;
  // internal_request: the transport may hold it until a poll (wire::kDeferrable;
  // Shorts and Mediums, which are all that use it)
  bool deferrable = false;
};

// A 64-bit value (an address, an operand) as two handler arguments, and back.
inline void split_arg(uint64_t v, gex_AM_Arg_t *out) {
  out[0] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(v));
  out[1] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(v >> 32));
}
inline uint64_t join_arg(gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  return static_cast<uint32_t>(lo) | (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32);
}

// A message of gexx's own (to an internal handler): `nargs` arguments at
// `args`, the payload at `src` if any, local completion at once
// (GEX_EVENT_NOW); set flags or deferrable on the result as needed.
inline Message internal_message(const char *api, Category category, gex_AM_Index_t handler,
                                unsigned nargs, const gex_AM_Arg_t *args, const void *src = nullptr,
                                size_t nbytes = 0) {
  Message m{};
  m.api = api;
  m.category = category;
  m.handler = handler;
  m.nargs = nargs;
  m.args = args;
  m.src = src;
  m.nbytes = nbytes;
  m.lc_opt = GEX_EVENT_NOW;
  return m;
}

// What an engine is configured with. Credits: each rank holds
// `credits_per_peer` request credits toward every peer; a peer's requests
// answered without a reply are banked and returned, `slack` at a time, in a
// credit-only message (or with the next message toward it).
struct Limits {
  uint32_t rank = 0, size = 1;
  size_t max_medium = 0, max_long = 0;
  size_t packed_long_limit = 0;  // Long payloads up to this travel in the message
  uint32_t credits_per_peer = 1;
  uint32_t slack = 1;
  // The most credits one message can carry (the transport's header field).
  uint32_t wire_credit_max = UINT32_MAX;
  bool concurrent = false;  // client threads may race (GASNET_PAR, GASNET_RCV_THREAD)

  // From GASNET_AM_CREDITS_PP, _TOTAL, _SLACK and GASNET_PACKEDLONG_LIMIT.
  static Limits from_config(uint32_t rank, uint32_t size, const transport::Capabilities &caps,
                            uint64_t max_global_segment, bool concurrent);
  // Empty when an engine can run with these limits, else why not: one
  // message returns up to credits_per_peer credits (a reply: the banked ones
  // and its own), so they, and the slack, must fit the wire's credit field.
  std::string problem() const;
};

// Where Long payloads land: the address here of [addr, addr + len) in
// rank's segment, null when that segment is not mapped here (a network
// peer); fatal, naming `api`, when the range is outside the segment.
class Segments {
 public:
  virtual char *locate(const char *api, uint32_t rank, const void *addr, size_t len) = 0;

 protected:
  ~Segments() = default;
};

class Engine {
 public:
  // Fatal when limits.problem() is not empty.
  Engine(transport::Transport &tp, const HandlerTable &handlers, Segments &segments,
         const Limits &limits);

  // Return 0, or 1 when GEX_FLAG_IMMEDIATE was given and nothing was sent.
  // A client's AM names a client handler index (fatal otherwise). A client's
  // request to this rank runs its handler inside the call (and a reply from
  // that handler runs its own inside the reply call), as GASNet's loopback
  // does; gexx's internal requests to this rank go through the transport.
  int request(gex_Rank_t rank, const Message &m);
  int reply(gex_Token_t token, const Message &m);
  // A request of gexx itself, to one of its InternalHandler indices.
  int internal_request(gex_Rank_t rank, const Message &m);
  // A reply of gexx itself (from one of its handlers), to an InternalHandler index.
  int internal_reply(gex_Token_t token, const Message &m);
  // A Medium request of gexx itself whose payload the caller writes in
  // place: internal_prepare claims a credit toward `rank` and room for up
  // to `payload` bytes at slot.payload (polling until both are free);
  // internal_commit publishes it as `m` describes it (m.nbytes at most the
  // room claimed; m.src is not read). In between the caller sends no other
  // AM and runs no request handlers (RMA, whose waits poll for replies only, is
  // fine: VIS puts its large pieces while a packed message is open).
  void internal_prepare(const char *api, gex_Rank_t rank, unsigned nargs, size_t payload,
                        transport::AmSlot &slot);
  void internal_commit(gex_Rank_t rank, const Message &m, transport::AmSlot &slot);
  // A Medium reply of gexx itself whose m.nbytes of payload fill(ctx, out)
  // writes straight into the message (m.src is not read): no staging copy,
  // and the transport treats it as any message it copied (it may bundle it
  // with its batch's other replies, and the handler does not wait for the
  // provider to take it, as a large payload sent from a caller's buffer
  // does). Returns as internal_reply.
  int internal_reply_in_place(gex_Token_t token, const Message &m, void (*fill)(void *, char *),
                              void *ctx);

  // Runs incoming messages; fatal inside a handler (handlers do not poll).
  bool poll(const char *api);  // true if any AM arrived
  void deliver(const transport::AmHeader &h, const int32_t *args, void *payload);

  size_t max_medium() const { return max_medium_; }
  size_t max_long() const { return max_long_; }

  // Negotiated payloads: one Prepare/Commit pair per thread at a time.
  gex_AM_SrcDesc_t prepare(const char *api, bool reply, Category cat, gex_Token_t token,
                           gex_Rank_t rank, const void *client_buf, size_t least, size_t most,
                           void *dest_hint, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned nargs);
  void commit(const char *api, gex_AM_SrcDesc_t sd, bool reply, Category cat,
              gex_AM_Index_t handler, size_t nbytes, void *dest, unsigned nargs,
              const gex_AM_Arg_t *args);

  // A request-handler token that may still reply (fatal otherwise).
  gexx_token_s *reply_token(const char *api, gex_Token_t token);

 private:
  struct alignas(64) Peer {
    std::atomic<int32_t> avail{0};  // credits we hold toward this peer
    std::atomic<uint32_t> owed{0};  // credits we owe it (requests run, not replied)
  };
  // Takes a request credit toward `rank`, polling until one is free; with
  // GEX_FLAG_IMMEDIATE reads returned credits once and gives up instead.
  bool acquire_credit(uint32_t rank, gex_Flags_t flags, const char *api);
  bool take_credit(uint32_t peer);
  void give_credit(uint32_t peer) { add(peers_[peer].avail, 1); }
  // Atomic read-modify-write only when client threads may race (GASNET_PAR);
  // otherwise a plain load and store, which do not stall on pending stores.
  template <typename T>
  T add(std::atomic<T> &a, T v) {
    if (concurrent_) return a.fetch_add(v, std::memory_order_relaxed) + v;
    T n = a.load(std::memory_order_relaxed) + v;
    a.store(n, std::memory_order_relaxed);
    return n;
  }
  uint32_t take_owed(uint32_t peer);
  // Inside a handler, or a rank outside the job: fatal (request_misuse).
  inline void check_request(const char *api, gex_Rank_t rank);
  [[noreturn, gnu::cold, gnu::noinline]] void request_misuse(const char *api, gex_Rank_t rank);
  void check_client_handler(const char *api, gex_AM_Index_t handler) {
    if (handler < GEX_AM_INDEX_BASE) [[unlikely]]  // kFirstClientIndex
      reserved_handler(api, handler);
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void reserved_handler(const char *api,
                                                                      gex_AM_Index_t handler);
  // The payload and lc_opt rules (fatal, naming the rule, when broken).
  void check_payload(const Message &m, bool reply) {
    if ((m.nbytes && !m.src) || (m.category == kMedium && m.nbytes > max_medium_) ||
        m.lc_opt == GEX_EVENT_DEFER || (reply && m.lc_opt == GEX_EVENT_GROUP) ||
        (m.category != kShort && !m.lc_opt)) [[unlikely]]
      payload_misuse(m, reply);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void payload_misuse(const Message &m, bool reply);
  // Where a Long payload goes, checked against the target's segment before
  // anything is claimed. A segment not mapped here (a network peer) gets
  // the payload in the message (packed, up to GASNET_PACKEDLONG_LIMIT) or
  // written into it before the message is sent.
  struct LongPlan {
    char *dst = nullptr;  // mapped here: copy to it
    bool remote = false;
    bool packed = false;
  };
  LongPlan plan_long(const Message &m, uint32_t peer);
  // Room a message needs in its slot for the payload.
  static size_t payload_room(const Message &m, const LongPlan &lp) {
    return m.category == kMedium || lp.packed ? m.nbytes : 0;
  }
  // Copies (or packs) the payload and publishes the message, writing a
  // large remote Long payload first.
  void send_planned(const Message &m, transport::AmSlot &slot, Kind kind, uint32_t credits,
                    const LongPlan &lp);
  // Writes a Long payload into an unmapped segment; returns once it is there.
  void write_long(const Message &m, uint32_t peer);
  void await_room(const char *api, transport::AmLane lane, uint32_t &spins);
  bool reserve(const Message &m, uint32_t peer, transport::AmLane lane, size_t payload,
               transport::AmSlot &slot);
  // Short and Medium (the transport copies the payload into its queue):
  // claims room, copies and publishes in one transport call, polling while
  // there is none; false only with GEX_FLAG_IMMEDIATE.
  bool inject(const Message &m, uint32_t peer, transport::AmLane lane,
              const transport::AmHeader &h);
  transport::AmHeader header(const Message &m, Kind kind, uint32_t credits) const;
  // A message is out: trace it and complete it locally.
  void sent(const Message &m, uint32_t peer, Kind kind);
  // Copies the payload (unless `in_place`: it already is where it goes) and
  // publishes the message. `long_dst`: where a Long payload is copied.
  void send(const Message &m, transport::AmSlot &slot, Kind kind, uint32_t credits, bool in_place,
            char *long_dst);
  void send_credits(uint32_t peer);
  // A client AM to this rank (a request, or the reply of a request that
  // came that way): the payload copied, the handler run here.
  int loopback(const Message &m, Kind kind);
  // Runs the handler a message names with a token on this thread's stack
  // (`loopback`: the message never left this call); true when a request
  // handler replied.
  bool dispatch(const transport::AmHeader &h, const int32_t *args, void *buf, bool loopback);
  [[noreturn]] void bad_handler(const transport::AmHeader &h, const char *why);
  // A delivery whose kind, category or argument count its entry does not
  // accept (HandlerEntry::accept): names which.
  [[noreturn, gnu::cold, gnu::noinline]] void bad_signature(const transport::AmHeader &h,
                                                            const HandlerEntry &e);

  transport::Transport &tp_;
  const HandlerTable &handlers_;
  Segments &segments_;
  uint32_t rank_, size_;
  size_t max_medium_, max_long_, packed_long_limit_;
  uint32_t slack_;  // banked credits returned in a message of their own
  bool concurrent_;
  std::unique_ptr<Peer[]> peers_;
};

// Handler arguments as a variadic C entry point receives them.
struct ArgList {
  gex_AM_Arg_t v[kMaxArgs];
  unsigned n;
};
[[noreturn]] void too_many_args(const char *api, unsigned numargs);
// "Short", "Medium" or "Long".
const char *category_name(uint8_t category);

namespace detail {
// The handler running on this thread (innermost), if any.
// constinit: other files read it with no call to a TLS wrapper first.
extern constinit __attribute__((tls_model("initial-exec"))) thread_local gexx_token_s *tl_token;
[[noreturn]] void poll_in_handler(const char *api);
}  // namespace detail
inline void Engine::check_request(const char *api, gex_Rank_t rank) {
  if (detail::tl_token || rank >= size_) [[unlikely]]
    request_misuse(api, rank);
}

// Handlers may not poll or wait: fatal, naming `api`, inside one.
inline void check_may_poll(const char *api) {
  if (detail::tl_token) [[unlikely]]
    detail::poll_in_handler(api);
}

// `token` if it belongs to a handler running on this thread (the innermost
// or one it runs inside); a fatal error naming `api` otherwise.
gexx_token_s *live_token(const char *api, gex_Token_t token);

}  // namespace gexx::core::am

// A prepared negotiated-payload AM (one per thread).
struct gexx_srcdesc_s {
  bool active = false;
  bool reply = false;
  gexx::core::am::Category category = gexx::core::am::kMedium;
  uint32_t peer = 0;
  unsigned nargs = 0;
  gex_Flags_t flags = 0;
  gex_Event_t *lc_opt = nullptr;
  void *addr = nullptr;
  size_t size = 0;
  void *dest_hint = nullptr;
  bool in_place = false;  // addr already is the payload's destination
  gexx_token_s *token = nullptr;
  gexx::transport::AmSlot slot;
  std::vector<char> buffer;  // Long without a destination hint: our buffer
};

// Reads `numargs` handler arguments following the parameter `last` of the
// variadic entry point it is used in.
#define GEXX_AM_READ_ARGS(api, numargs, last, out)                                             \
  do {                                                                                         \
    if ((numargs) > ::gexx::core::am::kMaxArgs) ::gexx::core::am::too_many_args(api, numargs); \
    va_list ap_;                                                                               \
    va_start(ap_, last);                                                                       \
    for (unsigned i_ = 0; i_ < (numargs); ++i_) (out).v[i_] = va_arg(ap_, gex_AM_Arg_t);       \
    va_end(ap_);                                                                               \
    (out).n = (numargs);                                                                       \
  } while (0)
