#include "core/am.hpp"

#include "util/copy.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "core/progress.hpp"
#include "core/handlers.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"
#include "util/trace.hpp"

namespace gexx::core::am {

namespace {

// ---- calling a handler with its exact arity ----
template <size_t>
using Arg = gex_AM_Arg_t;

using ShortCall = void (*)(gex_AM_Fn_t, gex_Token_t, const gex_AM_Arg_t *);
using PayloadCall = void (*)(gex_AM_Fn_t, gex_Token_t, void *, size_t, const gex_AM_Arg_t *);

template <size_t... I>
void call_short(gex_AM_Fn_t fn, gex_Token_t t, const gex_AM_Arg_t *a) {
  reinterpret_cast<void (*)(gex_Token_t, Arg<I>...)>(fn)(t, a[I]...);
}
template <size_t... I>
void call_payload(gex_AM_Fn_t fn, gex_Token_t t, void *buf, size_t n, const gex_AM_Arg_t *a) {
  reinterpret_cast<void (*)(gex_Token_t, void *, size_t, Arg<I>...)>(fn)(t, buf, n, a[I]...);
}
template <size_t... N>
constexpr std::array<ShortCall, sizeof...(N)> short_calls(std::index_sequence<N...>) {
  return {[]<size_t... I>(std::index_sequence<I...>)->ShortCall{return &call_short<I...>;
}
(std::make_index_sequence<N>{})...
};  // namespace
}  // namespace gexx::core::am
template <size_t... N>
constexpr std::array<PayloadCall, sizeof...(N)> payload_calls(std::index_sequence<N...>) {
  return {[]<size_t... I>(std::index_sequence<I...>)->PayloadCall{return &call_payload<I...>;
}
(std::make_index_sequence<N>{})...
}
;
}
constexpr auto kShortCalls = short_calls(std::make_index_sequence<kMaxArgs + 1>{});
constexpr auto kPayloadCalls = payload_calls(std::make_index_sequence<kMaxArgs + 1>{});

std::string flag_names(gex_Flags_t f) {
  std::string cat = (f & GEX_FLAG_AM_MEDLONG) == GEX_FLAG_AM_MEDLONG ? "Medium or Long"
                    : (f & GEX_FLAG_AM_SHORT)                        ? "Short"
                    : (f & GEX_FLAG_AM_MEDIUM)                       ? "Medium"
                                                                     : "Long";
  std::string dir = (f & GEX_FLAG_AM_REQREP) == GEX_FLAG_AM_REQREP ? "request or reply"
                    : (f & GEX_FLAG_AM_REQUEST)                    ? "request"
                                                                   : "reply";
  return cat + " " + dir;
}

// An AM sent or a handler run, as the trace and the statistics show it (out
// of line: the untraced AM paths keep no room on their stack for it).
[[gnu::noinline, gnu::cold]] void record_am(trace::Op op, uint32_t peer, size_t nbytes,
                                            const char *api, gex_AM_Index_t handler, unsigned nargs,
                                            const gex_AM_Arg_t *args) {
  trace::record(op, peer, nbytes, 0, api, [&] {
    std::string detail = util::format("handler=%u nargs=%u", handler, nargs);
    if (trace::detailed() && nargs) {
      detail += " args=";
      for (unsigned i = 0; i < nargs; ++i)
        detail += util::format(i ? ",0x%x" : "0x%x", static_cast<uint32_t>(args[i]));
    }
    return detail;
  });
}

bool is_event_pointer(gex_Event_t *lc) {
  return lc != GEX_EVENT_NOW && lc != GEX_EVENT_DEFER && lc != GEX_EVENT_GROUP && lc != nullptr;
}

}  // namespace

namespace detail {
// Initial-exec TLS: read on every AM and every poll.
constinit __attribute__((tls_model("initial-exec"))) thread_local gexx_token_s *tl_token = nullptr;

void poll_in_handler(const char *api) {
  gexx_token_s *t = tl_token;
  util::fatal("%s called inside AM %s %s: handlers may not poll or wait for communication", api,
              t->entry ? t->entry->label.c_str() : "handler", t->is_req ? "request" : "reply");
}
}  // namespace detail

using detail::tl_token;

const char *category_name(uint8_t c) {
  return c == kShort ? "Short" : c == kMedium ? "Medium" : "Long";
}

void too_many_args(const char *api, unsigned numargs) {
  util::fatal("%s: %u handler arguments; at most %u (gex_AM_MaxArgs, gasnet_AMMaxArgs)", api,
              numargs, kMaxArgs);
}

gexx_token_s *live_token(const char *api, gex_Token_t token) {
  for (gexx_token_s *t = tl_token; t; t = t->outer)
    if (t == token) return t;
  util::fatal(
      "%s: this token does not belong to an AM handler running on this thread (tokens are "
      "valid only inside their handler)",
      api);
}

Limits Limits::from_config(uint32_t rank, uint32_t size, const transport::Capabilities &caps,
                           uint64_t max_global_segment, bool concurrent) {
  Limits l;
  l.rank = rank;
  l.size = size;
  l.max_medium = caps.max_medium;
  // At least 512 bytes, at most INT32_MAX: GASNet clients keep the
  // gasnet_AMMaxLong* values in an int.
  l.max_long = std::clamp<uint64_t>(max_global_segment, 512, INT32_MAX);
  l.packed_long_limit =
      std::min<uint64_t>(config::get_bytes("GASNET_PACKEDLONG_LIMIT"), l.max_medium);
  int64_t per_peer = config::get_int("GASNET_AM_CREDITS_PP");
  int64_t total = config::get_int("GASNET_AM_CREDITS_TOTAL");
  if (total > 0 && size > 1)
    per_peer = std::min<int64_t>(per_peer, std::max<int64_t>(1, total / (size - 1)));
  l.credits_per_peer = static_cast<uint32_t>(per_peer);
  // Banking more than a peer holds would stall it.
  l.slack = static_cast<uint32_t>(
      std::min<int64_t>(config::get_int("GASNET_AM_CREDITS_SLACK"), per_peer));
  l.wire_credit_max = caps.max_am_credits;
  l.concurrent = concurrent;
  return l;
}

std::string Limits::problem() const {
  if (credits_per_peer < 1) return "GASNET_AM_CREDITS_PP must be 1 or more";
  if (slack < 1 || slack > credits_per_peer) {
    return util::format("GASNET_AM_CREDITS_SLACK=%u must be from 1 to the credits per peer (%u)",
                        slack, credits_per_peer);
  }
  if (slack > wire_credit_max) {
    return util::format(
        "GASNET_AM_CREDITS_SLACK=%u: this conduit's AM header carries at most %u credits in one "
        "message; use at most %u",
        slack, wire_credit_max, wire_credit_max);
  }
  if (credits_per_peer > wire_credit_max) {
    return util::format(
        "%u AM credits per peer (GASNET_AM_CREDITS_PP, GASNET_AM_CREDITS_TOTAL): this conduit's "
        "AM header carries at most %u credits in one message, and a reply may return all of a "
        "peer's; use at most %u",
        credits_per_peer, wire_credit_max, wire_credit_max);
  }
  if (credits_per_peer > static_cast<uint32_t>(INT32_MAX)) {
    return util::format("%u AM credits per peer do not fit a credit counter", credits_per_peer);
  }
  return {};
}

Engine::Engine(transport::Transport &tp, const HandlerTable &handlers, Segments &segments,
               const Limits &limits)
    : tp_(tp),
      handlers_(handlers),
      segments_(segments),
      rank_(limits.rank),
      size_(limits.size),
      max_medium_(limits.max_medium),
      max_long_(limits.max_long),
      packed_long_limit_(limits.packed_long_limit),
      slack_(limits.slack),
      concurrent_(limits.concurrent),
      peers_(std::make_unique<Peer[]>(limits.size)) {
  std::string problem = limits.problem();
  if (!problem.empty()) util::fatal("%s", problem.c_str());
  for (uint32_t r = 0; r < size_; ++r)
    peers_[r].avail.store(static_cast<int32_t>(limits.credits_per_peer), std::memory_order_relaxed);
}

bool Engine::take_credit(uint32_t peer) {
  std::atomic<int32_t> &a = peers_[peer].avail;
  int32_t v = a.load(std::memory_order_relaxed);
  if (!concurrent_) {
    if (v <= 0) return false;
    a.store(v - 1, std::memory_order_relaxed);
    return true;
  }
  while (v > 0) {
    if (a.compare_exchange_weak(v, v - 1, std::memory_order_acquire, std::memory_order_relaxed))
      return true;
  }
  return false;
}

uint32_t Engine::take_owed(uint32_t peer) {
  std::atomic<uint32_t> &o = peers_[peer].owed;
  uint32_t owed = o.load(std::memory_order_relaxed);
  if (owed == 0) return 0;
  if (!concurrent_) {
    o.store(0, std::memory_order_relaxed);
    return owed;
  }
  return o.exchange(0, std::memory_order_relaxed);
}

void Engine::request_misuse(const char *api, gex_Rank_t rank) {
  if (gexx_token_s *t = tl_token) {
    util::fatal(
        "%s called inside AM %s %s: a handler may not send requests (a request handler may "
        "send one reply, with its token; a reply handler sends nothing)",
        api, t->entry ? t->entry->label.c_str() : "handler", t->is_req ? "request" : "reply");
  }
  util::fatal("%s: rank %u is not in this job of %u ranks", api, rank, size_);
}

void Engine::reserved_handler(const char *api, gex_AM_Index_t handler) {
  util::fatal(
      "%s: handler index %u is reserved for gexx's own handlers; client handlers use %u to 255",
      api, handler, kFirstClientIndex);
}

gexx_token_s *Engine::reply_token(const char *api, gex_Token_t token) {
  gexx_token_s *cur = tl_token;
  if (!token) util::fatal("%s: the token is NULL", api);
  if (token != cur) {
    util::fatal(
        "%s: this token does not belong to the AM handler running on this thread; a reply "
        "is sent from inside its request handler, before the handler returns",
        api);
  }
  const char *label = cur->entry ? cur->entry->label.c_str() : "handler";
  if (!cur->is_req) {
    util::fatal("%s called inside reply %s: a reply handler sends nothing", api, label);
  }
  if (cur->replied) {
    util::fatal("%s: request %s has already replied; a request handler sends at most one reply",
                api, label);
  }
  return cur;
}

void Engine::payload_misuse(const Message &m, bool reply) {
  if (m.nbytes && !m.src) util::fatal("%s: %zu bytes from a NULL source", m.api, m.nbytes);
  if (m.category == kMedium && m.nbytes > max_medium_) {
    util::fatal(
        "%s: a %zu-byte Medium payload; at most %zu (gex_AM_Max%sMedium / "
        "gasnet_AMMaxMedium)",
        m.api, m.nbytes, max_medium_, reply ? "Reply" : "Request");
  }
  if (m.lc_opt == GEX_EVENT_DEFER) {
    util::fatal(
        "%s: GEX_EVENT_DEFER is not allowed for active messages; use GEX_EVENT_NOW, "
        "GEX_EVENT_GROUP (requests) or a pointer to a gex_Event_t",
        m.api);
  }
  if (reply && m.lc_opt == GEX_EVENT_GROUP) {
    util::fatal(
        "%s: GEX_EVENT_GROUP is not allowed for replies; use GEX_EVENT_NOW or a pointer "
        "to a gex_Event_t",
        m.api);
  }
  if (m.category != kShort && !m.lc_opt) {
    util::fatal(
        "%s: lc_opt is NULL; pass GEX_EVENT_NOW, GEX_EVENT_GROUP or a pointer to a "
        "gex_Event_t",
        m.api);
  }
  util::fatal("%s: internal error: payload_misuse called for a valid call", m.api);
}

// Waiting for queue room: the caller polls, then tries again.
void Engine::await_room(const char *api, transport::AmLane lane, uint32_t &spins) {
  if (lane == transport::AmLane::Reply) {
    tp_.poll(true);  // replies always drain: their handlers send nothing
  } else {
    poll(api);
  }
  relax(spins);
}

bool Engine::reserve(const Message &m, uint32_t peer, transport::AmLane lane, size_t payload,
                     transport::AmSlot &slot) {
  uint32_t spins = 0;
  while (tp_.am_reserve(peer, lane, m.nargs, payload, slot) == transport::Result::retry) {
    if (m.flags & GEX_FLAG_IMMEDIATE) return false;
    await_room(m.api, lane, spins);
  }
  return true;
}

bool Engine::inject(const Message &m, uint32_t peer, transport::AmLane lane,
                    const transport::AmHeader &h) {
  uint32_t spins = 0;
  // A packed Long's payload travels in the message as a Medium's does.
  size_t copy = m.category == kMedium || (h.flags & transport::wire::kPackedLong) ? m.nbytes : 0;
  while (tp_.am_send(peer, lane, h, m.args, m.src, copy) == transport::Result::retry) {
    if (m.flags & GEX_FLAG_IMMEDIATE) return false;
    await_room(m.api, lane, spins);
  }
  return true;
}

transport::AmHeader Engine::header(const Message &m, Kind kind, uint32_t credits) const {
  transport::AmHeader h;
  h.kind = kind;
  h.category = m.category;
  h.handler = m.handler;
  h.nargs = static_cast<uint8_t>(m.nargs);
  h.src = rank_;
  h.credits = credits;
  h.nbytes = m.nbytes;
  h.dest = reinterpret_cast<uint64_t>(m.dest);
  return h;
}

void Engine::sent(const Message &m, uint32_t peer, Kind kind) {
  if (trace::active(trace::kAm)) {
    record_am(trace::am_op(kind == kReply, m.category, false), peer, m.nbytes, m.api, m.handler,
              m.nargs, m.args);
  }
  if (is_event_pointer(m.lc_opt)) *m.lc_opt = GEX_EVENT_INVALID;  // copied: complete
}

void Engine::send(const Message &m, transport::AmSlot &slot, Kind kind, uint32_t credits,
                  bool in_place, char *long_dst) {
  if (!in_place && m.nbytes && m.category != kShort) {
    std::memcpy(m.category == kMedium ? static_cast<char *>(slot.payload) : long_dst, m.src,
                m.nbytes);
  }
  transport::AmHeader h = header(m, kind, credits);
  // A Long payload copied into the message itself: the receiver copies it out.
  if (m.category == kLong && long_dst && long_dst == slot.payload)
    h.flags |= transport::wire::kPackedLong;
  tp_.am_commit(slot, h, m.args);
  sent(m, slot.peer, kind);
}

Engine::LongPlan Engine::plan_long(const Message &m, uint32_t peer) {
  LongPlan lp;
  if (m.category != kLong || !m.nbytes) return lp;
  lp.dst = segments_.locate(m.api, peer, m.dest, m.nbytes);
  lp.remote = lp.dst == nullptr;
  lp.packed = lp.remote && m.nbytes <= packed_long_limit_;
  return lp;
}

void Engine::write_long(const Message &m, uint32_t peer) {
  transport::RmaCompletion done;
  tp_.rma_put(peer, reinterpret_cast<uint64_t>(m.dest), m.src, m.nbytes, done,
              transport::PutSource::stable);
  // Replies only: this may run inside a handler, and a reply's handler
  // sends nothing, so this wait cannot close a cycle.
  uint32_t spins = 0;
  while (!done.done()) {
    tp_.poll(true);
    relax(spins);
  }
}

void Engine::send_planned(const Message &m, transport::AmSlot &slot, Kind kind, uint32_t credits,
                          const LongPlan &lp) {
  if (lp.remote && !lp.packed) {
    write_long(m, slot.peer);
    return send(m, slot, kind, credits, true, nullptr);
  }
  send(m, slot, kind, credits, false, lp.packed ? static_cast<char *>(slot.payload) : lp.dst);
}

bool Engine::acquire_credit(uint32_t rank, gex_Flags_t flags, const char *api) {
  uint32_t spins = 0;
  while (!take_credit(rank)) {
    if (flags & GEX_FLAG_IMMEDIATE) {
      // Credits the peer already returned may wait, unread, in our reply
      // queue: read them once before refusing. Running reply handlers here
      // is allowed (a request may poll) and they send nothing.
      tp_.poll(true);
      return take_credit(rank);
    }
    poll(api);
    relax(spins);
  }
  return true;
}

int Engine::request(gex_Rank_t rank, const Message &m) {
  check_client_handler(m.api, m.handler);
  // A request to oneself runs its handler before the call returns (GASNet's
  // loopback does, and its tests rely on it: another thread of this rank
  // may wait for the handler in a loop that never polls).
  if (rank == rank_) {
    check_request(m.api, rank);
    return loopback(m, kRequest);
  }
  return internal_request(rank, m);
}

int Engine::internal_request(gex_Rank_t rank, const Message &m) {
  check_request(m.api, rank);
  check_payload(m, false);
  LongPlan lp = plan_long(m, rank);
  if (!acquire_credit(rank, m.flags, m.api)) return 1;
  // A packed Long goes the Medium's way (one call, the payload from the
  // client's buffer, which a network transport may send without a copy).
  if (m.category == kLong && !lp.packed) {
    // The payload is copied (or written) to its destination once room is claimed.
    transport::AmSlot slot;
    if (!reserve(m, rank, transport::AmLane::Request, payload_room(m, lp), slot)) {
      give_credit(rank);
      return 1;
    }
    send_planned(m, slot, kRequest, take_owed(rank), lp);
    return 0;
  }
  uint32_t owed = take_owed(rank);
  transport::AmHeader h = header(m, kRequest, owed);
  if (lp.packed) h.flags |= transport::wire::kPackedLong;
  if (m.deferrable) h.flags |= transport::wire::kDeferrable;
  if (!inject(m, rank, transport::AmLane::Request, h)) {
    give_credit(rank);
    if (owed) add(peers_[rank].owed, owed);
    return 1;
  }
  sent(m, rank, kRequest);
  return 0;
}

void Engine::internal_prepare(const char *api, gex_Rank_t rank, unsigned nargs, size_t payload,
                              transport::AmSlot &slot) {
  check_request(api, rank);
  Message m{};
  m.api = api;
  m.nargs = nargs;
  acquire_credit(rank, 0, api);
  reserve(m, rank, transport::AmLane::Request, payload, slot);
}

void Engine::internal_commit(gex_Rank_t rank, const Message &m, transport::AmSlot &slot) {
  if (m.category != kMedium || m.nbytes > slot.capacity) [[unlikely]]
    util::fatal("%s: an in-place request of %zu bytes in a slot of %zu (a gexx bug)", m.api,
                m.nbytes, slot.capacity);
  transport::AmHeader h = header(m, kRequest, take_owed(rank));
  if (m.deferrable) h.flags |= transport::wire::kDeferrable;
  tp_.am_commit(slot, h, m.args);
  sent(m, rank, kRequest);
}

int Engine::reply(gex_Token_t token, const Message &m) {
  check_client_handler(m.api, m.handler);
  return internal_reply(token, m);
}

int Engine::internal_reply(gex_Token_t token, const Message &m) {
  gexx_token_s *t = reply_token(m.api, token);
  if (t->loopback) {
    // Marked first: the reply handler runs inside this call.
    t->replied = true;
    return loopback(m, kReply);
  }
  check_payload(m, true);
  LongPlan lp = plan_long(m, t->src);
  if (m.category == kLong && !lp.packed) {
    transport::AmSlot slot;
    if (!reserve(m, t->src, transport::AmLane::Reply, payload_room(m, lp), slot)) return 1;
    send_planned(m, slot, kReply, 1 + take_owed(t->src), lp);
  } else {
    uint32_t owed = take_owed(t->src);
    transport::AmHeader h = header(m, kReply, 1 + owed);
    if (lp.packed) h.flags |= transport::wire::kPackedLong;
    if (!inject(m, t->src, transport::AmLane::Reply, h)) {
      if (owed) add(peers_[t->src].owed, owed);
      return 1;
    }
    sent(m, t->src, kReply);
  }
  t->replied = true;
  return 0;
}

int Engine::internal_reply_in_place(gex_Token_t token, const Message &m,
                                    void (*fill)(void *, char *), void *ctx) {
  gexx_token_s *t = reply_token(m.api, token);
  // (Only a client's request runs its handler in place: gexx's own requests
  // to this rank go through the transport, so their tokens never loop back.)
  if (m.category != kMedium || m.nbytes > max_medium_ || t->loopback) [[unlikely]]
    util::fatal("%s: an in-place reply of %zu bytes%s (a gexx bug)", m.api, m.nbytes,
                t->loopback ? " to a loopback request" : "");
  transport::AmSlot slot;
  if (!reserve(m, t->src, transport::AmLane::Reply, m.nbytes, slot)) return 1;
  if (m.nbytes) fill(ctx, static_cast<char *>(slot.payload));
  tp_.am_commit(slot, header(m, kReply, 1 + take_owed(t->src)), m.args);
  sent(m, t->src, kReply);
  t->replied = true;
  return 0;
}

namespace {
// A loopback Medium's payload up to this size is copied to the stack;
// larger ones to this thread's buffer (one for requests, one for replies:
// a reply runs inside its request's handler).
constexpr size_t kLoopbackStackBytes = 256;
struct alignas(16) MediumChunk {
  char bytes[16];
};
thread_local std::unique_ptr<MediumChunk[]> tl_loopback_medium[2];

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer sees no order between a loopback Long payload written by
// one thread and a later payload to the same place that another process
// writes and a third thread of ours reads in its handler: the real order
// runs through that process (our request, its reply), which the sanitizer
// cannot see. This counter states it (sanitized builds only).
std::atomic<uint64_t> g_loopback_long_order{0};
#endif

[[gnu::noinline]] void *loopback_medium_buffer(Kind kind, size_t max_medium) {
  std::unique_ptr<MediumChunk[]> &b = tl_loopback_medium[kind == kReply];
  if (!b) b.reset(new MediumChunk[(max_medium + sizeof(MediumChunk) - 1) / sizeof(MediumChunk)]);
  return b.get();
}
}  // namespace

namespace {
// What every delivery does once its handler entry accepts it: the token,
// then the handler with its arguments (and payload). Returns whether the
// handler replied.
[[gnu::always_inline]] inline bool run_handler(const HandlerEntry &e, gex_AM_Fn_t fn, uint32_t src,
                                               uint8_t handler, uint8_t category, bool request,
                                               bool loopback, unsigned nargs, const int32_t *args,
                                               void *buf, size_t nbytes) {
  gexx_token_s tok;
  tok.src = src;
  tok.handler = handler;
  tok.category = category;
  tok.is_req = request;
  tok.loopback = loopback;
  tok.entry = &e;
  tok.outer = tl_token;
  tl_token = &tok;
  unsigned n = nargs <= kMaxArgs ? nargs : kMaxArgs;
  if (category == kShort) {
    kShortCalls[n](fn, &tok, args);
  } else {
    kPayloadCalls[n](fn, &tok, buf, nbytes, args);
  }
  tl_token = tok.outer;
  return tok.replied;
}
}  // namespace

int Engine::loopback(const Message &m, Kind kind) {
  // A Short without payload and with GEX_EVENT_NOW (every Short of the entry
  // points) has nothing to check.
  if (m.category != kShort || m.nbytes || m.lc_opt != GEX_EVENT_NOW)
    check_payload(m, kind == kReply);
  alignas(16) char small[kLoopbackStackBytes];
  void *buf = nullptr;
  if (m.category == kMedium) {
    // The handler owns its buffer (it may write to it) and gets it 16-byte
    // aligned: a copy, never the client's source.
    buf = m.nbytes <= sizeof small ? small : loopback_medium_buffer(kind, max_medium_);
    util::get_copy(buf, m.src, m.nbytes);  // inline for small payloads (no ordering needed)
  } else if (m.category == kLong) {
    buf = m.dest;
    if (m.nbytes) {
      char *dst = segments_.locate(m.api, rank_, m.dest, m.nbytes);
      // Source and destination may both lie in this rank's segment.
      std::memmove(dst, m.src, m.nbytes);
      buf = dst;
#if defined(__SANITIZE_THREAD__)
      g_loopback_long_order.fetch_add(1, std::memory_order_acq_rel);
#endif
    }
  }
  // Copied: complete locally before the handler runs.
  if (trace::active(trace::kAm) || is_event_pointer(m.lc_opt)) [[unlikely]] {
    sent(m, rank_, kind);
    dispatch(header(m, kind, 0), m.args, buf, true);  // traces the delivery
    return 0;
  }
  // dispatch's checks, without building a header (request/reply take only
  // registered client indices here: the entry has a function).
  const HandlerEntry &e = handlers_.entry(m.handler);
  gex_AM_Fn_t fn = e.fn.load(std::memory_order_acquire);
  if (!fn || !e.accepts(kind == kReply, m.category, m.nargs)) [[unlikely]] {
    dispatch(header(m, kind, 0), m.args, buf, true);  // names what is wrong
    return 0;
  }
  run_handler(e, fn, rank_, static_cast<uint8_t>(m.handler), m.category, kind == kRequest, true,
              m.nargs, m.args, buf, m.nbytes);
  return 0;
}

void Engine::send_credits(uint32_t peer) {
  Message m{};
  m.api = "returning AM credits";
  m.category = kShort;
  inject(m, peer, transport::AmLane::Reply, header(m, kCredit, take_owed(peer)));
}

bool Engine::poll(const char *api) {
  check_may_poll(api);
  return tp_.poll(false);
}

void Engine::bad_handler(const transport::AmHeader &h, const char *why) {
  const HandlerEntry &e = handlers_.entry(h.handler);
  std::string target = e.fn ? e.label : util::format("handler index %u", h.handler);
  util::fatal("rank %u sent an AM %s %s to %s, %s", h.src, category_name(h.category),
              h.kind == kRequest ? "request" : "reply", target.c_str(), why);
}

void Engine::deliver(const transport::AmHeader &h, const int32_t *args, void *payload) {
  if (h.credits) add(peers_[h.src].avail, static_cast<int32_t>(h.credits));
  if (h.kind == kCredit) return;
  // A packed Long: its payload goes where the sender named, in our segment.
  if (h.flags & transport::wire::kPackedLong)
    util::put_copy(reinterpret_cast<void *>(h.dest), payload, h.nbytes);
  void *buf = h.category == kLong ? reinterpret_cast<void *>(h.dest) : payload;
#if defined(__SANITIZE_THREAD__)
  if (h.category == kLong) (void)g_loopback_long_order.load(std::memory_order_acquire);
#endif
  if (!dispatch(h, args, buf, false) && h.kind == kRequest) {
    // The hidden reply: bank the credit, return the bank when it is full.
    uint32_t owed = add(peers_[h.src].owed, 1u);
    if (owed >= slack_) send_credits(h.src);
  }
}

void Engine::bad_signature(const transport::AmHeader &h, const HandlerEntry &e) {
  gex_Flags_t want = h.category == kShort    ? GEX_FLAG_AM_SHORT
                     : h.category == kMedium ? GEX_FLAG_AM_MEDIUM
                                             : GEX_FLAG_AM_LONG;
  gex_Flags_t dir = h.kind == kRequest ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY;
  if (h.category > kLong || !(e.ex.gex_flags & want) || !(e.ex.gex_flags & dir)) {
    bad_handler(h,
                util::format("which was registered as %s only", flag_names(e.ex.gex_flags).c_str())
                    .c_str());
  }
  bad_handler(h, util::format("which was registered for %u argument(s) but the AM carries %u",
                              e.ex.gex_nargs, h.nargs)
                     .c_str());
}

bool Engine::dispatch(const transport::AmHeader &h, const int32_t *args, void *buf, bool loopback) {
  const HandlerEntry &e = handlers_.entry(h.handler);
  gex_AM_Fn_t fn = e.fn.load(std::memory_order_acquire);
  if (!fn) {
    bad_handler(h,
                "which is not registered on this rank (register handlers with gasnet_attach "
                "or gex_EP_RegisterHandlers before any rank sends to them)");
  }
  if (!e.accepts(h.kind == kReply, h.category, h.nargs)) [[unlikely]]
    bad_signature(h, e);
  if (trace::active(trace::kAm)) {
    record_am(trace::am_op(h.kind == kReply, h.category, true), h.src, h.nbytes, nullptr, h.handler,
              h.nargs, args);
  }
  return run_handler(e, fn, h.src, h.handler, h.category, h.kind == kRequest, loopback, h.nargs,
                     args, buf, h.nbytes);
}

}  // namespace gexx::core::am
