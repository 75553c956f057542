// The GASNet-1 collectives (gasnet_coll_*, include/gexx_coll_g1.h) on the
// whole-job team, one image per process.
//
// When every rank shares this host's memory they run on the collective
// engine's host phase (coll/engine.hpp: host_move, with engine barriers for
// IN_ALLSYNC / OUT_ALLSYNC; host_launch below). Otherwise on the AM
// algorithm that follows.
//
// Every collective is a set of blocks, each moved from one rank's client
// memory to another's (or copied within a rank), plus the synchronisation
// its flags ask for. Blocks travel in AM Medium requests to gexx's internal
// handler kG1CollHandler, cut to the largest Medium; each names the
// operation's sequence number (every rank starts collectives in the same
// order, so the n-th collective has the same number everywhere) and where
// in the receiver's destination area the bytes go. The receiver copies
// them into client memory only once it has entered that collective
// (IN_MYSYNC); what arrives earlier waits in a buffer.
//
//   IN_NOSYNC, IN_MYSYNC: a rank sends its blocks as soon as it enters.
//   IN_ALLSYNC: a rank tells every other that it entered, and reads its
//     sources only once every other has told it so.
//   OUT_NOSYNC, OUT_MYSYNC: the handle syncs once this rank's blocks have
//     all left (the Medium copies them at injection) and all its incoming
//     bytes have landed: for NOSYNC, when the last rank syncs, every rank's
//     movement is done, which is what NOSYNC asks.
//   OUT_ALLSYNC: then a rank tells every other it is done, and its handle
//     syncs once every other has told it so.
// A reduction is element-wise, as GASNet 1.x's implementation and its
// tests have it: every image contributes elem_count elements at src, the
// destination image gathers them and folds the images in order with the
// client's function (fn(out, k, acc, k, next, ...)).
//
// Progress: the handler only queues what arrives. kick() applies the queue
// and advances every operation in flight; it runs at every initiation, in
// every test and wait of a collective handle, and, while operations are in
// flight, from every poll (core::set_poll_hook), so a non-blocking
// collective progresses in the background of any polling call. Requests go
// out with GEX_FLAG_IMMEDIATE: one refused (no credit) is retried by the
// next kick, so kick never blocks.
#include "legacy/gasnet1_coll.hpp"

#include <gasnet_coll.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "capi/entry.hpp"
#include "coll/engine.hpp"
#include "core/am.hpp"
#include "core/handlers.hpp"
#include "core/objects.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"

struct gexx_g1_team_s {
  int unused;
};
struct gexx_g1_team_s gexx_g1_team_all = {0};

namespace {

using gexx::core::Runtime;
using gexx::util::fatal;

enum MsgType : uint32_t { kData = 1, kEntered = 2, kDone = 3, kLanded = 4 };

// Blocks this large go by RMA put when the destination address is known
// here (SINGLE and DST_IN_SEGMENT) and IN_NOSYNC / IN_ALLSYNC allow the
// write before the receiver enters; smaller ones by AM.
constexpr size_t kPutMin = 4096;
// Reductions of elements up to this size run in the host phase (a chunk
// there holds whole elements).
constexpr size_t kHostElemMax = 4096;

// One message as the handler queued it.
struct Inbound {
  uint32_t type, seq;
  uint64_t offset;
  std::vector<char> bytes;
};

// A block this rank sends: len bytes from src to peer's area at offset.
struct Send {
  uint32_t peer;
  const char *src;
  size_t len;
  uint64_t offset;
  char *remote = nullptr;  // the destination at peer, for an RMA put (else an AM)
};
// An RMA put in flight, and the message that tells its receiver it landed.
struct Put {
  gex_Event_t event;
  uint32_t peer;
  size_t len;
};
// A block this rank copies into its own area.
struct Copy {
  const char *src;
  size_t len;
  uint64_t offset;
};

struct Op {
  const char *api = nullptr;
  uint32_t seq = 0;
  int flags = 0;
  char *area = nullptr;  // where incoming blocks land (offsets are into it)
  size_t expect = 0;     // bytes that land in area (local copies included)
  size_t got = 0;
  std::vector<Send> sends;
  std::vector<Copy> copies;
  size_t next_send = 0, send_off = 0;  // progress through sends
  std::vector<Put> puts;               // RMA puts not yet reported landed
  uint32_t entered_sent = 0;           // peers told "entered" (IN_ALLSYNC)
  uint32_t done_sent = 0;              // peers told "done" (OUT_ALLSYNC)
  bool started = false, local_done = false;
  std::atomic<bool> complete{false};
  // Reductions: the gathered array, then the function at the destination.
  std::vector<char> gathered;
  void *reduce_dst = nullptr;
  gasnet_coll_reduce_fn_t fn = nullptr;
  unsigned fn_flags = 0;
  int fn_arg = 0;
  size_t elem_size = 0, elem_count = 0;
};

// What is known of a sequence number: its operation once started here, and
// what arrived for it before.
struct SeqState {
  Op *op = nullptr;
  uint32_t entered = 0, done = 0;
  std::vector<Inbound> early;
};

class Engine {
 public:
  void queue(Inbound &&m) {
    std::lock_guard<std::mutex> g(inbox_mutex_);
    inbox_.push_back(std::move(m));
    pending_.fetch_add(1, std::memory_order_release);
  }

  // Registers a new operation (in initiation order) and advances it.
  std::shared_ptr<Op> start(std::shared_ptr<Op> op) {
    {
      std::lock_guard<std::mutex> g(state_mutex_);
      op->seq = next_seq_++;
      SeqState &st = seqs_[op->seq];
      st.op = op.get();
      for (Inbound &m : st.early) apply(*op, m);
      st.early.clear();
      active_.push_back(op);
      live_.fetch_add(1, std::memory_order_release);
      // Set and cleared under state_mutex_, so a kick emptying the list on
      // another thread cannot clear it after this operation was added.
      gexx::core::set_poll_hook(gexx::core::PollHook::kG1Coll, &Engine::poll_hook);
    }
    kick();
    return op;
  }

  // Applies what arrived and advances every operation in flight; returns at
  // once when another thread is at it or this thread is already inside.
  void kick() {
    if (tl_in_kick) return;
    if (live_.load(std::memory_order_acquire) == 0 && pending_.load(std::memory_order_acquire) == 0)
      return;
    std::unique_lock<std::mutex> lock(state_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    tl_in_kick = true;
    drain();
    for (auto it = active_.begin(); it != active_.end();) {
      Op &op = **it;
      advance(op);
      if (op.complete.load(std::memory_order_relaxed)) {
        seqs_.erase(op.seq);
        it = active_.erase(it);
        live_.fetch_sub(1, std::memory_order_release);
      } else {
        ++it;
      }
    }
    if (active_.empty()) gexx::core::set_poll_hook(gexx::core::PollHook::kG1Coll, nullptr);
    tl_in_kick = false;
  }

  static void poll_hook();

 private:
  void drain() {
    std::vector<Inbound> in;
    {
      std::lock_guard<std::mutex> g(inbox_mutex_);
      in.swap(inbox_);
      pending_.store(0, std::memory_order_release);
    }
    for (Inbound &m : in) {
      SeqState &st = seqs_[m.seq];
      if (m.type == kEntered) {
        ++st.entered;
      } else if (m.type == kDone) {
        ++st.done;
      } else if (st.op) {
        apply(*st.op, m);
      } else {
        st.early.push_back(std::move(m));
      }
    }
  }

  static void apply(Op &op, const Inbound &m) {
    if (m.type == kLanded) {  // an RMA put of m.offset bytes landed in area
      if (op.got + m.offset > op.expect) {
        fatal(
            "%s: %llu bytes put for an area of %zu (the ranks disagree on the collective's "
            "arguments, or call collectives in different orders)",
            op.api, static_cast<unsigned long long>(m.offset), op.expect);
      }
      op.got += m.offset;
      return;
    }
    if (m.offset + m.bytes.size() > op.expect || op.got + m.bytes.size() > op.expect) {
      fatal(
          "%s: %zu bytes arrived for offset %llu of an area of %zu (the ranks disagree on "
          "the collective's arguments, or call collectives in different orders)",
          op.api, m.bytes.size(), static_cast<unsigned long long>(m.offset), op.expect);
    }
    if (!m.bytes.empty()) std::memcpy(op.area + m.offset, m.bytes.data(), m.bytes.size());
    op.got += m.bytes.size();
  }

  // Sends a control or data message; false when it cannot leave now.
  bool send(const Op &op, uint32_t peer, uint32_t type, uint64_t offset, const void *src,
            size_t len) {
    gex_AM_Arg_t args[4] = {static_cast<gex_AM_Arg_t>(type), static_cast<gex_AM_Arg_t>(op.seq),
                            static_cast<gex_AM_Arg_t>(offset & 0xffffffffu),
                            static_cast<gex_AM_Arg_t>(offset >> 32)};
    gexx::core::am::Message am = gexx::core::am::internal_message(
        op.api, gexx::core::am::kMedium, gexx::core::kG1CollHandler, 4, args, src, len);
    am.flags = GEX_FLAG_IMMEDIATE;
    return Runtime::get(op.api).am().internal_request(peer, am) == 0;
  }

  void advance(Op &op) {
    Runtime &rt = Runtime::get(op.api);
    const uint32_t me = rt.rank(), n = rt.size();
    SeqState &st = seqs_[op.seq];
    auto peer_at = [&](uint32_t i) { return (me + 1 + i) % n; };  // the others, in turn
    if (op.flags & GASNET_COLL_IN_ALLSYNC) {
      while (op.entered_sent + 1 < n) {
        if (!send(op, peer_at(op.entered_sent), kEntered, 0, nullptr, 0)) return;
        ++op.entered_sent;
      }
      if (st.entered + 1 < n) return;
    }
    if (!op.started) {
      for (const Copy &c : op.copies) {
        if (op.area + c.offset != c.src) std::memmove(op.area + c.offset, c.src, c.len);
        op.got += c.len;
      }
      op.started = true;
    }
    const size_t chunk = std::max<size_t>(1, rt.am().max_medium());
    while (op.next_send < op.sends.size()) {
      const Send &s = op.sends[op.next_send];
      if (s.remote) {
        gex_Event_t e = gex_RMA_PutNB(rt.tm(), s.peer, s.remote, const_cast<char *>(s.src), s.len,
                                      GEX_EVENT_DEFER, 0);
        op.puts.push_back({e, s.peer, s.len});
        ++op.next_send;
        continue;
      }
      size_t len = std::min(chunk, s.len - op.send_off);
      if (!send(op, s.peer, kData, s.offset + op.send_off, s.src + op.send_off, len)) return;
      op.send_off += len;
      if (op.send_off >= s.len) {
        ++op.next_send;
        op.send_off = 0;
      }
    }
    for (auto it = op.puts.begin(); it != op.puts.end();) {
      if (it->event != GEX_EVENT_INVALID && gex_Event_Test(it->event) != 0) return;
      it->event = GEX_EVENT_INVALID;  // landed (Test freed it)
      if (!send(op, it->peer, kLanded, it->len, nullptr, 0)) return;
      it = op.puts.erase(it);
    }
    if (op.got < op.expect) return;
    if (!op.local_done) {
      if (op.fn && op.elem_count > 0) {
        // Element-wise, images in order: acc = v0; acc = fn(acc, v1); ...
        const size_t len = op.elem_count * op.elem_size, ranks = op.gathered.size() / len;
        const int fl = static_cast<int>(op.fn_flags & GASNET_COLL_NONCOMM);
        std::vector<char> acc(op.gathered.begin(), op.gathered.begin() + len), out(len);
        for (size_t r = 1; r < ranks; ++r) {
          op.fn(out.data(), op.elem_count, acc.data(), op.elem_count, op.gathered.data() + r * len,
                op.elem_size, fl, op.fn_arg);
          acc.swap(out);
        }
        std::memcpy(op.reduce_dst, acc.data(), len);
      }
      op.local_done = true;
    }
    if (op.flags & GASNET_COLL_OUT_ALLSYNC) {
      while (op.done_sent + 1 < n) {
        if (!send(op, peer_at(op.done_sent), kDone, 0, nullptr, 0)) return;
        ++op.done_sent;
      }
      if (st.done + 1 < n) return;
    }
    op.complete.store(true, std::memory_order_release);
  }

  std::mutex inbox_mutex_;
  std::vector<Inbound> inbox_;
  std::atomic<uint32_t> pending_{0}, live_{0};
  std::mutex state_mutex_;  // everything below
  uint32_t next_seq_ = 1;
  std::map<uint32_t, SeqState> seqs_;
  std::deque<std::shared_ptr<Op>> active_;
  static thread_local bool tl_in_kick;
};

thread_local bool Engine::tl_in_kick = false;
Engine g_engine;

void Engine::poll_hook() {
  g_engine.kick();
}

void coll_handler(gex_Token_t, void *buf, size_t nbytes, gex_AM_Arg_t type, gex_AM_Arg_t seq,
                  gex_AM_Arg_t off_lo, gex_AM_Arg_t off_hi) {
  Inbound m;
  m.type = static_cast<uint32_t>(type);
  m.seq = static_cast<uint32_t>(seq);
  m.offset =
      (static_cast<uint64_t>(static_cast<uint32_t>(off_hi)) << 32) | static_cast<uint32_t>(off_lo);
  if (nbytes) m.bytes.assign(static_cast<char *>(buf), static_cast<char *>(buf) + nbytes);
  g_engine.queue(std::move(m));
}

// The event behind a collective handle: complete when its operations are
// (several for an aggregate): those of the AM algorithms here, and those of
// the collective engine's host phase (coll/engine.hpp).
class CollEvent final : public gexx_event_s {
 public:
  CollEvent(std::vector<std::shared_ptr<Op>> ops, std::vector<gexx::coll::OpRef> host)
      : ops_(std::move(ops)), host_(std::move(host)) {}
  bool test() override {
    if (!ops_.empty()) g_engine.kick();
    if (!host_.empty()) gexx::coll::advance();
    for (auto &op : ops_)
      if (!op->complete.load(std::memory_order_acquire)) return false;
    for (auto &op : host_)
      if (!gexx::coll::done(*op)) return false;
    return true;
  }
  void wait() override {
    uint32_t spins = 0;
    while (!test()) {
      gexx::core::poll("gasnet_coll_wait_sync");
      gexx::core::relax(spins);
    }
  }

 private:
  std::vector<std::shared_ptr<Op>> ops_;
  std::vector<gexx::coll::OpRef> host_;
};

// Members of an aggregate so far (GASNET_COLL_AGGREGATE), this thread's.
thread_local std::vector<std::shared_ptr<Op>> tl_aggregate;
thread_local std::vector<gexx::coll::OpRef> tl_aggregate_host;

// The reduction functions of gasnet_coll_init.
std::mutex g_fn_mutex;
std::vector<gasnet_coll_fn_entry_t> g_fns;
bool g_initialised = false;

std::string flag_names(int flags) {
  static const struct {
    int bit;
    const char *name;
  } names[] = {{GASNET_COLL_IN_NOSYNC, "IN_NOSYNC"},
               {GASNET_COLL_IN_MYSYNC, "IN_MYSYNC"},
               {GASNET_COLL_IN_ALLSYNC, "IN_ALLSYNC"},
               {GASNET_COLL_OUT_NOSYNC, "OUT_NOSYNC"},
               {GASNET_COLL_OUT_MYSYNC, "OUT_MYSYNC"},
               {GASNET_COLL_OUT_ALLSYNC, "OUT_ALLSYNC"},
               {GASNET_COLL_SINGLE, "SINGLE"},
               {GASNET_COLL_LOCAL, "LOCAL"},
               {GASNET_COLL_AGGREGATE, "AGGREGATE"},
               {GASNET_COLL_FIXED_THREADS_PER_NODE, "FIXED_THREADS_PER_NODE"},
               {GASNET_COLL_DST_IN_SEGMENT, "DST_IN_SEGMENT"},
               {GASNET_COLL_SRC_IN_SEGMENT, "SRC_IN_SEGMENT"},
               {GASNET_COLL_DISABLE_AUTOTUNE, "DISABLE_AUTOTUNE"},
               {GASNET_COLL_NO_IMAGES, "NO_IMAGES"}};
  std::string s;
  int rest = flags;
  for (const auto &n : names) {
    if (flags & n.bit) {
      if (!s.empty()) s += '|';
      s += "GASNET_COLL_";
      s += n.name;
      rest &= ~n.bit;
    }
  }
  if (rest) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s0x%x", s.empty() ? "" : "|", static_cast<unsigned>(rest));
    s += buf;
  }
  return s.empty() ? "0" : s;
}

int bit_count(int v) {
  return __builtin_popcount(static_cast<unsigned>(v));
}

// The checks every collective makes; returns the job's runtime.
Runtime &check(const char *api, gasnet_team_handle_t team, int flags, bool blocking) {
  Runtime &rt = Runtime::get(api);
  gexx::capi::job_tm(api);
  if (team != GASNET_TEAM_ALL) {
    fatal(
        "%s: team %p is not GASNET_TEAM_ALL (gexx's GASNet-1 collectives run on the whole job "
        "only)",
        api, static_cast<void *>(team));
  }
  const int in = flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC);
  const int out =
      flags & (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC);
  const int scope = flags & (GASNET_COLL_SINGLE | GASNET_COLL_LOCAL);
  const int known = GASNET_COLL_SYNC_FLAG_MASK | GASNET_COLL_SINGLE | GASNET_COLL_LOCAL |
                    GASNET_COLL_AGGREGATE | GASNET_COLL_FIXED_THREADS_PER_NODE |
                    GASNET_COLL_DST_IN_SEGMENT | GASNET_COLL_SRC_IN_SEGMENT |
                    GASNET_COLL_DISABLE_AUTOTUNE | GASNET_COLL_NO_IMAGES;
  const char *why = nullptr;
  if (bit_count(in) != 1)
    why = "exactly one of GASNET_COLL_IN_NOSYNC, IN_MYSYNC and IN_ALLSYNC is required";
  else if (bit_count(out) != 1)
    why = "exactly one of GASNET_COLL_OUT_NOSYNC, OUT_MYSYNC and OUT_ALLSYNC is required";
  else if (bit_count(scope) != 1)
    why = "exactly one of GASNET_COLL_SINGLE and GASNET_COLL_LOCAL is required";
  else if (blocking && (flags & GASNET_COLL_AGGREGATE))
    why = "GASNET_COLL_AGGREGATE is not allowed on a blocking collective";
  else if (flags & ~known)
    why = "unknown flag bits";
  if (why) fatal("%s: flags %s: %s", api, flag_names(flags).c_str(), why);
  gexx::core::am::check_may_poll(api);  // not inside an AM handler
  return rt;
}

void check_image(const char *api, const char *what, gasnet_image_t image, uint32_t n) {
  if (image >= n) fatal("%s: %s %u is not an image of the team (it has %u)", api, what, image, n);
}

// With DST_IN_SEGMENT / SRC_IN_SEGMENT the client asserts the area is in
// this rank's segment: checked (fatal naming the call otherwise).
void check_in_segment(const char *api, Runtime &rt, int flags, int flag, const void *p,
                      size_t len) {
  if (!(flags & flag) || len == 0) return;
  if (!rt.attached())
    fatal("%s: %s given, but no segment is attached", api, flag_names(flag).c_str());
  (void)rt.translate(api, rt.rank(), p, len);
}

// The address for this rank from a SINGLE list (one per image) or a LOCAL
// one (this process's images: one).
void *pick(void *const list[], int flags, uint32_t me) {
  return (flags & GASNET_COLL_SINGLE) ? list[me] : list[0];
}

// Where a rank's destination is, seen from here: known with SINGLE (one
// address for all, or a list by image); used for RMA puts only when the
// flags allow writing before the receiver enters (IN_NOSYNC, IN_ALLSYNC)
// and the client said it is in the segment.
struct Remote {
  void *one = nullptr;
  void *const *list = nullptr;
  char *at(uint32_t peer, int flags, uint64_t offset, size_t len) const {
    const int need = GASNET_COLL_SINGLE | GASNET_COLL_DST_IN_SEGMENT;
    if ((flags & need) != need || len < kPutMin) return nullptr;
    if (!(flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_ALLSYNC))) return nullptr;
    char *base = static_cast<char *>(list ? list[peer] : one);
    return base ? base + offset : nullptr;
  }
};

// The handle of the collective just initiated (with those aggregated
// before it), or none when it is not the last of an aggregate or already
// complete.
gasnet_coll_handle_t handle(int flags) {
  if (flags & GASNET_COLL_AGGREGATE) return GASNET_COLL_INVALID_HANDLE;
  if (tl_aggregate.empty()) {  // host-phase operations only: done ones need no event
    bool all_done = true;
    for (auto &op : tl_aggregate_host) all_done = all_done && gexx::coll::done(*op);
    if (all_done) {
      tl_aggregate_host.clear();  // keeps its capacity: no allocation next time
      return GASNET_COLL_INVALID_HANDLE;
    }
  }
  std::vector<std::shared_ptr<Op>> ops;
  ops.swap(tl_aggregate);
  std::vector<gexx::coll::OpRef> host;
  host.swap(tl_aggregate_host);
  auto *ev = new CollEvent(std::move(ops), std::move(host));
  if (ev->test()) {
    delete ev;
    return GASNET_COLL_INVALID_HANDLE;
  }
  return ev;
}

gasnet_coll_handle_t launch(std::shared_ptr<Op> op) {
  const int flags = op->flags;
  op = g_engine.start(std::move(op));
  tl_aggregate.push_back(std::move(op));
  return handle(flags);
}

// Whether the job's members all share this host's memory: then the
// collectives run in the collective engine's host phase (coll/engine.hpp),
// its barrier before (IN_ALLSYNC) and after (OUT_ALLSYNC) the movement.
// Each rank moves only its own memory, and only once it has entered,
// which is IN_MYSYNC (so also IN_NOSYNC); its handle completes once its
// own movement is done, which is OUT_MYSYNC (so also OUT_NOSYNC).
gexx::core::Team *host_team(const char *api) {
  gexx::core::Team &team = gexx::capi::job_tm(api)->team;
  return gexx::coll::host_phase(team) ? &team : nullptr;
}

gasnet_coll_handle_t host_launch(const char *api, gexx::core::Team &team, gexx::coll::Move move,
                                 uint32_t root, void *dst, const void *src, size_t nbytes,
                                 int flags, gexx::coll::Fold fold = {}, size_t elem = 1) {
  gexx::coll::OpRef gate;
  if (flags & GASNET_COLL_IN_ALLSYNC) gate = gexx::coll::barrier(api, team, nullptr);
  gexx::coll::OpRef op =
      gexx::coll::host_move(api, team, move, root, dst, src, nbytes, gate, std::move(fold), elem);
  if (flags & GASNET_COLL_OUT_ALLSYNC) op = gexx::coll::barrier(api, team, op);
  tl_aggregate_host.push_back(std::move(op));
  return handle(flags);
}

void wait(gasnet_coll_handle_t h) {
  gex_Event_Wait(h);
}

std::shared_ptr<Op> new_op(const char *api, int flags) {
  auto op = std::make_shared<Op>();
  op->api = api;
  op->flags = flags;
  return op;
}

// ---- the operations (rank-level; addresses already picked) ----

gasnet_coll_handle_t broadcast(const char *api, Runtime &rt, void *dst, gasnet_image_t root,
                               void *src, size_t nbytes, int flags, const Remote &far) {
  const uint32_t me = rt.rank(), n = rt.size();
  check_image(api, "srcimage", root, n);
  check_in_segment(api, rt, flags, GASNET_COLL_DST_IN_SEGMENT, dst, nbytes);
  if (gexx::core::Team *team = host_team(api)) {
    if (me == root) check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, nbytes);
    return host_launch(api, *team, gexx::coll::Move::kBroadcast, root, dst, src, nbytes, flags);
  }
  auto op = new_op(api, flags);
  op->area = static_cast<char *>(dst);
  op->expect = nbytes;
  if (me == root) {
    check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, nbytes);
    for (uint32_t p = 0; p < n; ++p)
      if (p != me)
        op->sends.push_back(
            {p, static_cast<const char *>(src), nbytes, 0, far.at(p, flags, 0, nbytes)});
    op->copies.push_back({static_cast<const char *>(src), nbytes, 0});
  }
  return launch(std::move(op));
}

gasnet_coll_handle_t scatter(const char *api, Runtime &rt, void *dst, gasnet_image_t root,
                             void *src, size_t nbytes, int flags, const Remote &far) {
  const uint32_t me = rt.rank(), n = rt.size();
  check_image(api, "srcimage", root, n);
  check_in_segment(api, rt, flags, GASNET_COLL_DST_IN_SEGMENT, dst, nbytes);
  if (gexx::core::Team *team = host_team(api)) {
    if (me == root) check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, nbytes * n);
    return host_launch(api, *team, gexx::coll::Move::kScatter, root, dst, src, nbytes, flags);
  }
  auto op = new_op(api, flags);
  op->area = static_cast<char *>(dst);
  op->expect = nbytes;
  if (me == root) {
    check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, nbytes * n);
    const char *s = static_cast<const char *>(src);
    for (uint32_t p = 0; p < n; ++p)
      if (p != me) op->sends.push_back({p, s + p * nbytes, nbytes, 0, far.at(p, flags, 0, nbytes)});
    op->copies.push_back({s + me * nbytes, nbytes, 0});
  }
  return launch(std::move(op));
}

gasnet_coll_handle_t gather(const char *api, Runtime &rt, gasnet_image_t root, void *dst, void *src,
                            size_t nbytes, int flags, const Remote &far) {
  const uint32_t me = rt.rank(), n = rt.size();
  check_image(api, "dstimage", root, n);
  check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, nbytes);
  if (gexx::core::Team *team = host_team(api)) {
    if (me == root) check_in_segment(api, rt, flags, GASNET_COLL_DST_IN_SEGMENT, dst, nbytes * n);
    return host_launch(api, *team, gexx::coll::Move::kGather, root, dst, src, nbytes, flags);
  }
  auto op = new_op(api, flags);
  const char *s = static_cast<const char *>(src);
  if (me == root) {
    check_in_segment(api, rt, flags, GASNET_COLL_DST_IN_SEGMENT, dst, nbytes * n);
    op->area = static_cast<char *>(dst);
    op->expect = nbytes * n;
    op->copies.push_back({s, nbytes, static_cast<uint64_t>(me) * nbytes});
  } else {
    op->sends.push_back({root, s, nbytes, static_cast<uint64_t>(me) * nbytes,
                         far.at(root, flags, static_cast<uint64_t>(me) * nbytes, nbytes)});
  }
  return launch(std::move(op));
}

gasnet_coll_handle_t gather_all(const char *api, Runtime &rt, void *dst, void *src, size_t nbytes,
                                int flags, const Remote &far) {
  const uint32_t me = rt.rank(), n = rt.size();
  check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, nbytes);
  check_in_segment(api, rt, flags, GASNET_COLL_DST_IN_SEGMENT, dst, nbytes * n);
  if (gexx::core::Team *team = host_team(api))
    return host_launch(api, *team, gexx::coll::Move::kGatherAll, 0, dst, src, nbytes, flags);
  auto op = new_op(api, flags);
  const char *s = static_cast<const char *>(src);
  op->area = static_cast<char *>(dst);
  op->expect = nbytes * n;
  for (uint32_t i = 1; i < n; ++i)
    op->sends.push_back({(me + i) % n, s, nbytes, static_cast<uint64_t>(me) * nbytes,
                         far.at((me + i) % n, flags, static_cast<uint64_t>(me) * nbytes, nbytes)});
  op->copies.push_back({s, nbytes, static_cast<uint64_t>(me) * nbytes});
  return launch(std::move(op));
}

gasnet_coll_handle_t exchange(const char *api, Runtime &rt, void *dst, void *src, size_t nbytes,
                              int flags, const Remote &far) {
  const uint32_t me = rt.rank(), n = rt.size();
  check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, nbytes * n);
  check_in_segment(api, rt, flags, GASNET_COLL_DST_IN_SEGMENT, dst, nbytes * n);
  if (gexx::core::Team *team = host_team(api))
    return host_launch(api, *team, gexx::coll::Move::kExchange, 0, dst, src, nbytes, flags);
  auto op = new_op(api, flags);
  const char *s = static_cast<const char *>(src);
  op->area = static_cast<char *>(dst);
  op->expect = nbytes * n;
  for (uint32_t i = 1; i < n; ++i) {
    uint32_t p = (me + i) % n;
    op->sends.push_back({p, s + p * nbytes, nbytes, static_cast<uint64_t>(me) * nbytes,
                         far.at(p, flags, static_cast<uint64_t>(me) * nbytes, nbytes)});
  }
  op->copies.push_back({s + me * nbytes, nbytes, static_cast<uint64_t>(me) * nbytes});
  return launch(std::move(op));
}

gasnet_coll_handle_t reduce(const char *api, Runtime &rt, gasnet_image_t root, void *dst, void *src,
                            size_t blksz, size_t offset, size_t esz, size_t count,
                            gasnet_coll_fn_handle_t func, int func_arg, int flags) {
  const uint32_t me = rt.rank(), n = rt.size();
  check_image(api, "dstimage", root, n);
  if (blksz != 0 || offset != 0) {
    fatal(
        "%s: src_blksz %zu and src_offset %zu: only 0 and 0 (each image contributes "
        "elem_count elements at src) are implemented",
        api, blksz, offset);
  }
  if (esz == 0) fatal("%s: elem_size is 0", api);
  const size_t len = esz * count;
  const char *s = static_cast<const char *>(src);
  check_in_segment(api, rt, flags, GASNET_COLL_SRC_IN_SEGMENT, src, len);
  gasnet_coll_fn_entry_t entry{};
  if (me == root) {
    std::lock_guard<std::mutex> g(g_fn_mutex);
    if (func < 0 || static_cast<size_t>(func) >= g_fns.size() || !g_fns[func].fnptr) {
      fatal(
          "%s: func %d is not a function of the table given to gasnet_coll_init (%zu "
          "entries)",
          api, static_cast<int>(func), g_fns.size());
    }
    entry = g_fns[func];
    check_in_segment(api, rt, flags, GASNET_COLL_DST_IN_SEGMENT, dst, len);
  }
  gexx::core::Team *team = esz <= kHostElemMax ? host_team(api) : nullptr;
  if (team) {
    // The root folds each chunk of the members' values, images in order.
    gexx::coll::Fold fold;
    if (me == root) {
      fold = [fn = entry.fnptr, fl = static_cast<int>(entry.flags & GASNET_COLL_NONCOMM), func_arg,
              esz](char *to, const char *const *in, uint32_t ranks, size_t bytes) {
        // The running value and the function's output, kept by the thread
        // that folds (no allocation per call once they have grown).
        thread_local std::vector<char> acc, out;
        const size_t k = bytes / esz;
        acc.assign(in[0], in[0] + bytes);
        out.resize(bytes);
        for (uint32_t r = 1; r < ranks; ++r) {
          fn(out.data(), k, acc.data(), k, in[r], esz, fl, func_arg);
          acc.swap(out);
        }
        std::memcpy(to, acc.data(), bytes);
      };
    }
    return host_launch(api, *team, gexx::coll::Move::kFold, root, dst, src, len, flags,
                       std::move(fold), esz);
  }
  auto op = new_op(api, flags);
  if (me == root) {
    op->fn = entry.fnptr;
    op->fn_flags = entry.flags;
    op->gathered.resize(len * n);
    op->area = op->gathered.data();
    op->expect = len * n;
    op->reduce_dst = dst;
    op->fn_arg = func_arg;
    op->elem_size = esz;
    op->elem_count = count;
    op->copies.push_back({s, len, static_cast<uint64_t>(me) * len});
  } else {
    op->sends.push_back({root, s, len, static_cast<uint64_t>(me) * len});
  }
  return launch(std::move(op));
}

// gasnet_coll_dumpTuningState / dumpProfile: there is no state to dump;
// a named file gets a line saying so (from rank 0).
void dump_nothing(const char *api, const char *filename, gasnet_team_handle_t team,
                  const char *what) {
  Runtime &rt =
      check(api, team, GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC | GASNET_COLL_LOCAL, true);
  if (!filename || rt.rank() != 0) return;
  std::FILE *f = std::fopen(filename, "w");
  if (!f) fatal("%s: cannot write '%s'", api, filename);
  std::fprintf(f,
               "gexx: the GASNet-1 collectives have no %s (fixed algorithms, "
               "docs/gasnet1-collectives.md)\n",
               what);
  std::fclose(f);
}

}  // namespace

namespace gexx::legacy {

void register_g1coll_handler(core::HandlerTable &handlers) {
  handlers.register_internal(core::kG1CollHandler, reinterpret_cast<gex_AM_Fn_t>(&coll_handler),
                             GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 4, "GASNet-1 collectives");
}

}  // namespace gexx::legacy

extern "C" {

void gasnet_coll_init(const gasnet_image_t images[], gasnet_image_t my_image,
                      gasnet_coll_fn_entry_t fn_tbl[], size_t fn_count, int init_flags) {
  const char *api = __func__;
  Runtime &rt = Runtime::get(api);
  (void)my_image;
  if (init_flags != 0) fatal("%s: init_flags is %d (must be 0)", api, init_flags);
  if (images) {
    for (uint32_t i = 0; i < rt.size(); ++i) {
      if (images[i] != 1) {
        fatal(
            "%s: images[%u] is %u: gexx's GASNet-1 collectives have one image per process "
            "(pass NULL)",
            api, i, images[i]);
      }
    }
  }
  if (fn_count && !fn_tbl) fatal("%s: fn_count is %zu but fn_tbl is NULL", api, fn_count);
  std::lock_guard<std::mutex> g(g_fn_mutex);
  if (g_initialised)
    fatal("%s: called twice (it is called once, before any other collective)", api);
  g_initialised = true;
  g_fns.assign(fn_tbl, fn_tbl + fn_count);
}

void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags) {
  (void)check(__func__, team, GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC | GASNET_COLL_LOCAL,
              true);
  gexx::capi::barrier_notify(__func__, id, flags);
}
int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags) {
  (void)check(__func__, team, GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC | GASNET_COLL_LOCAL,
              true);
  return gexx::capi::barrier_try(__func__, id, flags);
}
int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags) {
  (void)check(__func__, team, GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC | GASNET_COLL_LOCAL,
              true);
  return gexx::capi::barrier_wait(__func__, id, flags);
}
int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags) {
  gasnet_coll_barrier_notify(team, id, flags);
  return gasnet_coll_barrier_wait(team, id, flags);
}
int gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id) {
  (void)check(__func__, team, GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC | GASNET_COLL_LOCAL,
              true);
  return gexx::capi::barrier_result(__func__, id);
}

void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team) {
  dump_nothing(__func__, filename, team, "tuning state");
}
void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team) {
  dump_nothing(__func__, filename, team, "profile");
}

// broadcast
gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                              gasnet_image_t srcimage, void *src, size_t nbytes,
                                              int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return broadcast(__func__, rt, dst, srcimage, src, nbytes, flags, Remote{dst, nullptr});
}
void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src,
                           size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(broadcast(__func__, rt, dst, srcimage, src, nbytes, flags, Remote{dst, nullptr}));
}
gasnet_coll_handle_t gasnet_coll_broadcastM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                               gasnet_image_t srcimage, void *src, size_t nbytes,
                                               int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return broadcast(__func__, rt, pick(dstlist, flags, rt.rank()), srcimage, src, nbytes, flags,
                   Remote{nullptr, dstlist});
}
void gasnet_coll_broadcastM(gasnet_team_handle_t team, void *const dstlist[],
                            gasnet_image_t srcimage, void *src, size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(broadcast(__func__, rt, pick(dstlist, flags, rt.rank()), srcimage, src, nbytes, flags,
                 Remote{nullptr, dstlist}));
}

// scatter
gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                            gasnet_image_t srcimage, void *src, size_t nbytes,
                                            int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return scatter(__func__, rt, dst, srcimage, src, nbytes, flags, Remote{dst, nullptr});
}
void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src,
                         size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(scatter(__func__, rt, dst, srcimage, src, nbytes, flags, Remote{dst, nullptr}));
}
gasnet_coll_handle_t gasnet_coll_scatterM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                             gasnet_image_t srcimage, void *src, size_t nbytes,
                                             int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return scatter(__func__, rt, pick(dstlist, flags, rt.rank()), srcimage, src, nbytes, flags,
                 Remote{nullptr, dstlist});
}
void gasnet_coll_scatterM(gasnet_team_handle_t team, void *const dstlist[], gasnet_image_t srcimage,
                          void *src, size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(scatter(__func__, rt, pick(dstlist, flags, rt.rank()), srcimage, src, nbytes, flags,
               Remote{nullptr, dstlist}));
}

// gather
gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                           void *dst, void *src, size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return gather(__func__, rt, dstimage, dst, src, nbytes, flags, Remote{dst, nullptr});
}
void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *src,
                        size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(gather(__func__, rt, dstimage, dst, src, nbytes, flags, Remote{dst, nullptr}));
}
gasnet_coll_handle_t gasnet_coll_gatherM_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                            void *dst, void *const srclist[], size_t nbytes,
                                            int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return gather(__func__, rt, dstimage, dst, pick(srclist, flags, rt.rank()), nbytes, flags,
                Remote{dst, nullptr});
}
void gasnet_coll_gatherM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                         void *const srclist[], size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(gather(__func__, rt, dstimage, dst, pick(srclist, flags, rt.rank()), nbytes, flags,
              Remote{dst, nullptr}));
}

// gather_all
gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src,
                                               size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return gather_all(__func__, rt, dst, src, nbytes, flags, Remote{dst, nullptr});
}
void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                            int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(gather_all(__func__, rt, dst, src, nbytes, flags, Remote{dst, nullptr}));
}
gasnet_coll_handle_t gasnet_coll_gather_allM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                                void *const srclist[], size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return gather_all(__func__, rt, pick(dstlist, flags, rt.rank()), pick(srclist, flags, rt.rank()),
                    nbytes, flags, Remote{nullptr, dstlist});
}
void gasnet_coll_gather_allM(gasnet_team_handle_t team, void *const dstlist[],
                             void *const srclist[], size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(gather_all(__func__, rt, pick(dstlist, flags, rt.rank()), pick(srclist, flags, rt.rank()),
                  nbytes, flags, Remote{nullptr, dstlist}));
}

// exchange
gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src,
                                             size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return exchange(__func__, rt, dst, src, nbytes, flags, Remote{dst, nullptr});
}
void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                          int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(exchange(__func__, rt, dst, src, nbytes, flags, Remote{dst, nullptr}));
}
gasnet_coll_handle_t gasnet_coll_exchangeM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                              void *const srclist[], size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return exchange(__func__, rt, pick(dstlist, flags, rt.rank()), pick(srclist, flags, rt.rank()),
                  nbytes, flags, Remote{nullptr, dstlist});
}
void gasnet_coll_exchangeM(gasnet_team_handle_t team, void *const dstlist[], void *const srclist[],
                           size_t nbytes, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(exchange(__func__, rt, pick(dstlist, flags, rt.rank()), pick(srclist, flags, rt.rank()),
                nbytes, flags, Remote{nullptr, dstlist}));
}

// reduce
gasnet_coll_handle_t gasnet_coll_reduce_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                           void *dst, void *src, size_t src_blksz,
                                           size_t src_offset, size_t elem_size, size_t elem_count,
                                           gasnet_coll_fn_handle_t func, int func_arg, int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return reduce(__func__, rt, dstimage, dst, src, src_blksz, src_offset, elem_size, elem_count,
                func, func_arg, flags);
}
void gasnet_coll_reduce(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *src,
                        size_t src_blksz, size_t src_offset, size_t elem_size, size_t elem_count,
                        gasnet_coll_fn_handle_t func, int func_arg, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(reduce(__func__, rt, dstimage, dst, src, src_blksz, src_offset, elem_size, elem_count, func,
              func_arg, flags));
}
gasnet_coll_handle_t gasnet_coll_reduceM_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                            void *dst, void *const srclist[], size_t src_blksz,
                                            size_t src_offset, size_t elem_size, size_t elem_count,
                                            gasnet_coll_fn_handle_t func, int func_arg, int flags) {
  Runtime &rt = check(__func__, team, flags, false);
  return reduce(__func__, rt, dstimage, dst, pick(srclist, flags, rt.rank()), src_blksz, src_offset,
                elem_size, elem_count, func, func_arg, flags);
}
void gasnet_coll_reduceM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                         void *const srclist[], size_t src_blksz, size_t src_offset,
                         size_t elem_size, size_t elem_count, gasnet_coll_fn_handle_t func,
                         int func_arg, int flags) {
  Runtime &rt = check(__func__, team, flags, true);
  wait(reduce(__func__, rt, dstimage, dst, pick(srclist, flags, rt.rank()), src_blksz, src_offset,
              elem_size, elem_count, func, func_arg, flags));
}

}  // extern "C"
