#include "coll/engine.hpp"

#include <gasnetex.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "coll/host_area.hpp"
#include "core/am.hpp"
#include "core/handlers.hpp"
#include "core/objects.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "core/topology.hpp"
#include "util/config.hpp"
#include "util/log.hpp"

namespace gexx::coll {

namespace {

// What a message is, in the top byte of its slot argument; the low 24 bits
// say which part (a round, a child's bit).
enum Kind : uint32_t { kBcast = 1, kReduceUp = 2, kBarrier = 3, kToRoot = 4, kExchange = 5 };
constexpr uint32_t kKindShift = 24;
constexpr uint32_t kPartMask = (1u << kKindShift) - 1;
constexpr unsigned kArgs = 8;

// [a, a + n) and [b, b + n) share no byte.
bool disjoint(const void *a, const void *b, uint64_t n) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x + n <= y || y + n <= x;
}

// GASNET_COLL_SLICES (read at the first large reduction).
enum class Slices { kAuto, kAlways, kNever };
Slices slices() {
  static const Slices mode = [] {
    std::string v = config::get_string("GASNET_COLL_SLICES");
    return v == "always" ? Slices::kAlways : v == "never" ? Slices::kNever : Slices::kAuto;
  }();
  return mode;
}

const char *kind_name(uint32_t kind) {
  switch (kind) {
    case kBcast:
      return "broadcast";
    case kReduceUp:
      return "reduction";
    case kBarrier:
      return "barrier";
    case kToRoot:
      return "reduction result";
    case kExchange:
      return "reduce-to-all exchange";
    default:
      return "unknown";
  }
}

struct Msg {
  uint64_t team = 0;
  uint32_t seq = 0;
  uint32_t slot = 0;
  uint64_t offset = 0;
  uint32_t root = 0;   // the sender's root argument (checked against ours)
  uint32_t total = 0;  // the low 32 bits of the sender's size (checked)
  uint32_t src = 0;    // job rank
  std::vector<char> data;
  // The payload: `data`, or for a message handed over inside its handler,
  // the receive buffer itself.
  const char *view = nullptr;
  size_t view_len = 0;
  const char *bytes() const { return view ? view : data.data(); }
  size_t size() const { return view ? view_len : data.size(); }
  uint32_t kind() const { return slot >> kKindShift; }
  uint32_t part() const { return slot & kPartMask; }
};

using Key = std::pair<uint64_t, uint32_t>;

// A reduction's working buffer. Large ones come from a small pool, so that
// back-to-back reductions do not map and fault in fresh pages each time
// (malloc maps blocks this large anew on every allocation).
struct Buffer {
  std::unique_ptr<char[]> bytes;
  size_t capacity = 0;
  char *data() { return bytes.get(); }
};

// Asks for `line` in this core's cache, ready to be written.
inline void prefetch_for_write(const host::Control &line) {
#if defined(__x86_64__)
  __asm__ __volatile__("prefetchw %0" : : "m"(line));
#else
  __builtin_prefetch(&line, 1, 3);  // a prefetch for writing where the target has one
#endif
}

// g.mutex: a lock where client threads (GASNET_PAR) or a receive thread
// (GASNET_RCV_THREAD) may call in together; with one caller at a time (SEQ,
// PARSYNC) a flag, which still tells a poll made while this thread holds it
// (a send that polls for room) to leave the operations alone. Every poll
// made while a collective is in flight tries it: the lock's two atomic
// updates per poll slowed a 2-rank 8-byte reduce-to-one by about 8%.
class EngineMutex {
 public:
  void set_concurrent(bool concurrent) { concurrent_ = concurrent; }
  void lock() {
    if (concurrent_) m_.lock();
    held_ = true;
  }
  bool try_lock() {
    if (concurrent_ ? !m_.try_lock() : held_) return false;
    held_ = true;
    return true;
  }
  void unlock() {
    held_ = false;
    if (concurrent_) m_.unlock();
  }

 private:
  std::mutex m_;
  bool concurrent_ = true;
  bool held_ = false;  // (written by the holder only)
};

struct State {
  core::am::Engine *am = nullptr;
  std::mutex inbox_mutex;  // the handler's queue; held for a push or a swap only
  std::vector<Msg> inbox;
  std::atomic<bool> inbox_pending{false};  // inbox is not empty (set and cleared under inbox_mutex)
  std::vector<Msg> spare_msgs;             // handled messages whose payload storage is reused
  std::vector<std::vector<char>> spare;    // payload storage for the handler (inbox_mutex)
  EngineMutex mutex;                       // everything below, and every operation's state
  // The operations in flight here, in key order (a few at a time: a
  // vector, so that a collective allocates no node).
  std::vector<std::pair<Key, OpRef>> active;
  std::map<Key, std::vector<Msg>> early;  // for operations not started here yet
  std::map<uint64_t, uint32_t> launched;  // by team id: the next sequence number here
  std::atomic<uint32_t> team_counter{1};
  std::vector<Buffer> pool;  // free buffers (g.mutex)
  // The poll hook is set (g.mutex): from the first enlisted operation until
  // an advance() that starts and ends with nothing in flight, so that
  // back-to-back collectives do not set and clear it (two atomic updates of
  // a word every poll reads) each time.
  bool hooked = false;
};
State g;
__attribute__((tls_model("initial-exec"))) thread_local bool t_advancing = false;

bool land(Msg &m);

// The operation of `key` in flight here, or null (g.mutex held).
Op *find_active(const Key &key) {
  auto it = std::lower_bound(g.active.begin(), g.active.end(), key,
                             [](const auto &a, const Key &k) { return a.first < k; });
  return it != g.active.end() && it->first == key ? it->second.get() : nullptr;
}

void handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
             gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6,
             gex_AM_Arg_t a7) {
  auto u = [](gex_AM_Arg_t a) { return static_cast<uint32_t>(a); };
  Msg m;
  m.team = (uint64_t{u(a0)} << 32) | u(a1);
  m.seq = u(a2);
  m.slot = u(a3);
  m.offset = (uint64_t{u(a4)} << 32) | u(a5);
  m.root = u(a6);
  m.total = u(a7);
  m.src = token->src;
  const char *p = static_cast<const char *>(buf);
  m.view = p;
  m.view_len = nbytes;
  if (land(m)) return;
  m.view = nullptr;
  std::lock_guard<std::mutex> guard(g.inbox_mutex);
  if (nbytes && !g.spare.empty()) {  // storage of an earlier message: no allocation
    m.data = std::move(g.spare.back());
    g.spare.pop_back();
  }
  m.data.assign(p, p + nbytes);
  g.inbox.push_back(std::move(m));
  g.inbox_pending.store(true, std::memory_order_release);
}

// The binomial tree over virtual ranks (team rank - tree root, mod n): the
// parent of v clears its lowest set bit; its children are v + m for every
// power of two m below that bit (below n for v = 0), so v's subtree is the
// contiguous run [v, v + lowbit(v)).
struct Child {
  uint32_t vrank;
  uint32_t bit;  // its messages' part: log2 of the distance from its parent (flat: the distance)
};
std::vector<Child> children_of(uint32_t v, uint32_t n) {
  std::vector<Child> out;
  for (uint32_t b = 0; b < 32 && (uint64_t{1} << b) < n; ++b) {
    uint32_t m = 1u << b;
    if (v & m) break;
    if (uint64_t{v} + m < n) out.push_back({v + m, b});
  }
  return out;
}

// A message for an operation this rank has finished: the members' calls
// did not match (one rank did not need the message, so it took another
// root, size or operation).
bool stale(const Msg &m) {
  auto it = g.launched.find(m.team);
  return it != g.launched.end() && static_cast<int32_t>(m.seq - it->second) < 0;
}
[[noreturn]] void mismatch(const Msg &m) {
  util::fatal(
      "collective #%u on a team: job rank %u sent a %s message (root %u, size %u) for a "
      "collective this rank has finished: the members' calls (root, size or operation) do not "
      "match",
      m.seq, m.src, kind_name(m.kind()), m.root, m.total);
}

constexpr size_t kPoolBuffers = 16;
constexpr size_t kSpareMessages = 64;
// g.mutex held: a buffer of at least `len` bytes (contents undefined).
Buffer take_buffer(size_t len) {
  for (size_t i = 0; i < g.pool.size(); ++i) {
    if (g.pool[i].capacity >= len) {
      Buffer b = std::move(g.pool[i]);
      g.pool.erase(g.pool.begin() + static_cast<std::ptrdiff_t>(i));
      return b;
    }
  }
  Buffer b;
  b.bytes.reset(new char[len ? len : 1]);
  b.capacity = len;
  return b;
}
void give_buffer(Buffer b) {
  if (b.capacity < 4096) return;  // small: malloc serves these well
  if (g.pool.size() >= kPoolBuffers) g.pool.erase(g.pool.begin());
  g.pool.push_back(std::move(b));
}

void poll_hook() {
  advance();
}

}  // namespace

class Op {
 public:
  Op(const char *api, core::Team &team, uint32_t root, uint64_t total)
      : api_(api),
        team_(&team),
        id_(team.coll_id),
        seq_(team.coll_seq++),
        n_(team.size()),
        me_(team.rank()),
        root_(root),
        total_(total) {}
  // An operation complete from the start (done_ref below).
  struct Finished {};
  explicit Op(Finished)
      : api_(""), team_(nullptr), id_(0), seq_(0), n_(1), me_(0), root_(0), total_(0) {
    done.store(true, std::memory_order_relaxed);
  }
  virtual ~Op() = default;
  Key key() const { return {id_, seq_}; }
  // A message of this operation (g.mutex held).
  virtual void receive(Msg &m) = 0;
  // Sends what can be sent; true once this rank's part is complete.
  virtual bool step() = 0;
  // Complete (g.mutex held): hands back what it borrowed.
  virtual void retire() {}
  // This rank's part is complete. On a team that runs in the host area it
  // also frees the collective's slot there (the slot's next collective
  // waits for that on every member), whichever algorithm ran it.
  void finish() {
    if (team_->host_mode == core::Team::kHostArea) {
      host::TeamArea area(team_->host_base, host::ranks());
      area.control(seq_ % host::kSlots, me_).finished.store(seq_ + 1u, std::memory_order_release);
      // The next collective writes its call into this member's control
      // line of the next slot, which the others read last time: taking
      // that line for writing now takes the other cores' copies out of its
      // start. (2-rank 8-byte reduce-to-one, 14 alternated runs: medians
      // 0.282-0.382 us without, 0.279-0.345 with.)
      prefetch_for_write(area.control((seq_ + 1) % host::kSlots, me_));
    }
    done.store(true, std::memory_order_release);
  }

  std::atomic<bool> done{false};
  // A buffer the operations chained before this one work in (a two-level
  // reduction's partial result), handed back when this one completes.
  Buffer scratch;
  // An operation of this rank that must complete before this one starts
  // (the GASNet-1 collectives' IN_ALLSYNC / OUT_ALLSYNC barriers); messages
  // that arrive meanwhile are kept.
  OpRef gate;

 protected:
  // The message checks every operation makes: the sender's call agrees.
  void expect(const Msg &m, uint32_t kind) const {
    if (m.kind() != kind || m.root != root_ || m.total != static_cast<uint32_t>(total_)) {
      util::fatal(
          "%s: collective #%u on a team of %u: job rank %u sent a %s message with root %u and "
          "size %u, but this rank (team rank %u) called %s with root %u and size %llu: the "
          "members' calls do not match",
          api_, seq_, n_, m.src, kind_name(m.kind()), m.root, m.total, me_, api_, root_,
          static_cast<unsigned long long>(total_));
    }
  }
  // One Medium request to team rank `to`; false when it cannot leave now.
  bool send(uint32_t to, uint32_t kind, uint32_t part, uint64_t offset, const void *data,
            size_t len) const {
    gex_AM_Arg_t args[kArgs] = {static_cast<gex_AM_Arg_t>(id_ >> 32),
                                static_cast<gex_AM_Arg_t>(id_),
                                static_cast<gex_AM_Arg_t>(seq_),
                                static_cast<gex_AM_Arg_t>(kind << kKindShift | part),
                                static_cast<gex_AM_Arg_t>(offset >> 32),
                                static_cast<gex_AM_Arg_t>(offset),
                                static_cast<gex_AM_Arg_t>(root_),
                                static_cast<gex_AM_Arg_t>(total_)};
    core::am::Message am = core::am::internal_message(api_, core::am::kMedium, core::kCollHandler,
                                                      kArgs, args, data, len);
    am.flags = GEX_FLAG_IMMEDIATE;
    return g.am->internal_request(team_->to_job(to), am) == 0;
  }
  size_t piece() const { return g.am->max_medium(); }

  const char *api_;
  const core::Team *team_;
  uint64_t id_;
  uint32_t seq_;
  uint32_t n_, me_;
  uint32_t root_;
  uint64_t total_;
};

bool done(const Op &op) {
  return op.done.load(std::memory_order_acquire);
}

namespace {

// The handler's way around the queue: a message for an operation running
// here goes to it at once, read from the receive buffer (one copy of the
// payload fewer). Not when this thread is inside advance() (it holds
// g.mutex: a poll from within a send) or another thread holds g.mutex.
bool land(Msg &m) {
  if (t_advancing) return false;
  std::unique_lock<EngineMutex> lock(g.mutex, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  Op *op = find_active({m.team, m.seq});
  if (!op) return false;
  op->receive(m);
  return true;
}

// What a collective of a team of one returns: nothing to exchange, so it is
// complete when the call returns, and the call makes no operation (through
// one, a 1-rank reduce took 90 ns; GASNet-EX takes about 10). The reference
// owns nothing: copying it touches no count.
class FinishedOp final : public Op {
 public:
  FinishedOp() : Op(Finished{}) {}
  void receive(Msg &) override { util::fatal("a message for a collective of a team of one"); }
  bool step() override { return true; }
};
OpRef done_ref() {
  static FinishedOp op;
  return OpRef(OpRef(), &op);
}

// Dissemination: in round k this rank tells rank + 2^k and waits to hear
// from rank - 2^k; ceil(log2 n) rounds.
class BarrierOp final : public Op {
 public:
  BarrierOp(const char *api, core::Team &team) : Op(api, team, 0, 0) {
    while ((uint64_t{1} << rounds_) < n_) ++rounds_;
    heard_.assign(rounds_, 0);
  }
  void receive(Msg &m) override {
    expect(m, kBarrier);
    if (m.part() >= rounds_)
      util::fatal("%s: a barrier message for round %u of %u", api_, m.part(), rounds_);
    heard_[m.part()] = 1;
  }
  bool step() override {
    while (round_ < rounds_) {
      if (!sent_) {
        uint32_t to = static_cast<uint32_t>((me_ + (uint64_t{1} << round_)) % n_);
        if (!send(to, kBarrier, round_, 0, nullptr, 0)) return false;
        sent_ = true;
      }
      if (!heard_[round_]) return false;
      ++round_;
      sent_ = false;
    }
    return true;
  }

 private:
  uint32_t rounds_ = 0, round_ = 0;
  bool sent_ = false;
  std::vector<uint8_t> heard_;
};

// Teams of at most this many members send a payload of one piece straight
// between the root and every member (a flat tree): one hop where the
// binomial tree takes two, for n - 1 messages at the root.
constexpr uint32_t kFlatRanks = 4;
// The same for a reduction of one piece, up to more members: the root folds
// the n - 1 contributions as they come, where each level of a tree waits
// for its rank to run (8 ranks on 2 cores, reduce-to-one of 8 bytes over
// udp: 59-77 us by the binomial tree, 40-48 flat; over ofi 66 against
// 51-53; a flat broadcast of 8 was no faster).
constexpr uint32_t kFlatReduceRanks = 8;

// A pipelined binomial-tree broadcast of `total` bytes in `buf` from tree
// root vr 0: each piece (one Medium payload) is forwarded to the children
// as soon as every piece before it is here.
class Fanout {
 public:
  void init(uint32_t vrank, uint32_t n, uint32_t tree_root, char *buf, uint64_t total,
            size_t piece) {
    vrank_ = vrank;
    n_ = n;
    tree_root_ = tree_root;
    buf_ = buf;
    total_ = total;
    piece_ = piece;
    npieces_ = (total + piece - 1) / piece;
    have_.assign(npieces_, 0);
    kids_.clear();
    if (total <= piece && n <= kFlatRanks) {  // small, few: flat (one hop)
      for (uint32_t v = 1; v < n && vrank == 0; ++v) kids_.push_back({v, v});
    } else {
      kids_ = children_of(vrank, n);
      std::reverse(kids_.begin(), kids_.end());  // the largest subtree first
    }
    sent_.assign(kids_.size(), 0);
  }
  // The tree root: its buffer holds the data now.
  void start() {
    prefix_ = npieces_;
    std::fill(have_.begin(), have_.end(), 1);
  }
  void receive(const char *api, const Msg &m) {
    if (m.offset >= total_ || m.size() > total_ - m.offset || m.offset % piece_ != 0)
      util::fatal("%s: a broadcast piece at offset %llu outside the %llu bytes", api,
                  static_cast<unsigned long long>(m.offset),
                  static_cast<unsigned long long>(total_));
    std::memcpy(buf_ + m.offset, m.bytes(), m.size());
    have_[m.offset / piece_] = 1;
    while (prefix_ < npieces_ && have_[prefix_]) ++prefix_;
  }
  template <typename Send>
  bool step(Send &&send) {
    bool all = prefix_ == npieces_;
    for (size_t c = 0; c < kids_.size(); ++c) {
      while (sent_[c] < prefix_) {
        uint64_t off = sent_[c] * piece_;
        size_t len = static_cast<size_t>(std::min<uint64_t>(piece_, total_ - off));
        uint32_t to = static_cast<uint32_t>((uint64_t{kids_[c].vrank} + tree_root_) % n_);
        if (!send(to, off, buf_ + off, len)) return false;
        ++sent_[c];
      }
      all = all && sent_[c] == npieces_;
    }
    return all;
  }

 private:
  uint32_t vrank_ = 0, n_ = 1, tree_root_ = 0;
  char *buf_ = nullptr;
  uint64_t total_ = 0;
  size_t piece_ = 1;
  uint64_t npieces_ = 0, prefix_ = 0;
  std::vector<uint8_t> have_;
  std::vector<Child> kids_;
  std::vector<uint64_t> sent_;
};

// The root sends from its source and copies it to its own destination
// once every piece has left: that copy overlaps the children's receiving
// instead of delaying the first piece.
class BroadcastOp final : public Op {
 public:
  BroadcastOp(const char *api, core::Team &team, uint32_t root, void *dst, const void *src,
              uint64_t nbytes)
      : Op(api, team, root, nbytes),
        dst_(static_cast<char *>(dst)),
        src_(static_cast<const char *>(src)) {
    uint32_t v = static_cast<uint32_t>((uint64_t{me_} + n_ - root) % n_);
    fan_.init(v, n_, root, me_ == root ? const_cast<char *>(src_) : dst_, nbytes, piece());
    if (me_ == root) fan_.start();
    copied_ = me_ != root || dst_ == src_ || nbytes == 0;
    if (n_ == 1) copy();  // a team of one completes at once, without a step
  }
  void receive(Msg &m) override {
    expect(m, kBcast);
    fan_.receive(api_, m);
  }
  bool step() override {
    if (!fan_.step([this](uint32_t to, uint64_t off, const char *p, size_t len) {
          return send(to, kBcast, 0, off, p, len);
        }))
      return false;
    copy();
    return true;
  }

 private:
  void copy() {
    if (!copied_) std::memmove(dst_, src_, total_);
    copied_ = true;
  }

  Fanout fan_;
  bool copied_ = true;
  char *dst_;
  const char *src_;
};

// A binomial-tree reduction to tree root vr 0, chunk by chunk: a chunk is a
// run of whole elements of about one Medium payload; once every child's
// part of chunk k is here it is combined (children in rank order, which is
// what GEX_OP_USER_NC needs: a subtree is a contiguous run of ranks) and
// sent up. Then, for reduce-to-all, a broadcast of the result from vr 0;
// for a non-commutative reduce-to-one whose root is not rank 0 (the tree
// is rooted at 0 for them), rank 0 sends the result to the root. A small
// reduction on a team of at most kFlatReduceRanks is a flat tree instead
// (every member sends to the root, which combines in rank order).
class ReduceOp final : public Op {
 public:
  ReduceOp(const char *api, core::Team &team, bool to_all, uint32_t root, void *dst,
           const void *src, const Reduction &red, size_t count)
      : Op(api, team, to_all ? 0 : root, static_cast<uint64_t>(count) * red.dt_size),
        red_(red),
        all_(to_all),
        dst_(static_cast<char *>(dst)) {
    tree_root_ = (to_all || !red.commutative()) ? 0 : root;
    v_ = static_cast<uint32_t>((uint64_t{me_} + n_ - tree_root_) % n_);
    acc_ = take_buffer(total_);
    src_ = static_cast<const char *>(src);
    size_t p = piece();
    chunk_elems_ = std::max<size_t>(1, p / red.dt_size);
    chunk_bytes_ = chunk_elems_ * red.dt_size;
    nchunks_ = (count + chunk_elems_ - 1) / chunk_elems_;
    flat_ = n_ <= kFlatReduceRanks && total_ <= p;
    if (!flat_) {
      kids_ = children_of(v_, n_);
    } else if (v_ == 0) {
      for (uint32_t v = 1; v < n_; ++v) kids_.push_back({v, v});
    }
    kid_buf_.resize(kids_.size());
    kid_got_.resize(kids_.size());
    kid_folded_.resize(kids_.size());
    for (size_t c = 0; c < kids_.size(); ++c) {
      kid_buf_[c] = take_buffer(total_);
      kid_got_[c].assign(nchunks_, 0);
      kid_folded_[c].assign(nchunks_, 0);
    }
    fold_on_arrival_ = red.order_free() && !kids_.empty();
    if (all_) fan_.init(v_, n_, 0, dst_, total_, p);
    // Where the running value lives: a leaf sends its source as it is; the
    // tree root that ends with the result (reduce-to-all, or the root of a
    // reduce-to-one) folds into its destination, unless that overlaps the
    // source; the others use a buffer of their own.
    if (kids_.empty() && v_ != 0) {
      acc_ptr_ = const_cast<char *>(src_);
      acc_is_src_ = true;
    } else if (v_ == 0 && (all_ || me_ == root_) && disjoint(dst_, src_, total_)) {
      acc_ptr_ = dst_;
    } else {
      acc_ptr_ = acc_.data();
    }
  }
  void receive(Msg &m) override {
    expect(m, m.kind() == kReduceUp || m.kind() == kBcast || m.kind() == kToRoot ? m.kind() : 0);
    if (m.offset > total_ || m.size() > total_ - m.offset)
      util::fatal("%s: a %s piece at offset %llu outside the %llu bytes", api_, kind_name(m.kind()),
                  static_cast<unsigned long long>(m.offset),
                  static_cast<unsigned long long>(total_));
    if (m.kind() == kBcast && all_) {
      fan_.receive(api_, m);
    } else if (m.kind() == kToRoot && !all_ && me_ == root_) {
      std::memcpy(dst_ + m.offset, m.bytes(), m.size());
      result_got_ += m.size();
    } else if (m.kind() == kReduceUp) {
      size_t c = 0;
      while (c < kids_.size() && kids_[c].bit != m.part()) ++c;
      if (c == kids_.size())
        util::fatal("%s: reduction data from job rank %u, not a child here", api_, m.src);
      uint64_t chunk = m.offset / chunk_bytes_;
      if (fold_on_arrival_ && begun_ && m.offset % chunk_bytes_ == 0 &&
          m.size() == std::min<uint64_t>(chunk_bytes_, total_ - m.offset)) {
        // The whole chunk in one message, into the running value at once:
        // no copy into the child's buffer, which step would read again.
        red_.apply(m.bytes(), acc_ptr_ + m.offset, m.size() / red_.dt_size);
        kid_folded_[c][chunk] = 1;
      } else {
        std::memcpy(kid_buf_[c].data() + m.offset, m.bytes(), m.size());
      }
      kid_got_[c][chunk] += m.size();
    } else {
      util::fatal("%s: a %s message this rank does not expect", api_, kind_name(m.kind()));
    }
  }
  void retire() override {
    give_buffer(std::move(acc_));
    for (Buffer &b : kid_buf_) give_buffer(std::move(b));
    kid_buf_.clear();
  }
  bool step() override {
    if (!begun_) {  // the source is read once the operation may touch memory (its gate)
      if (total_ && !acc_is_src_) std::memcpy(acc_ptr_, src_, total_);
      begun_ = true;
    }
    // Combine the chunks every child has sent.
    while (combined_ < nchunks_) {
      uint64_t off = combined_ * chunk_bytes_;
      uint64_t bytes = std::min<uint64_t>(chunk_bytes_, total_ - off);
      bool ready = true;
      for (size_t c = 0; c < kids_.size() && ready; ++c) ready = kid_got_[c][combined_] == bytes;
      if (!ready) break;
      size_t elems = static_cast<size_t>(bytes / red_.dt_size);
      for (size_t c = 0; c < kids_.size(); ++c) {
        if (kid_folded_[c][combined_]) continue;  // folded as it arrived (receive)
        char *kid = kid_buf_[c].data() + off;
        if (red_.commutative()) {
          red_.apply(kid, acc_ptr_ + off, elems);
        } else {  // the lower ranks' value is the first operand
          red_.apply(acc_ptr_ + off, kid, elems);
          std::memcpy(acc_ptr_ + off, kid, bytes);
        }
      }
      ++combined_;
    }
    uint64_t ready_bytes = std::min<uint64_t>(combined_ * chunk_bytes_, total_);
    if (v_ != 0) {  // up to the parent, never across a chunk boundary
      uint32_t parent =
          flat_ ? tree_root_ : static_cast<uint32_t>((uint64_t{v_ & (v_ - 1)} + tree_root_) % n_);
      uint32_t bit = flat_ ? v_ : static_cast<uint32_t>(__builtin_ctz(v_));
      while (up_ < ready_bytes) {
        uint64_t chunk_end = std::min<uint64_t>((up_ / chunk_bytes_ + 1) * chunk_bytes_, total_);
        size_t len = static_cast<size_t>(std::min<uint64_t>(piece(), chunk_end - up_));
        if (!send(parent, kReduceUp, bit, up_, acc_ptr_ + up_, len)) return false;
        up_ += len;
      }
      if (up_ < total_) return false;
      if (all_) return fan_step();
      if (!red_.commutative() && me_ == root_) return result_got_ == total_;
      return true;
    }
    // The tree root.
    if (combined_ < nchunks_) return false;
    if (all_) {
      if (!fan_started_) {
        if (acc_ptr_ != dst_) std::memcpy(dst_, acc_ptr_, total_);
        fan_.start();
        fan_started_ = true;
      }
      return fan_step();
    }
    if (me_ == root_) {
      if (acc_ptr_ != dst_) std::memcpy(dst_, acc_ptr_, total_);
      return true;
    }
    while (up_ < total_) {  // a non-commutative result on its way to the root
      size_t len = static_cast<size_t>(std::min<uint64_t>(piece(), total_ - up_));
      if (!send(root_, kToRoot, 0, up_, acc_ptr_ + up_, len)) return false;
      up_ += len;
    }
    return true;
  }

 private:
  bool fan_step() {
    return fan_.step([this](uint32_t to, uint64_t off, const char *p, size_t len) {
      return send(to, kBcast, 0, off, p, len);
    });
  }

  Reduction red_;
  bool all_;
  bool flat_ = false;
  char *dst_;
  const char *src_ = nullptr;
  bool begun_ = false;
  uint32_t tree_root_ = 0, v_ = 0;
  Buffer acc_;
  char *acc_ptr_ = nullptr;  // the running value: acc_, the destination, or (a leaf) the source
  bool acc_is_src_ = false;
  size_t chunk_elems_ = 1;
  uint64_t chunk_bytes_ = 1, nchunks_ = 0, combined_ = 0, up_ = 0, result_got_ = 0;
  std::vector<Child> kids_;
  std::vector<Buffer> kid_buf_;
  std::vector<std::vector<uint64_t>> kid_got_;
  // By child and chunk: 1 once receive folded it into the running value.
  // Only an order-free reduction (Reduction::order_free) folds a child's
  // chunk as it arrives, once the running value holds this rank's source;
  // the others wait for every child and fold in rank order, so that every
  // run gives the same bits.
  std::vector<std::vector<uint8_t>> kid_folded_;
  bool fold_on_arrival_ = false;
  Fanout fan_;
  bool fan_started_ = false;
};

// A commutative reduce-to-all on a power-of-two team: recursive doubling.
// In round k this rank sends its running value to rank ^ 2^k and combines
// what that rank sent it: log2 n rounds of one message each way, where a
// reduction and a broadcast take 2 log2 n one after the other. Both
// partners of a round combine the same two values, so every member ends
// with the same bits. A vector of more than one Medium payload goes in
// pieces of whole elements, each piece through the rounds on its own: a
// piece is sent for round k once it has been combined in round k - 1, and
// the partner's piece, when it arrives after ours left, is combined
// straight from the message (no copy into a holding buffer).
class ExchangeReduceOp final : public Op {
 public:
  ExchangeReduceOp(const char *api, core::Team &team, void *dst, const void *src,
                   const Reduction &red, size_t count)
      : Op(api, team, 0, static_cast<uint64_t>(count) * red.dt_size),
        red_(red),
        dst_(static_cast<char *>(dst)),
        src_(static_cast<const char *>(src)) {
    while ((uint64_t{1} << rounds_) < n_) ++rounds_;
    chunk_ = std::max<size_t>(1, piece() / red.dt_size) * red.dt_size;
    npieces_ = (total_ + chunk_ - 1) / chunk_;
    round_.assign(npieces_, 0);
    sent_.assign(npieces_, 0);
    early_.resize(rounds_);
    have_.assign(static_cast<size_t>(rounds_) * npieces_, 0);
  }
  // Whether it serves this reduction on a team of n: every payload when the
  // partners are a pair (one exchange instead of a reduction and a
  // broadcast), else those of one Medium payload.
  static bool fits(uint32_t n, const Reduction &red, uint64_t total, size_t piece) {
    return n >= 2 && (n & (n - 1)) == 0 && red.commutative() && total != 0 &&
           red.dt_size <= piece && (n == 2 || total <= piece);
  }
  void receive(Msg &m) override {
    expect(m, kExchange);
    uint32_t k = m.part();
    uint64_t j = m.offset / chunk_;
    if (k >= rounds_ || m.offset % chunk_ != 0 || j >= npieces_ || m.size() != len(j) ||
        have_[k * npieces_ + j])
      util::fatal(
          "%s: a reduce-to-all exchange message for round %u of %u at offset %llu with %zu "
          "bytes",
          api_, k, rounds_, static_cast<unsigned long long>(m.offset), m.size());
    have_[k * npieces_ + j] = 1;
    if (begun_ && round_[j] == k && sent_[j]) {  // ours has left: combine in place
      combine(j, m.bytes());
      return;
    }
    if (!early_[k].capacity) early_[k] = take_buffer(total_);
    std::memcpy(early_[k].data() + m.offset, m.bytes(), m.size());
  }
  void retire() override {
    for (Buffer &b : early_)
      if (b.capacity) give_buffer(std::move(b));
    early_.clear();
  }
  bool step() override {
    if (!begun_) {  // dst is the running value (the source is read once the gate allows)
      if (dst_ != src_) std::memmove(dst_, src_, total_);
      begun_ = true;
    }
    bool all = true;
    for (uint64_t j = 0; j < npieces_; ++j) {
      while (round_[j] < rounds_) {
        uint32_t k = round_[j];
        if (!sent_[j]) {
          uint64_t off = j * chunk_;
          if (!send(me_ ^ (1u << k), kExchange, k, off, dst_ + off, len(j))) return false;
          sent_[j] = 1;
        }
        if (!have_[k * npieces_ + j]) break;
        combine(j, early_[k].data() + j * chunk_);
      }
      all = all && round_[j] == rounds_;
    }
    return all;
  }

 private:
  size_t len(uint64_t j) const {
    return static_cast<size_t>(std::min<uint64_t>(chunk_, total_ - j * chunk_));
  }
  // Piece j of the partner's value for this round into ours; the piece
  // moves on to the next round.
  void combine(uint64_t j, const char *theirs) {
    red_.apply(theirs, dst_ + j * chunk_, len(j) / red_.dt_size);
    ++round_[j];
    sent_[j] = 0;
  }

  Reduction red_;
  char *dst_;
  const char *src_;
  bool begun_ = false;
  uint32_t rounds_ = 0;
  size_t chunk_ = 1;
  uint64_t npieces_ = 0;
  std::vector<uint32_t> round_;  // by piece: the round it is in
  std::vector<uint8_t> sent_;    // by piece: sent for that round
  std::vector<Buffer> early_;    // by round: partner pieces that came before ours left
  std::vector<uint8_t> have_;    // by round and piece: the partner's piece arrived
};

// The host phase: every member of the team maps this host's area
// (host_area.hpp), so the collective runs there, without AMs. Collective
// #seq uses slot seq % kSlots once every member has finished the slot's
// previous collective (#seq - kSlots). Each member publishes what it called
// (checked by the others) and a start stamp. Then the members that post
// copy their stream (their source) chunk by chunk into their two buffers
// (chunk c goes into buffer c % 2 once every reader of that stream has read
// chunk c - 2), and the readers copy (or fold) each posted chunk out and
// say so:
//  * barrier: done once every member has started;
//  * broadcast, scatter: the root posts (its block, or all n blocks), the
//    others read (their own block's part of the stream, for a scatter);
//  * gather: every member but the root posts its block, the root reads;
//    gather-all, exchange: every member posts (its block, or its n
//    blocks), every member reads the others' streams (its own block of
//    each, for an exchange);
//  * reduction: every member posts; the combining members (all for
//    reduce-to-all, the root for reduce-to-one) fold each chunk of all
//    members, in team rank order, into their destination; the GASNet-1
//    reduction's root hands the members' chunks to its fold function.
// A rank waits only on flags in shared memory; a chunk is one memcpy in
// and (for each reader) one out.
class HostOp final : public Op {
 public:
  enum Kind : uint32_t {
    kHBarrier = 1,
    kHBcast = 2,
    kHToOne = 3,
    kHToAll = 4,
    kHScatter = 5,
    kHGather = 6,
    kHGatherAll = 7,
    kHExchange = 8,
    kHFold = 9
  };
  HostOp(const char *api, core::Team &team, Kind kind, uint32_t root, void *dst, const void *src,
         uint64_t nbytes, const Reduction *red, Fold fold = {}, size_t elem = 1)
      : Op(api, team, root, nbytes),
        area_(team.host_base, host::ranks()),
        kind_(kind),
        slot_(seq_ % host::kSlots),
        dst_(static_cast<char *>(dst)),
        src_(static_cast<const char *>(src)),
        fold_(std::move(fold)) {
    if (red) red_ = *red;
    if (red) elem = red->dt_size;
    rooted_ = kind == kHBcast || kind == kHToOne || kind == kHScatter || kind == kHGather ||
              kind == kHFold;
    stream_ = (kind == kHScatter || kind == kHExchange) ? nbytes * n_ : nbytes;
    // Every member finds the same (the size is part of the checked call).
    inline_ = stream_ <= host::kInline;
    if (inline_) {
      // One chunk, in the control line (no division on the small path).
      chunk_ = host::kInline;
      nchunks_ = stream_ != 0;
    } else {
      // Chunks of up to kOpChunk; as many buffers of that size as the
      // member's region (two area chunks) holds.
      chunk_ = (std::min(area_.chunk(), host::kOpChunk) / elem) * elem;
      nbuf_ = 2 * area_.chunk() / chunk_;
      nchunks_ = (stream_ + chunk_ - 1) / chunk_;
    }
    sig_ =
        uint64_t{kind} << 60 | uint64_t{root & 0x0FFFFFFFu} << 32 | static_cast<uint32_t>(nbytes);
    apart_ = disjoint(dst_, src_, nbytes);
    // A reducing member folds its own chunks from its source, not from its
    // buffers, unless the destination overlaps the source (the fold writes
    // the destination before it has read every member's chunk).
    own_direct_ = (kind == kHToOne || kind == kHToAll) && nbytes && apart_;
    // Chunks only other ranks read go around this rank's cache when they
    // run on cores of their own (streaming stores: a reader then takes them
    // from memory instead of from this core's cache, and the next chunk's
    // stores need not take the lines back from the reader); on an
    // oversubscribed host a reader may share this core, and its cache.
    // Broadcasts, scatters and reduce-to-ones only (2 ranks, 1 MiB:
    // broadcast 7.5 -> 12.5 GB/s, reduce-to-one 9.0 -> 12.1); a
    // reduce-to-all, whose members read each other's chunks while they post
    // their own, was slower so (6.7 -> 6.5).
    stream_out_ =
        (kind == kHBcast || kind == kHScatter || kind == kHToOne) && !host::oversubscribed();
    posts_ = nchunks_ != 0 && posts(me_);
    bool any = false;
    for (uint32_t j = 0; j < n_ && !any; ++j) any = reads_from(me_, j);
    reads_ = nchunks_ != 0 && any;
    if ((kind == kHFold || kind == kHToOne || kind == kHToAll) && n_ > kSmallTeam) {
      heap_inputs_.resize(n_);
      inputs_ = heap_inputs_.data();
    }
    if (!inline_ && n_ > kSmallTeam && (reads_ || posts_)) {
      heap_in_place_.assign(n_, nullptr);
      in_place_ = heap_in_place_.data();
    }
    slice_candidate_ = (kind == kHToOne || kind == kHToAll) && !inline_ && stream_ >= kInPlaceMin &&
                       red != nullptr && n_ >= 2 && slices() != Slices::kNever;
    in_place_offset_ = in_place_offset();
  }
  void receive(Msg &m) override {
    util::fatal(
        "%s: collective #%u: job rank %u sent a %s message, but this team runs its "
        "collectives in shared memory: the members' calls do not match",
        api_, seq_, m.src, kind_name(m.kind()));
  }
  bool step() override {
    if (!started_) {
      uint32_t prev = seq_ + 1 - host::kSlots;  // finished-stamp of this slot's last collective
      for (; gated_ < n_; ++gated_) {
        uint32_t f = static_cast<uint32_t>(ctl(gated_).finished.load(std::memory_order_acquire));
        if (static_cast<int32_t>(f - prev) < 0) return false;
      }
      copy_own();
      host::Control &mine = ctl(me_);
      mine.sig.store(sig_, std::memory_order_relaxed);
      started_ = true;
      // Says whether the stream is read in place (a reduction that may be
      // folded in slices waits to see every member's answer).
      if (!inline_ && (posts_ || slice_candidate_))
        std::memcpy(mine.small, &in_place_offset_, sizeof in_place_offset_);
      if (slice_candidate_) {
        // Whether this member can fold in slices through its buffers, and
        // its slices' stamp (both before the posted stamp that publishes them).
        uint64_t able = in_place_offset_ != 0 || (can_give() && buffers_slice());
        std::memcpy(mine.small + kSmallAble, &able, sizeof able);
        given_word(me_).store(host::stamp(seq_, 1), std::memory_order_relaxed);
        mine.posted.store(host::stamp(seq_, 1), std::memory_order_release);
      } else if (in_place_offset_ != 0) {
        announce_in_place();
      } else {
        // The first two chunks go out at once (their buffers are free: every
        // member has finished the slot's last collective), so a small
        // collective publishes its call and its data in one step and its
        // readers need one handoff, not two. An inline stream's one chunk is
        // in the control line: its posted stamp announces the call too.
        if (!(posts_ && inline_))
          mine.posted.store(host::stamp(seq_, 1), std::memory_order_release);
        if (posts_ && in_place_offset_ == 0) post();
      }
    }
    // Wait for (and check the call of) every member, but on a rooted
    // collective a member other than the root waits only for the root (a
    // member that also thinks itself the root is found so).
    bool reads_all = !rooted_ || me_ == root_ || slice_candidate_;
    for (; arrived_ < n_; ++arrived_) {
      uint32_t j = reads_all ? arrived_ : root_;
      host::Control &c = ctl(j);
      if (!host::reached(c.posted.load(std::memory_order_acquire), host::stamp(seq_, 1)))
        return false;
      uint64_t sig = c.sig.load(std::memory_order_relaxed);
      if (sig != sig_) mismatch(j, sig);
      if (!inline_ && (slice_candidate_ || (reads_ && reads_from(me_, j))))
        in_place_[j] = find_in_place(j);
      if (!reads_all) arrived_ = n_ - 1;
    }
    if (slice_candidate_ && !decided_) decide_slices();
    if (sliced_) return step_sliced();
    for (;;) {
      uint64_t before = posted_ + read_;
      if (posts_) post();
      if (reads_) read();
      if (posted_ + read_ == before) break;
    }
    return (!posts_ || posted_ == nchunks_) && (!reads_ || read_ == nchunks_) &&
           (in_place_offset_ == 0 || readers_drained());
  }

 private:
  host::Control &ctl(uint32_t member) const { return area_.control(slot_, member); }
  size_t len(uint64_t c) const {
    return static_cast<size_t>(std::min<uint64_t>(chunk_, stream_ - c * chunk_));
  }
  // Whether member j posts its stream.
  bool posts(uint32_t j) const {
    switch (kind_) {
      case kHBcast:
      case kHScatter:
        return j == root_;
      case kHGather:
      case kHFold:
        return j != root_;
      case kHBarrier:
        return false;
      case kHToOne:
        return j != root_ || !(j == me_ && own_direct_);
      default:
        return true;
    }
  }
  // Whether member r reads member j's stream (a gather's root and a
  // gather-all's or exchange's member take their own block from their
  // source instead).
  bool reads_from(uint32_t r, uint32_t j) const {
    switch (kind_) {
      case kHBcast:
      case kHScatter:
        return j == root_ && r != root_;
      case kHGather:
      case kHFold:
        return r == root_ && j != root_;
      case kHToOne:
        return r == root_ && !(r == j && r == me_ && own_direct_);
      case kHToAll:
        return !(r == j && r == me_ && own_direct_);
      case kHGatherAll:
      case kHExchange:
        return r != j;
      default:
        return false;
    }
  }
  // A large stream whose source lies in this member's segment is read in
  // place (posted): every member of the team maps that segment (they share
  // this host), so a reader copies or folds straight from the source and
  // the poster copies nothing into its buffers. The poster then completes
  // only once every reader has read the whole stream (the client may reuse
  // its source after that). Not when this member writes into the source
  // during the collective (its destination overlaps it). Returns the
  // source's offset in the segment plus one, or 0 for the buffers.
  // (testcollperf, 2 ranks, 1 MiB, source and destination in the segment:
  // GASNet-EX 60-80 us a broadcast or scatter; through the buffers, copied
  // twice, 80-180; read in place 35-77.)
  uint64_t in_place_offset() const {
    if (!(posts_ || slice_candidate_) || inline_ || stream_ < kInPlaceMin) return 0;
    core::Runtime &rt = core::Runtime::get(api_);
    const transport::PeerSegment *own = rt.peer_segment(rt.rank());
    if (own == nullptr || own->local == nullptr) return 0;
    uint64_t off = reinterpret_cast<uintptr_t>(src_) - own->owner_base;  // wraps if below
    if (off > own->size || stream_ > own->size - off) return 0;
    // What this member writes during the collective.
    uint64_t writes = total_;
    if (kind_ == kHGatherAll || kind_ == kHExchange) writes = total_ * n_;
    if ((kind_ == kHGather || kind_ == kHFold || kind_ == kHToOne) && me_ != root_) writes = 0;
    auto d = reinterpret_cast<uintptr_t>(dst_), s = reinterpret_cast<uintptr_t>(src_);
    if (writes != 0 && !(d + writes <= s || s + stream_ <= d)) return 0;
    for (uint32_t j = 0; j < n_; ++j) {
      if (!reads_from(j, me_) && !slice_candidate_) continue;
      const transport::PeerSegment *seg = rt.peer_segment(team_->to_job(j));
      if (seg == nullptr || seg->local == nullptr) return 0;  // (PSHM maps both ways)
    }
    return off + 1;
  }
  // Member j's stream read in place: where this process maps its source
  // (null: j posts through its buffers). After j's posted stamp.
  char *find_in_place(uint32_t j) const {
    uint64_t at;
    std::memcpy(&at, ctl(j).small, sizeof at);
    if (at == 0) return nullptr;
    core::Runtime &rt = core::Runtime::get(api_);
    const transport::PeerSegment *seg = rt.peer_segment(team_->to_job(j));
    if (seg == nullptr || seg->local == nullptr || at - 1 > seg->size ||
        stream_ > seg->size - (at - 1))
      util::fatal(
          "%s: collective #%u: team rank %u posted its source in place at offset %llu of "
          "its segment, which this process does not map (internal error)",
          api_, seq_, j, static_cast<unsigned long long>(at - 1));
    return seg->local + (at - 1);
  }
  // The stream from here on: every chunk at once (the readers find it
  // through `small`).
  void announce_in_place() {
    posted_ = nchunks_;
    ctl(me_).posted.store(host::stamp(seq_, nchunks_ + 1), std::memory_order_release);
    if (kind_ == kHBcast && dst_ != src_) std::memcpy(dst_, src_, total_);  // (apart)
  }
  // A large reduction is folded in slices: in round k member m folds
  // elements [(k n + m) S, (k n + m + 1) S) of every member's source (in
  // team rank order, as the whole-vector fold does) and posts that slice of
  // the result in its buffers; the members that want the result (all, or
  // the root) copy the others' slices. Each member folds 1/n of the vector
  // instead of the root (or every member) folding all of it.
  //  * Every source in place (teams of kSliceMinTeam and more): the folds
  //    read the sources; a member's round k result fills its buffer k mod 2
  //    (an area chunk each, S up to an area chunk).
  //  * Otherwise (pairs too), once every member can (its source in place,
  //    or its destination apart from it): a member whose source is not in
  //    place gives the others their slices of it, round by round. Its
  //    region (two area chunks) holds kSliceRounds or more rounds of n
  //    slices; round k's block is the vector's [k n S, (k + 1) n S) with
  //    this member's own slice replaced by its result. Per member of a pair
  //    moving 1 MiB, a reduce-to-all reads 2 MiB from memory and writes 2
  //    this way (its fold's output is copied while it is in L1), against 3
  //    and 2 posting and folding whole vectors; on 8 ranks 2.75 and 2
  //    against 9 and 2. A pair's reduce-to-one moves more in all (the
  //    root 3.5 MiB against 3) but folds on both cores: 1 MiB in 105-135 us
  //    against 180-220 with the root folding both vectors.
  // Decided once every member has said whether its source is in place and
  // whether it can slice: all of them, or the usual algorithm (an in-place
  // poster then announces its stream).
  void decide_slices() {
    decided_ = true;
    bool all_in_place = true, all_able = true;
    for (uint32_t j = 0; j < n_; ++j) {
      bool in = j == me_ ? in_place_offset_ != 0 : in_place_[j] != nullptr;
      uint64_t able = 1;  // (as each published it at its start)
      if (!in) std::memcpy(&able, ctl(j).small + kSmallAble, sizeof able);
      all_in_place = all_in_place && in;
      all_able = all_able && able != 0;
    }
    const uint64_t elem = red_.dt_size;
    const uint64_t share = ((total_ + n_ - 1) / n_ + elem - 1) / elem * elem;
    const uint64_t region = 2 * area_.chunk();
    if (all_in_place && n_ >= kSliceMinTeam) {
      slice_ = std::min<uint64_t>(area_.chunk() / elem * elem, share);
      block_ = area_.chunk();
    } else if (!all_in_place && all_able) {
      slice_ = std::min<uint64_t>(
          {share, host::kOpChunk / elem * elem, region / (kSliceRounds * n_) / elem * elem});
      block_ = slice_ * n_;
      buffered_ = true;
      gives_ = in_place_offset_ == 0;
    }
    if (slice_ == 0) {  // (or elements too large for this host's regions)
      buffered_ = gives_ = false;
      if (in_place_offset_ != 0 && posts_) announce_in_place();
      if (!posts_) in_place_offset_ = 0;
      return;
    }
    sliced_ = true;
    nblocks_ = region / block_;
    result_reader_ = wants_result(me_);
    posts_results_ = kind_ == kHToAll || me_ != root_;
    rounds_ = (total_ + uint64_t{n_} * slice_ - 1) / (uint64_t{n_} * slice_);
  }
  // Whether this host folds in slices through the members' buffers
  // (GASNET_COLL_SLICES, the same on every rank): on an oversubscribed host
  // (2 cores) slices took 1.0-1.4 ms a 1 MiB reduce-to-all at 4 and 8 ranks
  // against 0.9-1.3 for the whole-vector folds, each round a wait for every
  // member to be scheduled; with a core per rank a pair's took 150-170 us
  // against 220-300.
  static bool buffers_slice() {
    return slices() == Slices::kAlways || (slices() == Slices::kAuto && !host::oversubscribed());
  }
  // Whether this member can give its slices through its blocks: what it
  // writes during the collective (its destination's slices, the others'
  // as it reads them) is never a part of its source it has still to give.
  // A destination that is the source itself is written round by round
  // after that round's slices are given (its own slice folded into its
  // block first).
  bool can_give() const { return apart_ || dst_ == src_ || (kind_ == kHToOne && me_ != root_); }
  // Whether member j ends with the reduction's result.
  bool wants_result(uint32_t j) const { return kind_ == kHToAll || j == root_; }
  // Member m's slice of round k: [offset, offset + bytes) of the vector.
  uint64_t slice_at(uint32_t m, uint64_t k) const { return (k * n_ + m) * slice_; }
  size_t slice_bytes(uint32_t m, uint64_t k) const {
    uint64_t at = slice_at(m, k);
    return at < total_ ? static_cast<size_t>(std::min<uint64_t>(slice_, total_ - at)) : 0;
  }
  // Member m's block of round k in its region, and its result slice there.
  char *block(uint32_t m, uint64_t k) const {
    return area_.data(slot_, m, 0) + (k % nblocks_) * block_;
  }
  char *result_buf(uint32_t m, uint64_t k) const {
    return block(m, k) + (buffered_ ? m * slice_ : 0);
  }
  // The stamp of the rounds whose slices member m has given (kSmallGiven
  // in its control line's `small`: a sliced reduction uses no inline data).
  std::atomic<uint64_t> &given_word(uint32_t m) const {
    return *reinterpret_cast<std::atomic<uint64_t> *>(ctl(m).small + kSmallGiven);
  }
  // Member j's slice for this member in round k: from its source in place,
  // or from its block.
  const char *input(uint32_t j, uint64_t k) const {
    if (j == me_) return src_ + slice_at(me_, k);
    if (in_place_[j] != nullptr) return in_place_[j] + slice_at(me_, k);
    return block(j, k) + me_ * slice_;
  }
  // Round k's block is free once every member that reads this member's
  // blocks has finished round k - nblocks_.
  bool block_free(uint64_t k) const {
    if (k < nblocks_) return true;
    uint32_t from = 0;  // (a fresh scan: the goal moves with k)
    return consumed(from, host::stamp(seq_, k - nblocks_ + 2),
                    [this](uint32_t j) { return j != me_ && (gives_ || wants_result(j)); });
  }
  // Every member that gives slices has given round k's.
  bool inputs_ready(uint64_t k) {
    return all_reached(
        fed_, host::stamp(seq_, k + 2), [this](uint32_t j) -> auto & { return given_word(j); },
        [this](uint32_t j) { return j != me_ && in_place_[j] == nullptr; });
  }
  // Round k's slices of this member's source for the others: the vector's
  // [k n S, (k + 1) n S) less its own slice, where they lie in the block.
  void give(uint64_t k) {
    const uint64_t lo = k * block_, own = slice_at(me_, k);
    char *to = block(me_, k);
    const uint64_t end = std::min<uint64_t>(lo + block_, total_);
    if (own > lo) std::memcpy(to, src_ + lo, std::min(own, end) - lo);
    if (own + slice_ < end)
      std::memcpy(to + (own + slice_ - lo), src_ + own + slice_, end - own - slice_);
  }
  bool step_sliced() {
    const uint64_t before = folded_ + read_ + given_;
    for (bool moved = true; moved;) {
      moved = false;
      // This member's slices for the round it folds next (and one ahead).
      if (gives_ && given_ < rounds_ && given_ <= folded_ + 1 && block_free(given_)) {
        give(given_);
        ++given_;
        given_word(me_).store(host::stamp(seq_, given_ + 1), std::memory_order_release);
        moved = true;
      }
      // The next round's fold, into its block (checked free by the give
      // above, or here when this member gives nothing).
      if (folded_ < rounds_ && (gives_ ? folded_ < given_ : block_free(folded_)) &&
          inputs_ready(folded_)) {
        fold_slice(folded_);
        ++folded_;
        if (posts_results_)
          ctl(me_).posted.store(host::stamp(seq_, folded_ + 1), std::memory_order_release);
        moved = true;
      }
      // The others' results of the next round.
      if (result_reader_ && read_ < rounds_ &&
          all_reached(
              ready_,
              host::stamp(seq_, read_ + 2), [this](uint32_t j) -> auto & { return posted_word(j); },
              [this](uint32_t j) { return j != me_; })) {
        for (uint32_t j = 0; j < n_; ++j)
          if (size_t bytes = slice_bytes(j, read_); j != me_ && bytes != 0)
            std::memcpy(dst_ + slice_at(j, read_), result_buf(j, read_), bytes);
        ++read_;
        moved = true;
      }
    }
    // consumed: the rounds this member has both folded and (a reader) read;
    // at rounds + 1 it reads no member's source or block any more.
    if (folded_ + read_ + given_ != before) {
      uint64_t through = result_reader_ ? std::min(folded_, read_) : folded_;
      ctl(me_).consumed.store(host::stamp(seq_, through + 1), std::memory_order_release);
    }
    if (folded_ < rounds_ || (result_reader_ && read_ < rounds_)) return false;
    // A source in place stays the client's only once every member is done
    // with it (a given one was copied).
    return in_place_offset_ == 0 || consumed(drained_, host::stamp(seq_, rounds_ + 1),
                                             [this](uint32_t j) { return j != me_; });
  }
  void fold_slice(uint64_t k) {
    const size_t bytes = slice_bytes(me_, k);
    if (bytes == 0) return;
    for (uint32_t j = 0; j < n_; ++j) inputs_[j] = input(j, k);
    // A destination that is the source is written after the fold has read
    // it: folded into the block, then copied.
    const bool alias = result_reader_ && dst_ == src_;
    char *out = dst_ + slice_at(me_, k), *post = result_buf(me_, k);
    if (!alias && !(result_reader_ && posts_results_)) {
      red_.combine_all(inputs_, n_, result_reader_ ? out : post, bytes / red_.dt_size);
      return;
    }
    // Into the destination and the block: each piece copied while in L1.
    char *into = alias ? post : out, *also = alias ? out : post;
    const size_t step = std::max<size_t>(kFoldPiece / red_.dt_size, 1) * red_.dt_size;
    for (size_t at = 0; at < bytes; at += step) {
      const size_t len = std::min(step, bytes - at);
      red_.combine_all(inputs_, n_, into + at, len / red_.dt_size);
      std::memcpy(also + at, into + at, len);
      for (uint32_t j = 0; j < n_; ++j) inputs_[j] += len;
    }
  }
  // Whether every member j from `next` on for which counts(j) holds has
  // published a stamp of at least `goal` in word(j); `next` keeps the scan's
  // progress between steps and starts over (0) once every one has.
  template <class Word, class Counts>
  bool all_reached(uint32_t &next, uint64_t goal, Word word, Counts counts) const {
    for (; next < n_; ++next)
      if (counts(next) && !host::reached(word(next).load(std::memory_order_acquire), goal))
        return false;
    next = 0;
    return true;
  }
  std::atomic<uint64_t> &posted_word(uint32_t j) const { return ctl(j).posted; }
  std::atomic<uint64_t> &consumed_word(uint32_t j) const { return ctl(j).consumed; }
  template <class Counts>
  bool consumed(uint32_t &next, uint64_t goal, Counts counts) const {
    return all_reached(
        next, goal, [this](uint32_t j) -> auto & { return consumed_word(j); }, counts);
  }
  // A poster in place: every reader has read the whole stream.
  bool readers_drained() {
    return consumed(drained_, host::stamp(seq_, nchunks_ + 1),
                    [this](uint32_t j) { return reads_from(j, me_); });
  }
  // Chunk c of a scatter's or exchange's stream is read by nobody when it
  // lies in the poster's own block (the poster took that from its source).
  bool unread(uint64_t c) const {
    if (kind_ != kHScatter && kind_ != kHExchange) return false;
    const uint64_t lo = c * chunk_, own = uint64_t{me_} * total_;
    return lo >= own && lo + len(c) <= own + total_;
  }
  // What a member moves within its own memory, once it has started.
  void copy_own() {
    const uint64_t nb = total_;
    if (nb == 0) return;
    auto move = [](char *to, const char *from, uint64_t bytes) {
      if (to != from) std::memmove(to, from, bytes);
    };
    switch (kind_) {
      case kHBcast:  // the root's own copy goes chunk by chunk in post()
        break;
      case kHScatter:
        if (me_ == root_) move(dst_, src_ + me_ * nb, nb);
        break;
      case kHGather:
        if (me_ == root_) move(dst_ + me_ * nb, src_, nb);
        break;
      case kHGatherAll:
        move(dst_ + me_ * nb, src_, nb);
        break;
      case kHExchange:
        move(dst_ + me_ * nb, src_ + me_ * nb, nb);
        break;
      default:
        break;
    }
  }
  // Member's buffer for chunk c (its region holds nbuf_ of them).
  char *buf(uint32_t member, uint64_t c) const {
    if (inline_) return ctl(member).small;
    if (in_place_[member] != nullptr) return in_place_[member] + c * chunk_;
    return area_.data(slot_, member, 0) + (c % nbuf_) * chunk_;
  }
  // Chunk c - nbuf_ (the last one in chunk c's buffer) is read by every
  // reader of this member's stream.
  bool readers_done(uint64_t c) const {
    if (c < nbuf_) return true;
    uint32_t from = 0;  // (a fresh scan: the goal moves with c)
    return consumed(from, host::stamp(seq_, c - nbuf_ + 2),
                    [this](uint32_t j) { return reads_from(j, me_); });
  }
  // A chunk into this member's buffer: with streaming stores when only
  // others read it (stream_out_) and it is large enough to pay for the fence.
  void copy_out(char *to, const char *from, size_t n) const {
#if defined(__x86_64__)
    if (stream_out_ && n >= 4096 && !(reinterpret_cast<uintptr_t>(to) & 63)) {
      stream_copy(to, from, n);
      return;
    }
#endif
    std::memcpy(to, from, n);
  }
#if defined(__x86_64__)
  static void stream_copy(char *to, const char *from, size_t n) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
      __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + i));
      __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + i + 16));
      __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + i + 32));
      __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i *>(to + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i *>(to + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i *>(to + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i *>(to + i + 48), d);
    }
    if (i < n) std::memcpy(to + i, from + i, n - i);
    _mm_sfence();  // before the posted stamp that publishes the chunk
  }
#endif
  // Copies this member's chunks into its buffers as far as the readers allow.
  void post() {
    while (posted_ < nchunks_) {
      if (!readers_done(posted_)) return;
      const char *from = src_ + posted_ * chunk_;
      const size_t bytes = len(posted_);
      if (!unread(posted_)) copy_out(buf(me_, posted_), from, bytes);
      ++posted_;
      ctl(me_).posted.store(host::stamp(seq_, posted_ + 1), std::memory_order_release);
      // A broadcast root's own copy of the chunk, while its readers copy
      // theirs out (not before the first chunk is posted: they would wait);
      // all at once after the last chunk when the two overlap.
      if (kind_ == kHBcast && dst_ != src_) {
        if (apart_)
          std::memcpy(dst_ + (from - src_), from, bytes);
        else if (posted_ == nchunks_)
          std::memmove(dst_, src_, total_);
      }
    }
  }
  // Reads chunk after chunk once every stream this member reads has it.
  void read() {
    while (read_ < nchunks_) {
      if (!all_reached(
              ready_,
              host::stamp(seq_, read_ + 2), [this](uint32_t j) -> auto & { return posted_word(j); },
              [this](uint32_t j) { return reads_from(me_, j); }))
        return;
      take(read_);
      ++read_;
      ctl(me_).consumed.store(host::stamp(seq_, read_ + 1), std::memory_order_release);
    }
  }
  // Copies [from, from + bytes) of the stream into `out`, clipped to this
  // member's block [me * nb, (me + 1) * nb) of it.
  void clip(char *out, const char *data, uint64_t from, size_t bytes) const {
    uint64_t lo = std::max<uint64_t>(from, uint64_t{me_} * total_);
    uint64_t hi = std::min<uint64_t>(from + bytes, uint64_t{me_ + 1} * total_);
    if (lo < hi) std::memcpy(out + (lo - uint64_t{me_} * total_), data + (lo - from), hi - lo);
  }
  void take(uint64_t c) {
    const size_t bytes = len(c);
    const uint64_t off = c * chunk_;
    switch (kind_) {
      case kHBcast:
        std::memcpy(dst_ + off, buf(root_, c), bytes);
        break;
      case kHScatter:
        clip(dst_, buf(root_, c), off, bytes);
        break;
      case kHGather:
      case kHGatherAll:
        for (uint32_t j = 0; j < n_; ++j)
          if (reads_from(me_, j)) std::memcpy(dst_ + j * total_ + off, buf(j, c), bytes);
        break;
      case kHExchange:
        for (uint32_t j = 0; j < n_; ++j)
          if (reads_from(me_, j)) clip(dst_ + j * total_, buf(j, c), off, bytes);
        break;
      case kHFold:
        for (uint32_t j = 0; j < n_; ++j) inputs_[j] = j == me_ ? src_ + off : buf(j, c);
        fold_(dst_ + off, inputs_, n_, bytes);
        break;
      case kHToOne:
      case kHToAll: {
        // Right to left: dst = x0 op (x1 op (... op x_{n-1})), which is the
        // members' values combined in team rank order.
        // (One pass over all the members' chunks for built-in operations:
        // 8 ranks on 2 cores, a 1 MiB reduce-to-one folded pairwise read
        // and wrote the running value seven times.)
        for (uint32_t j = 0; j < n_; ++j)
          inputs_[j] = j == me_ && own_direct_ ? src_ + off : buf(j, c);
        red_.combine_all(inputs_, n_, dst_ + off, bytes / red_.dt_size);
        break;
      }
      default:
        break;
    }
  }
  [[noreturn]] void mismatch(uint32_t member, uint64_t sig) const {
    auto name = [](uint64_t s) {
      switch (s >> 60) {
        case kHBarrier:
          return "a barrier";
        case kHBcast:
          return "a broadcast";
        case kHToOne:
          return "a reduce-to-one";
        case kHToAll:
          return "a reduce-to-all";
        case kHScatter:
          return "a scatter";
        case kHGather:
          return "a gather";
        case kHGatherAll:
          return "a gather-all";
        case kHExchange:
          return "an exchange";
        case kHFold:
          return "a GASNet-1 reduce";
        default:
          return "an unknown collective";
      }
    };
    util::fatal(
        "%s: collective #%u on a team of %u: team rank %u (job rank %u) called %s with root %u "
        "and size %u, but this rank (team rank %u) called %s with root %u and size %llu: the "
        "members' calls do not match",
        api_, seq_, n_, member, team_->to_job(member), name(sig),
        static_cast<unsigned>((sig >> 32) & 0x0FFFFFFFu), static_cast<unsigned>(sig), me_,
        name(sig_), root_, static_cast<unsigned long long>(total_));
  }

  host::TeamArea area_;
  Kind kind_;
  uint32_t slot_;
  char *dst_;
  const char *src_;
  Fold fold_;
  Reduction red_;
  bool rooted_ = false, posts_ = false, reads_ = false;
  bool apart_ = false;       // destination and source share no byte
  bool own_direct_ = false;  // reductions: this member's chunks folded from its source
  bool stream_out_ = false;  // chunks posted with streaming stores
  bool inline_ = false;      // the stream fits in the control line (host::kInline)
  // kHFold, kHToOne, kHToAll: each member's chunk (in small_inputs_ up to
  // kSmallTeam members: no allocation per collective).
  static constexpr uint32_t kSmallTeam = 8;
  const char *small_inputs_[kSmallTeam] = {};
  std::vector<const char *> heap_inputs_;
  const char **inputs_ = small_inputs_;
  // By member: where its stream is read in place (find_in_place), or null.
  char *small_in_place_[kSmallTeam] = {};
  std::vector<char *> heap_in_place_;
  char **in_place_ = small_in_place_;
  uint64_t in_place_offset_ = 0;  // this member's (in_place_offset)
  uint32_t drained_ = 0;          // the final consumed() scan's progress
  // A reduction folded in slices (decide_slices), on teams of at least
  // kSliceMinTeam. A pair keeps the whole-vector fold from both sources in
  // place: there each member folding half and copying the other's half out
  // of its buffer (a cache-to-cache transfer per round) took 180-235 us a
  // 1 MiB reduce-to-one in half the runs, against 100-170 for the whole
  // fold (testcollperf, 6 alternated runs); at 8 ranks on 2 cores slices
  // took 800-1070 against 680-1690.
  static constexpr uint32_t kSliceMinTeam = 3;
  // A region holds at least this many rounds' blocks of slices given.
  static constexpr uint64_t kSliceRounds = 2;
  // A folded piece copied into the block while it is in L1.
  static constexpr size_t kFoldPiece = 4096;
  // Where a slice candidate's control line says, after its offset in place,
  // whether it can slice, and the stamp of the slices it has given.
  static constexpr size_t kSmallAble = 8, kSmallGiven = 16;
  bool slice_candidate_ = false, decided_ = false, sliced_ = false, buffered_ = false;
  bool result_reader_ = false, posts_results_ = false, gives_ = false;
  uint64_t slice_ = 0, block_ = 0, nblocks_ = 2, rounds_ = 0, folded_ = 0, given_ = 0;
  uint32_t fed_ = 0;
  // Streams of at least this many bytes are read in place when they can be
  // (testcollperf, sources in the segment, alternated runs: 2 ranks gain
  // from 4 KiB up, 8 ranks on 2 cores from 8 KiB; below that a poster
  // waiting for every reader to be scheduled costs more than the copy).
  static constexpr uint64_t kInPlaceMin = 8 * 1024;
  uint64_t stream_ = 0;  // bytes each poster posts
  size_t chunk_ = 1;
  uint64_t nbuf_ = 2;
  uint64_t nchunks_ = 0, posted_ = 0, read_ = 0;
  uint64_t sig_ = 0;
  bool started_ = false;
  uint32_t gated_ = 0, arrived_ = 0;
  uint32_t ready_ = 0;
};

// Whether `team` runs its collectives in this host's area (looked up at its
// first collective: every member finds the same answer).
bool on_host(core::Team &team) {
  if (team.host_mode == core::Team::kHostUnknown) {
    bool all = team.size() >= 2;
    for (gex_Rank_t r = 0; r < team.size() && all; ++r) all = host::shares(team.to_job(r));
    if (!all) {
      team.host_mode = core::Team::kHostNone;
    } else if (host::TeamArea a = host::acquire(team.coll_id)) {
      team.host_mode = core::Team::kHostArea;
      team.host_base = &reinterpret_cast<char &>(a.control(0, 0));
    } else {
      team.host_mode = core::Team::kHostNoArea;
    }
  }
  return team.host_mode == core::Team::kHostArea;
}

// Hands the payload storage of handled messages back to the handler, so
// that a message queued later (one that came before its operation started
// here, as the next broadcast's pieces often do) reuses it instead of
// allocating: freed, 64 KiB blocks went back to the system and every new
// one faulted its pages in again (a fifth of a 4-rank 1 MiB broadcast over
// the network).
void recycle(std::vector<Msg> &msgs) {
  if (msgs.empty()) return;
  std::lock_guard<std::mutex> guard(g.inbox_mutex);
  for (Msg &m : msgs) {
    if (m.data.capacity() != 0 && g.spare.size() < kSpareMessages) {
      m.data.clear();
      g.spare.push_back(std::move(m.data));
    }
  }
}

// `op`'s part is done (g.mutex held): it hands back what it borrowed.
void complete(Op &op) {
  op.retire();
  if (op.scratch.capacity) give_buffer(std::move(op.scratch));
  op.finish();
}

// Registers `op` (constructed under g.mutex, held): hands it the messages
// that came before it. A trivial one (nothing to exchange, no gate) is
// complete at once.
void enlist(const std::shared_ptr<Op> &op, bool trivial) {
  g.launched[op->key().first] = op->key().second + 1;
  if (trivial && !op->gate) {
    complete(*op);
    return;
  }
  auto it = g.early.find(op->key());
  if (it != g.early.end()) {
    for (Msg &m : it->second) op->receive(m);
    recycle(it->second);
    g.early.erase(it);
  }
  auto at = std::upper_bound(g.active.begin(), g.active.end(), op->key(),
                             [](const Key &k, const auto &a) { return k < a.first; });
  g.active.emplace(at, op->key(), op);
  if (!g.hooked) {
    core::set_poll_hook(core::PollHook::kColl, &poll_hook);
    g.hooked = true;
  }
}

// Starts `op` (constructed under g.mutex): enlists it and lets it send.
OpRef launch(std::unique_lock<EngineMutex> &lock, std::shared_ptr<Op> op, bool trivial) {
  enlist(op, trivial);
  lock.unlock();
  advance();
  return op;
}

// Lets an enlisted operation send (releasing g.mutex).
OpRef run(std::unique_lock<EngineMutex> &lock, OpRef op) {
  lock.unlock();
  advance();
  return op;
}

// The operations on any team, g.mutex held, enlisted (not yet advanced).
std::shared_ptr<Op> make_barrier(const char *api, core::Team &t, OpRef gate) {
  std::shared_ptr<Op> op;
  if (on_host(t))
    op = std::make_shared<HostOp>(api, t, HostOp::kHBarrier, 0, nullptr, nullptr, 0, nullptr);
  else
    op = std::make_shared<BarrierOp>(api, t);
  op->gate = std::move(gate);
  enlist(op, t.size() == 1);
  return op;
}
std::shared_ptr<Op> make_broadcast(const char *api, core::Team &t, gex_Rank_t root, void *dst,
                                   const void *src, size_t nbytes, OpRef gate) {
  std::shared_ptr<Op> op;
  bool trivial = false;  // a host-phase operation always takes its slot in turn
  if (on_host(t)) {
    op = std::make_shared<HostOp>(api, t, HostOp::kHBcast, root, dst, src, nbytes, nullptr);
  } else {
    op = std::make_shared<BroadcastOp>(api, t, root, dst, src, nbytes);
    trivial = t.size() == 1 || nbytes == 0;
  }
  op->gate = std::move(gate);
  enlist(op, trivial);
  return op;
}
std::shared_ptr<Op> make_reduce(const char *api, core::Team &t, bool to_all, gex_Rank_t root,
                                void *dst, const void *src, const Reduction &red, size_t count,
                                OpRef gate) {
  std::shared_ptr<Op> op;
  if (red.dt_size <= host::kChunk && on_host(t)) {
    const size_t bytes = count * red.dt_size;
    if (to_all && host::oversubscribed() && bytes > host::chunk_for(host::ranks())) {
      // More ranks than cores: every member folding every chunk (n times
      // the work of one fold) costs more than the handoffs it saves; a
      // reduction to rank 0 and a broadcast from it fold once.
      op = std::make_shared<HostOp>(api, t, HostOp::kHToOne, 0, dst, src, bytes, &red);
      op->gate = std::move(gate);
      enlist(op, false);
      gate = op;
      op = std::make_shared<HostOp>(api, t, HostOp::kHBcast, 0, dst, dst, bytes, nullptr);
    } else {
      op = std::make_shared<HostOp>(api, t, to_all ? HostOp::kHToAll : HostOp::kHToOne,
                                    to_all ? 0 : root, dst, src, bytes, &red);
    }
    op->gate = std::move(gate);
    enlist(op, false);
    return op;
  }
  if (to_all &&
      ExchangeReduceOp::fits(t.size(), red, uint64_t{count} * red.dt_size, g.am->max_medium())) {
    op = std::make_shared<ExchangeReduceOp>(api, t, dst, src, red, count);
    op->gate = std::move(gate);
    enlist(op, false);
    return op;
  }
  op = std::make_shared<ReduceOp>(api, t, to_all, root, dst, src, red, count);
  bool trivial = count == 0 || t.size() == 1;
  if (trivial && !gate && count && (to_all || t.rank() == root))
    std::memmove(dst, src, count * red.dt_size);
  op->gate = std::move(gate);
  enlist(op, trivial);
  return op;
}

// A team whose members are on several hosts (shared-memory neighbourhoods),
// some of them with more than one member: one leader per host (its first
// member in team order) runs the network phase among the leaders, and each
// host's members run the host phase among themselves (in the host area
// where they have one), as operations on two internal teams chained by
// gates. Every member builds the same two teams from the job's topology.
struct Hier {
  core::Team host;                  // this rank's host's members, in team order
  core::Team leaders;               // every host's first member, in team order
  std::vector<uint32_t> group;      // by team rank: its host's index (leaders-team rank)
  std::vector<uint32_t> host_rank;  // by team rank: its rank in its host's team
  bool leader = false;
  // Every host's members are a contiguous run of team ranks (then hosts in
  // leader order are in team rank order, so non-commutative reductions
  // can take the two levels too).
  bool contiguous = false;
};
std::map<uint64_t, std::unique_ptr<Hier>> g_hier;  // by team id (g.mutex); null: flat

uint64_t mix(uint64_t id, uint64_t tag) {
  uint64_t z = id + 0x9E3779B97F4A7C15ull * (tag + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// g.mutex held; after on_host(team) said no.
Hier *hier_of(core::Team &team) {
  if (team.host_mode != core::Team::kHostNone || team.size() < 3) return nullptr;
  auto it = g_hier.find(team.coll_id);
  if (it != g_hier.end()) return it->second.get();
  const core::Topology &topo = core::Runtime::get("collectives").topology();
  auto h = std::make_unique<Hier>();
  std::map<uint32_t, uint32_t> index;  // neighbourhood -> group
  std::vector<std::vector<gex_Rank_t>> groups;
  h->group.resize(team.size());
  h->host_rank.resize(team.size());
  for (gex_Rank_t r = 0; r < team.size(); ++r) {
    gex_Rank_t j = team.to_job(r);
    auto [g_it, fresh] = index.emplace(topo.nbrhd_of(j), static_cast<uint32_t>(groups.size()));
    if (fresh) groups.emplace_back();
    h->group[r] = g_it->second;
    h->host_rank[r] = static_cast<uint32_t>(groups[g_it->second].size());
    groups[g_it->second].push_back(j);
  }
  if (groups.size() == 1 || groups.size() == team.size()) {  // nothing to gain
    g_hier.emplace(team.coll_id, nullptr);
    return nullptr;
  }
  const gex_Rank_t me = team.to_job(team.rank());
  const uint32_t mine = h->group[team.rank()];
  std::vector<gex_Rank_t> firsts;
  for (auto &grp : groups) firsts.push_back(grp[0]);
  h->host = core::Team::list(groups[mine], me);
  h->host.coll_id = mix(team.coll_id, 1 + uint64_t{topo.nbrhd_of(me)});
  h->leaders = core::Team::list(std::move(firsts), me);
  h->leaders.coll_id = mix(team.coll_id, 0);
  h->leader = h->host_rank[team.rank()] == 0;
  h->contiguous = std::is_sorted(h->group.begin(), h->group.end());
  Hier *out = h.get();
  g_hier.emplace(team.coll_id, std::move(h));
  return out;
}

// Host barrier (all here), leaders' barrier, host barrier (all there).
OpRef hier_barrier(const char *api, Hier &h) {
  OpRef last = make_barrier(api, h.host, nullptr);
  if (h.leader) last = make_barrier(api, h.leaders, last);
  return make_barrier(api, h.host, last);
}
// On the root's host, a host broadcast from the root first when it is not
// the leader; the leaders' broadcast from the root's host; on the other
// hosts, a host broadcast from the leader after it.
OpRef hier_broadcast(const char *api, core::Team &team, Hier &h, gex_Rank_t root, void *dst,
                     const void *src, size_t nbytes) {
  const uint32_t rg = h.group[root], mg = h.group[team.rank()];
  OpRef last;
  if (mg == rg && h.host_rank[root] != 0) {
    last = make_broadcast(api, h.host, h.host_rank[root], dst, src, nbytes, nullptr);
    if (h.leader) last = make_broadcast(api, h.leaders, rg, dst, dst, nbytes, last);
    return last;
  }
  if (h.leader)
    last =
        make_broadcast(api, h.leaders, rg, dst, team.rank() == root ? src : dst, nbytes, nullptr);
  return make_broadcast(api, h.host, 0, dst, dst, nbytes, last);
}
// Whether a reduction may take the two levels: a commutative one always;
// a non-commutative one when every host is a contiguous run of team ranks
// (host results, combined in leader order, are then in team rank order).
bool hier_reduces(const Hier &h, const Reduction &red) {
  return red.commutative() || h.contiguous;
}
// A reduce-to-all: a host reduction to the leader, the leaders'
// reduce-to-all, a host broadcast from the leader.
OpRef hier_reduce_all(const char *api, Hier &h, void *dst, const void *src, const Reduction &red,
                      size_t count) {
  OpRef last = make_reduce(api, h.host, false, 0, dst, src, red, count, nullptr);
  if (h.leader) last = make_reduce(api, h.leaders, true, 0, dst, dst, red, count, last);
  return make_broadcast(api, h.host, 0, dst, dst, count * red.dt_size, last);
}
// A reduce-to-one: a host reduction to the leader (into a buffer of the
// leader's), the leaders' reduce-to-one to the root's leader, and, when
// the root is not its host's leader, a host broadcast from the leader on
// the root's host (the root's dst; the others there take a buffer). Only
// the root's dst is written.
OpRef hier_reduce_one(const char *api, core::Team &team, Hier &h, gex_Rank_t root, void *dst,
                      const void *src, const Reduction &red, size_t count) {
  const size_t bytes = count * red.dt_size;
  const uint32_t rg = h.group[root];
  const bool root_host = h.group[team.rank()] == rg, me_root = team.rank() == root;
  const bool hand_over = root_host && h.host_rank[root] != 0;
  Buffer tmp;
  char *part = nullptr;  // the leader's partial result; a non-root's landing place
  if (h.leader || (hand_over && !me_root)) {
    tmp = take_buffer(bytes);
    part = tmp.data();
  }
  char *lead_dst = (h.leader && me_root) ? static_cast<char *>(dst) : part;
  OpRef last =
      make_reduce(api, h.host, false, 0, h.leader ? part : nullptr, src, red, count, nullptr);
  if (h.leader) last = make_reduce(api, h.leaders, false, rg, lead_dst, part, red, count, last);
  if (hand_over) last = make_broadcast(api, h.host, 0, me_root ? dst : part, part, bytes, last);
  // The buffer lives until the chain's last operation here completes.
  if (tmp.capacity) last->scratch = std::move(tmp);
  return last;
}

void check_member(const char *api, const core::Team &team) {
  if (team.rank() == GEX_RANK_INVALID)
    util::fatal("%s: this process is not a member of the team (%s)", api, team.describe().c_str());
}

class CollEvent final : public gexx_event_s {
 public:
  explicit CollEvent(OpRef op) : op_(std::move(op)) {}
  bool test() override {
    if (done(*op_)) return true;
    advance();
    core::poll("gex_Event_Test");
    return done(*op_);
  }
  void wait() override { coll::wait(*op_); }

 private:
  OpRef op_;
};

}  // namespace

void open(core::am::Engine &engine, core::HandlerTable &handlers, bool concurrent) {
  g.am = &engine;
  g.mutex.set_concurrent(concurrent);
  handlers.register_internal(core::kCollHandler, reinterpret_cast<gex_AM_Fn_t>(&handler),
                             GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, kArgs, "collectives");
}

OpRef barrier(const char *api, core::Team &team) {
  check_member(api, team);
  if (team.size() == 1) return done_ref();
  std::unique_lock<EngineMutex> lock(g.mutex);
  std::shared_ptr<Op> op;
  if (!on_host(team)) {
    if (Hier *h = hier_of(team)) {
      OpRef last = hier_barrier(api, *h);
      lock.unlock();
      advance();
      return last;
    }
  }
  return run(lock, make_barrier(api, team, nullptr));
}

OpRef barrier(const char *api, core::Team &team, OpRef gate) {
  check_member(api, team);
  std::unique_lock<EngineMutex> lock(g.mutex);
  return run(lock, make_barrier(api, team, std::move(gate)));
}

bool host_phase(core::Team &team) {
  std::lock_guard<EngineMutex> lock(g.mutex);
  return on_host(team);
}

OpRef host_move(const char *api, core::Team &team, Move move, gex_Rank_t root, void *dst,
                const void *src, size_t nbytes, OpRef gate, Fold fold, size_t elem) {
  check_member(api, team);
  if (root >= team.size())
    util::fatal("%s: root %u is not a rank of this team of %u", api, root, team.size());
  if (elem == 0 || elem > host::kChunk)
    util::fatal("%s: element size %zu (1 to %zu bytes)", api, elem, host::kChunk);
  std::unique_lock<EngineMutex> lock(g.mutex);
  if (!on_host(team))
    util::fatal("%s: the team's members do not all share this host's memory", api);
  auto op = std::make_shared<HostOp>(api, team, static_cast<HostOp::Kind>(move), root, dst, src,
                                     nbytes, nullptr, std::move(fold), elem);
  op->gate = std::move(gate);
  return launch(lock, op, false);
}

OpRef broadcast(const char *api, core::Team &team, gex_Rank_t root, void *dst, const void *src,
                size_t nbytes) {
  check_member(api, team);
  if (root >= team.size())
    util::fatal("%s: root %u is not a rank of this team of %u", api, root, team.size());
  if (team.size() == 1) {
    if (dst != src && nbytes) std::memmove(dst, src, nbytes);
    return done_ref();
  }
  std::unique_lock<EngineMutex> lock(g.mutex);
  if (!on_host(team)) {
    if (Hier *h = hier_of(team)) {
      OpRef last = hier_broadcast(api, team, *h, root, dst, src, nbytes);
      lock.unlock();
      advance();
      return last;
    }
  }
  return run(lock, make_broadcast(api, team, root, dst, src, nbytes, nullptr));
}

OpRef reduce(const char *api, core::Team &team, bool to_all, gex_Rank_t root, void *dst,
             const void *src, const Reduction &red, size_t count) {
  check_member(api, team);
  red.check(api);
  if (!to_all && root >= team.size())
    util::fatal("%s: root %u is not a rank of this team of %u", api, root, team.size());
  if (team.size() == 1) {  // the one value is the result
    if (dst != src && count) std::memmove(dst, src, count * red.dt_size);
    return done_ref();
  }
  std::unique_lock<EngineMutex> lock(g.mutex);
  if (!on_host(team)) {
    Hier *h = hier_of(team);
    if (h && hier_reduces(*h, red)) {
      OpRef last = to_all ? hier_reduce_all(api, *h, dst, src, red, count)
                          : hier_reduce_one(api, team, *h, root, dst, src, red, count);
      lock.unlock();
      advance();
      return last;
    }
  }
  return run(lock, make_reduce(api, team, to_all, root, dst, src, red, count, nullptr));
}

void advance() {
  if (t_advancing) return;
  std::unique_lock<EngineMutex> lock(g.mutex, std::try_to_lock);
  if (!lock.owns_lock()) return;
  t_advancing = true;
  const bool idle = g.active.empty();
  std::vector<Msg> &msgs = g.spare_msgs;  // empty here; its capacity is kept
  if (g.inbox_pending.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> guard(g.inbox_mutex);
    msgs.swap(g.inbox);
    g.inbox_pending.store(false, std::memory_order_relaxed);
  }
  for (Msg &m : msgs) {
    Key k{m.team, m.seq};
    if (Op *op = find_active(k))
      op->receive(m);
    else if (stale(m))
      mismatch(m);
    else
      g.early[k].push_back(std::move(m));
  }
  recycle(msgs);
  msgs.clear();
  // (Nothing enlists while this runs: g.mutex is held and t_advancing set.)
  for (size_t i = 0; i < g.active.size();) {
    Op &op = *g.active[i].second;
    if (op.gate && !done(*op.gate)) {
      ++i;
      continue;
    }
    op.gate.reset();
    if (op.step()) {
      complete(op);
      g.active.erase(g.active.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  if (idle && g.active.empty() && g.hooked) {
    core::set_poll_hook(core::PollHook::kColl, nullptr);
    g.hooked = false;
  }
  t_advancing = false;
}

void wait(const Op &op) {
  uint32_t spins = 0;
  advance();
  // While anything is in flight the poll hook is set: each poll advances.
  while (!done(op)) {
    core::poll();
    if (done(op)) break;
    core::relax(spins);
  }
}

gex_Event_t event(OpRef op) {
  if (done(*op)) return GEX_EVENT_INVALID;
  return new CollEvent(std::move(op));
}

namespace {
void forget_locked(core::Team &team) {
  g.launched.erase(team.coll_id);
  if (team.host_mode == core::Team::kHostArea || team.host_mode == core::Team::kHostNoArea)
    host::release(team.coll_id);
  team.host_mode = core::Team::kHostNone;
}
}  // namespace

void forget_team(core::Team &team) {
  std::lock_guard<EngineMutex> guard(g.mutex);
  auto it = g_hier.find(team.coll_id);
  if (it != g_hier.end()) {
    if (it->second) {
      forget_locked(it->second->host);
      forget_locked(it->second->leaders);
    }
    g_hier.erase(it);
  }
  forget_locked(team);
}

void attach_host_area(void *area, uint32_t ranks, std::vector<uint8_t> shares) {
  host::attach(area, ranks, std::move(shares));
}

size_t host_area_size(uint32_t ranks) {
  return host::area_size(ranks);
}

uint32_t next_team_counter() {
  return g.team_counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace gexx::coll
