#include "launcher/hub.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/strings.hpp"

namespace gexx::launcher {

namespace {
constexpr size_t kMaxPayload = 1u << 30;
// A rank sends its greeting as soon as it connects; a connection silent this
// long is not a rank (or is one too late to matter) and is dropped.
constexpr double kGreetingSeconds = 5.0;
// Connections not joined yet, at most, beyond one per rank: when more come,
// the oldest silent one makes room, so idle connections cannot lock ranks out.
constexpr size_t kPendingSlack = 32;
// Out of descriptors with no silent connection to drop: accept again after this.
constexpr double kAcceptPauseSeconds = 0.05;

double monotonic_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void report(const std::string &who, const std::string &text) {
  std::string line = who + ": " + text + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}
}  // namespace

Hub::Hub(uint32_t size, const uint8_t *secret, std::string who, bool verbose)
    : size_(size),
      who_(std::move(who)),
      verbose_(verbose),
      rank_fd_(size, -1),
      rank_pid_(size, -1),
      contrib_(size),
      fd_contrib_(size),
      contributed_(size, false),
      aborted_(size, false),
      joined_(size, false),
      exiting_(size, false),
      pending_limit_(size + kPendingSlack) {
  std::memcpy(secret_, secret, kSecretBytes);
}

Hub::~Hub() {
  if (refused_total_ > 1) {
    std::string list;
    for (const auto &[reason, count] : refusals_)
      list += util::format("%s%lu %s", list.empty() ? "" : ", ", count, reason.c_str());
    report(who_, util::format("refused %lu bootstrap connections in all (%s)", refused_total_,
                              list.c_str()));
  }
  for (auto &c : conns_)
    if (c.fd >= 0) drop(c);
  for (auto &v : fd_contrib_)
    for (int fd : v) ::close(fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

bool Hub::listen() {
  listen_fd_ = listen_abstract("gexx", address_);
  return listen_fd_ >= 0;
}

bool Hub::listen_tcp(const std::string &ip) {
  listen_fd_ = bootstrap::listen_tcp(ip, address_);
  return listen_fd_ >= 0;
}

void Hub::adopt(int fd, const std::string &address) {
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  listen_fd_ = fd;
  address_ = address;
}

void Hub::forget_in_child() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void Hub::collect_pollfds(std::vector<pollfd> &out) const {
  if (listen_fd_ >= 0 && monotonic_now() >= accept_paused_until_)
    out.push_back({listen_fd_, POLLIN, 0});
  for (const auto &c : conns_)
    if (c.fd >= 0) out.push_back({c.fd, POLLIN, 0});
}

void Hub::handle(const pollfd &p) {
  if (!p.revents) return;
  if (p.fd == listen_fd_) {
    accept_all();
    return;
  }
  // By descriptor, not by search: a collective of N ranks wakes the hub
  // up to N times, and a search per wake-up would make it N^2.
  size_t fd = static_cast<size_t>(p.fd);
  if (fd < conn_at_.size() && conn_at_[fd] >= 0)
    read_conn(conns_[static_cast<size_t>(conn_at_[fd])]);
  sweep();
}

void Hub::sweep() {
  if (!dropped_) return;
  dropped_ = false;
  conns_.erase(std::remove_if(conns_.begin(), conns_.end(), [](const Conn &c) { return c.fd < 0; }),
               conns_.end());
  std::fill(conn_at_.begin(), conn_at_.end(), -1);
  for (size_t i = 0; i < conns_.size(); ++i)
    conn_at_[static_cast<size_t>(conns_[i].fd)] = static_cast<long>(i);
}

double Hub::tick(double now) {
  double next = now + 1.0;
  for (auto &c : conns_) {
    if (c.fd < 0 || c.rank >= 0) continue;
    if (now >= c.greet_by) {
      refused(describe_peer(c.fd), "no greeting in time");
      drop(c);
    } else {
      next = std::min(next, c.greet_by);
    }
  }
  sweep();
  if (accept_paused_until_ > now) next = std::min(next, accept_paused_until_);
  return next;
}

// Reads the greetings already sent, then drops the oldest connection still
// silent; false if there is none (every connection is a rank).
bool Hub::make_room() {
  for (auto &c : conns_)
    if (c.fd >= 0 && c.rank < 0) read_conn(c);
  sweep();
  for (auto &c : conns_) {  // oldest first: accepted in order
    if (c.fd >= 0 && c.rank < 0) {
      refused(describe_peer(c.fd), "too many connections waiting to greet");
      drop(c);
      sweep();
      return true;
    }
  }
  return false;
}

void Hub::refused(const std::string &peer, const std::string &reason) {
  if (refused_total_++ == 0) {
    report(who_, util::format("refused a bootstrap connection from %s: %s (further refusals are "
                              "counted, and reported when the job ends)",
                              peer.c_str(), reason.c_str()));
  }
  for (auto &[r, count] : refusals_) {
    if (r == reason) {
      ++count;
      return;
    }
  }
  refusals_.emplace_back(reason, 1);
}

void Hub::drain() {
  for (;;) {
    std::vector<pollfd> fds;
    for (const auto &c : conns_)
      if (c.fd >= 0) fds.push_back({c.fd, POLLIN, 0});
    if (fds.empty() || ::poll(fds.data(), fds.size(), 0) <= 0) return;
    for (const auto &p : fds) handle(p);
  }
}

void Hub::accept_all() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: a silent connection makes room, else accepting
        // pauses (the listening socket would otherwise wake poll at once).
        if (make_room()) continue;
        accept_paused_until_ = monotonic_now() + kAcceptPauseSeconds;
      }
      return;
    }
    if (is_unix_socket(fd)) {
      // The kernel vouches for the peer: another user's process is closed
      // before a byte of it is read.
      ucred cred{};
      socklen_t len = sizeof cred;
      if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != ::geteuid()) {
        refused(util::format("pid %ld", static_cast<long>(cred.pid)),
                "the process belongs to another user");
        ::close(fd);
        continue;
      }
    } else {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    }
    size_t pending = 0;
    for (const auto &c : conns_) pending += c.fd >= 0 && c.rank < 0 ? 1 : 0;
    if (pending >= pending_limit_) make_room();
    Conn c;
    c.fd = fd;
    c.greet_by = monotonic_now() + kGreetingSeconds;
    if (conn_at_.size() <= static_cast<size_t>(fd))
      conn_at_.resize(static_cast<size_t>(fd) + 1, -1);
    conn_at_[static_cast<size_t>(fd)] = static_cast<long>(conns_.size());
    conns_.push_back(std::move(c));
  }
}

void Hub::drop(Conn &c) {
  if (c.rank >= 0 && rank_fd_[static_cast<size_t>(c.rank)] == c.fd)
    rank_fd_[static_cast<size_t>(c.rank)] = -1;
  for (int fd : c.fds) ::close(fd);
  c.fds.clear();
  if (static_cast<size_t>(c.fd) < conn_at_.size()) conn_at_[static_cast<size_t>(c.fd)] = -1;
  ::close(c.fd);
  c.fd = -1;
  dropped_ = true;
}

std::string Hub::describe_peer(int fd) const {
  if (is_unix_socket(fd)) {
    ucred cred{};
    socklen_t len = sizeof cred;
    long pid = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid : -1;
    return util::format("pid %ld", pid);
  }
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  char host[NI_MAXHOST] = "?", port[NI_MAXSERV] = "?";
  if (::getpeername(fd, reinterpret_cast<sockaddr *>(&sa), &len) == 0)
    ::getnameinfo(reinterpret_cast<sockaddr *>(&sa), len, host, sizeof host, port, sizeof port,
                  NI_NUMERICHOST | NI_NUMERICSERV);
  return util::format("%s port %s", host, port);
}

void Hub::reject(Conn &c, const std::string &reason) {
  refused(describe_peer(c.fd), reason);
  send_message(c.fd, Op::Reject, 0, reason.data(), reason.size());
  drop(c);
}

void Hub::protocol_failure(const std::string &what) {
  report(who_, "bootstrap protocol error: " + what + "; ending the job");
  if (!abort_) abort_ = AbortRequest{0, 1, what};
}

void Hub::read_conn(Conn &c) {
  uint8_t buf[65536];
  long n = recv_some(c.fd, buf, sizeof buf, c.fds);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n <= 0) {
    drop(c);
    return;
  }
  c.in.insert(c.in.end(), buf, buf + n);
  size_t off = 0;
  while (c.fd >= 0 && c.in.size() - off >= sizeof(Header)) {
    Header h;
    std::memcpy(&h, c.in.data() + off, sizeof h);
    if (h.length > kMaxPayload || (c.rank < 0 && h.length > sizeof(HelloBody))) {
      if (c.rank < 0)
        reject(c, "malformed greeting");
      else
        protocol_failure(util::format("rank %ld sent an oversized message", c.rank));
      return;
    }
    if (c.in.size() - off < sizeof h + h.length) break;
    if (!process(c, h, c.in.data() + off + sizeof h)) return;
    off += sizeof h + h.length;
  }
  if (c.fd >= 0) c.in.erase(c.in.begin(), c.in.begin() + static_cast<long>(off));
}

bool Hub::hello(Conn &c, const Header &h, const uint8_t *payload) {
  if (static_cast<Op>(h.op) != Op::Hello || h.length != sizeof(HelloBody)) {
    reject(c, "the first message must be a greeting");
    return false;
  }
  HelloBody b;
  std::memcpy(&b, payload, sizeof b);
  // On a Unix socket the kernel vouches for the peer's user; a TCP peer on
  // another host has only the secret to show.
  bool local = is_unix_socket(c.fd);
  ucred cred{};
  socklen_t len = sizeof cred;
  if (local &&
      (::getsockopt(c.fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != ::geteuid())) {
    reject(c, "the process belongs to another user");
    return false;
  }
  if (b.magic != kMagic || b.version != kProtocolVersion) {
    reject(c, "not a gexx bootstrap client of this version");
    return false;
  }
  if (!secrets_equal(b.secret, secret_)) {
    reject(c, "wrong job secret");
    return false;
  }
  if (b.size != size_ || b.rank >= size_) {
    reject(c,
           util::format("rank %u of %u does not fit this job of %u ranks", b.rank, b.size, size_));
    return false;
  }
  if (rank_fd_[b.rank] >= 0) {
    reject(c, util::format("rank %u has already joined", b.rank));
    return false;
  }
  c.rank = b.rank;
  rank_fd_[b.rank] = c.fd;
  if (!joined_[b.rank]) {
    joined_[b.rank] = true;
    ++joined_count_;
  }
  // Over TCP the rank's word is all there is; its agent signals only its own ranks.
  rank_pid_[b.rank] = local ? cred.pid : (b.pid > 0 ? static_cast<long>(b.pid) : -1);
  if (verbose_)
    report(who_, util::format("rank %u joined (%s)", b.rank, describe_peer(c.fd).c_str()));
  send_message(c.fd, Op::Welcome, 0, nullptr, 0);
  return true;
}

bool Hub::process(Conn &c, const Header &h, const uint8_t *payload) {
  if (c.rank < 0) return hello(c, h, payload);
  auto r = static_cast<size_t>(c.rank);
  switch (static_cast<Op>(h.op)) {
    case Op::Exchange:
    case Op::ExchangeFds:
    case Op::Allgather: {
      Pending kind = static_cast<Op>(h.op) == Op::Exchange    ? Pending::Exchange
                     : static_cast<Op>(h.op) == Op::Allgather ? Pending::Allgather
                                                              : Pending::Fds;
      if (pending_ != Pending::None && pending_ != kind) {
        protocol_failure(
            util::format("rank %zu entered a different bootstrap collective than "
                         "the ranks before it",
                         r));
        return false;
      }
      if (contributed_[r]) {
        protocol_failure(util::format("rank %zu entered a bootstrap collective twice", r));
        return false;
      }
      if (kind == Pending::Allgather) {
        if (h.length * size_ > kMaxPayload) {
          protocol_failure(util::format("rank %zu gave %llu bytes to an allgather of %u ranks", r,
                                        static_cast<unsigned long long>(h.length), size_));
          return false;
        }
        if (arrived_ == 0) {
          gather_len_ = h.length;
          gathered_.resize(gather_len_ * size_);
        } else if (h.length != gather_len_) {
          protocol_failure(util::format("rank %zu gave %llu bytes to an allgather of %llu each", r,
                                        static_cast<unsigned long long>(h.length),
                                        static_cast<unsigned long long>(gather_len_)));
          return false;
        }
      }
      pending_ = kind;
      contributed_[r] = true;
      ++arrived_;
      if (kind == Pending::Exchange) {
        contrib_[r].assign(payload, payload + h.length);
      } else if (kind == Pending::Allgather) {
        if (h.length) std::memcpy(gathered_.data() + r * gather_len_, payload, h.length);
      } else {
        if (c.fds.size() < h.arg) {
          protocol_failure(util::format("rank %zu announced %u descriptors but sent %zu", r, h.arg,
                                        c.fds.size()));
          return false;
        }
        fd_contrib_[r].assign(c.fds.begin(), c.fds.begin() + h.arg);
        c.fds.erase(c.fds.begin(), c.fds.begin() + h.arg);
      }
      if (arrived_ == size_) {
        if (pending_ == Pending::Exchange)
          finish_exchange();
        else if (pending_ == Pending::Allgather)
          finish_allgather();
        else
          finish_fds();
      }
      return true;
    }
    case Op::Abort:
      aborted_[r] = true;
      if (!abort_) {
        abort_ = AbortRequest{static_cast<uint32_t>(r), static_cast<int>(h.arg),
                              std::string(reinterpret_cast<const char *>(payload), h.length)};
      }
      return true;
    case Op::Exit: {
      auto how = h.length == 1 && static_cast<ExitHow>(payload[0]) == ExitHow::ProcessExit
                     ? ExitHow::ProcessExit
                     : ExitHow::GasnetExit;
      exiting_[r] = true;
      if (!first_exit_)
        first_exit_ = ExitNotice{static_cast<uint32_t>(r), static_cast<int>(h.arg), how};
      return true;
    }
    default:
      protocol_failure(util::format("rank %zu sent unknown message %u", r, h.op));
      return false;
  }
}

void Hub::finish_exchange() {
  std::vector<uint8_t> out;
  for (const auto &v : contrib_) {
    uint64_t n = v.size();
    const auto *p = reinterpret_cast<const uint8_t *>(&n);
    out.insert(out.end(), p, p + sizeof n);
    out.insert(out.end(), v.begin(), v.end());
  }
  for (int fd : rank_fd_)
    if (fd >= 0) send_message(fd, Op::Exchange, size_, out.data(), out.size());
  for (auto &v : contrib_) v.clear();
  std::fill(contributed_.begin(), contributed_.end(), false);
  arrived_ = 0;
  pending_ = Pending::None;
}

void Hub::finish_allgather() {
  for (int fd : rank_fd_)
    if (fd >= 0) send_message(fd, Op::Allgather, size_, gathered_.data(), gathered_.size());
  std::fill(contributed_.begin(), contributed_.end(), false);
  arrived_ = 0;
  pending_ = Pending::None;
}

void Hub::finish_fds() {
  std::vector<uint32_t> counts;
  std::vector<int> all;
  for (const auto &v : fd_contrib_) {
    counts.push_back(static_cast<uint32_t>(v.size()));
    all.insert(all.end(), v.begin(), v.end());
  }
  for (int fd : rank_fd_) {
    if (fd < 0) continue;
    send_message(fd, Op::ExchangeFds, static_cast<uint32_t>(all.size()), counts.data(),
                 counts.size() * sizeof(uint32_t));
    for (size_t i = 0; i < all.size(); i += kMaxFdsPerMessage) {
      size_t n = std::min(kMaxFdsPerMessage, all.size() - i);
      send_message(fd, Op::FdChunk, static_cast<uint32_t>(n), nullptr, 0, all.data() + i, n);
    }
  }
  for (int fd : all) ::close(fd);
  for (auto &v : fd_contrib_) v.clear();
  std::fill(contributed_.begin(), contributed_.end(), false);
  arrived_ = 0;
  pending_ = Pending::None;
}

}  // namespace gexx::launcher
