// The rank's side of the bootstrap channel, and the choice of how to join.
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/pmi2.hpp"
#include "bootstrap/pmix.hpp"
#include "bootstrap/pshm.hpp"
#include "bootstrap/wire.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

std::vector<uint8_t> Bootstrap::broadcast(uint32_t root, const void *data, size_t len) {
  auto all = exchange(rank() == root ? data : nullptr, rank() == root ? len : 0);
  return std::move(all[root]);
}

void Bootstrap::allgather_bytes(const void *mine, size_t len, void *out) {
  auto all = exchange(mine, len);
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].size() != len) {
      util::fatal("bootstrap allgather: rank %zu contributed %zu bytes where this rank gave %zu", r,
                  all[r].size(), len);
    }
    if (len) std::memcpy(static_cast<char *>(out) + r * len, all[r].data(), len);
  }
}

namespace {

// One connection to a hub: the launcher's, or (ssh spawner) this host's agent.
class HubConnection {
 public:
  HubConnection() = default;
  HubConnection(const HubConnection &) = delete;
  HubConnection &operator=(const HubConnection &) = delete;
  ~HubConnection() {
    if (fd_ >= 0) ::close(fd_);
    for (int fd : fds_) ::close(fd);
  }
  bool open() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // Joins as `rank` of `size` there.
  void connect(const std::string &address, const uint8_t *secret, uint32_t rank, uint32_t size,
               const char *what) {
    fd_ = connect_address(address);
    if (fd_ < 0) {
      util::fatal(
          "cannot reach %s's bootstrap socket %s: %s (was this process started by gasnetrun "
          "of this installation?)",
          what, address.c_str(), std::strerror(errno));
    }
    HelloBody hello{kMagic, kProtocolVersion, rank, size, {}, 0};
    std::memcpy(hello.secret, secret, kSecretBytes);
    hello.pid = static_cast<uint32_t>(::getpid());
    if (!send_message(fd_, Op::Hello, 0, &hello, sizeof hello)) lost();
    Header h;
    std::vector<uint8_t> payload;
    read_message(h, payload);
    if (static_cast<Op>(h.op) == Op::Reject) {
      util::fatal("%s refused this process: %.*s", what, static_cast<int>(payload.size()),
                  reinterpret_cast<char *>(payload.data()));
    }
    if (static_cast<Op>(h.op) != Op::Welcome) util::fatal("unexpected bootstrap reply %u", h.op);
  }

  std::vector<std::vector<uint8_t>> exchange(const void *data, size_t len, uint32_t size) {
    if (!send_message(fd_, Op::Exchange, 0, data, len)) lost();
    Header h;
    std::vector<uint8_t> payload;
    read_message(h, payload);
    if (static_cast<Op>(h.op) != Op::Exchange) util::fatal("unexpected bootstrap reply %u", h.op);
    std::vector<std::vector<uint8_t>> out(size);
    size_t off = 0;
    for (uint32_t r = 0; r < size; ++r) {
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

  // `len` bytes from each of the `size` members straight into `out`.
  void allgather(const void *mine, size_t len, void *out, uint32_t size) {
    if (!send_message(fd_, Op::Allgather, 0, mine, len)) lost();
    Header h;
    read_exact(&h, sizeof h);
    if (static_cast<Op>(h.op) != Op::Allgather || h.length != uint64_t{size} * len)
      util::fatal("unexpected bootstrap reply %u", h.op);
    if (h.length) read_exact(out, h.length);
  }

  // Descriptors from each of the `size` members of this hub, by member.
  std::vector<std::vector<int>> exchange_fds(const std::vector<int> &mine, uint32_t size) {
    if (!send_message(fd_, Op::ExchangeFds, static_cast<uint32_t>(mine.size()), nullptr, 0,
                      mine.data(), mine.size()))
      lost();
    Header h;
    std::vector<uint8_t> payload;
    read_message(h, payload);
    if (static_cast<Op>(h.op) != Op::ExchangeFds || payload.size() != size * sizeof(uint32_t))
      util::fatal("unexpected bootstrap reply %u", h.op);
    std::vector<uint32_t> counts(size);
    std::memcpy(counts.data(), payload.data(), payload.size());
    while (fds_.size() < h.arg) {
      Header chunk;
      std::vector<uint8_t> none;
      read_message(chunk, none);
      if (static_cast<Op>(chunk.op) != Op::FdChunk) util::fatal("unexpected bootstrap reply");
    }
    std::vector<std::vector<int>> out(size);
    size_t next = 0;
    for (uint32_t r = 0; r < size; ++r)
      for (uint32_t i = 0; i < counts[r]; ++i) out[r].push_back(fds_[next++]);
    fds_.erase(fds_.begin(), fds_.begin() + static_cast<long>(next));
    return out;
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

  int fd_ = -1;
  std::vector<int> fds_;  // received descriptors not yet handed out
};

class HubClient final : public Bootstrap {
 public:
  HubClient(uint32_t rank, uint32_t size, std::string job_id, const char *spawner)
      : rank_(rank), size_(size), job_id_(std::move(job_id)), spawner_(spawner) {
    for (uint32_t r = 0; r < size; ++r) host_ranks_.push_back(r);
  }

  void connect(const std::string &address, const uint8_t *secret) {
    hub_.connect(address, secret, rank_, size_, "the launcher");
  }
  // Ranks on other hosts too: descriptors go through this host's agent,
  // among `host_ranks` (this rank among them).
  void connect_host(const std::string &address, const uint8_t *secret,
                    std::vector<uint32_t> host_ranks) {
    auto me = std::find(host_ranks.begin(), host_ranks.end(), rank_);
    if (me == host_ranks.end()) util::fatal("this host's rank list does not hold rank %u", rank_);
    host_ranks_ = std::move(host_ranks);
    host_.connect(address, secret, static_cast<uint32_t>(me - host_ranks_.begin()),
                  static_cast<uint32_t>(host_ranks_.size()), "this host's agent");
  }

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const char *spawner() const override { return spawner_; }
  const std::string &job_id() const override { return job_id_; }
  const std::vector<uint32_t> &host_ranks() const override { return host_ranks_; }

  std::vector<std::vector<uint8_t>> exchange(const void *data, size_t len) override {
    std::lock_guard<std::mutex> guard(mu_);
    return hub_.exchange(data, len, size_);
  }

  void allgather_bytes(const void *mine, size_t len, void *out) override {
    std::lock_guard<std::mutex> guard(mu_);
    hub_.allgather(mine, len, out, size_);
  }

  std::vector<std::vector<int>> exchange_fds(const std::vector<int> &mine) override {
    std::lock_guard<std::mutex> guard(mu_);
    if (host_.open()) {
      auto local = host_.exchange_fds(mine, static_cast<uint32_t>(host_ranks_.size()));
      std::vector<std::vector<int>> out(size_);
      for (size_t i = 0; i < local.size(); ++i) out[host_ranks_[i]] = std::move(local[i]);
      return out;
    }
    // Descriptors travel only over a Unix socket, between ranks of one host.
    if (!is_unix_socket(hub_.fd())) {
      util::fatal(
          "this rank reaches the launcher over TCP but has no host agent to pass "
          "shared-memory descriptors through; start the job with gasnetrun");
    }
    return hub_.exchange_fds(mine, size_);
  }

  [[noreturn]] void abort(int code, const std::string &reason) override {
    // Best effort: the launcher also notices the exit itself.
    send_message(hub_.fd(), Op::Abort, static_cast<uint32_t>(code), reason.data(), reason.size());
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
    write_all(hub_.fd(), message, sizeof message);
  }

 private:
  uint32_t rank_, size_;
  std::string job_id_;
  const char *spawner_;
  std::vector<uint32_t> host_ranks_;
  HubConnection hub_, host_;
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
  const std::vector<uint32_t> &host_ranks() const override { return host_ranks_; }
  std::vector<std::vector<uint8_t>> exchange(const void *data, size_t len) override {
    const auto *p = static_cast<const uint8_t *>(data);
    return {std::vector<uint8_t>(p, p + len)};
  }
  void allgather_bytes(const void *mine, size_t len, void *out) override {
    if (len) std::memcpy(out, mine, len);
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
  std::vector<uint32_t> host_ranks_{0};
};

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
    std::string host_address = take_env(kEnvHostAddress), host_list = take_env(kEnvHostRanks);
    if (!host_address.empty()) {
      std::vector<uint32_t> host_ranks;
      for (const auto &word : util::split(host_list, ",")) {
        auto r = config::parse_int(word);
        if (!r || *r < 0 || *r >= *size) {
          util::fatal("the launcher's host rank list in %s ('%s') is malformed", kEnvHostRanks,
                      host_list.c_str());
        }
        host_ranks.push_back(static_cast<uint32_t>(*r));
      }
      client->connect_host(host_address, secret.data(), std::move(host_ranks));
    }
    return client;
  }
  // Started by srun, mpirun or another PMI launcher (bootstrap/pmix.cpp).
  LaunchGuess launch = guess_launch();
  if (launch.how == Launch::Pmix) return join_pmix_job(launch.why);
  if (launch.how == Launch::Pmi2) return join_pmi2_job(launch.why);
  if (launch.how == Launch::Unserved) util::fatal("join_job: %s", launch.why.c_str());
  // Reported once here, before the ranks are started, rather than by each.
  config::validate_environment();
  int64_t n = config::get_int("GASNET_PSHM_NODES");
  if (n == 1) return std::make_unique<Singleton>();

  PshmRank me = fork_pshm_ranks(static_cast<uint32_t>(n), config::get_bool("GASNET_VERBOSEENV"));
  auto client = std::make_unique<HubClient>(me.rank, static_cast<uint32_t>(n), me.job_id,
                                            "GASNET_PSHM_NODES");
  client->connect(me.address, me.secret);
  return client;
}

}  // namespace gexx::bootstrap
