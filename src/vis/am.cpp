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

// Walks the records of a put request or get request.
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
    f(r, p);
    if (with_data) p += wire::padded(r.len);
  }
}

void put_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  core::Runtime &rt = core::Runtime::get(kPutApi);
  uint32_t me = rt.rank();
  each_record(kPutApi, buf, nbytes, true, [&](const Record &r, const char *data) {
    std::memcpy(rt.translate(kPutApi, me, reinterpret_cast<void *>(r.addr), r.len), data, r.len);
  });
  gex_AM_Arg_t args[2] = {lo, hi};
  core::am::Message m{};
  m.api = kPutApi;
  m.category = core::am::kShort;
  m.handler = core::kVisPutAckHandler;
  m.nargs = 2;
  m.args = args;
  m.lc_opt = GEX_EVENT_NOW;
  rt.am().internal_reply(token, m);
}

void put_ack_handler(gex_Token_t, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  wire::join<transport::RmaCompletion>(lo, hi)->pending.fetch_sub(1, std::memory_order_release);
}

thread_local std::vector<char> t_gather;

void get_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  core::Runtime &rt = core::Runtime::get(kGetApi);
  uint32_t me = rt.rank();
  size_t total = 0;
  each_record(kGetApi, buf, nbytes, false, [&](const Record &r, const char *) { total += r.len; });
  t_gather.resize(total);
  char *out = t_gather.data();
  each_record(kGetApi, buf, nbytes, false, [&](const Record &r, const char *) {
    std::memcpy(out, rt.translate(kGetApi, me, reinterpret_cast<void *>(r.addr), r.len), r.len);
    out += r.len;
  });
  gex_AM_Arg_t args[2] = {lo, hi};
  core::am::Message m{};
  m.api = kGetApi;
  m.category = core::am::kMedium;
  m.handler = core::kVisGetReplyHandler;
  m.nargs = 2;
  m.args = args;
  m.src = t_gather.data();
  m.nbytes = total;
  m.lc_opt = GEX_EVENT_NOW;
  rt.am().internal_reply(token, m);
}

void get_reply_handler(gex_Token_t, void *buf, size_t nbytes, gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  wire::GetChunk *chunk = wire::join<wire::GetChunk>(lo, hi);
  const char *p = static_cast<const char *>(buf);
  size_t left = nbytes;
  for (const Run &d : chunk->dest) {
    if (d.len > left) util::fatal("VIS packed get: a short reply (a gexx bug)");
    std::memcpy(d.addr, p, d.len);
    p += d.len;
    left -= d.len;
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
  if (e.checked && (!(e.ex.gex_flags & GEX_FLAG_AM_MEDIUM) ||
                    !(e.ex.gex_flags & GEX_FLAG_AM_REPLY) || e.ex.gex_nargs != 0)) {
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
