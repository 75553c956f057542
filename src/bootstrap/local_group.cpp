#include "bootstrap/local_group.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

LocalGroup::~LocalGroup() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (int fd : peers_)
    if (fd >= 0) ::close(fd);
  for (auto &v : pending_)
    for (int fd : v) ::close(fd);
}

void LocalGroup::lost(const char *what) {
  if (before_lost) before_lost(before_lost_arg);
  util::fatal(
      "lost the connection to %s of this host's ranks (a rank of this host died or the "
      "job is ending)",
      what);
}

std::string LocalGroup::open(uint32_t index, uint32_t members) {
  index_ = index;
  members_ = members;
  if (members_ < 2 || index_ != 0) return "";
  random_bytes(secret_, kSecretBytes);
  std::string address;
  listen_fd_ = listen_abstract("gexx-host", address);
  if (listen_fd_ < 0) util::fatal("cannot open this host's rank socket: %s", std::strerror(errno));
  ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) & ~O_NONBLOCK);
  return address + "|" + util::hex(secret_, kSecretBytes);
}

void LocalGroup::connect(const std::string &leader_contact) {
  if (members_ < 2) return;
  if (index_ == 0) {
    peers_.assign(members_, -1);
    pending_.assign(members_, {});
    for (uint32_t joined = 1; joined < members_;) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR) continue;
        util::fatal("this host's rank socket: accept failed: %s", std::strerror(errno));
      }
      HelloBody hello;
      if (!read_all(fd, &hello, sizeof hello) || hello.magic != kMagic ||
          hello.version != kProtocolVersion || !secrets_equal(hello.secret, secret_) ||
          hello.size != members_ || hello.rank == 0 || hello.rank >= members_ ||
          peers_[hello.rank] >= 0) {
        ::close(fd);  // not one of ours, or a duplicate: ignored
        continue;
      }
      peers_[hello.rank] = fd;
      ++joined;
    }
    ::close(listen_fd_);
    listen_fd_ = -1;
    return;
  }
  size_t bar = leader_contact.find('|');
  std::vector<uint8_t> secret;
  if (bar == std::string::npos || !util::unhex(leader_contact.substr(bar + 1), secret) ||
      secret.size() != kSecretBytes) {
    util::fatal("malformed contact of this host's first rank: '%s'", leader_contact.c_str());
  }
  int fd = connect_address(leader_contact.substr(0, bar));
  if (fd < 0) {
    util::fatal(
        "cannot reach this host's first rank at %s: %s (are the ranks in different "
        "network namespaces?)",
        leader_contact.substr(0, bar).c_str(), std::strerror(errno));
  }
  HelloBody hello{kMagic, kProtocolVersion, index_, members_, {}, 0};
  std::memcpy(hello.secret, secret.data(), kSecretBytes);
  hello.pid = static_cast<uint32_t>(::getpid());
  if (!write_all(fd, &hello, sizeof hello)) lost("the first");
  peers_.assign(1, fd);
  pending_.assign(1, {});
}

void LocalGroup::read_message(int fd, Header &h, std::vector<uint8_t> &payload) {
  size_t slot = 0;
  if (index_ == 0) {
    for (slot = 0; slot < peers_.size() && peers_[slot] != fd; ++slot) {
    }
  }
  auto exact = [&](void *data, size_t len) {
    char *p = static_cast<char *>(data);
    while (len > 0) {
      long n = recv_some(fd, p, len, pending_[slot]);
      if (n <= 0) lost(index_ == 0 ? "another" : "the first");
      p += n;
      len -= static_cast<size_t>(n);
    }
  };
  exact(&h, sizeof h);
  payload.resize(h.length);
  if (h.length) exact(payload.data(), h.length);
}

std::vector<int> LocalGroup::take_fds(int fd, size_t count) {
  size_t slot = 0;
  if (index_ == 0) {
    for (slot = 0; slot < peers_.size() && peers_[slot] != fd; ++slot) {
    }
  }
  while (pending_[slot].size() < count) {
    Header h;
    std::vector<uint8_t> none;
    read_message(fd, h, none);
    if (static_cast<Op>(h.op) != Op::FdChunk) util::fatal("unexpected message from a host peer");
  }
  std::vector<int> out(pending_[slot].begin(), pending_[slot].begin() + static_cast<long>(count));
  pending_[slot].erase(pending_[slot].begin(), pending_[slot].begin() + static_cast<long>(count));
  return out;
}

// An ExchangeFds header (with the counts by member when the leader answers),
// then the descriptors in FdChunk messages.
void LocalGroup::send_fds(int fd, const std::vector<int> &fds,
                          const std::vector<uint32_t> *counts) {
  bool ok = counts
                ? send_message(fd, Op::ExchangeFds, static_cast<uint32_t>(fds.size()),
                               counts->data(), counts->size() * sizeof(uint32_t))
                : send_message(fd, Op::ExchangeFds, static_cast<uint32_t>(fds.size()), nullptr, 0);
  for (size_t i = 0; ok && i < fds.size(); i += kMaxFdsPerMessage) {
    size_t n = std::min(kMaxFdsPerMessage, fds.size() - i);
    ok = send_message(fd, Op::FdChunk, static_cast<uint32_t>(n), nullptr, 0, fds.data() + i, n);
  }
  if (!ok) lost(index_ == 0 ? "another" : "the first");
}

std::vector<std::vector<int>> LocalGroup::exchange_fds(const std::vector<int> &mine) {
  std::vector<std::vector<int>> out(members_);
  if (members_ < 2) {
    for (int fd : mine) out[0].push_back(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
    return out;
  }
  if (index_ != 0) {
    send_fds(peers_[0], mine, nullptr);
    Header h;
    std::vector<uint8_t> payload;
    read_message(peers_[0], h, payload);
    if (static_cast<Op>(h.op) != Op::ExchangeFds || payload.size() != members_ * sizeof(uint32_t))
      util::fatal("unexpected reply from this host's first rank");
    std::vector<uint32_t> counts(members_);
    std::memcpy(counts.data(), payload.data(), payload.size());
    std::vector<int> all = take_fds(peers_[0], h.arg);
    size_t next = 0;
    for (uint32_t m = 0; m < members_; ++m)
      for (uint32_t i = 0; i < counts[m] && next < all.size(); ++i) out[m].push_back(all[next++]);
    return out;
  }
  // The leader gathers, in member order, then hands everyone everything.
  for (int fd : mine) out[0].push_back(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  for (uint32_t m = 1; m < members_; ++m) {
    Header h;
    std::vector<uint8_t> payload;
    read_message(peers_[m], h, payload);
    if (static_cast<Op>(h.op) != Op::ExchangeFds)
      util::fatal("unexpected message from host rank %u", m);
    out[m] = take_fds(peers_[m], h.arg);
  }
  std::vector<int> all;
  std::vector<uint32_t> counts(members_);
  for (uint32_t m = 0; m < members_; ++m) {
    counts[m] = static_cast<uint32_t>(out[m].size());
    all.insert(all.end(), out[m].begin(), out[m].end());
  }
  for (uint32_t m = 1; m < members_; ++m) send_fds(peers_[m], all, &counts);
  return out;
}

std::vector<uint8_t> LocalGroup::ask_leader(const void *data, size_t len) {
  tell_leader(data, len);
  return leader_answer();
}

void LocalGroup::tell_leader(const void *data, size_t len) {
  if (!send_message(peers_[0], Op::Exchange, 0, data, len)) lost("the first");
}

std::vector<uint8_t> LocalGroup::leader_answer() {
  Header h;
  std::vector<uint8_t> payload;
  read_message(peers_[0], h, payload);
  if (static_cast<Op>(h.op) != Op::Exchange)
    util::fatal("unexpected reply from this host's first rank");
  return payload;
}

std::vector<std::vector<uint8_t>> LocalGroup::gather(const void *data, size_t len) {
  std::vector<std::vector<uint8_t>> out(members_);
  const auto *p = static_cast<const uint8_t *>(data);
  out[0].assign(p, p + len);
  for (uint32_t m = 1; m < members_; ++m) {
    Header h;
    read_message(peers_[m], h, out[m]);
    if (static_cast<Op>(h.op) != Op::Exchange)
      util::fatal("unexpected message from host rank %u", m);
  }
  return out;
}

void LocalGroup::answer_all(const std::vector<uint8_t> &answer) {
  for (uint32_t m = 1; m < members_; ++m)
    if (!send_message(peers_[m], Op::Exchange, 0, answer.data(), answer.size())) lost("another");
}

}  // namespace gexx::bootstrap
