#include "rma/remote.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include "core/am.hpp"
#include "core/burst.hpp"
#include "core/events.hpp"
#include "core/handlers.hpp"
#include "core/objects.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"

namespace gexx::rma {

using transport::RmaCompletion;

namespace {

uint64_t remote_addr(const void *p) {
  return reinterpret_cast<uint64_t>(p);
}

transport::Transport &tp() {
  return core::Runtime::get("RMA").transport();
}

bool is_event_pointer(gex_Event_t *lc) {
  return lc != GEX_EVENT_NOW && lc != GEX_EVENT_DEFER && lc != GEX_EVENT_GROUP;
}

// ---- Small NB and NBI operations as internal AMs (Capabilities::am_rma_max)
//
// Put: a Medium request (arguments: the destination, the initiator's
// RmaCompletion; payload: the bytes), which the target copies into its
// segment and acknowledges with a Short reply (the completion). Get: a
// Short request (the source, the length, the destination, the completion),
// answered by a Medium reply with the bytes, which the initiator copies to
// the destination. Both requests are deferrable: a burst of them toward one
// peer may leave in one network message (transport::wire::kDeferrable).
constexpr const char *kPutApi = "a small put carried as an AM (the target's side)";
constexpr const char *kGetApi = "a small get carried as an AM (the target's side)";

using core::am::join_arg;
using core::am::split_arg;
RmaCompletion *completion(gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  return reinterpret_cast<RmaCompletion *>(join_arg(lo, hi));
}

void put_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t d_lo, gex_AM_Arg_t d_hi,
                 gex_AM_Arg_t c_lo, gex_AM_Arg_t c_hi) {
  core::Runtime &rt = core::Runtime::get(kPutApi);
  char *p =
      rt.translate(kPutApi, rt.rank(), reinterpret_cast<void *>(join_arg(d_lo, d_hi)), nbytes);
  std::memcpy(p, buf, nbytes);
  gex_AM_Arg_t args[2] = {c_lo, c_hi};
  core::am::Message m =
      core::am::internal_message(kPutApi, core::am::kShort, core::kRmaPutAckHandler, 2, args);
  rt.am().internal_reply(token, m);
}

void put_ack_handler(gex_Token_t, gex_AM_Arg_t c_lo, gex_AM_Arg_t c_hi) {
  completion(c_lo, c_hi)->pending.fetch_sub(1, std::memory_order_release);
}

void get_handler(gex_Token_t token, gex_AM_Arg_t s_lo, gex_AM_Arg_t s_hi, gex_AM_Arg_t len,
                 gex_AM_Arg_t d_lo, gex_AM_Arg_t d_hi, gex_AM_Arg_t c_lo, gex_AM_Arg_t c_hi) {
  core::Runtime &rt = core::Runtime::get(kGetApi);
  size_t nbytes = static_cast<uint32_t>(len);
  const char *p =
      rt.translate(kGetApi, rt.rank(), reinterpret_cast<void *>(join_arg(s_lo, s_hi)), nbytes);
  gex_AM_Arg_t args[4] = {d_lo, d_hi, c_lo, c_hi};
  core::am::Message m = core::am::internal_message(kGetApi, core::am::kMedium,
                                                   core::kRmaGetReplyHandler, 4, args, p, nbytes);
  rt.am().internal_reply(token, m);
}

void get_reply_handler(gex_Token_t, void *buf, size_t nbytes, gex_AM_Arg_t d_lo, gex_AM_Arg_t d_hi,
                       gex_AM_Arg_t c_lo, gex_AM_Arg_t c_hi) {
  std::memcpy(reinterpret_cast<void *>(join_arg(d_lo, d_hi)), buf, nbytes);
  completion(c_lo, c_hi)->pending.fetch_sub(1, std::memory_order_release);
}

// Whether an NB or NBI operation of `nbytes` is small enough to go as an
// AM (not from inside a handler: handlers send no requests).
bool small(size_t nbytes) {
  return nbytes - 1 < tp().capabilities().am_rma_max && !core::am::detail::tl_token;
}

// A small operation goes as an AM only inside a burst (core/burst.hpp),
// where it leaves bundled with the rest; a lone one takes the transport's
// RMA, whose round trip is 0.2-0.4 us shorter over net (no AM layer on
// either side).

void am_put(uint32_t rank, void *dest, const void *src, size_t nbytes, RmaCompletion &c) {
  gex_AM_Arg_t args[4];
  split_arg(remote_addr(dest), args);
  split_arg(reinterpret_cast<uint64_t>(&c), args + 2);
  // The source is copied into the message: free again when this returns.
  core::am::Message m =
      core::am::internal_message("a small put to a network peer", core::am::kMedium,
                                 core::kRmaPutHandler, 4, args, src, nbytes);
  m.deferrable = true;
  c.pending.fetch_add(1, std::memory_order_relaxed);
  core::Runtime::get(m.api).am().internal_request(rank, m);
}

void am_get(void *dest, uint32_t rank, const void *src, size_t nbytes, RmaCompletion &c) {
  gex_AM_Arg_t args[7];
  split_arg(remote_addr(src), args);
  args[2] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(nbytes));
  split_arg(reinterpret_cast<uint64_t>(dest), args + 3);
  split_arg(reinterpret_cast<uint64_t>(&c), args + 5);
  core::am::Message m = core::am::internal_message("a small get from a network peer",
                                                   core::am::kShort, core::kRmaGetHandler, 7, args);
  m.deferrable = true;
  c.pending.fetch_add(1, std::memory_order_relaxed);
  core::Runtime::get(m.api).am().internal_request(rank, m);
}

}  // namespace

void register_handlers(core::HandlerTable &handlers) {
  handlers.register_internal(core::kRmaPutHandler, reinterpret_cast<gex_AM_Fn_t>(&put_handler),
                             GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 4, "rma_put");
  handlers.register_internal(core::kRmaPutAckHandler,
                             reinterpret_cast<gex_AM_Fn_t>(&put_ack_handler),
                             GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, "rma_put_ack");
  handlers.register_internal(core::kRmaGetHandler, reinterpret_cast<gex_AM_Fn_t>(&get_handler),
                             GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 7, "rma_get");
  handlers.register_internal(core::kRmaGetReplyHandler,
                             reinterpret_cast<gex_AM_Fn_t>(&get_reply_handler),
                             GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 4, "rma_get_reply");
}

using core::events::wait;

// A put whose local completion the client defers to its sync leaves its
// source alone until then: the transport may send from it.
transport::PutSource source_of(gex_Event_t *lc_opt) {
  return lc_opt == GEX_EVENT_DEFER ? transport::PutSource::stable : transport::PutSource::transient;
}

void remote_put(uint32_t rank, void *dest, const void *src, size_t nbytes) {
  RmaCompletion c;
  tp().rma_put(rank, remote_addr(dest), src, nbytes, c, transport::PutSource::stable);
  wait(c);
}

void remote_get(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  RmaCompletion c;
  tp().rma_get(dest, rank, remote_addr(src), nbytes, c);
  wait(c);
}

void remote_memset(uint32_t rank, void *dest, int value, size_t nbytes) {
  std::vector<char> bytes(nbytes, static_cast<char>(value));
  remote_put(rank, dest, bytes.data(), nbytes);
}

gex_Event_t remote_put_nb(uint32_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt) {
  auto c = std::make_unique<RmaCompletion>();
  core::burst::Scope op(rank);
  if (op.burst && small(nbytes)) {
    am_put(rank, dest, src, nbytes, *c);
    if (is_event_pointer(lc_opt)) *lc_opt = GEX_EVENT_INVALID;
    return core::events::for_rma(std::move(c));
  }
  bool copied = tp().rma_put(rank, remote_addr(dest), src, nbytes, *c, source_of(lc_opt)) ==
                transport::Result::done;
  // The source is busy until the put completes: local completion now or as
  // an event of its own comes to waiting for it here.
  if (!copied && lc_opt != GEX_EVENT_DEFER) wait(*c);
  if (is_event_pointer(lc_opt)) *lc_opt = GEX_EVENT_INVALID;
  return core::events::for_rma(std::move(c));
}

gex_Event_t remote_get_nb(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  auto c = std::make_unique<RmaCompletion>();
  core::burst::Scope op(rank);
  if (op.burst && small(nbytes)) {
    am_get(dest, rank, src, nbytes, *c);
  } else {
    tp().rma_get(dest, rank, remote_addr(src), nbytes, *c);
  }
  return core::events::for_rma(std::move(c));
}

void remote_put_nbi(uint32_t rank, void *dest, const void *src, size_t nbytes,
                    gex_Event_t *lc_opt) {
  RmaCompletion &c = core::events::nbi_put_counter();
  core::burst::Scope op(rank);
  if (op.burst && small(nbytes)) return am_put(rank, dest, src, nbytes, c);
  bool copied = tp().rma_put(rank, remote_addr(dest), src, nbytes, c, source_of(lc_opt)) ==
                transport::Result::done;
  if (!copied && lc_opt == GEX_EVENT_NOW) wait(c);
}

void remote_get_nbi(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  RmaCompletion &c = core::events::nbi_get_counter();
  core::burst::Scope op(rank);
  if (op.burst && small(nbytes)) return am_get(dest, rank, src, nbytes, c);
  tp().rma_get(dest, rank, remote_addr(src), nbytes, c);
}

}  // namespace gexx::rma
