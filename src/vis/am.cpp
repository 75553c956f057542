// VIS's internal AM handlers: unpacking packed puts, gathering packed gets,
// and running a client's peer completion handler (wire format: vis/wire.hpp).
#include <cstring>
#include <vector>

#include "core/am.hpp"
#include "core/handlers.hpp"
#include "core/objects.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"
#include "vis/vis.hpp"
#include "vis/wire.hpp"

namespace gexx::vis {

namespace {

using wire::Record;

constexpr const char *kPutApi = "VIS packed put (target side)";
constexpr const char *kGetApi = "VIS packed get (target side)";

// One record of a request: `count` pieces of `len` bytes, the first at
// `addr`, each `stride` after the one before (count 1: stride unused).
struct Piece {
  uint64_t addr, len, count;
  int64_t stride;
};

// Walks the records of a put request or get request; f(piece, data).
template <typename F>
void each_record(const char *api, const void *buf, size_t nbytes, bool with_data, F &&f) {
  const char *p = static_cast<const char *>(buf);
  const char *end = p + nbytes;
  while (p < end) {
    if (static_cast<size_t>(end - p) < sizeof(Record))
      util::fatal("%s: a truncated record (a gexx bug)", api);
    Record r;
    std::memcpy(&r, p, sizeof r);
    p += sizeof r;
    Piece piece{r.addr, r.len & ~wire::kRun, 1, 0};
    if (r.len & wire::kRun) {
      wire::RunTail t;
      if (static_cast<size_t>(end - p) < sizeof t)
        util::fatal("%s: a truncated run record (a gexx bug)", api);
      std::memcpy(&t, p, sizeof t);
      p += sizeof t;
      piece.count = t.count;
      piece.stride = t.stride;
    }
    uint64_t bytes = piece.len * piece.count;
    if (with_data && ((piece.count && bytes / piece.count != piece.len) ||
                      bytes > static_cast<uint64_t>(end - p)))
      util::fatal("%s: a record longer than its message (a gexx bug)", api);
    f(piece, p);
    if (with_data) p += wire::padded(bytes);
  }
}

// Where a record's pieces are in this process: the address of its first
// piece, after one range check of everything its pieces span.
char *locate_pieces(core::Runtime &rt, const char *api, const Piece &pc) {
  if (pc.count == 1) return rt.translate(api, rt.rank(), reinterpret_cast<void *>(pc.addr), pc.len);
  uint64_t step =
      pc.stride < 0 ? 0 - static_cast<uint64_t>(pc.stride) : static_cast<uint64_t>(pc.stride);
  uint64_t reach = step * (pc.count - 1);
  if ((pc.count - 1) && reach / (pc.count - 1) != step)
    util::fatal("%s: a run of %llu pieces spaced %lld apart overflows (a gexx bug)", api,
                static_cast<unsigned long long>(pc.count), static_cast<long long>(pc.stride));
  uint64_t lo = pc.stride < 0 ? pc.addr - reach : pc.addr;
  char *base = rt.translate(api, rt.rank(), reinterpret_cast<void *>(lo), reach + pc.len);
  return base + (pc.addr - lo);
}

// Copies each piece of a record: to (or from) its place, from (or to) the
// bytes back to back. `len` 8 (a strided row of doubles or words) gets a
// fixed-size copy.
template <bool kScatter>
void move_pieces(char *place, char *packed, const Piece &pc) {
  auto one = [&](char *at, char *bytes, uint64_t len) {
    if (kScatter)
      std::memcpy(at, bytes, len);
    else
      std::memcpy(bytes, at, len);
  };
  if (pc.len == 8) {
    for (uint64_t i = 0; i < pc.count; ++i, place += pc.stride, packed += 8) one(place, packed, 8);
  } else {
    for (uint64_t i = 0; i < pc.count; ++i, place += pc.stride, packed += pc.len)
      one(place, packed, pc.len);
  }
}

void put_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  core::Runtime &rt = core::Runtime::get(kPutApi);
  each_record(kPutApi, buf, nbytes, true, [&](const Piece &pc, const char *data) {
    move_pieces<true>(locate_pieces(rt, kPutApi, pc), const_cast<char *>(data), pc);
  });
  gex_AM_Arg_t args[2] = {lo, hi};
  core::am::Message m =
      core::am::internal_message(kPutApi, core::am::kShort, core::kVisPutAckHandler, 2, args);
  rt.am().internal_reply(token, m);
}

void put_ack_handler(gex_Token_t, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  wire::join<transport::RmaCompletion>(lo, hi)->pending.fetch_sub(1, std::memory_order_release);
}

// The pieces a packed get asks for, gathered straight into the reply (over
// the network a reply of 16 KiB or more gathered into a buffer of its own
// left from that buffer, alone, and the handler waited for the provider to
// take it: testvisperf's gets of 16 KiB of 512-byte pieces over net ran at
// half the rate of 8 KiB ones).
struct Gather {
  core::Runtime *rt;
  void *buf;
  size_t nbytes;
};

void gather_into(void *ctx, char *out) {
  const Gather &g = *static_cast<const Gather *>(ctx);
  each_record(kGetApi, g.buf, g.nbytes, false, [&](const Piece &pc, const char *) {
    move_pieces<false>(locate_pieces(*g.rt, kGetApi, pc), out, pc);
    out += pc.len * pc.count;
  });
}

void get_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  core::Runtime &rt = core::Runtime::get(kGetApi);
  size_t total = 0;
  each_record(kGetApi, buf, nbytes, false,
              [&](const Piece &pc, const char *) { total += pc.len * pc.count; });
  gex_AM_Arg_t args[2] = {lo, hi};
  core::am::Message m = core::am::internal_message(
      kGetApi, core::am::kMedium, core::kVisGetReplyHandler, 2, args, nullptr, total);
  Gather g{&rt, buf, nbytes};
  rt.am().internal_reply_in_place(token, m, &gather_into, &g);
}

void get_reply_handler(gex_Token_t, void *buf, size_t nbytes, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  wire::GetChunk *chunk = wire::join<wire::GetChunk>(lo, hi);
  char *p = static_cast<char *>(buf);
  size_t left = nbytes;
  for (const Row &d : chunk->dest) {
    if (d.len * d.count > left) util::fatal("VIS packed get: a short reply (a gexx bug)");
    move_pieces<true>(d.addr, p, Piece{0, d.len, d.count, d.stride});
    p += d.len * d.count;
    left -= d.len * d.count;
  }
  transport::RmaCompletion *done = chunk->done;
  delete chunk;
  done->pending.fetch_sub(1, std::memory_order_release);
}

// Runs the client's peer completion handler here, as the Medium reply from
// the initiator that the specification describes.
void peer_completion_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t index) {
  const char *api = "VIS peer completion (target side)";
  core::Runtime &rt = core::Runtime::get(api);
  gex_AM_Index_t h = static_cast<gex_AM_Index_t>(index);
  const core::HandlerEntry &e = rt.handlers().entry(h);
  gex_AM_Fn_t fn = e.fn.load(std::memory_order_acquire);
  if (!fn) {
    util::fatal(
        "%s: rank %u named peer completion handler index %u, which is not registered on rank %u",
        api, token->src, static_cast<unsigned>(h), rt.rank());
  }
  if (!e.accepts(/*reply=*/true, transport::wire::kMedium, 0)) {
    util::fatal(
        "%s: %s must be registered as a Medium reply handler of no arguments to serve as a "
        "peer completion handler",
        api, e.label.c_str());
  }
  gexx_token_s tok;
  tok.src = token->src;
  tok.handler = h;
  tok.category = core::am::kMedium;
  tok.is_req = false;
  tok.entry = &e;
  tok.outer = core::am::detail::tl_token;
  core::am::detail::tl_token = &tok;
  reinterpret_cast<void (*)(gex_Token_t, void *, size_t)>(fn)(&tok, buf, nbytes);
  core::am::detail::tl_token = tok.outer;
}

}  // namespace

void register_handlers(core::HandlerTable &t) {
  t.register_internal(core::kVisPutHandler, reinterpret_cast<gex_AM_Fn_t>(&put_handler),
                      GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, "vis_put");
  t.register_internal(core::kVisPutAckHandler, reinterpret_cast<gex_AM_Fn_t>(&put_ack_handler),
                      GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, "vis_put_ack");
  t.register_internal(core::kVisGetHandler, reinterpret_cast<gex_AM_Fn_t>(&get_handler),
                      GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, "vis_get");
  t.register_internal(core::kVisGetReplyHandler, reinterpret_cast<gex_AM_Fn_t>(&get_reply_handler),
                      GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, "vis_get_reply");
  t.register_internal(core::kVisPeerCompletionHandler,
                      reinterpret_cast<gex_AM_Fn_t>(&peer_completion_handler),
                      GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, "vis_peer_completion");
}

}  // namespace gexx::vis
