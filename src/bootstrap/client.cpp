// The rank's side of the bootstrap channel, and the choice of how to join.
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/local_job.hpp"
#include "bootstrap/wire.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

std::vector<uint8_t> Bootstrap::broadcast(uint32_t root, const void *data, size_t len) {
  auto all = exchange(rank() == root ? data : nullptr, rank() == root ? len : 0);
  return std::move(all[root]);
}

namespace {

class HubClient final : public Bootstrap {
 public:
  HubClient(uint32_t rank, uint32_t size, std::string job_id, const char *spawner)
      : rank_(rank), size_(size), job_id_(std::move(job_id)), spawner_(spawner) {}
  ~HubClient() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void connect(const std::string &address, const uint8_t *secret) {
    fd_ = connect_address(address);
    if (fd_ < 0) {
      util::fatal(
          "cannot reach the launcher's bootstrap socket %s: %s (was this process started "
          "by gasnetrun of this installation?)",
          address.c_str(), std::strerror(errno));
    }
    HelloBody hello{kMagic, kProtocolVersion, rank_, size_, {}, 0};
    std::memcpy(hello.secret, secret, kSecretBytes);
    hello.pid = static_cast<uint32_t>(::getpid());
    if (!send_message(fd_, Op::Hello, 0, &hello, sizeof hello)) lost();
    Header h;
    std::vector<uint8_t> payload;
    read_message(h, payload);
    if (static_cast<Op>(h.op) == Op::Reject) {
      util::fatal("the launcher refused this process: %.*s", static_cast<int>(payload.size()),
                  reinterpret_cast<char *>(payload.data()));
    }
    if (static_cast<Op>(h.op) != Op::Welcome) util::fatal("unexpected bootstrap reply %u", h.op);
  }

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const char *spawner() const override { return spawner_; }
  const std::string &job_id() const override { return job_id_; }

  std::vector<std::vector<uint8_t>> exchange(const void *data, size_t len) override {
    std::lock_guard<std::mutex> guard(mu_);
    if (!send_message(fd_, Op::Exchange, 0, data, len)) lost();
    Header h;
    std::vector<uint8_t> payload;
    read_message(h, payload);
    if (static_cast<Op>(h.op) != Op::Exchange) util::fatal("unexpected bootstrap reply %u", h.op);
    std::vector<std::vector<uint8_t>> out(size_);
    size_t off = 0;
    for (uint32_t r = 0; r < size_; ++r) {
      uint64_t n;
      if (off + sizeof n > payload.size()) util::fatal("truncated bootstrap exchange");
      std::memcpy(&n, payload.data() + off, sizeof n);
      off += sizeof n;
      if (off + n > payload.size()) util::fatal("truncated bootstrap exchange");
      out[r].assign(payload.begin() + static_cast<long>(off),
                    payload.begin() + static_cast<long>(off + n));
      off += n;
    }
    return out;
  }

  std::vector<std::vector<int>> exchange_fds(const std::vector<int> &mine) override {
    std::lock_guard<std::mutex> guard(mu_);
    // Descriptors travel only over a Unix socket, between ranks of one host.
    if (!is_unix_socket(fd_)) {
      util::fatal(
          "this job was started by the ssh spawner, whose ranks reach the launcher over TCP, "
          "but the smp conduit shares memory through descriptors passed on one host; run "
          "jobs across hosts with a network conduit (ofi)");
    }
    if (!send_message(fd_, Op::ExchangeFds, static_cast<uint32_t>(mine.size()), nullptr, 0,
                      mine.data(), mine.size()))
      lost();
    Header h;
    std::vector<uint8_t> payload;
    read_message(h, payload);
    if (static_cast<Op>(h.op) != Op::ExchangeFds || payload.size() != size_ * sizeof(uint32_t))
      util::fatal("unexpected bootstrap reply %u", h.op);
    std::vector<uint32_t> counts(size_);
    std::memcpy(counts.data(), payload.data(), payload.size());
    while (fds_.size() < h.arg) {
      Header chunk;
      std::vector<uint8_t> none;
      read_message(chunk, none);
      if (static_cast<Op>(chunk.op) != Op::FdChunk) util::fatal("unexpected bootstrap reply");
    }
    std::vector<std::vector<int>> out(size_);
    size_t next = 0;
    for (uint32_t r = 0; r < size_; ++r)
      for (uint32_t i = 0; i < counts[r]; ++i) out[r].push_back(fds_[next++]);
    fds_.erase(fds_.begin(), fds_.begin() + static_cast<long>(next));
    return out;
  }

  [[noreturn]] void abort(int code, const std::string &reason) override {
    // Best effort: the launcher also notices the exit itself.
    send_message(fd_, Op::Abort, static_cast<uint32_t>(code), reason.data(), reason.size());
    std::fflush(nullptr);
    _exit(code);
  }

  void announce_exit(int code, bool process_exit) override {
    // One write: it may run in a signal handler, while another thread talks.
    Header h{static_cast<uint32_t>(Op::Exit), static_cast<uint32_t>(code), 1};
    uint8_t message[sizeof h + 1];
    std::memcpy(message, &h, sizeof h);
    message[sizeof h] =
        static_cast<uint8_t>(process_exit ? ExitHow::ProcessExit : ExitHow::GasnetExit);
    write_all(fd_, message, sizeof message);
  }

 private:
  [[noreturn]] void lost() {
    util::fatal("lost the connection to the launcher (the job is ending or the launcher died)");
  }

  void read_exact(void *data, size_t len) {
    char *p = static_cast<char *>(data);
    while (len > 0) {
      long n = recv_some(fd_, p, len, fds_);
      if (n <= 0) lost();
      p += n;
      len -= static_cast<size_t>(n);
    }
  }

  void read_message(Header &h, std::vector<uint8_t> &payload) {
    read_exact(&h, sizeof h);
    payload.resize(h.length);
    if (h.length) read_exact(payload.data(), h.length);
  }

  uint32_t rank_, size_;
  std::string job_id_;
  const char *spawner_;
  int fd_ = -1;
  std::vector<int> fds_;  // received descriptors not yet handed out
  std::mutex mu_;
};

class Singleton final : public Bootstrap {
 public:
  Singleton() {
    uint8_t id[4];
    random_bytes(id, sizeof id);
    job_id_ = util::hex(id, sizeof id);
  }
  uint32_t rank() const override { return 0; }
  uint32_t size() const override { return 1; }
  const char *spawner() const override { return "none (1 rank)"; }
  const std::string &job_id() const override { return job_id_; }
  std::vector<std::vector<uint8_t>> exchange(const void *data, size_t len) override {
    const auto *p = static_cast<const uint8_t *>(data);
    return {std::vector<uint8_t>(p, p + len)};
  }
  std::vector<std::vector<int>> exchange_fds(const std::vector<int> &mine) override {
    std::vector<int> dups;
    for (int fd : mine) dups.push_back(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
    return {dups};
  }
  [[noreturn]] void abort(int code, const std::string &) override {
    std::fflush(nullptr);
    _exit(code);
  }
  void announce_exit(int, bool) override {}

 private:
  std::string job_id_;
};

std::string take_env(const char *name) {
  const char *v = std::getenv(name);
  std::string out = v ? v : "";
  ::unsetenv(name);
  return out;
}

}  // namespace

std::unique_ptr<Bootstrap> join_job() {
  std::string address = take_env(kEnvAddress);
  if (!address.empty()) {
    std::string secret_hex = take_env(kEnvSecret);
    std::string rank_text = take_env(kEnvRank), size_text = take_env(kEnvSize);
    std::string job = take_env(kEnvJob);
    if (!take_env(kEnvVerbose).empty()) util::set_verbose(true);
    std::vector<uint8_t> secret;
    auto rank = config::parse_int(rank_text), size = config::parse_int(size_text);
    if (!util::unhex(secret_hex, secret) || secret.size() != kSecretBytes || !rank || !size ||
        *size < 1 || *rank < 0 || *rank >= *size) {
      util::fatal("the launcher's job description in %s/%s/%s/%s is malformed", kEnvAddress,
                  kEnvSecret, kEnvRank, kEnvSize);
    }
    auto client = std::make_unique<HubClient>(static_cast<uint32_t>(*rank),
                                              static_cast<uint32_t>(*size), job, "gasnetrun");
    client->connect(address, secret.data());
    return client;
  }
  // Reported once here, before the ranks are started, rather than by each.
  config::validate_environment();
  int64_t n = config::get_int("GASNET_PSHM_NODES", 1, 1 << 20);
  if (n == 1) return std::make_unique<Singleton>();

  LocalJobOptions o;
  o.ranks = static_cast<uint32_t>(n);
  o.argv = {"(this program)"};
  o.verbose = config::get_bool("GASNET_VERBOSEENV");
  o.exit_timeout_seconds = exit_timeout_seconds(o.ranks);
  o.who = "gexx";
  LocalJobResult r = run_local_job(o);
  if (!r.is_rank) {
    std::fflush(nullptr);
    _exit(r.exit_code);
  }
  auto client = std::make_unique<HubClient>(r.rank, o.ranks, r.job_id, "GASNET_PSHM_NODES");
  client->connect(r.address, r.secret);
  return client;
}

}  // namespace gexx::bootstrap
