#include "vis/vis.hpp"

#include <gasnet_vis.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/am.hpp"
#include "core/events.hpp"
#include "core/handlers.hpp"
#include "core/runtime.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "vis/wire.hpp"

namespace gexx::vis {

using transport::RmaCompletion;

namespace {

// The peer completion armed for this thread's next put.
struct PeerCompletion {
  bool armed = false;
  gex_AM_Index_t handler = 0;
  size_t nbytes = 0;
  char bytes[GEX_VIS_MAX_PEERCOMPLETION];
};
thread_local PeerCompletion t_pc;

// A message's worth of packed bytes, reused by this thread's calls.
thread_local std::vector<char> t_pack;

uint64_t addr_of(const void *p) {
  return reinterpret_cast<uint64_t>(p);
}

// Where a call counts its network operations: its own counter (blocking,
// NB, or with a peer completion to send after it), or the thread's NBI one.
struct Counter {
  std::unique_ptr<RmaCompletion> own;
  RmaCompletion *c = nullptr;
  Counter(Sync sync, bool put, bool force_own) {
    if (sync == Sync::NBI && !force_own) {
      c = put ? &core::events::nbi_put_counter() : &core::events::nbi_get_counter();
    } else {
      own = std::make_unique<RmaCompletion>();
      c = own.get();
    }
  }
  // The call's result, waiting first for the blocking form.
  gex_Event_t finish(Sync sync, bool force_wait) {
    if (sync == Sync::Blocking || force_wait) {
      core::events::wait(*c);
      return GEX_EVENT_INVALID;
    }
    if (sync == Sync::NB) return core::events::for_rma(std::move(own));
    return GEX_EVENT_INVALID;
  }
};

void send_peer_completion(const char *api, uint32_t rank, const PeerCompletion &pc) {
  gex_AM_Arg_t args[1] = {static_cast<gex_AM_Arg_t>(pc.handler)};
  core::am::Message m{};
  m.api = api;
  m.category = core::am::kMedium;
  m.handler = core::kVisPeerCompletionHandler;
  m.nargs = 1;
  m.args = args;
  m.src = pc.bytes;
  m.nbytes = pc.nbytes;
  m.lc_opt = GEX_EVENT_NOW;
  core::Runtime::get(api).am().internal_request(rank, m);
}

// Packs put pieces into Medium requests the target unpacks (vis/am.cpp).
class PutPacker {
 public:
  PutPacker(const char *api, uint32_t rank, RmaCompletion *c, size_t cap)
      : api_(api), rank_(rank), c_(c), cap_(cap) {
    t_pack.resize(cap);
  }
  void add(uint64_t dest, const char *src, size_t n) {
    size_t need = sizeof(wire::Record) + wire::padded(n);
    if (used_ + need > cap_) flush();
    wire::Record r{dest, n};
    std::memcpy(t_pack.data() + used_, &r, sizeof r);
    std::memcpy(t_pack.data() + used_ + sizeof r, src, n);
    used_ += need;
  }
  void flush() {
    if (!used_) return;
    c_->pending.fetch_add(1, std::memory_order_relaxed);
    gex_AM_Arg_t args[2];
    wire::split(c_, args);
    core::am::Message m{};
    m.api = api_;
    m.category = core::am::kMedium;
    m.handler = core::kVisPutHandler;
    m.nargs = 2;
    m.args = args;
    m.src = t_pack.data();
    m.nbytes = used_;
    m.lc_opt = GEX_EVENT_NOW;
    core::Runtime::get(api_).am().internal_request(rank_, m);
    used_ = 0;
  }

 private:
  const char *api_;
  uint32_t rank_;
  RmaCompletion *c_;
  size_t cap_, used_ = 0;
};

// Packs get pieces into Medium requests (a list of remote ranges); the
// target replies with their bytes, which the reply handler scatters.
class GetPacker {
 public:
  GetPacker(const char *api, uint32_t rank, RmaCompletion *c, size_t cap)
      : api_(api), rank_(rank), c_(c), cap_(cap) {
    t_pack.resize(cap);
  }
  void add(char *dest, uint64_t src, size_t n) {
    if (chunk_ && (req_ + sizeof(wire::Record) > cap_ || bytes_ + n > cap_)) flush();
    if (!chunk_) chunk_ = new wire::GetChunk{c_, {}};
    wire::Record r{src, n};
    std::memcpy(t_pack.data() + req_, &r, sizeof r);
    req_ += sizeof r;
    bytes_ += n;
    chunk_->dest.push_back({dest, n});
  }
  void flush() {
    if (!chunk_) return;
    c_->pending.fetch_add(1, std::memory_order_relaxed);
    gex_AM_Arg_t args[2];
    wire::split(chunk_, args);
    core::am::Message m{};
    m.api = api_;
    m.category = core::am::kMedium;
    m.handler = core::kVisGetHandler;
    m.nargs = 2;
    m.args = args;
    m.src = t_pack.data();
    m.nbytes = req_;
    m.lc_opt = GEX_EVENT_NOW;
    chunk_ = nullptr;
    req_ = bytes_ = 0;
    core::Runtime::get(api_).am().internal_request(rank_, m);
  }

 private:
  const char *api_;
  uint32_t rank_;
  RmaCompletion *c_;
  size_t cap_, req_ = 0, bytes_ = 0;
  wire::GetChunk *chunk_ = nullptr;
};

// Whether `rank`'s segment is mapped here, judged (and bounds-checked) on
// the first run of its side; the walk is rewound.
bool mapped_here(const char *api, uint32_t rank, Runs &remote) {
  Run r;
  bool mapped = true;
  if (remote.next(r)) mapped = core::Runtime::get(api).locate(api, rank, r.addr, r.len) != nullptr;
  remote.rewind();
  return mapped;
}

}  // namespace

const Knobs &knobs() {
  static const Knobs k = [] {
    Knobs v{};
    v.ampipe = config::get_bool("GASNET_VIS_AMPIPE");
    v.remotecontig = config::get_bool("GASNET_VIS_REMOTECONTIG");
    size_t medium = core::Runtime::get("VIS").am().max_medium();
    uint64_t want = config::get_bytes("GASNET_VIS_MAXCHUNK");
    v.maxchunk = want == 0 ? medium : static_cast<size_t>(std::min<uint64_t>(want, medium));
    // Room for at least one record and a few bytes.
    v.maxchunk = std::max<size_t>(v.maxchunk, 2 * sizeof(wire::Record));
    v.rma_cutover = v.maxchunk / 4;
    return v;
  }();
  return k;
}

gex_Event_t put(const Call &c, uint32_t rank, Runs &dst, Runs &src, uint64_t total) {
  core::Runtime &rt = core::Runtime::get(c.api);
  PeerCompletion pc;
  if (t_pc.armed) {
    pc = t_pc;
    t_pc.armed = false;
  }
  if (total == 0 || mapped_here(c.api, rank, dst)) {
    auto copy = [&](char *d, char *s, size_t n) {
      std::memmove(rt.translate(c.api, rank, d, n), s, n);
    };
    if (!dst.each_list_pair(src, copy)) pair_runs(dst, src, copy);
    if (pc.armed) send_peer_completion(c.api, rank, pc);
    return GEX_EVENT_INVALID;
  }
  transport::Transport &tp = rt.transport();
  const Knobs &k = knobs();
  if (k.remotecontig && dst.runs() == 1 && src.runs() > 1) {
    Run r;
    dst.next(r);
    rt.locate(c.api, rank, r.addr, r.len);
    std::vector<char> bounce(total);
    char *p = bounce.data();
    Run s;
    while (src.next(s)) {
      std::memcpy(p, s.addr, s.len);
      p += s.len;
    }
    RmaCompletion done;
    tp.rma_put(rank, addr_of(r.addr), bounce.data(), total, done);
    core::events::wait(done);
    if (pc.armed) send_peer_completion(c.api, rank, pc);
    return GEX_EVENT_INVALID;
  }
  Counter counter(c.sync, true, pc.armed);
  bool posted = false;
  PutPacker packer(c.api, rank, counter.c, k.maxchunk);
  pair_runs(dst, src, [&](char *d, char *s, size_t n) {
    rt.locate(c.api, rank, d, n);  // bounds check
    if (k.ampipe && n <= k.rma_cutover) {
      packer.add(addr_of(d), s, n);
    } else if (tp.rma_put(rank, addr_of(d), s, n, *counter.c) != transport::Result::done) {
      posted = true;
    }
  });
  packer.flush();
  // The source is free when the call returns: wait for puts sent from it.
  gex_Event_t e = counter.finish(c.sync, posted || pc.armed);
  if (pc.armed) send_peer_completion(c.api, rank, pc);
  return e;
}

gex_Event_t get(const Call &c, Runs &dst, uint32_t rank, Runs &src, uint64_t total) {
  core::Runtime &rt = core::Runtime::get(c.api);
  if (total == 0 || mapped_here(c.api, rank, src)) {
    auto copy = [&](char *d, char *s, size_t n) {
      std::memmove(d, rt.translate(c.api, rank, s, n), n);
    };
    if (!dst.each_list_pair(src, copy)) pair_runs(dst, src, copy);
    return GEX_EVENT_INVALID;
  }
  transport::Transport &tp = rt.transport();
  const Knobs &k = knobs();
  if (k.remotecontig && src.runs() == 1 && dst.runs() > 1) {
    Run r;
    src.next(r);
    rt.locate(c.api, rank, r.addr, r.len);
    std::vector<char> bounce(total);
    RmaCompletion done;
    tp.rma_get(bounce.data(), rank, addr_of(r.addr), total, done);
    core::events::wait(done);
    const char *p = bounce.data();
    Run d;
    while (dst.next(d)) {
      std::memcpy(d.addr, p, d.len);
      p += d.len;
    }
    return GEX_EVENT_INVALID;
  }
  Counter counter(c.sync, false, false);
  GetPacker packer(c.api, rank, counter.c, k.maxchunk);
  pair_runs(dst, src, [&](char *d, char *s, size_t n) {
    rt.locate(c.api, rank, s, n);  // bounds check
    if (k.ampipe && n <= k.rma_cutover)
      packer.add(d, addr_of(s), n);
    else
      tp.rma_get(d, rank, addr_of(s), n, *counter.c);
  });
  packer.flush();
  return counter.finish(c.sync, false);
}

void set_peer_completion(const char *api, gex_AM_Index_t handler, const void *source_addr,
                         size_t nbytes, gex_Flags_t flags) {
  (void)flags;
  if (handler < GEX_AM_INDEX_BASE) {
    util::fatal(
        "%s: handler index %u is out of range: peer completion handlers are client handlers, "
        "%u to 255",
        api, static_cast<unsigned>(handler), static_cast<unsigned>(GEX_AM_INDEX_BASE));
  }
  if (nbytes > GEX_VIS_MAX_PEERCOMPLETION) {
    util::fatal("%s: %zu bytes of payload is more than GEX_VIS_MAX_PEERCOMPLETION (%d)", api,
                nbytes, GEX_VIS_MAX_PEERCOMPLETION);
  }
  if (nbytes && !source_addr) util::fatal("%s: source_addr is null with nbytes = %zu", api, nbytes);
  t_pc.armed = true;
  t_pc.handler = handler;
  t_pc.nbytes = nbytes;
  if (nbytes) std::memcpy(t_pc.bytes, source_addr, nbytes);
}

}  // namespace gexx::vis
