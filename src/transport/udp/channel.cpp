// The udp conduit's datagrams: streams, windows, acknowledgements, RMA
// (channel.hpp says what and why).
#include "transport/udp/channel.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "util/cycle_clock.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::transport::udp {

namespace {

enum Type : uint8_t { kData = 1, kAck = 2 };
enum Op : uint8_t { kAm = 1, kPut = 2, kGet = 3, kGetReply = 4, kAmBundle = 5 };
// kAckSoon: acknowledge by the end of the poll that reads it (the last
// datagram of a put in a burst: fewer acknowledgements than one a put, and
// none waits for a later poll of the target).
enum WireFlag : uint8_t { kAckNow = 1, kNack = 2, kAckSoon = 4 };

// Every datagram starts with this.
struct Wire {
  uint64_t key;     // the job's key
  uint32_t src;     // sending rank
  uint32_t seq;     // kData: its number in its stream
  uint32_t ack[2];  // the sender has taken everything below ack[s] on our stream s
  uint8_t type;     // Type
  uint8_t stream;   // 0 requests, 1 the rest
  uint8_t op;       // kData: Op
  uint8_t flags;    // WireFlag
  uint32_t len;     // bytes after this header
};
static_assert(sizeof(Wire) == Channel::kPacketHeader);

constexpr size_t kAmHeader = sizeof(AmHeader);
constexpr size_t args_bytes(unsigned nargs) {
  return (nargs * 4 + 15) / 16 * 16;
}
constexpr size_t kSmallBody = 1024;
constexpr size_t kLargeBody = Channel::kMaxDatagram - Channel::kPacketHeader;
static_assert(kAmHeader + 64 + Channel::kMaxMedium <= kLargeBody);
static_assert(16 + Channel::kChunk <= kLargeBody);
constexpr size_t kRecvBytes = 65536;
// Datagrams queued toward a peer on one stream beyond the window (not sent
// yet): more waits (an AM polls, a put polls for replies). Few: each holds a
// buffer of up to 64 KiB, and a flood that cycles through many buffers
// copies into memory that has left the cache (AMMedium flood of 65000
// bytes: 4.41-4.44 GB/s with 128 queued, 4.55-4.60 with 8 or 16).
constexpr size_t kUnsentMax = 16;
// Large datagrams kept for reuse (at most this many; more go back to the heap).
constexpr size_t kLargePool = 128;
// A bundle's records: an 8-byte length word, then the AM, padded to 16.
constexpr size_t kRecordHeader = 16;
constexpr size_t record_bytes(size_t am) {
  return kRecordHeader + (am + 15) / 16 * 16;
}
constexpr int kPollBudget = 64;
// Datagrams in flight per stream (and bytes: Limits::window_bytes).
constexpr size_t kWindowPackets = 64;
constexpr uint32_t kAckEvery = 16;
constexpr uint64_t kAckDelay = util::kClock6us * 4;
constexpr uint64_t kNackGap = util::kClock50us;
constexpr uint64_t kResendGap = util::kClock50us;
constexpr uint64_t kRtoInit = util::kClock50us * 20;
constexpr uint64_t kRtoMax = util::kClock50us * 4000;

// a comes after b in a stream's numbering (which wraps).
bool after(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(a - b) > 0;
}

// The address peers on other hosts reach this rank at: an interface's IPv4
// address that starts with `want` (GASNET_WORKERIP, e.g. "10.1." or a whole
// address) when set, else the host name's first non-loopback address, else
// the first non-loopback interface that is up.
in_addr host_address(const std::string &want) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  in_addr found{};
  std::string seen;
  ifaddrs *ifs = nullptr;
  if (getifaddrs(&ifs) == 0) {
    for (ifaddrs *i = ifs; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
      in_addr ip = reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr;
      std::string dotted = inet_ntoa(ip);
      seen += (seen.empty() ? "" : ", ") + std::string(i->ifa_name) + " " + dotted;
      bool loopback = (ntohl(ip.s_addr) >> 24) == 127;
      if (!found.s_addr && (want.empty() ? !loopback : dotted.rfind(want, 0) == 0)) found = ip;
    }
    freeifaddrs(ifs);
  }
  if (!want.empty()) {
    if (!found.s_addr)
      util::fatal(
          "udp conduit: GASNET_WORKERIP='%s' matches no IPv4 address of this host (%s): "
          "name an address or prefix of one of them",
          want.c_str(), seen.empty() ? "none" : seen.c_str());
    return found;
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo *res = nullptr;
  if (getaddrinfo(host, nullptr, &hints, &res) == 0) {
    for (addrinfo *a = res; a; a = a->ai_next) {
      in_addr ip = reinterpret_cast<sockaddr_in *>(a->ai_addr)->sin_addr;
      if ((ntohl(ip.s_addr) >> 24) != 127) {
        found = ip;
        break;
      }
    }
    freeaddrinfo(res);
  }
  if (!found.s_addr)
    util::fatal(
        "udp conduit: this host (%s) has no IPv4 address other than loopback, and the job has "
        "ranks on other hosts; give the host an address its peers can reach (its name in "
        "/etc/hosts or DNS, or an interface that is up), or name one with GASNET_WORKERIP",
        host);
  return found;
}

}  // namespace

struct alignas(16) Channel::Out {
  size_t cap = 0;             // body bytes allocated
  size_t len = 0;             // body bytes in use
  const char *ext = nullptr;  // data sent from elsewhere, after the body
  size_t ext_len = 0;
  RmaCompletion *done = nullptr;  // counted until acknowledged
  uint32_t seq = 0;
  uint8_t op = 0;
  bool ack_now = false;
  bool ack_soon = false;
  uint16_t sends = 0;
  char *bytes() { return reinterpret_cast<char *>(this + 1); }  // Wire, then the body
  char *body() { return bytes() + kPacketHeader; }
};

Channel::Channel(bootstrap::Bootstrap &boot, AmSink &sink, const Limits &limits)
    : boot_(boot), sink_(sink), limits_(limits), rank_(boot.rank()), peers_(boot.size()) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) util::fatal("udp conduit: socket(): %s", strerror(errno));
  int want = limits_.socket_buffer;
  setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
  setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
  socklen_t l = sizeof rcvbuf_;
  getsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf_, &l);
  l = sizeof sndbuf_;
  getsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &sndbuf_, &l);

  const auto &host = boot.host_ranks();
  bool one_host = host.size() == boot.size();
  sockaddr_in me{};
  me.sin_family = AF_INET;
  me.sin_addr.s_addr = htonl(one_host ? INADDR_LOOPBACK : INADDR_ANY);
  if (bind(fd_, reinterpret_cast<sockaddr *>(&me), sizeof me) != 0)
    util::fatal("udp conduit: bind(): %s", strerror(errno));
  l = sizeof me;
  getsockname(fd_, reinterpret_cast<sockaddr *>(&me), &l);
  if (!one_host) me.sin_addr = host_address(limits_.worker_ip);

  struct Card {
    uint64_t key;
    uint32_t ip;
    uint16_t port;
    uint16_t pad;
  };
  Card card{};
  if (rank_ == 0) {
    if (getrandom(&card.key, sizeof card.key, 0) != sizeof card.key)
      card.key = util::cycle_clock() ^ (static_cast<uint64_t>(getpid()) << 32);
    card.key ^= bootstrap::fingerprint(boot.job_id().data(), boot.job_id().size());
  }
  card.ip = me.sin_addr.s_addr;
  card.port = me.sin_port;
  auto cards = boot.allgather(card);
  key_ = cards[0].key;
  std::vector<uint8_t> local(boot.size(), 0);
  for (uint32_t r : host) local[r] = 1;
  for (uint32_t r = 0; r < boot.size(); ++r) {
    Peer &p = peers_[r];
    p.addr.sin_family = AF_INET;
    p.addr.sin_port = cards[r].port;
    p.addr.sin_addr.s_addr = local[r] ? htonl(INADDR_LOOPBACK) : cards[r].ip;
    p.out[0].rto = p.out[1].rto = kRtoInit;
  }
}

Channel::~Channel() {
  if (fd_ >= 0) close(fd_);
  for (Peer &p : peers_)
    for (Stream &s : p.out)
      for (Out *o : s.queue) ::operator delete(o);
  for (Out *o : free_small_) ::operator delete(o);
  for (Out *o : free_large_) ::operator delete(o);
}

Channel::Out *Channel::new_out(size_t body) {
  if (body > kLargeBody) util::fatal("udp conduit: a datagram of %zu bytes (internal error)", body);
  bool small = body <= kSmallBody;
  auto &list = small ? free_small_ : free_large_;
  Out *o;
  if (!list.empty()) {
    o = list.back();
    list.pop_back();
  } else {
    size_t cap = small ? kSmallBody : kLargeBody;
    o = new (::operator new(sizeof(Out) + kPacketHeader + cap)) Out;
    o->cap = cap;
    // Every page touched now: a pooled datagram later filled further than
    // before (a burst of larger messages) would otherwise fault page by page
    // in the middle of it (about 1 ms in a burst of 200 32 KiB puts here).
    if (!small) std::memset(o->bytes(), 0, kPacketHeader + cap);
  }
  o->len = body;
  o->ext = nullptr;
  o->ext_len = 0;
  o->done = nullptr;
  o->ack_now = false;
  o->ack_soon = false;
  o->sends = 0;
  return o;
}

void Channel::free_out(Out *o) {
  auto &list = o->cap == kSmallBody ? free_small_ : free_large_;
  if (list.size() < (o->cap == kSmallBody ? 1024u : kLargePool)) {
    list.push_back(o);
  } else {
    ::operator delete(o);
  }
}

void Channel::enqueue(uint32_t peer, int stream, Out *o) {
  Peer &p = peers_[peer];
  Stream &s = p.out[stream];
  o->seq = s.next_seq++;
  Wire &w = *reinterpret_cast<Wire *>(o->bytes());
  w.key = key_;
  w.src = rank_;
  w.seq = o->seq;
  w.type = kData;
  w.stream = static_cast<uint8_t>(stream);
  w.op = o->op;
  w.len = static_cast<uint32_t>(o->len + o->ext_len);
  s.queue.push_back(o);
  if (!p.active) {
    p.active = true;
    active_.push_back(peer);
  }
  transmit(peer, stream);
}

bool Channel::send_datagram(uint32_t peer, Out *o) {
  Peer &p = peers_[peer];
  Wire &w = *reinterpret_cast<Wire *>(o->bytes());
  w.ack[0] = p.expect[0];
  w.ack[1] = p.expect[1];
  iovec iov[2] = {{o->bytes(), kPacketHeader + o->len}, {const_cast<char *>(o->ext), o->ext_len}};
  msghdr m{};
  m.msg_name = &p.addr;
  m.msg_namelen = sizeof p.addr;
  m.msg_iov = iov;
  m.msg_iovlen = o->ext_len ? 2 : 1;
  for (;;) {
    if (sendmsg(fd_, &m, MSG_DONTWAIT) >= 0) break;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) return false;
    util::fatal("udp conduit: sending %zu bytes to rank %u (%s:%u): %s",
                kPacketHeader + o->len + o->ext_len, peer, inet_ntoa(p.addr.sin_addr),
                ntohs(p.addr.sin_port), strerror(errno));
  }
  if (o->sends++) {
    ++stats_.resent;
  } else {
    ++stats_.sent;
  }
  p.owed = 0;  // the acknowledgement went with it
  p.ack_now = false;
  p.ack_soon = false;
  return true;
}

void Channel::transmit(uint32_t peer, int stream) {
  Stream &s = peers_[peer].out[stream];
  if (s.held) return;
  while (s.sent < s.queue.size()) {
    Out *o = s.queue[s.sent];
    size_t bytes = o->len + o->ext_len;
    if (s.sent > 0 && (s.sent >= kWindowPackets || s.inflight_bytes + bytes > limits_.window_bytes))
      break;
    Wire &w = *reinterpret_cast<Wire *>(o->bytes());
    // The datagram that fills half the window asks for an acknowledgement
    // at once (so the window reopens before it is full); the ones after it
    // are acknowledged with it or every kAckEvery.
    bool half = (s.sent + 1 == kWindowPackets / 2) ||
                (s.inflight_bytes < limits_.window_bytes / 2 &&
                 s.inflight_bytes + bytes >= limits_.window_bytes / 2);
    w.flags =
        static_cast<uint8_t>(((o->ack_now || half) ? kAckNow : 0) | (o->ack_soon ? kAckSoon : 0));
    if (!send_datagram(peer, o)) break;  // the socket is full: the next poll sends it
    if (s.sent == 0) s.progress_at = util::cycle_clock();
    ++s.sent;
    s.inflight_bytes += bytes;
  }
}

bool Channel::join_tail(Stream &s, Out *o) {
  if (s.queue.size() <= s.sent || o->len > kBundleItem) return false;
  Out *tail = s.queue.back();
  if (tail->op == kAm) {  // becomes a bundle of the two
    if (tail->len > kBundleItem || record_bytes(tail->len) + record_bytes(o->len) > kLargeBody)
      return false;
    Out *b = new_out(kLargeBody);
    b->len = 0;
    b->op = kAmBundle;
    b->seq = tail->seq;
    b->ack_now = tail->ack_now;
    std::memcpy(b->bytes(), tail->bytes(), kPacketHeader);
    uint64_t n = tail->len;
    std::memcpy(b->body(), &n, sizeof n);
    std::memcpy(b->body() + kRecordHeader, tail->body(), tail->len);
    b->len = record_bytes(tail->len);
    free_out(tail);
    s.queue.back() = b;
    tail = b;
  } else if (tail->op != kAmBundle || tail->len + record_bytes(o->len) > kLargeBody) {
    return false;
  }
  uint64_t n = o->len;
  std::memcpy(tail->body() + tail->len, &n, sizeof n);
  std::memcpy(tail->body() + tail->len + kRecordHeader, o->body(), o->len);
  tail->len += record_bytes(o->len);
  Wire &w = *reinterpret_cast<Wire *>(tail->bytes());
  w.op = kAmBundle;
  w.len = static_cast<uint32_t>(tail->len);
  free_out(o);
  return true;
}

void Channel::release_held(uint32_t peer) {
  for (int i = 0; i < 2; ++i) {
    Stream &s = peers_[peer].out[i];
    if (!s.held) continue;
    s.held = false;
    transmit(peer, i);
  }
}

void Channel::send_ack(uint32_t peer, bool nack, int stream) {
  Peer &p = peers_[peer];
  Wire w{};
  w.key = key_;
  w.src = rank_;
  w.ack[0] = p.expect[0];
  w.ack[1] = p.expect[1];
  w.type = kAck;
  w.stream = static_cast<uint8_t>(stream);
  w.flags = nack ? kNack : 0;
  for (;;) {
    if (sendto(fd_, &w, sizeof w, MSG_DONTWAIT, reinterpret_cast<sockaddr *>(&p.addr),
               sizeof p.addr) >= 0)
      break;
    if (errno == EINTR) continue;
    return;  // socket full: still owed, the next poll tries again
  }
  ++stats_.acks;
  p.owed = 0;
  p.ack_now = false;
  p.ack_soon = false;
}

void Channel::take_acks(uint32_t peer, const uint32_t ack[2]) {
  Peer &p = peers_[peer];
  for (int i = 0; i < 2; ++i) {
    Stream &s = p.out[i];
    if (!after(ack[i], s.acked) || after(ack[i], s.next_seq)) continue;
    while (!s.queue.empty() && after(ack[i], s.queue.front()->seq)) {
      Out *o = s.queue.front();
      s.queue.pop_front();
      if (s.sent > 0) {
        --s.sent;
        s.inflight_bytes -= std::min(s.inflight_bytes, o->len + o->ext_len);
      }
      if (o->done) o->done->pending.fetch_sub(1, std::memory_order_release);
      free_out(o);
    }
    s.acked = ack[i];
    s.progress_at = util::cycle_clock();
    s.rto = kRtoInit;
    transmit(peer, i);
  }
}

void Channel::resend_oldest(uint32_t peer, int stream, uint64_t now, bool force) {
  Stream &s = peers_[peer].out[stream];
  if (s.sent == 0 || (!force && now > s.resend_at && now - s.resend_at < kResendGap)) return;
  s.resend_at = now;
  send_datagram(peer, s.queue.front());
}

void Channel::timers(uint64_t now) {
  size_t keep = 0;
  for (uint32_t peer : active_) {
    Peer &p = peers_[peer];
    for (int i = 0; i < 2; ++i) {
      Stream &s = p.out[i];
      if (s.queue.empty()) continue;
      // progress_at may be later than `now` (set during this poll)
      if (s.sent > 0 && now > s.progress_at && now - s.progress_at > s.rto) {
        resend_oldest(peer, i, now, true);
        s.rto = std::min(s.rto * 2, kRtoMax);
        s.progress_at = now;
      }
      transmit(peer, i);
    }
    if (p.out[0].queue.empty() && p.out[1].queue.empty()) {
      p.active = false;
    } else {
      active_[keep++] = peer;
    }
  }
  active_.resize(keep);
}

void Channel::apply(uint32_t peer, int stream, char *body, size_t len) {
  Wire &w = *reinterpret_cast<Wire *>(body - kPacketHeader);
  auto in_segment = [&](uint64_t addr, uint64_t n, const char *what) {
    uint64_t base = reinterpret_cast<uint64_t>(seg_base_);
    if (addr < base || n > seg_size_ || addr - base > seg_size_ - n)
      util::fatal(
          "udp conduit: rank %u asked for a %s of %llu bytes at 0x%llx, outside this "
          "rank's segment (internal error)",
          peer, what, static_cast<unsigned long long>(n), static_cast<unsigned long long>(addr));
  };
  switch (w.op) {
    case kPut: {
      uint64_t remote;
      std::memcpy(&remote, body, 8);
      size_t n = len - 16;
      in_segment(remote, n, "put");
      std::memcpy(reinterpret_cast<void *>(remote), body + 16, n);
      return;
    }
    case kGet: {
      uint64_t f[3];
      std::memcpy(f, body, sizeof f);
      in_segment(f[0], f[1], "get");
      for (uint64_t off = 0; off < f[1]; off += kChunk) {
        Out *o = new_out(16);
        uint64_t g[2] = {f[2], off};
        std::memcpy(o->body(), g, sizeof g);
        o->ext = reinterpret_cast<const char *>(f[0] + off);
        o->ext_len = std::min<uint64_t>(kChunk, f[1] - off);
        o->op = kGetReply;
        enqueue(peer, 1, o);
      }
      return;
    }
    case kGetReply: {
      uint64_t g[2];
      std::memcpy(g, body, sizeof g);
      auto *op = reinterpret_cast<GetOp *>(g[0]);
      size_t n = len - 16;
      std::memcpy(op->dest + g[1], body + 16, n);
      op->remaining -= n;
      if (op->remaining == 0) {
        op->done->pending.fetch_sub(1, std::memory_order_release);
        delete op;
      }
      return;
    }
    default:
      util::fatal("udp conduit: a datagram of unknown kind %u from rank %u on stream %d", w.op,
                  peer, stream);
  }
}

void Channel::deliver(char *body, size_t len) {
  AmHeader h;
  std::memcpy(&h, body, kAmHeader);
  size_t at = kAmHeader + args_bytes(h.nargs);
  if (h.nargs > wire::kMaxArgs || at > len || len - at > kMaxMedium)
    util::fatal("udp conduit: a malformed active message from rank %u (%zu bytes)", h.src, len);
  sink_.deliver(h, reinterpret_cast<const int32_t *>(body + kAmHeader), body + at);
}

namespace {
// Inside run() of a bundle on this thread: the replies its handlers send
// wait for the bundle's end and leave together.
thread_local int t_in_bundle = 0;
// Inside a poll from a test (Transport::poll_in_test) on this thread: a
// young burst stays held when a bundle's replies leave.
thread_local bool t_keep_young = false;
}  // namespace

void Channel::release_all_held(bool keep_young) {
  if (!keep_young) {
    for (uint32_t peer : held_) release_held(peer);
    held_.clear();
    return;
  }
  uint64_t now = util::cycle_clock();
  size_t keep = 0;
  for (uint32_t peer : held_) {
    Stream *out = peers_[peer].out;
    if (out[1].held) {  // replies a bundle's handlers sent never wait
      out[1].held = false;
      transmit(peer, 1);
    }
    // (A peer is listed again when its kept burst left by other means and
    // it held another: keep it once.)
    if (!out[0].held ||
        std::find(held_.begin(), held_.begin() + keep, peer) != held_.begin() + keep)
      continue;
    if (now - out[0].held_at < util::kBurstGap) {
      held_[keep++] = peer;
    } else {
      out[0].held = false;
      transmit(peer, 0);
    }
  }
  held_.resize(keep);
}

int Channel::run(const Ams &ams, Lock &lock) {
  if (!ams.bundle) {
    if (concurrent_) lock.unlock();
    deliver(ams.body, ams.len);
    if (concurrent_) lock.lock();
    return 1;
  }
  int n = 0;
  ++t_in_bundle;
  for (size_t at = 0; at + kRecordHeader <= ams.len;) {
    uint64_t am = 0;
    std::memcpy(&am, ams.body + at, sizeof am);
    if (am > ams.len - at - kRecordHeader)
      util::fatal("udp conduit: a bundle of active messages whose record runs past its end");
    if (concurrent_) lock.unlock();
    deliver(ams.body + at + kRecordHeader, am);
    if (concurrent_) lock.lock();
    ++n;
    at += record_bytes(am);
  }
  --t_in_bundle;
  // The replies held above leave now, and any burst (unless young, in a
  // test's poll).
  release_all_held(t_keep_young);
  return n;
}

bool Channel::receive(char *buf, size_t n, bool replies_only, uint64_t now, Ams &out) {
  if (n < kPacketHeader) {
    ++stats_.strays;
    return false;
  }
  Wire w;
  std::memcpy(&w, buf, sizeof w);
  if (w.key != key_ || w.src >= peers_.size() || w.src == rank_ || w.len != n - kPacketHeader) {
    ++stats_.strays;
    return false;
  }
  Peer &p = peers_[w.src];
  take_acks(w.src, w.ack);
  int s = w.stream & 1;
  if (w.type == kAck) {
    // The datagram it names is missing there; ours is the oldest unacknowledged.
    if ((w.flags & kNack) && !p.out[s].queue.empty() && p.out[s].queue.front()->seq == w.ack[s])
      resend_oldest(w.src, s, now, false);
    return false;
  }
  if (w.type != kData) {
    ++stats_.strays;
    return false;
  }
  auto owe = [&](bool at_once) {
    if (p.owed == 0) p.owed_since = now;
    ++p.owed;
    p.ack_now = p.ack_now || at_once;
    if (!p.owing) {
      p.owing = true;
      owing_.push_back(w.src);
    }
  };
  int32_t ahead = static_cast<int32_t>(w.seq - p.expect[s]);
  if (ahead < 0) {  // again: our acknowledgement was lost or late
    ++stats_.duplicates;
    owe(true);
    return false;
  }
  if (ahead > 0) {  // one before it was lost: keep this one, ask for that one again
    auto &kept = p.ahead[s];
    if (static_cast<size_t>(ahead) <= 2 * kWindowPackets) {
      ++stats_.kept;
      if (kept.size() < static_cast<size_t>(ahead)) kept.resize(static_cast<size_t>(ahead));
      if (kept[ahead - 1].empty()) kept[ahead - 1].assign(buf, buf + n);
      if (!p.gap) {
        p.gap = true;
        gaps_.push_back(w.src);
      }
    } else {
      ++stats_.dropped;
    }
    if (now < p.nack_at[s] || now - p.nack_at[s] > kNackGap) {
      p.nack_at[s] = now;
      send_ack(w.src, true, s);
    }
    return false;
  }
  ++p.expect[s];
  owe(w.flags & kAckNow);
  if (w.flags & kAckSoon) p.ack_soon = true;
  // A sender waiting, or many taken: acknowledge now, not at the poll's end
  // (a poll that reads 64 large datagrams takes longer than the sender's
  // retransmission timeout).
  if (p.ack_now || p.owed >= kAckEvery) send_ack(w.src, false, 0);
  if (!p.ahead[s].empty()) {  // the next one may be here already
    std::vector<char> next = std::move(p.ahead[s].front());
    p.ahead[s].pop_front();
    if (!next.empty()) {
      ready_.push_back(std::move(next));
    } else {  // another gap: ask for what fills it
      p.nack_at[s] = now;
      send_ack(w.src, true, s);
    }
  }
  char *body = buf + kPacketHeader;
  if (w.op == kAm || w.op == kAmBundle) {
    if (s == 0 && replies_only) {
      stash_.push_back({w.op == kAmBundle, std::vector<char>(body, body + w.len)});
      return false;
    }
    out = {body, w.len, w.op == kAmBundle};
    return true;
  }
  apply(w.src, s, body, w.len);
  return false;
}

char *Channel::recv_buffer(unsigned depth) {
  struct Buffers {
    std::vector<char *> at;
    ~Buffers() {
      for (char *b : at) ::operator delete (b, std::align_val_t{64});
    }
  };
  static thread_local Buffers mine;
  while (mine.at.size() <= depth)
    mine.at.push_back(static_cast<char *>(::operator new (kRecvBytes, std::align_val_t{64})));
  return mine.at[depth];
}

bool Channel::poll(bool replies_only, bool keep_young_bursts) {
  static thread_local unsigned depth = 0;
  Lock lock = guard();
  uint64_t now = util::cycle_clock();
  if (keep_young_bursts && now - last_poll_ < util::kTestPollGap) return false;
  last_poll_ = now;
  int delivered = 0;
  // Held requests leave first: every wait polls.
  if (!held_.empty()) release_all_held(keep_young_bursts);
  struct KeepYoung {
    bool saved = t_keep_young;
    explicit KeepYoung(bool keep) { t_keep_young = keep; }
    ~KeepYoung() { t_keep_young = saved; }
  } keep_young(keep_young_bursts);
  if (!replies_only) {
    while (!stash_.empty()) {
      Stashed m = std::move(stash_.front());
      stash_.pop_front();
      delivered += run({m.body.data(), m.body.size(), m.bundle}, lock);
    }
  }
  char *buf = recv_buffer(depth);
  ++depth;
  for (int i = 0; i < kPollBudget; ++i) {
    // Kept datagrams whose turn came go first (in order), then the socket.
    std::vector<char> kept;
    char *from = buf;
    ssize_t n;
    if (!ready_.empty()) {
      kept = std::move(ready_.front());
      ready_.pop_front();
      from = kept.data();
      n = static_cast<ssize_t>(kept.size());
    } else {
      n = recv(fd_, buf, kRecvBytes, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (limits_.drop_every && ++received_ % limits_.drop_every == 0)
        continue;  // GASNET_UDP_TEST_DROP
    }
    Ams ams;
    if (receive(from, static_cast<size_t>(n), replies_only, now, ams)) delivered += run(ams, lock);
  }
  --depth;
  if (!active_.empty()) timers(util::cycle_clock());
  if (!gaps_.empty()) {  // still missing one: ask again, as often as kNackGap allows
    size_t keep = 0;
    uint64_t t = util::cycle_clock();
    for (uint32_t peer : gaps_) {
      Peer &p = peers_[peer];
      bool gap = false;
      for (int s = 0; s < 2; ++s) {
        if (p.ahead[s].empty()) continue;
        gap = true;
        if (t > p.nack_at[s] && t - p.nack_at[s] > kNackGap) {
          p.nack_at[s] = t;
          send_ack(peer, true, s);
        }
      }
      if (gap) {
        gaps_[keep++] = peer;
      } else {
        p.gap = false;
      }
    }
    gaps_.resize(keep);
  }
  if (!owing_.empty()) {
    size_t keep = 0;
    for (uint32_t peer : owing_) {
      Peer &p = peers_[peer];
      if (p.owed &&
          (p.ack_now || p.ack_soon || p.owed >= kAckEvery || now - p.owed_since >= kAckDelay))
        send_ack(peer, false, 0);
      if (p.owed) {
        owing_[keep++] = peer;
      } else {
        p.owing = false;
      }
    }
    owing_.resize(keep);
  }
  return delivered > 0;
}

Result Channel::am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload,
                           AmSlot &slot) {
  if (payload > kMaxMedium || nargs > wire::kMaxArgs)
    util::fatal("udp conduit: an AM of %u arguments and %zu bytes (internal error)", nargs,
                payload);
  int stream = lane == AmLane::Request ? 0 : 1;
  Lock lock = guard();
  Stream &s = peers_[peer].out[stream];
  if (s.queue.size() - s.sent >= kUnsentMax) return Result::retry;
  Out *o = new_out(kAmHeader + args_bytes(nargs) + payload);
  o->op = kAm;
  slot.payload = o->body() + kAmHeader + args_bytes(nargs);
  slot.capacity = payload;
  slot.peer = peer;
  slot.lane = lane;
  slot.where = reinterpret_cast<uint64_t>(o);
  return Result::done;
}

void Channel::am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) {
  Out *o = reinterpret_cast<Out *>(slot.where);
  bool carries = h.category == wire::kMedium || (h.flags & wire::kPackedLong);
  size_t payload = carries ? h.nbytes : 0;
  std::memcpy(o->body(), &h, kAmHeader);
  if (h.nargs) std::memcpy(o->body() + kAmHeader, args, h.nargs * 4u);
  o->len = kAmHeader + args_bytes(h.nargs) + payload;
  int stream = slot.lane == AmLane::Request ? 0 : 1;
  // Held: a request continuing a burst, or a reply to a request of a bundle.
  bool defer = stream == 0 ? (h.flags & wire::kDeferrable) != 0 : t_in_bundle > 0;
  Lock lock = guard();
  Peer &p = peers_[slot.peer];
  Stream &s = p.out[stream];
  if (!defer) release_held(slot.peer);  // what a burst held leaves before anything else
  if (join_tail(s, o)) {
    if (s.held && util::cycle_clock() - s.held_at > util::kBurstHold) release_held(slot.peer);
    return;
  }
  if (defer && s.queue.size() == s.sent) {  // opens a datagram that waits for the burst
    if (!s.held) {
      s.held = true;
      s.held_at = util::cycle_clock();
      held_.push_back(slot.peer);
    }
  } else if (defer) {
    release_held(slot.peer);
  }
  enqueue(slot.peer, stream, o);
}

void Channel::backlog_wait(uint32_t peer, int stream, Lock &lock) {
  for (;;) {
    Stream &s = peers_[peer].out[stream];
    if (s.queue.size() - s.sent < kUnsentMax) return;
    if (concurrent_) lock.unlock();
    poll(true);
    if (concurrent_) lock.lock();
  }
}

Result Channel::rma_put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                        RmaCompletion &done, PutSource source) {
  if (nbytes == 0) return Result::done;
  bool copy = source == PutSource::transient && nbytes <= limits_.copy_put;
  const char *from = static_cast<const char *>(src);
  Lock lock = guard();
  // A put on its own asks for its acknowledgement at once (its initiator
  // waits for it); one behind others still unacknowledged (a burst) asks
  // for it by the end of the target's poll, with the others that poll read.
  const Stream &st = peers_[peer].out[1];
  const bool alone = st.queue.empty();
  for (size_t off = 0; off < nbytes; off += kChunk) {
    backlog_wait(peer, 1, lock);
    size_t n = std::min(kChunk, nbytes - off);
    Out *o = new_out(16 + (copy ? n : 0));
    uint64_t f[2] = {remote + off, 0};
    std::memcpy(o->body(), f, sizeof f);
    if (copy) {
      std::memcpy(o->body() + 16, from + off, n);
    } else {
      o->ext = from + off;
      o->ext_len = n;
    }
    o->op = kPut;
    o->done = &done;
    o->ack_now = alone && off + n == nbytes;
    o->ack_soon = !alone && off + n == nbytes;
    done.pending.fetch_add(1, std::memory_order_relaxed);
    enqueue(peer, 1, o);
  }
  return copy ? Result::done : Result::posted;
}

void Channel::rma_get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes,
                      RmaCompletion &done) {
  if (nbytes == 0) return;
  Lock lock = guard();
  backlog_wait(peer, 1, lock);
  done.pending.fetch_add(1, std::memory_order_relaxed);
  auto *op = new GetOp{static_cast<char *>(dest), nbytes, &done};
  Out *o = new_out(32);
  uint64_t f[4] = {remote, nbytes, reinterpret_cast<uint64_t>(op), 0};
  std::memcpy(o->body(), f, sizeof f);
  o->op = kGet;
  enqueue(peer, 1, o);
}

void Channel::attach_segment(void *base, uint64_t size) {
  seg_base_ = static_cast<char *>(base);
  seg_size_ = size;
}

void Channel::drain() {
  const uint64_t start = util::cycle_clock();
  for (;;) {
    {
      Lock lock = guard();
      for (uint32_t peer : owing_)
        if (peers_[peer].owed) send_ack(peer, false, 0);
      bool queued = false;
      for (uint32_t peer : active_)
        queued = queued || !peers_[peer].out[0].queue.empty() || !peers_[peer].out[1].queue.empty();
      if (!queued) break;
    }
    poll(true);
    if (util::cycle_clock() - start > util::kClock50us * 4000) break;
  }
  util::note(
      "udp conduit: %llu datagrams sent, %llu sent again, %llu acknowledgements of their own; "
      "received %llu ahead of their turn (kept), %llu too far ahead, %llu twice, %llu strays",
      static_cast<unsigned long long>(stats_.sent), static_cast<unsigned long long>(stats_.resent),
      static_cast<unsigned long long>(stats_.acks), static_cast<unsigned long long>(stats_.kept),
      static_cast<unsigned long long>(stats_.dropped),
      static_cast<unsigned long long>(stats_.duplicates),
      static_cast<unsigned long long>(stats_.strays));
}

std::string Channel::describe() const {
  sockaddr_in me{};
  socklen_t l = sizeof me;
  getsockname(fd_, reinterpret_cast<sockaddr *>(&me), &l);
  return util::format("UDP port %u (socket buffers %d/%d bytes, window %zu bytes)",
                      ntohs(me.sin_port), rcvbuf_, sndbuf_, limits_.window_bytes);
}

}  // namespace gexx::transport::udp
