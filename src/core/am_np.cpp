// Negotiated-payload AMs (gex_AM_Prepare* / gex_AM_Commit*): one prepared
// message per thread, its room claimed at Prepare (a credit for a request,
// a slot in the transport's queue) and published at Commit.
#include <vector>

#include "core/am.hpp"
#include "util/log.hpp"

namespace gexx::core::am {

namespace {
thread_local gexx_srcdesc_s tl_srcdesc;
}  // namespace

gex_AM_SrcDesc_t Engine::prepare(const char *api, bool reply, Category cat, gex_Token_t token,
                                 gex_Rank_t rank, const void *client_buf, size_t least, size_t most,
                                 void *dest_hint, gex_Event_t *lc_opt, gex_Flags_t flags,
                                 unsigned nargs) {
  gexx_srcdesc_s &sd = tl_srcdesc;
  if (sd.active) {
    util::fatal(
        "%s: this thread has a prepared AM that is not committed yet; each Prepare is "
        "followed by its Commit before the next Prepare",
        api);
  }
  gexx_token_s *t = nullptr;
  if (reply) {
    t = reply_token(api, token);
    rank = t->src;
  } else {
    check_request(api, rank);
  }
  if (nargs > kMaxArgs) {
    util::fatal("%s: %u handler arguments; at most gex_AM_MaxArgs() = %u", api, nargs, kMaxArgs);
  }
  size_t max = cat == kMedium ? max_medium_ : max_long_;
  if (least > most) util::fatal("%s: least_payload %zu exceeds most_payload %zu", api, least, most);
  if (least > max) {
    util::fatal("%s: least_payload %zu exceeds the %s limit %zu (gex_AM_Max%s%s)", api, least,
                category_name(cat), max, reply ? "Reply" : "Request", category_name(cat));
  }
  if (!client_buf && lc_opt) {
    util::fatal("%s: lc_opt must be NULL when client_buf is NULL (gexx provides the buffer)", api);
  }
  if (client_buf && !lc_opt) {
    util::fatal(
        "%s: lc_opt is NULL; with a client buffer pass GEX_EVENT_NOW%s or a pointer to "
        "a gex_Event_t",
        api, reply ? "" : ", GEX_EVENT_GROUP");
  }
  if (lc_opt == GEX_EVENT_DEFER || (reply && lc_opt == GEX_EVENT_GROUP)) {
    util::fatal("%s: this lc_opt is not allowed here", api);
  }
  if (!reply && !acquire_credit(rank, flags, api)) return GEX_AM_SRCDESC_NO_OP;
  size_t size = most < max ? most : max;
  Message m{};
  m.api = api;
  m.nargs = nargs;
  m.flags = flags;
  transport::AmLane lane = reply ? transport::AmLane::Reply : transport::AmLane::Request;
  if (!reserve(m, rank, lane, cat == kMedium ? size : 0, sd.slot)) {
    if (!reply) give_credit(rank);
    return GEX_AM_SRCDESC_NO_OP;
  }
  sd.in_place = false;
  if (client_buf) {
    sd.addr = const_cast<void *>(client_buf);
  } else if (cat == kMedium) {
    sd.addr = sd.slot.payload;
    sd.in_place = true;
  } else if (dest_hint && tp_.segment(rank).local) {
    // Long toward a known destination: hand out the destination itself.
    const transport::PeerSegment &seg = tp_.segment(rank);
    uint64_t off = reinterpret_cast<uint64_t>(dest_hint) - seg.owner_base;
    size_t room = off <= seg.size ? seg.size - off : 0;
    if (size > room) size = room > least ? room : least;
    sd.addr = segments_.locate(api, rank, dest_hint, size);
    sd.in_place = true;
  } else {
    if (size > (1u << 20)) size = least > (1u << 20) ? least : (1u << 20);
    sd.buffer.resize(size);
    sd.addr = sd.buffer.data();
  }
  sd.active = true;
  sd.reply = reply;
  sd.category = cat;
  sd.peer = rank;
  sd.nargs = nargs;
  sd.flags = flags;
  sd.lc_opt = lc_opt;
  sd.size = size;
  sd.dest_hint = dest_hint;
  sd.token = t;
  return &sd;
}

void Engine::commit(const char *api, gex_AM_SrcDesc_t sdp, bool reply, Category cat,
                    gex_AM_Index_t handler, size_t nbytes, void *dest, unsigned nargs,
                    const gex_AM_Arg_t *args) {
  gexx_srcdesc_s &sd = tl_srcdesc;
  check_client_handler(api, handler);
  if (sdp != &sd || !sd.active) {
    util::fatal(
        "%s: this source descriptor is not the one the last Prepare on this thread "
        "returned (or it was committed already)",
        api);
  }
  if (sd.reply != reply || sd.category != cat) {
    util::fatal("%s does not match its Prepare (a %s %s)", api, category_name(sd.category),
                sd.reply ? "reply" : "request");
  }
  if (nargs != sd.nargs) {
    util::fatal("%s: %u arguments, but the Prepare said %u", api, nargs, sd.nargs);
  }
  if (nbytes > sd.size) {
    util::fatal("%s: %zu bytes, but the Prepare granted %zu (gex_AM_SrcDescSize)", api, nbytes,
                sd.size);
  }
  if (cat == kLong && sd.dest_hint && dest != sd.dest_hint) {
    util::fatal("%s: dest_addr %p differs from the %p given to the Prepare", api, dest,
                sd.dest_hint);
  }
  Message m{};
  m.api = api;
  m.category = cat;
  m.handler = handler;
  m.nargs = nargs;
  m.args = args;
  m.src = sd.addr;
  m.nbytes = nbytes;
  m.dest = dest;
  m.lc_opt = sd.lc_opt;
  m.flags = sd.flags;
  sd.active = false;
  // A reply returns its request's credit; a request to oneself that ran in
  // its call (a loopback token) took none.
  uint32_t credits = take_owed(sd.peer) + (reply && !sd.token->loopback ? 1 : 0);
  Kind kind = reply ? kReply : kRequest;
  if (sd.in_place) {
    send(m, sd.slot, kind, credits, true, nullptr);
  } else {
    // The slot was reserved at Prepare without room for a Long payload, so
    // a remote one is written, not packed.
    LongPlan lp = plan_long(m, sd.peer);
    lp.packed = false;
    send_planned(m, sd.slot, kind, credits, lp);
  }
  if (reply) sd.token->replied = true;
  if (sd.buffer.size() > (1u << 20)) std::vector<char>().swap(sd.buffer);
}

}  // namespace gexx::core::am
