// The job side shared by the PMI launchers (pmi_job.hpp): start-up, the
// exchanges, the exit board of a host and the exit thread. Only start-up and
// exit come here; nothing on a communication path.
#include "bootstrap/pmi_job.hpp"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "bootstrap/local_group.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

namespace {

// Tells this process to leave with the code another rank left with (the
// same notice gasnetrun gives: a SIGQUIT carrying the code).
void quit_with(pid_t pid, int code) {
  union sigval value;
  value.sival_int = code;
  ::sigqueue(pid, SIGQUIT, value);
}

// After a rank announces its exit, how long the others get to reach their
// own (a final barrier, some output, exit everywhere) before they are told
// to leave: gasnetrun's grace (launcher/supervisor.cpp), applied here by
// each receiving rank.
constexpr int kExitGraceMs = 500;

// A page the ranks of a host share: the first exit announced there (1 in the
// high word, the code in the low one), with an eventfd that wakes them.
struct ExitBoard {
  std::atomic<uint64_t> first;
};

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// An exit told from the first rank of one host to those of the others.
struct ExitDatagram {
  uint64_t magic;
  uint64_t job;
  int32_t code;
};
constexpr uint64_t kExitMagic = 0x6765787865786974ull;

// The first pollfd of the exit thread that watches a rank of this host.
constexpr size_t kFirstPidFd = 4;

void put_u64(std::vector<uint8_t> &b, uint64_t v) {
  b.insert(b.end(), reinterpret_cast<uint8_t *>(&v), reinterpret_cast<uint8_t *>(&v) + 8);
}

uint64_t get_u64(const std::vector<uint8_t> &b, size_t &off) {
  uint64_t v;
  if (off + 8 > b.size()) util::fatal("truncated bootstrap exchange");
  std::memcpy(&v, b.data() + off, 8);
  off += 8;
  return v;
}

class PmiJob final : public Bootstrap {
 public:
  PmiJob(std::unique_ptr<PmiService> service, const std::string &why) : svc_(std::move(service)) {
    rank_ = svc_->rank();
    size_ = svc_->size();
    util::set_log_identity(rank_, util::hostname());
    // Names files: the same short id in every rank of the job.
    uint64_t hash = 1469598103934665603ull;
    for (char c : svc_->job_name()) hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    job_hash_ = hash;
    uint8_t id[4];
    std::memcpy(id, &hash, sizeof id);
    job_id_ = util::hex(id, sizeof id);
    spawner_ = std::string(svc_->kind()) + " (" + why + ")";
    if (rank_ == 0) config::validate_environment();

    local_.before_lost = [](void *self) { static_cast<PmiJob *>(self)->await_exit_notice(); };
    local_.before_lost_arg = this;
    host_ranks_ = svc_->local_ranks();
    bool known = !host_ranks_.empty() && host_ranks_.back() < size_ &&
                 std::find(host_ranks_.begin(), host_ranks_.end(), rank_) != host_ranks_.end();
    if (known) {
      start_from_launcher_lists();
    } else {
      host_ranks_.clear();
      start_from_host_names();
    }
    start_notifier();
    util::note("joined %s job %s as rank %u of %u; %zu rank(s) on this host", svc_->kind(),
               svc_->job_name().c_str(), rank_, size_, host_ranks_.size());
  }

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const char *spawner() const override { return spawner_.c_str(); }
  const std::string &job_id() const override { return job_id_; }
  const std::vector<uint32_t> &host_ranks() const override { return host_ranks_; }

  std::vector<std::vector<uint8_t> > exchange(const void *data, size_t len) override {
    std::lock_guard<std::mutex> guard(mu_);
    return exchange_by_host(data, len);
  }

  std::vector<std::vector<int> > exchange_fds(const std::vector<int> &mine) override {
    std::lock_guard<std::mutex> guard(mu_);
    auto local = local_.exchange_fds(mine);
    std::vector<std::vector<int> > out(size_);
    for (size_t i = 0; i < local.size(); ++i) out[host_ranks_[i]] = std::move(local[i]);
    return out;
  }

  [[noreturn]] void abort(int code, const std::string &reason) override {
    std::fflush(nullptr);
    post_exit(code);  // the ranks of this host leave with this code too
    svc_->abort(code, reason.c_str());
    _exit(code);
  }

  void announce_exit(int code, bool) override {
    // Async-signal-safe: the board and two writes; the helper thread tells
    // the ranks of other hosts and finalizes (the launcher then sees an
    // orderly exit). The ranks of this host wake on the eventfd.
    // The job's code is the first exit's (as gasnetrun returns it): a rank
    // that leaves because another left, even through a client's SIGQUIT
    // handler calling gasnet_exit(other), leaves with the first code, so
    // that a launcher returning the highest status (srun) returns it.
    int64_t first = post_exit(code) ? -1 : static_cast<int64_t>(board_->first.load() & 0xffffffffu);
    if (first < 0) first = remote_code_.load();
    int32_t word = code;
    if (::write(request_[1], &word, sizeof word) == sizeof word) {
      pollfd p{ack_[0], POLLIN, 0};
      // Bounded: this may run in a signal handler that interrupted a thread
      // holding a lock the launcher's library needs.
      for (int waited = 0; waited < 100; ++waited) {
        if (::poll(&p, 1, 100) > 0) {
          char c;
          (void)!::read(ack_[0], &c, 1);
          break;
        }
      }
    }
    if (first >= 0 && first != code) {
      std::fflush(nullptr);  // exit() has not flushed yet when it runs this
      _exit(static_cast<int>(first));
    }
  }

 private:
  // The launcher named this host's ranks: the first of them opens the
  // host's socket and publishes its contact with the host's list; the
  // others fetch that one record, the first ranks one record per host.
  // One fence, and 1 get per rank (H per first rank), not one per pair.
  void start_from_launcher_lists() {
    std::string contact = local_.open(index_in_host(), host_size());
    const std::string key = "gexx.c";
    if (index_in_host() == 0) {
      std::string list;
      for (uint32_t r : host_ranks_) list += (list.empty() ? "" : ",") + std::to_string(r);
      std::string rec = (contact.empty() ? "-" : contact) + '\n' + list + '\n' +
                        (host_size() < size_ ? open_exit_socket() : "-");
      svc_->put(key, rec.data(), rec.size());
    }
    fence_all();
    auto record = [&](uint32_t r, std::string &contact_out) {
      std::vector<uint8_t> b;
      if (!svc_->get(r, key, b)) {
        await_exit_notice();
        util::fatal("%s: no start-up record from rank %u", svc_->kind(), r);
      }
      auto parts = util::split(std::string(b.begin(), b.end()), "\n");
      if (parts.size() != 3) util::fatal("malformed start-up record from rank %u", r);
      if (index_in_host() == 0) add_exit_peer(parts[2]);
      contact_out = parts[0] == "-" ? "" : parts[0];
      std::vector<uint32_t> ranks;
      for (const auto &word : util::split(parts[1], ",")) {
        auto v = config::parse_int(word);
        if (!v || *v < 0 || *v >= static_cast<int64_t>(size_))
          util::fatal("malformed host rank list from rank %u", r);
        ranks.push_back(static_cast<uint32_t>(*v));
      }
      if (ranks.empty() || ranks[0] != r)
        util::fatal("rank %u's host list does not start with it", r);
      return ranks;
    };
    std::string leader_contact = contact;
    if (index_in_host() != 0) {
      record(host_ranks_[0], leader_contact);
    } else if (host_size() == size_) {
      leaders_ = {host_ranks_[0]};
    } else {
      // The lowest rank not yet seen always leads its host.
      std::vector<bool> seen(size_, false);
      uint32_t count = 0;
      for (uint32_t r = 0; r < size_;) {
        std::string unused;
        auto ranks = r == rank_ ? host_ranks_ : record(r, unused);
        leaders_.push_back(r);
        for (uint32_t m : ranks) {
          if (seen[m]) util::fatal("%s: rank %u is listed on two hosts", svc_->kind(), m);
          seen[m] = true;
          ++count;
        }
        while (r < size_ && seen[r]) ++r;
      }
      if (count != size_) util::fatal("%s: the host lists do not cover the job", svc_->kind());
    }
    local_.connect(leader_contact);
    // The pids of this host's ranks (the exit thread watches them).
    int64_t pid = ::getpid();
    std::vector<uint8_t> pids;
    if (index_in_host() == 0) {
      auto all = local_.gather(&pid, sizeof pid);
      for (auto &p : all) pids.insert(pids.end(), p.begin(), p.end());
      local_.answer_all(pids);
    } else {
      pids = local_.ask_leader(&pid, sizeof pid);
    }
    if (pids.size() != 8 * host_size()) util::fatal("malformed pid exchange on this host");
    pids_.assign(size_, 0);
    size_t off = 0;
    for (uint32_t r : host_ranks_) pids_[r] = static_cast<pid_t>(get_u64(pids, off));
    // The other hosts' exit addresses, to every rank of this host: any of
    // them may be the one that tells an exit (its first rank may be the
    // rank that died).
    if (host_size() > 1 && host_size() < size_) {
      if (index_in_host() == 0) {
        std::string fields;
        for (const auto &f : exit_fields_) fields += (fields.empty() ? "" : ";") + f;
        local_.gather(nullptr, 0);
        local_.answer_all(std::vector<uint8_t>(fields.begin(), fields.end()));
      } else {
        auto b = local_.ask_leader(nullptr, 0);
        for (const auto &f : util::split(std::string(b.begin(), b.end()), ";")) add_exit_peer(f);
        exit_sock_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      }
    }
  }

  // The launcher did not name this host's ranks: host names decide, from a
  // first exchange of every rank's record with every rank.
  void start_from_host_names() {
    std::string mine = std::to_string(::getpid()) + '\n' + util::hostname();
    auto all = exchange_flat(mine.data(), mine.size());
    std::vector<std::string> hosts(size_);
    pids_.assign(size_, 0);
    for (uint32_t r = 0; r < size_; ++r) {
      auto parts = util::split(std::string(all[r].begin(), all[r].end()), "\n");
      if (parts.size() != 2) util::fatal("malformed start-up record from rank %u", r);
      pids_[r] = static_cast<pid_t>(std::atol(parts[0].c_str()));
      hosts[r] = parts[1];
    }
    std::map<std::string, bool> led;
    for (uint32_t r = 0; r < size_; ++r) {
      if (hosts[r] == hosts[rank_]) host_ranks_.push_back(r);
      if (!led[hosts[r]]) leaders_.push_back(r);
      led[hosts[r]] = true;
    }
    std::string contact = local_.open(index_in_host(), host_size());
    all = exchange_flat(contact.data(), contact.size());
    local_.connect(std::string(all[host_ranks_[0]].begin(), all[host_ranks_[0]].end()));
  }

  // The first rank of a host with ranks on other hosts: a datagram socket on
  // which the first ranks of the other hosts tell an exit (a launcher need
  // not carry PMIx events across hosts: Slurm's does not). Returns
  // "port,address,..." for its start-up record, "-" when it has none.
  std::string open_exit_socket() {
    exit_sock_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t alen = sizeof a;
    if (exit_sock_ < 0 || ::bind(exit_sock_, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
        ::getsockname(exit_sock_, reinterpret_cast<sockaddr *>(&a), &alen) != 0) {
      util::warn("no exit socket for the ranks of other hosts: %s", std::strerror(errno));
      if (exit_sock_ >= 0) ::close(exit_sock_);
      exit_sock_ = -1;
      return "-";
    }
    std::string out = std::to_string(ntohs(a.sin_port));
    size_t bare = out.size();
    ifaddrs *list = nullptr;
    if (::getifaddrs(&list) == 0) {
      for (ifaddrs *i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
          continue;
        char text[INET_ADDRSTRLEN];
        const auto *in = reinterpret_cast<const sockaddr_in *>(i->ifa_addr);
        if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) out += std::string(",") + text;
      }
      ::freeifaddrs(list);
    }
    if (out.size() == bare) out += ",127.0.0.1";
    return out;
  }

  void add_exit_peer(const std::string &field) {
    if (field == "-" || field.empty()) return;
    exit_fields_.push_back(field);
    auto words = util::split(field, ",");
    auto port = config::parse_int(words.empty() ? "" : words[0]);
    if (!port || *port <= 0 || *port > 65535)
      util::fatal("malformed exit address '%s'", field.c_str());
    for (size_t i = 1; i < words.size(); ++i) {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(*port));
      if (::inet_pton(AF_INET, words[i].c_str(), &a.sin_addr) == 1) exit_peers_.push_back(a);
    }
  }

  // Tells the first ranks of the other hosts that a rank of this host left
  // with `code` (once; twice each, datagrams).
  void send_exit(int32_t code) {
    if (exit_sent_ || exit_sock_ < 0) return;
    exit_sent_ = true;
    ExitDatagram d{kExitMagic, job_hash_, code};
    for (int round = 0; round < 2; ++round)
      for (const auto &peer : exit_peers_)
        (void)::sendto(exit_sock_, &d, sizeof d, 0, reinterpret_cast<const sockaddr *>(&peer),
                       sizeof peer);
  }

  // A fence of every rank of the job that collects what they put.
  void fence_all() {
    if (!svc_->fence()) {
      await_exit_notice();
      util::fatal("%s fence failed: a rank left the job?", svc_->kind());
    }
  }

  std::vector<uint8_t> get_bytes(uint32_t rank, const std::string &key) {
    std::vector<uint8_t> out;
    if (!svc_->get(rank, key, out)) {
      await_exit_notice();
      util::fatal("%s: cannot get rank %u's %s", svc_->kind(), rank, key.c_str());
    }
    return out;
  }

  // Every rank's bytes through the launcher: put, fence, a get per rank.
  std::vector<std::vector<uint8_t> > exchange_flat(const void *data, size_t len) {
    std::string key = "gexx.x" + std::to_string(seq_++);
    // One leading byte, so that an empty contribution is still a value.
    std::vector<char> bytes(len + 1);
    bytes[0] = 'x';
    if (len) std::memcpy(bytes.data() + 1, data, len);
    svc_->put(key, bytes.data(), bytes.size());
    fence_all();
    std::vector<std::vector<uint8_t> > out(size_);
    for (uint32_t r = 0; r < size_; ++r) {
      std::vector<uint8_t> b = get_bytes(r, key);
      if (b.empty()) util::fatal("%s: rank %u's %s is empty", svc_->kind(), r, key.c_str());
      out[r].assign(b.begin() + 1, b.end());
    }
    return out;
  }

  // The ranks of a host send their bytes to its first rank; the first ranks
  // alone go through the launcher (a get per host, not per rank; nothing at
  // all when the job has one host) and hand the whole back.
  std::vector<std::vector<uint8_t> > exchange_by_host(const void *data, size_t len) {
    std::vector<std::vector<uint8_t> > out(size_);
    // Records "rank, length, bytes", read into `out`.
    auto unpack = [&](const std::vector<uint8_t> &b) {
      size_t off = 0;
      while (off < b.size()) {
        uint64_t r = get_u64(b, off), n = get_u64(b, off);
        if (r >= size_ || off + n > b.size()) util::fatal("malformed bootstrap exchange");
        out[r].assign(b.begin() + static_cast<long>(off), b.begin() + static_cast<long>(off + n));
        off += n;
      }
    };
    if (index_in_host() != 0) {
      // The fence takes every rank (only the first of each host put data),
      // and the first rank answers after it.
      local_.tell_leader(data, len);
      if (size_ > host_size()) fence_all();
      unpack(local_.leader_answer());
      return out;
    }
    auto mine = local_.gather(data, len);
    std::vector<uint8_t> host_blob;
    for (size_t i = 0; i < mine.size(); ++i) {
      put_u64(host_blob, host_ranks_[i]);
      put_u64(host_blob, mine[i].size());
      host_blob.insert(host_blob.end(), mine[i].begin(), mine[i].end());
    }
    std::vector<uint8_t> all;
    if (size_ > host_size()) {
      // The first rank of each host: its host's records through the
      // launcher; every rank of the job enters the fence.
      std::string key = "gexx.h" + std::to_string(seq_++);
      svc_->put(key, host_blob.data(), host_blob.size());
      fence_all();
      for (uint32_t leader : leaders_) {
        std::vector<uint8_t> b = get_bytes(leader, key);
        all.insert(all.end(), b.begin(), b.end());
      }
    } else {
      all = std::move(host_blob);
    }
    local_.answer_all(all);
    unpack(all);
    return out;
  }

  // A collective failed because a rank left: when that rank announced its
  // exit, the notice (SIGQUIT with its code) comes within the grace and
  // ends this process with the job's code; otherwise the caller's fatal
  // error follows.
  void await_exit_notice() {
    for (int waited = 0; waited < 40; ++waited) ::usleep(50 * 1000);
  }

  // Async-signal-safe: the first exit of the host, on its board.
  // True when this was the host's first, or there is no board.
  bool post_exit(int code) {
    if (!board_) return true;
    uint64_t none = 0;
    bool first = board_->first.compare_exchange_strong(
        none, (uint64_t{1} << 32) | static_cast<uint32_t>(code));
    uint64_t one = 1;
    (void)!::write(board_event_, &one, sizeof one);
    return first;
  }

  uint32_t index_in_host() const {
    return static_cast<uint32_t>(std::find(host_ranks_.begin(), host_ranks_.end(), rank_) -
                                 host_ranks_.begin());
  }
  uint32_t host_size() const { return static_cast<uint32_t>(host_ranks_.size()); }

  // The host's exit board: the first rank of the host makes it, all map it.
  void open_board() {
    if (host_ranks_.size() < 2) return;
    std::vector<int> mine;
    if (index_in_host() == 0) {
      int page = ::memfd_create("gexx-exit", MFD_CLOEXEC);
      int event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
      if (page < 0 || event < 0 || ::ftruncate(page, 4096) != 0)
        util::fatal("cannot create this host's exit board: %s", std::strerror(errno));
      mine = {page, event};
    }
    auto all = local_.exchange_fds(mine);
    for (int fd : mine) ::close(fd);
    if (all[0].size() != 2) util::fatal("this host's first rank sent no exit board");
    void *map = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, all[0][0], 0);
    ::close(all[0][0]);
    if (map == MAP_FAILED)
      util::fatal("cannot map this host's exit board: %s", std::strerror(errno));
    board_ = static_cast<ExitBoard *>(map);
    board_event_ = all[0][1];
  }

  void start_notifier() {
    int remote[2];
    if (::pipe2(request_, O_CLOEXEC) != 0 || ::pipe2(ack_, O_CLOEXEC) != 0 ||
        ::pipe2(remote, O_CLOEXEC) != 0)
      util::fatal("cannot create the exit pipes: %s", std::strerror(errno));
    remote_read_ = remote[0];
    remote_write_ = remote[1];
    open_board();
    remote_ranks_ = host_ranks_.size() < size_;
    if (remote_ranks_) {
      QuietSignals quiet;
      if (!svc_->watch_remote_exits(remote[1]))
        util::note(
            "%s tells no exits across hosts: a rank's exit reaches other hosts through "
            "the launcher only",
            svc_->kind());
    }
    QuietSignals quiet;
    pthread_t thread;
    if (pthread_create(&thread, nullptr, &PmiJob::notifier_main, this) != 0)
      util::fatal("cannot start the exit thread");
    pthread_detach(thread);
  }

  // The helper thread: waits for this rank's exit (then finalizes) or
  // another's (then, after the grace, tells this rank to leave with its code).
  static void *notifier_main(void *self_ptr) {
    auto *self = static_cast<PmiJob *>(self_ptr);
    // Then one pidfd per other rank of this host: one that ends without
    // announcing its exit (killed, crashed) ends the job, as gasnetrun would.
    std::vector<pollfd> fds = {{self->request_[0], POLLIN, 0},
                               {self->board_ ? self->board_event_ : -1, POLLIN, 0},
                               {self->remote_read_, POLLIN, 0},
                               {self->exit_sock_, POLLIN, 0}};
    std::vector<uint32_t> watched;
    for (uint32_t r : self->host_ranks_) {
      if (r == self->rank_ || self->pids_[r] <= 0) continue;
      int fd = static_cast<int>(::syscall(SYS_pidfd_open, self->pids_[r], 0));
      if (fd < 0) continue;  // an old kernel: the launcher's rules alone
      fds.push_back({fd, POLLIN, 0});
      watched.push_back(r);
    }
    double grace_end = -1;
    int32_t other_code = 0;
    bool told = false;
    for (;;) {
      int timeout = grace_end < 0 ? -1 : std::max(0, static_cast<int>(grace_end - now_ms()));
      int n = ::poll(fds.data(), fds.size(), timeout);
      if (n < 0 && errno != EINTR) return nullptr;
      if (n > 0 && (fds[0].revents & POLLIN)) break;
      if (n > 0 && fds[3].fd >= 0 && (fds[3].revents & POLLIN)) {
        // An exit on another host: this host's ranks hear it on the board
        // (or, alone, as from the launcher's event).
        ExitDatagram d{};
        if (::recv(fds[3].fd, &d, sizeof d, 0) == sizeof d && d.magic == kExitMagic &&
            d.job == self->job_hash_) {
          self->exit_sent_ = true;  // the others know
          fds[3].fd = -1;
          if (self->board_) {
            self->post_exit(d.code);
          } else if (fds[2].fd >= 0) {
            int32_t code = d.code;
            (void)!::write(self->remote_write_, &code, sizeof code);
          }
        }
      }
      for (size_t i = kFirstPidFd; n > 0 && i < fds.size(); ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
        ::close(fds[i].fd);
        fds[i].fd = -1;
        if (told || (self->board_ && self->board_->first.load() != 0)) continue;
        told = true;
        grace_end = -1;
        fds[1].fd = fds[2].fd = -1;
        util::warn("rank %u (pid %d) of this host ended without gasnet_exit; ending the job",
                   watched[i - kFirstPidFd],
                   static_cast<int>(self->pids_[watched[i - kFirstPidFd]]));
        quit_with(::getpid(), util::kFatalExitCode);
      }
      if (grace_end >= 0 && now_ms() >= grace_end) {
        quit_with(::getpid(), other_code);
        grace_end = -1;
        told = true;
        continue;
      }
      if (n <= 0 || grace_end >= 0 || told) continue;
      if (fds[1].fd >= 0 && (fds[1].revents & POLLIN)) {
        // Left unread: every rank of the host wakes on it; watched once.
        fds[1].fd = -1;
        other_code = static_cast<int32_t>(self->board_->first.load() & 0xffffffffu);
        self->send_exit(other_code);
        grace_end = now_ms() + kExitGraceMs;
        fds[2].fd = -1;
      } else if (fds[2].fd >= 0 && (fds[2].revents & POLLIN)) {
        if (::read(fds[2].fd, &other_code, sizeof other_code) != sizeof other_code) continue;
        int64_t none = -1;
        self->remote_code_.compare_exchange_strong(none, other_code);
        grace_end = now_ms() + kExitGraceMs;
        fds[1].fd = fds[2].fd = -1;
      }
    }
    int32_t code = 0;
    if (::read(self->request_[0], &code, sizeof code) != sizeof code) return nullptr;
    if (self->remote_ranks_) {
      int64_t first = self->board_ ? static_cast<int64_t>(self->board_->first.load() & 0xffffffffu)
                                   : self->remote_code_.load();
      self->send_exit(first >= 0 ? static_cast<int32_t>(first) : code);
      self->svc_->tell_remote_exit(code);
    }
    self->svc_->finalize();
    char c = 'f';
    (void)!::write(self->ack_[1], &c, 1);
    return nullptr;
  }

  std::unique_ptr<PmiService> svc_;
  uint32_t rank_ = 0, size_ = 1;
  std::string job_id_, spawner_;
  std::vector<uint32_t> host_ranks_;
  std::vector<pid_t> pids_;
  LocalGroup local_;
  uint64_t seq_ = 0;
  std::mutex mu_;
  int request_[2] = {-1, -1}, ack_[2] = {-1, -1};
  int remote_read_ = -1;
  std::vector<uint32_t> leaders_;         // the first rank of each host (first ranks only)
  std::atomic<int64_t> remote_code_{-1};  // the first exit heard of from another host
  ExitBoard *board_ = nullptr;
  int board_event_ = -1;
  bool remote_ranks_ = false;
  uint64_t job_hash_ = 0;
  int exit_sock_ = -1;  // multi-host jobs: exits to (and, first ranks, from) other hosts
  std::vector<sockaddr_in> exit_peers_;   // the other hosts' first ranks
  std::vector<std::string> exit_fields_;  // the same as published
  std::atomic<bool> exit_sent_{false};
  int remote_write_ = -1;
};

}  // namespace

std::unique_ptr<Bootstrap> join_pmi_job(std::unique_ptr<PmiService> service,
                                        const std::string &why) {
  return std::make_unique<PmiJob>(std::move(service), why);
}

void *open_first_library(const std::vector<std::string> &candidates, std::string &errors) {
  for (const auto &c : candidates) {
    if (void *lib = ::dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL)) return lib;
    const char *e = ::dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e ? e : c);
  }
  return nullptr;
}

}  // namespace gexx::bootstrap
