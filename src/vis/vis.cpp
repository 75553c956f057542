#include "vis/vis.hpp"

#include <gasnet_vis.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/am.hpp"
#include "core/burst.hpp"
#include "core/events.hpp"
#include "core/handlers.hpp"
#include "core/runtime.hpp"
#include "util/config.hpp"
#include "util/copy.hpp"
#include "util/log.hpp"
#include "vis/wire.hpp"

extern "C" {
// Exported (cmake/exports.map: gexx_*): gasnet_vis.h's inline forms read it.
int gexx_vis_pc_armed = 0;
}

namespace gexx::vis {

__thread bool t_pc_armed __attribute__((tls_model("initial-exec"))) = false;

namespace {
// A thread that exits with a peer completion armed takes itself out of the
// count: this object's destructor runs at its exit (constructed on the
// thread's first arming).
struct ArmedAtExit {
  ~ArmedAtExit() { set_pc_armed(false); }
};
}  // namespace

// How many threads have a peer completion armed (gasnet_vis.h's inline
// forms take the library's path while it is not 0).
void set_pc_armed(bool armed) {
  if (t_pc_armed == armed) return;
  if (armed) {
    static thread_local ArmedAtExit at_exit;
    (void)at_exit;
  }
  t_pc_armed = armed;
  __atomic_fetch_add(&gexx_rma_fast.vis_pc_armed, armed ? 1 : -1, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&gexx_vis_pc_armed, armed ? 1 : -1, __ATOMIC_SEQ_CST);  // ABI 1's word
}

using transport::RmaCompletion;

namespace {

// The peer completion armed for this thread's next put; t_pc_armed is read
// on every put, so it is a static TLS word (no __tls_get_addr call).
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
  core::am::Message m = core::am::internal_message(
      api, core::am::kMedium, core::kVisPeerCompletionHandler, 1, args, pc.bytes, pc.nbytes);
  core::Runtime::get(api).am().internal_request(rank, m);
}

// Writes the records of a packed request into a buffer (wire.hpp): a piece
// as long as the open record's, at the next step of its stride, joins it as
// a run (one header for a strided shape's row, not one a piece); any other
// piece closes the record and opens the next. With data (puts), a piece's
// bytes follow its record; without (get requests), only the ranges go.
class RecordWriter {
 public:
  explicit RecordWriter(bool with_data) : data_(with_data) {}
  size_t used() const { return used_; }
  // Where the records go: t_pack, or a reserved message's payload.
  void set_buffer(char *buf) { buf_ = buf; }
  // Adds the piece if it fits in `cap` bytes (with the padding still to
  // come); false when it does not (flush and add again).
  bool add(uint64_t addr, const char *src, size_t n, size_t cap) {
    const size_t bytes = data_ ? n : 0;
    if (open_ && n == len_ && (count_ == 1 || addr == addr_ + count_ * stride_)) {
      const size_t tail = count_ == 1 ? sizeof(wire::RunTail) : 0;
      if (used_ + tail + bytes + 7 > cap) return false;
      if (count_ == 1) {  // becomes a run: room for its tail before the data
        stride_ = addr - addr_;
        char *first = buf_ + rec_ + sizeof(wire::Record);
        if (data_) std::memmove(first + tail, first, len_);
        used_ += tail;
      }
      copy(src, bytes);
      ++count_;
      return true;
    }
    close();
    if (used_ + sizeof(wire::Record) + bytes + 7 > cap) return false;
    open_ = true;
    rec_ = used_;
    addr_ = addr;
    len_ = n;
    count_ = 1;
    used_ += sizeof(wire::Record);
    copy(src, bytes);
    return true;
  }
  // Adds up to k pieces of n bytes, the i-th at addr + i * stride (its
  // bytes, with data, from src + i * sstride), as far as `cap` allows;
  // returns how many. Pieces that continue the open record's run are
  // copied in one loop.
  size_t add_row(uint64_t addr, int64_t stride, const char *src, int64_t sstride, size_t n,
                 size_t k, size_t cap) {
    size_t done = 0;
    while (done < k) {
      const uint64_t a = addr + done * static_cast<uint64_t>(stride);
      const char *from = data_ ? src + static_cast<ptrdiff_t>(done) * sstride : nullptr;
      // One piece through add() unless the open record is a run of this
      // row's stride that the piece continues (add() opens records and
      // turns a one-piece record into a run).
      if (!(open_ && count_ > 1 && n == len_ && stride_ == static_cast<uint64_t>(stride) &&
            a == addr_ + count_ * stride_)) {
        if (!add(a, from, n, cap)) return done;
        ++done;
        continue;
      }
      size_t m = k - done;
      if (data_) m = used_ + 7 < cap ? std::min(m, (cap - 7 - used_) / n) : 0;
      if (m == 0) return done;
      if (from) {  // with data (puts pass their source)
        char *to = buf_ + used_;
        if (n == 8) {
          for (size_t i = 0; i < m; ++i, to += 8, from += sstride) std::memcpy(to, from, 8);
        } else {
          for (size_t i = 0; i < m; ++i, to += n, from += sstride) std::memcpy(to, from, n);
        }
        used_ += m * n;
      }
      count_ += m;
      done += m;
    }
    return done;
  }
  // Writes the open record's header and pads its bytes to 8.
  void close() {
    if (!open_) return;
    open_ = false;
    char *at = buf_ + rec_;
    wire::Record r{addr_, len_ | (count_ > 1 ? wire::kRun : 0)};
    std::memcpy(at, &r, sizeof r);
    if (count_ > 1) {
      wire::RunTail t{count_, static_cast<int64_t>(stride_)};
      std::memcpy(at + sizeof r, &t, sizeof t);
    }
    size_t pad = wire::padded(used_) - used_;
    std::memset(buf_ + used_, 0, pad);
    used_ += pad;
  }
  void reset() { used_ = 0; }

 private:
  void copy(const char *src, size_t bytes) {
    if (!bytes) return;
    std::memcpy(buf_ + used_, src, bytes);
    used_ += bytes;
  }
  bool data_;
  char *buf_ = nullptr;
  bool open_ = false;
  size_t used_ = 0, rec_ = 0;
  uint64_t addr_ = 0, len_ = 0, count_ = 0, stride_ = 0;
};

// Packs put pieces into Medium requests the target unpacks (vis/am.cpp),
// written straight into the message's room in the transport (claimed when
// the first piece comes, published by flush): the pieces are copied once
// on this side.
class PutPacker {
 public:
  // `burst`: the call continues a burst (core/burst.hpp): its messages may
  // be held to leave with the next; a call's later messages may always be.
  PutPacker(const char *api, uint32_t rank, RmaCompletion *c, size_t cap, bool burst)
      : api_(api),
        rank_(rank),
        c_(c),
        cap_(cap),
        defer_(burst),
        am_(core::Runtime::get(api).am()) {}
  ~PutPacker() {
    if (open_) util::fatal("VIS: a packed put was left unsent (a gexx bug)");
  }
  void add(uint64_t dest, const char *src, size_t n) {
    open();
    if (!w_.add(dest, src, n, room_)) {
      flush();
      open();
      if (!w_.add(dest, src, n, room_))
        util::fatal("VIS: a %zu-byte piece does not fit a packed message of %zu (a gexx bug)", n,
                    room_);
    }
  }
  // k pieces of n bytes: to dest + i * dstride from src + i * sstride.
  void add_row(uint64_t dest, int64_t dstride, const char *src, int64_t sstride, size_t n,
               size_t k) {
    while (k) {
      open();
      size_t m = w_.add_row(dest, dstride, src, sstride, n, k, room_);
      if (m == 0) {
        if (!w_.used())
          util::fatal("VIS: a %zu-byte piece does not fit a packed message of %zu (a gexx bug)", n,
                      room_);
        flush();
        continue;
      }
      dest += m * static_cast<uint64_t>(dstride);
      src += static_cast<ptrdiff_t>(m) * sstride;
      k -= m;
    }
  }
  void flush() {
    if (!open_) return;
    w_.close();
    open_ = false;
    c_->pending.fetch_add(1, std::memory_order_relaxed);
    gex_AM_Arg_t args[2];
    wire::split(c_, args);
    core::am::Message m = core::am::internal_message(api_, core::am::kMedium, core::kVisPutHandler,
                                                     2, args, slot_.payload, w_.used());
    m.deferrable = defer_;
    defer_ = true;
    am_.internal_commit(rank_, m, slot_);
    w_.reset();
  }

 private:
  // Claims the next message's room unless one is open.
  void open() {
    if (open_) return;
    am_.internal_prepare(api_, rank_, 2, cap_, slot_);
    room_ = std::min(cap_, slot_.capacity);
    w_.set_buffer(static_cast<char *>(slot_.payload));
    open_ = true;
  }
  const char *api_;
  uint32_t rank_;
  RmaCompletion *c_;
  size_t cap_, room_ = 0;
  bool defer_;
  bool open_ = false;
  core::am::Engine &am_;
  transport::AmSlot slot_;
  RecordWriter w_{true};
};

// Packs get pieces into Medium requests (a list of remote ranges); the
// target replies with their bytes, which the reply handler scatters.
class GetPacker {
 public:
  GetPacker(const char *api, uint32_t rank, RmaCompletion *c, size_t cap, bool burst)
      : api_(api), rank_(rank), c_(c), cap_(cap), defer_(burst) {
    t_pack.resize(cap);
    w_.set_buffer(t_pack.data());
  }
  void add(char *dest, uint64_t src, size_t n) {
    if (chunk_ && (bytes_ + n > cap_ || !w_.add(src, nullptr, n, cap_))) flush();
    if (!chunk_) {
      chunk_ = new wire::GetChunk{c_, {}};
      if (!w_.add(src, nullptr, n, cap_))
        util::fatal("VIS: a get record does not fit a packed message of %zu (a gexx bug)", cap_);
    }
    bytes_ += n;
    // Local pieces evenly spaced extend the last row (one entry per row).
    if (chunk_->dest.empty() || !extend_row(chunk_->dest.back(), dest, n))
      chunk_->dest.push_back({dest, n, 1, 0});
  }
  // k pieces of n bytes: from src + i * sstride (remote) to dest + i * dstride.
  void add_row(char *dest, ptrdiff_t dstride, uint64_t src, int64_t sstride, size_t n, size_t k) {
    while (k) {
      if (!chunk_) chunk_ = new wire::GetChunk{c_, {}};
      size_t room = (cap_ - bytes_) / n;
      size_t m = room ? w_.add_row(src, sstride, nullptr, 0, n, std::min(k, room), cap_) : 0;
      if (m == 0) {
        if (!bytes_)
          util::fatal("VIS: a get record does not fit a packed message of %zu (a gexx bug)", cap_);
        flush();
        continue;
      }
      chunk_->dest.push_back({dest, n, m, dstride});
      bytes_ += m * n;
      dest += static_cast<ptrdiff_t>(m) * dstride;
      src += m * static_cast<uint64_t>(sstride);
      k -= m;
    }
  }
  void flush() {
    if (!chunk_) return;
    w_.close();
    c_->pending.fetch_add(1, std::memory_order_relaxed);
    gex_AM_Arg_t args[2];
    wire::split(chunk_, args);
    core::am::Message m = core::am::internal_message(api_, core::am::kMedium, core::kVisGetHandler,
                                                     2, args, t_pack.data(), w_.used());
    m.deferrable = defer_;
    defer_ = true;
    chunk_ = nullptr;
    bytes_ = 0;
    w_.reset();
    core::Runtime::get(api_).am().internal_request(rank_, m);
  }

 private:
  const char *api_;
  uint32_t rank_;
  RmaCompletion *c_;
  size_t cap_, bytes_ = 0;
  bool defer_;
  wire::GetChunk *chunk_ = nullptr;
  RecordWriter w_{false};
};

// Without AMPIPE: put pieces go by RMA. Pieces whose remote ranges follow
// one another (a remote run split by the local side: strided shapes walk the
// remote side in address order) join one range; up to the transport's
// rma_runs ranges, at most its inline put in all, are gathered into one
// buffer and move as one operation (libfabric writes several remote ranges
// in one message). A piece at least that long goes on its own from the source.
constexpr size_t kMaxRuns = transport::Capabilities::kMaxRemoteRuns;
// The remote ranges of one such operation.
struct RunList {
  explicit RunList(const transport::Transport &tp)
      : max(std::clamp<size_t>(tp.capabilities().rma_runs, 1, kMaxRuns)) {}
  bool joins(uint64_t at) const { return n && at == runs[n - 1].remote + runs[n - 1].len; }
  // A piece at `at` needs a range of its own and none is left.
  bool full_for(uint64_t at) const { return n == max && !joins(at); }
  void add(uint64_t at, size_t len) {
    if (joins(at))
      runs[n - 1].len += len;
    else
      runs[n++] = transport::RemoteRun{at, len};
  }
  transport::RemoteRun runs[kMaxRuns];
  size_t n = 0, max;
};

class PutGather {
 public:
  PutGather(transport::Transport &tp, uint32_t rank, RmaCompletion *c)
      : tp_(tp),
        rank_(rank),
        c_(c),
        cap_(std::min<size_t>(tp.capabilities().inline_put, 65536)),
        runs_(tp) {
    t_pack.resize(cap_);
  }
  // Returns true when the piece was posted from `src` (busy until complete).
  bool add(uint64_t dest, const char *src, size_t n) {
    if (n >= cap_) {
      flush();
      return tp_.rma_put(rank_, dest, src, n, *c_, transport::PutSource::transient) !=
             transport::Result::done;
    }
    if (used_ + n > cap_ || runs_.full_for(dest)) flush();
    runs_.add(dest, n);
    std::memcpy(t_pack.data() + used_, src, n);
    used_ += n;
    return false;
  }
  void flush() {
    if (!runs_.n) return;
    // At most the inline put: copied at once, so the buffer is free again.
    if (tp_.rma_put_runs(rank_, runs_.runs, runs_.n, t_pack.data(), *c_) != transport::Result::done)
      util::fatal("VIS: a gathered put of %zu bytes was not copied at once (a gexx bug)", used_);
    used_ = 0;
    runs_.n = 0;
  }

 private:
  transport::Transport &tp_;
  uint32_t rank_;
  RmaCompletion *c_;
  size_t cap_, used_ = 0;
  RunList runs_;
};

// Without AMPIPE, the get side: pieces whose remote ranges follow one
// another form one remote range; up to the transport's rma_runs ranges are
// read by one operation into a staging buffer, which is scattered into the
// pieces when a batch of up to kStage bytes has arrived (so these gets
// complete before the call returns); a piece of kRun bytes or more is read
// straight into place.
thread_local std::vector<char> t_stage;
class GetScatter {
 public:
  static constexpr size_t kRun = 65536, kStage = size_t{1} << 20;
  GetScatter(transport::Transport &tp, uint32_t rank, RmaCompletion *c)
      : tp_(tp), rank_(rank), c_(c), runs_(tp) {
    t_stage.resize(kStage);
  }
  void add(char *dest, uint64_t src, size_t n) {
    if (n >= kRun) {
      tp_.rma_get(dest, rank_, src, n, *c_);
      return;
    }
    if (used_ + n > kStage) drain();
    // One operation reads at most kRun bytes: its ranges sit back to back
    // in the staging buffer, after those of the operations before it.
    if (op_len_ + n > kRun || runs_.full_for(src)) post();
    runs_.add(src, n);
    op_len_ += n;
    used_ += n;
    pieces_.push_back({dest, n});
  }
  // Everything read and scattered.
  void drain() {
    post();
    if (pieces_.empty()) return;
    core::events::wait(staged_);
    const char *p = t_stage.data();
    for (const Run &r : pieces_) {
      std::memcpy(r.addr, p, r.len);
      p += r.len;
    }
    pieces_.clear();
    used_ = 0;
  }

 private:
  void post() {
    if (!runs_.n) return;
    tp_.rma_get_runs(t_stage.data() + (used_ - op_len_), rank_, runs_.runs, runs_.n, staged_);
    runs_.n = 0;
    op_len_ = 0;
  }
  transport::Transport &tp_;
  uint32_t rank_;
  RmaCompletion *c_;
  RmaCompletion staged_;
  RunList runs_;
  size_t op_len_ = 0, used_ = 0;
  std::vector<Run> pieces_;
};

}  // namespace

const Knobs &knobs() {
  static const Knobs k = [] {
    Knobs v{};
    v.ampipe = config::get_bool("GASNET_VIS_AMPIPE");
    v.remotecontig = config::get_bool("GASNET_VIS_REMOTECONTIG");
    core::Runtime &rt = core::Runtime::get("VIS");
    size_t medium = rt.am().max_medium();
    uint64_t want = config::get_bytes("GASNET_VIS_MAXCHUNK");
    // Default: the transport's packed Medium (64 KiB over net; 12 KiB over
    // tcp;ofi_rxm, where a message above the provider's eager size, 16 KiB,
    // goes by rendezvous: about a millisecond per packed message on a
    // loaded host), 12 KiB when it names none.
    size_t packed = rt.transport().capabilities().packed_medium;
    if (packed == 0) packed = 12288;
    v.maxchunk = want == 0 ? std::min(medium, packed)
                           : static_cast<size_t>(std::min<uint64_t>(want, medium));
    // Room for at least one record and a few bytes.
    v.maxchunk = std::max<size_t>(v.maxchunk, 2 * sizeof(wire::Record));
    // Pieces above a quarter of a message, or above 4 KiB, go by RMA (a
    // 16 KiB run packed into 64 KiB messages over net: 1.40 GB/s; by RMA
    // 1.59), but for a transport whose RMA is software at the target and
    // that bundles a burst of requests (Capabilities::am_rma_max): there an
    // RMA put per piece of 4-16 KiB in a loop of calls ran at 180 MB/s
    // (testvisperf over net, 8 KiB contiguous), packed 560-780.
    // A transport may say where its own cut-over lies (udp: every piece a
    // message can carry goes packed: its puts cost a datagram and an
    // acknowledgement each, packed ones bundle; 16-32 KiB contiguous
    // testvisperf cells 1.4-2.0 GB/s by RMA).
    const auto &caps = rt.transport().capabilities();
    // (A packed piece needs room for its record, a run's tail and alignment.)
    const size_t fits = v.maxchunk - sizeof(wire::Record) - sizeof(wire::RunTail) - 8;
    v.rma_cutover = caps.vis_pack_piece_max ? std::min(fits, caps.vis_pack_piece_max)
                    : caps.am_rma_max       ? v.maxchunk / 4
                                            : std::min<size_t>(v.maxchunk / 4, 4096);
    return v;
  }();
  return k;
}

void send_armed_peer_completion(const char *api, uint32_t rank) {
  PeerCompletion pc = t_pc;
  t_pc.armed = false;
  set_pc_armed(false);
  send_peer_completion(api, rank, pc);
}

gex_Event_t put(const Call &c, uint32_t rank, Runs &dst, Runs &src, uint64_t total) {
  core::Runtime &rt = core::Runtime::get(c.api);
  const core::burst::Scope op(rank);
  PeerCompletion pc;
  if (t_pc_armed) [[unlikely]] {
    pc = t_pc;
    t_pc.armed = false;
    set_pc_armed(false);
  }
  transport::Transport &tp = rt.transport();
  const Knobs &k = knobs();
  if (k.remotecontig && dst.runs() == 1 && src.runs() > 1) {
    Run r;
    dst.next(r);
    std::vector<char> bounce(total);
    char *p = bounce.data();
    Run s;
    while (src.next(s)) {
      std::memcpy(p, s.addr, s.len);
      p += s.len;
    }
    RmaCompletion done;
    tp.rma_put(rank, addr_of(r.addr), bounce.data(), total, done, transport::PutSource::stable);
    core::events::wait(done);
    if (pc.armed) send_peer_completion(c.api, rank, pc);
    return GEX_EVENT_INVALID;
  }
  Counter counter(c.sync, true, pc.armed);
  bool posted = false;
  if (k.ampipe) {
    PutPacker packer(c.api, rank, counter.c, k.maxchunk, op.burst);
    auto piece = [&](char *d, char *s, size_t n) {
      if (n <= k.rma_cutover) {
        packer.add(addr_of(d), s, n);
      } else if (tp.rma_put(rank, addr_of(d), s, n, *counter.c, transport::PutSource::transient) !=
                 transport::Result::done) {
        posted = true;
      }
    };
    pair_rows(
        dst, src,
        [&](char *d, ptrdiff_t ds, char *s, ptrdiff_t ss, size_t n, size_t cnt) {
          if (n <= k.rma_cutover) {
            packer.add_row(addr_of(d), ds, s, ss, n, cnt);
            return;
          }
          for (size_t i = 0; i < cnt; ++i, d += ds, s += ss) piece(d, s, n);
        },
        piece);
    packer.flush();
  } else {
    PutGather gather(tp, rank, counter.c);
    pair_runs(dst, src,
              [&](char *d, char *s, size_t n) { posted |= gather.add(addr_of(d), s, n); });
    gather.flush();
  }
  // The source is free when the call returns: wait for puts sent from it.
  gex_Event_t e = counter.finish(c.sync, posted || pc.armed);
  if (pc.armed) send_peer_completion(c.api, rank, pc);
  return e;
}

gex_Event_t get(const Call &c, Runs &dst, uint32_t rank, Runs &src, uint64_t total) {
  core::Runtime &rt = core::Runtime::get(c.api);
  const core::burst::Scope op(rank);
  transport::Transport &tp = rt.transport();
  const Knobs &k = knobs();
  if (k.remotecontig && src.runs() == 1 && dst.runs() > 1) {
    Run r;
    src.next(r);
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
  if (k.ampipe) {
    GetPacker packer(c.api, rank, counter.c, k.maxchunk, op.burst);
    auto piece = [&](char *d, char *s, size_t n) {
      if (n <= k.rma_cutover)
        packer.add(d, addr_of(s), n);
      else
        tp.rma_get(d, rank, addr_of(s), n, *counter.c);
    };
    pair_rows(
        dst, src,
        [&](char *d, ptrdiff_t ds, char *s, ptrdiff_t ss, size_t n, size_t cnt) {
          if (n <= k.rma_cutover) {
            packer.add_row(d, ds, addr_of(s), ss, n, cnt);
            return;
          }
          for (size_t i = 0; i < cnt; ++i, d += ds, s += ss) piece(d, s, n);
        },
        piece);
    packer.flush();
  } else {
    GetScatter scatter(tp, rank, counter.c);
    pair_runs(dst, src, [&](char *d, char *s, size_t n) { scatter.add(d, addr_of(s), n); });
    scatter.drain();
  }
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
  set_pc_armed(true);
  t_pc.handler = handler;
  t_pc.nbytes = nbytes;
  if (nbytes) std::memcpy(t_pc.bytes, source_addr, nbytes);
}

}  // namespace gexx::vis
