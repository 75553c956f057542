#include "bootstrap/wire.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

namespace {
void wait_fd(int fd, short events) {
  pollfd p{fd, events, 0};
  while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
}

socklen_t make_addr(const std::string &address, sockaddr_un &sa) {
  std::memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  size_t n = std::min(address.size(), sizeof sa.sun_path - 1);
  std::memcpy(sa.sun_path, address.data(), n);
  if (!address.empty() && address[0] == '@') sa.sun_path[0] = '\0';
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + n);
}
}  // namespace

bool write_all(int fd, const void *data, size_t len) {
  const char *p = static_cast<const char *>(data);
  while (len > 0) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait_fd(fd, POLLOUT);
        continue;
      }
      return false;
    }
    p += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, void *data, size_t len) {
  char *p = static_cast<char *>(data);
  while (len > 0) {
    ssize_t n = ::recv(fd, p, len, 0);
    if (n == 0) return false;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait_fd(fd, POLLIN);
        continue;
      }
      return false;
    }
    p += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

bool send_message(int fd, Op op, uint32_t arg, const void *payload, size_t len, const int *fds,
                  size_t nfds) {
  Header h{static_cast<uint32_t>(op), arg, len};
  if (nfds == 0) {
    // Header and payload in one call (one wake-up of the reader) when the
    // socket takes them; what it did not take follows.
    iovec iov[2] = {{&h, sizeof h}, {const_cast<void *>(payload), len}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = len ? 2 : 1;
    ssize_t n;
    do {
      n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      n = 0;
    }
    size_t sent = static_cast<size_t>(n);
    if (sent < sizeof h) {
      if (!write_all(fd, reinterpret_cast<char *>(&h) + sent, sizeof h - sent)) return false;
      sent = sizeof h;
    }
    sent -= sizeof h;
    return sent == len || write_all(fd, static_cast<const char *>(payload) + sent, len - sent);
  } else {
    // The fds ride on the header bytes.
    iovec iov{&h, sizeof h};
    std::vector<char> control(CMSG_SPACE(sizeof(int) * nfds));
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    ssize_t n;
    for (;;) {
      n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
      if (n >= 0) break;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait_fd(fd, POLLOUT);
        continue;
      }
      return false;
    }
    if (static_cast<size_t>(n) < sizeof h &&
        !write_all(fd, reinterpret_cast<char *>(&h) + n, sizeof h - static_cast<size_t>(n)))
      return false;
  }
  return len == 0 || write_all(fd, payload, len);
}

long recv_some(int fd, void *data, size_t len, std::vector<int> &fds) {
  iovec iov{data, len};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -1;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const int *p = reinterpret_cast<const int *>(CMSG_DATA(c));
      fds.insert(fds.end(), p, p + count);
    }
  }
  return n;
}

namespace {
// "tcp:HOST:PORT" or "tcp:[V6]:PORT" -> host, port; false if malformed.
bool split_tcp(const std::string &address, std::string &host, std::string &port) {
  std::string rest = address.substr(4);
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  host = rest.substr(0, colon);
  port = rest.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return !port.empty();
}

int connect_tcp(const std::string &address) {
  std::string host, port;
  if (!split_tcp(address, host, port)) {
    errno = EINVAL;
    return -1;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo *res = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0 || !res) {
    errno = EINVAL;
    return -1;
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int rc = fd < 0 ? -1 : 0;
  while (rc == 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
    if (errno != EINTR) rc = -1;
  }
  int saved = errno;
  ::freeaddrinfo(res);
  if (rc < 0) {
    if (fd >= 0) ::close(fd);
    errno = saved;
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  return fd;
}
}  // namespace

int connect_address(const std::string &address) {
  if (address.rfind("tcp:", 0) == 0) return connect_tcp(address);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un sa;
  socklen_t len = make_addr(address, sa);
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<sockaddr *>(&sa), len);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int listen_abstract(const std::string &name_hint, std::string &address) {
  uint8_t nonce[8];
  random_bytes(nonce, sizeof nonce);
  std::string name = "@" + name_hint + "-" + std::to_string(::getpid()) + "-" + util::hex(nonce, 8);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_un sa;
  socklen_t len = make_addr(name, sa);
  if (::bind(fd, reinterpret_cast<sockaddr *>(&sa), len) < 0 || ::listen(fd, 1024) < 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  address = name;
  return fd;
}

int listen_tcp(const std::string &ip, std::string &address) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
  addrinfo *res = nullptr;
  if (::getaddrinfo(ip.c_str(), "0", &hints, &res) != 0 || !res) {
    errno = EINVAL;
    return -1;
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  bool ok = fd >= 0 && ::bind(fd, res->ai_addr, res->ai_addrlen) == 0 && ::listen(fd, 1024) == 0;
  int saved = errno;
  bool v6 = res->ai_family == AF_INET6;
  ::freeaddrinfo(res);
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  if (ok) ok = ::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) == 0;
  if (!ok) {
    saved = errno;
    if (fd >= 0) ::close(fd);
    errno = saved;
    return -1;
  }
  int port = v6 ? ntohs(reinterpret_cast<sockaddr_in6 *>(&sa)->sin6_port)
                : ntohs(reinterpret_cast<sockaddr_in *>(&sa)->sin_port);
  address = v6 ? util::format("tcp:[%s]:%d", ip.c_str(), port)
               : util::format("tcp:%s:%d", ip.c_str(), port);
  return fd;
}

std::string local_ip_towards(const std::string &host, std::string &error) {
  // The user@ part of an ssh destination is not part of the host name.
  std::string name = host.substr(host.find('@') == std::string::npos ? 0 : host.find('@') + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo *res = nullptr;
  int rc = ::getaddrinfo(name.c_str(), "9", &hints, &res);
  if (rc != 0 || !res) {
    error = util::format("cannot resolve host '%s': %s", name.c_str(), ::gai_strerror(rc));
    return "";
  }
  // Connecting a datagram socket sends nothing; it only picks the route.
  int fd = ::socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  bool ok = fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0;
  ::freeaddrinfo(res);
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  char text[INET6_ADDRSTRLEN] = {0};
  if (ok) ok = ::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) == 0;
  if (ok) {
    const void *a =
        sa.ss_family == AF_INET6
            ? static_cast<const void *>(&reinterpret_cast<sockaddr_in6 *>(&sa)->sin6_addr)
            : static_cast<const void *>(&reinterpret_cast<sockaddr_in *>(&sa)->sin_addr);
    ok = ::inet_ntop(sa.ss_family, a, text, sizeof text) != nullptr;
  }
  if (!ok) error = util::format("no route to host '%s': %s", name.c_str(), std::strerror(errno));
  if (fd >= 0) ::close(fd);
  return ok ? text : "";
}

bool is_unix_socket(int fd) {
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  return ::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) == 0 && sa.ss_family == AF_UNIX;
}

void random_bytes(uint8_t *out, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::getrandom(out + done, n - done, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      // Without real randomness the job secret would be guessable: refuse.
      util::fatal("cannot draw random bytes for the job secret: getrandom: %s",
                  std::strerror(errno));
    }
    done += static_cast<size_t>(r);
  }
}

bool secrets_equal(const uint8_t *a, const uint8_t *b) {
  uint8_t diff = 0;
  for (size_t i = 0; i < kSecretBytes; ++i) diff |= static_cast<uint8_t>(a[i] ^ b[i]);
  return diff == 0;
}

std::string new_job_id() {
  uint8_t id[4];
  random_bytes(id, sizeof id);
  return util::format("%lxp", static_cast<unsigned long>(::getpid())) + util::hex(id, sizeof id);
}

long job_id_pid(const std::string &job_id) {
  size_t p = job_id.find('p');
  if (p == 0 || p == std::string::npos || p > 8) return -1;
  char *end = nullptr;
  long pid = std::strtol(job_id.substr(0, p).c_str(), &end, 16);
  return end && *end == '\0' && pid > 0 ? pid : -1;
}

std::string take_env(const char *name) {
  char *v = std::getenv(name);
  std::string out = v ? v : "";
  // unsetenv only drops the pointer: the text stays in the environment block
  // the kernel shows in /proc/<pid>/environ. Blank it where it lies.
  if (v) std::memset(v, 0, out.size());
  ::unsetenv(name);
  return out;
}

}  // namespace gexx::bootstrap
