// The PMIx bootstrap: rank and size from the server, exchanges as put,
// commit, fence (collecting data) and get, descriptors among the ranks of a
// host through a LocalGroup, and exit as the launcher expects it (finalize
// before leaving; PMIx_Abort to end the job with a code).
#include "bootstrap/pmix.hpp"

#include <dlfcn.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
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
#include <type_traits>

#include "bootstrap/local_group.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

#ifdef GEXX_HAVE_PMIX
#include <pmix.h>
#endif

namespace gexx::bootstrap {

namespace {
std::string env_or_empty(const char *name) {
  const char *v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
}  // namespace

LaunchGuess guess_launch() {
  std::string fn = env_or_empty("GASNET_SPAWNFN");
  bool pmix = !env_or_empty("PMIX_RANK").empty() && !env_or_empty("PMIX_NAMESPACE").empty();
  bool pmi2 = !env_or_empty("PMI_FD").empty() && !env_or_empty("PMI_RANK").empty();
  char letter =
      fn.size() == 1 ? static_cast<char>(std::toupper(static_cast<unsigned char>(fn[0]))) : '\0';
  if (letter == 'M' || letter == 'P') {
    if (pmix) return {Launch::Pmix, "GASNET_SPAWNFN=" + fn + " and PMIX_RANK/PMIX_NAMESPACE"};
    if (pmi2) return {Launch::Pmi2, "GASNET_SPAWNFN=" + fn + " and PMI_FD/PMI_RANK"};
    util::fatal(
        "GASNET_SPAWNFN=%s asks for a PMI launch, but no PMIx or PMI-2 launcher started this "
        "process (neither PMIX_RANK/PMIX_NAMESPACE nor PMI_FD/PMI_RANK is set); run it with "
        "mpirun, srun --mpi=pmix, or gasnetrun -spawner=%s",
        fn.c_str(), letter == 'M' ? "mpi" : "pmi");
  }
  if (letter == 'L' || letter == 'S') return {Launch::Gasnetrun, "GASNET_SPAWNFN=" + fn};
  // A job the program forks itself wins over a launcher of one rank.
  if (!env_or_empty("GASNET_PSHM_NODES").empty()) return {Launch::Gasnetrun, "GASNET_PSHM_NODES"};
  if (pmix) return {Launch::Pmix, "PMIX_RANK/PMIX_NAMESPACE"};
  if (pmi2) return {Launch::Pmi2, "PMI_FD/PMI_RANK"};
  auto tasks = [](const char *name) {
    auto n = config::parse_int(env_or_empty(name));
    return n ? *n : 0;
  };
  if (!env_or_empty("SLURM_STEP_ID").empty() && tasks("SLURM_STEP_NUM_TASKS") > 1) {
    return {Launch::Unserved,
            "srun started " + std::to_string(tasks("SLURM_STEP_NUM_TASKS")) +
                " tasks without a PMI gexx speaks: run srun --mpi=pmix (see srun --mpi=list)"};
  }
  if (tasks("OMPI_COMM_WORLD_SIZE") > 1) {
    return {Launch::Unserved, "mpirun started " + std::to_string(tasks("OMPI_COMM_WORLD_SIZE")) +
                                  " ranks without PMIx (PMIX_RANK/PMIX_NAMESPACE unset)"};
  }
  return {Launch::Gasnetrun, "no launcher's variables"};
}

#ifndef GEXX_HAVE_PMIX

bool pmix_supported() {
  return false;
}

std::unique_ptr<Bootstrap> join_pmix_job(const std::string &why) {
  util::fatal(
      "join_pmix_job: this process was started by a PMIx launcher (%s), but this gexx was built "
      "without PMIx (install libpmix-dev and rebuild), so it cannot join that job",
      why.c_str());
}

#else

bool pmix_supported() {
  return true;
}

#ifndef GEXX_PMIX_LIBDIR
#define GEXX_PMIX_LIBDIR ""
#endif

namespace {

// The entry points used, from the libpmix found at run time.
struct Api {
  decltype(&PMIx_Init) init = nullptr;
  decltype(&PMIx_Finalize) finalize = nullptr;
  decltype(&PMIx_Abort) abort = nullptr;
  decltype(&PMIx_Put) put = nullptr;
  decltype(&PMIx_Commit) commit = nullptr;
  decltype(&PMIx_Fence) fence = nullptr;
  decltype(&PMIx_Get) get = nullptr;
  decltype(&PMIx_Value_destruct) value_destruct = nullptr;
  decltype(&PMIx_Notify_event) notify = nullptr;
  decltype(&PMIx_Register_event_handler) register_handler = nullptr;

  void load() {
    std::vector<std::string> candidates;
    if (const char *env = std::getenv("GEXX_PMIX_LIBRARY"); env && *env) {
      candidates.emplace_back(env);
    } else {
      if (*GEXX_PMIX_LIBDIR) candidates.push_back(std::string(GEXX_PMIX_LIBDIR) + "/libpmix.so.2");
      candidates.emplace_back("libpmix.so.2");
      candidates.emplace_back("libpmix.so");
    }
    void *lib = nullptr;
    std::string errors;
    for (const auto &c : candidates) {
      lib = ::dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL);
      if (lib) break;
      const char *e = ::dlerror();
      errors += (errors.empty() ? "" : "; ") + std::string(e ? e : c);
    }
    if (!lib) {
      util::fatal(
          "cannot load libpmix to join the PMIx job (%s); set GEXX_PMIX_LIBRARY to its path",
          errors.c_str());
    }
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)> >(::dlsym(lib, name));
      if (!fn) util::fatal("libpmix lacks %s (PMIx 4 or later is needed)", name);
    };
    sym(init, "PMIx_Init");
    sym(finalize, "PMIx_Finalize");
    sym(abort, "PMIx_Abort");
    sym(put, "PMIx_Put");
    sym(commit, "PMIx_Commit");
    sym(fence, "PMIx_Fence");
    sym(get, "PMIx_Get");
    sym(value_destruct, "PMIx_Value_destruct");
    sym(notify, "PMIx_Notify_event");
    sym(register_handler, "PMIx_Register_event_handler");
  }
};

Api g_api;
pmix_rank_t g_my_rank = PMIX_RANK_UNDEF;

// Another rank's exit, told to ranks of other hosts (local ones are signalled).
constexpr pmix_status_t kExitEvent = PMIX_EXTERNAL_ERR_BASE - 70;
constexpr const char *kExitCodeKey = "gexx.exit.code";

void set_key(pmix_info_t &info, const char *key) {
  std::memset(&info, 0, sizeof info);
  std::strncpy(info.key, key, PMIX_MAX_KEYLEN);
}

// The value's integer, whichever integer type the server chose.
bool as_integer(const pmix_value_t *v, uint64_t &out) {
  switch (v->type) {
    case PMIX_UINT32:
      out = v->data.uint32;
      return true;
    case PMIX_UINT16:
      out = v->data.uint16;
      return true;
    case PMIX_UINT64:
      out = v->data.uint64;
      return true;
    case PMIX_UINT8:
      out = v->data.uint8;
      return true;
    case PMIX_INT:
      out = static_cast<uint64_t>(v->data.integer);
      return true;
    case PMIX_INT32:
      out = static_cast<uint64_t>(v->data.int32);
      return true;
    case PMIX_SIZE:
      out = v->data.size;
      return true;
    default:
      return false;
  }
}

void release(pmix_value_t *v) {
  if (!v) return;
  g_api.value_destruct(v);
  std::free(v);
}

// Tells this process to leave with the code another rank left with (the
// same notice gasnetrun gives: a SIGQUIT carrying the code).
void quit_with(pid_t pid, int code) {
  union sigval value;
  value.sival_int = code;
  ::sigqueue(pid, SIGQUIT, value);
}

int g_remote_pipe = -1;  // the helper thread's: codes of exits on other hosts

void on_exit_event(size_t, pmix_status_t, const pmix_proc_t *source, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                   void *cbdata) {
  int32_t code = 1;
  for (size_t i = 0; i < ninfo; ++i)
    if (std::strcmp(info[i].key, kExitCodeKey) == 0 && info[i].value.type == PMIX_INT)
      code = info[i].value.data.integer;
  bool mine = source && source->rank == g_my_rank;
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
  if (!mine && g_remote_pipe >= 0) (void)!::write(g_remote_pipe, &code, sizeof code);
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

// Blocks the signals the job's exit rides on in threads libpmix or this
// file start, so that they reach the program's threads.
class QuietSignals {
 public:
  QuietSignals() {
    sigset_t set;
    sigfillset(&set);
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigdelset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~QuietSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

class PmixJob final : public Bootstrap {
 public:
  explicit PmixJob(const std::string &why) {
    g_api.load();
    {
      QuietSignals quiet;
      pmix_status_t rc = g_api.init(&me_, nullptr, 0);
      if (rc != PMIX_SUCCESS) {
        util::fatal(
            "PMIx_Init failed (status %d) although %s says a PMIx server started this "
            "process",
            rc, why.c_str());
      }
    }
    g_my_rank = me_.rank;
    rank_ = me_.rank;
    std::memset(&wild_, 0, sizeof wild_);
    std::memcpy(wild_.nspace, me_.nspace, sizeof wild_.nspace);
    wild_.rank = PMIX_RANK_WILDCARD;
    uint64_t size = 0;
    pmix_value_t *v = nullptr;
    if (g_api.get(&wild_, PMIX_JOB_SIZE, nullptr, 0, &v) != PMIX_SUCCESS || !as_integer(v, size) ||
        size < 1 || rank_ >= size) {
      util::fatal("the PMIx server gave no usable job size (PMIX_JOB_SIZE) for namespace %s",
                  me_.nspace);
    }
    release(v);
    size_ = static_cast<uint32_t>(size);
    util::set_log_identity(rank_, util::hostname());
    // Names files: the same short id in every rank of the job.
    uint64_t hash = 1469598103934665603ull;
    for (const char *p = me_.nspace; *p; ++p)
      hash = (hash ^ static_cast<uint8_t>(*p)) * 1099511628211ull;
    uint8_t id[4];
    std::memcpy(id, &hash, sizeof id);
    job_id_ = util::hex(id, sizeof id);
    spawner_ = "PMIx (" + why + ")";
    if (rank_ == 0) config::validate_environment();

    // The ranks of this host: the server's list when it gives one, else by
    // host name from a first exchange.
    bool known = false;
    v = nullptr;
    if (g_api.get(&wild_, PMIX_LOCAL_PEERS, nullptr, 0, &v) == PMIX_SUCCESS &&
        v->type == PMIX_STRING && v->data.string) {
      for (const auto &word : util::split(v->data.string, ",")) {
        auto r = config::parse_int(word);
        if (!r || *r < 0 || *r >= static_cast<int64_t>(size_)) {
          host_ranks_.clear();
          break;
        }
        host_ranks_.push_back(static_cast<uint32_t>(*r));
      }
      std::sort(host_ranks_.begin(), host_ranks_.end());
      known = std::find(host_ranks_.begin(), host_ranks_.end(), rank_) != host_ranks_.end();
    }
    release(v);
    if (!known) host_ranks_.clear();
    std::string contact = known ? local_.open(index_in_host(), host_size()) : "";
    // "pid host contact peers", "-" for an empty field; peers: the server's
    // list of this host's ranks, so that every rank can tell whether all
    // lists agree with the host names.
    std::string peers;
    for (uint32_t r : host_ranks_) peers += (peers.empty() ? "" : ",") + std::to_string(r);
    std::string mine = std::to_string(::getpid()) + '\n' + util::hostname() + '\n' +
                       (contact.empty() ? "-" : contact) + '\n' + (peers.empty() ? "-" : peers);
    auto all = exchange_pmix(mine.data(), mine.size());
    std::vector<std::string> hosts(size_), contacts(size_), lists(size_);
    pids_.assign(size_, 0);
    for (uint32_t r = 0; r < size_; ++r) {
      auto parts = util::split(std::string(all[r].begin(), all[r].end()), "\n");
      if (parts.size() != 4) util::fatal("malformed start-up record from rank %u", r);
      pids_[r] = static_cast<pid_t>(std::atol(parts[0].c_str()));
      hosts[r] = parts[1];
      contacts[r] = parts[2] == "-" ? "" : parts[2];
      lists[r] = parts[3];
    }
    if (!known) {
      for (uint32_t r = 0; r < size_; ++r)
        if (hosts[r] == hosts[rank_]) host_ranks_.push_back(r);
      contact = local_.open(index_in_host(), host_size());
      all = exchange_pmix(contact.data(), contact.size());
      for (uint32_t r = 0; r < size_; ++r) contacts[r].assign(all[r].begin(), all[r].end());
    }
    // Later exchanges go through the first rank of each host when the
    // server's host lists agree with the host names.
    // Decided alike by every rank, from the records all of them hold.
    std::map<std::string, std::string> by_name;
    for (uint32_t r = 0; r < size_; ++r) {
      std::string &list = by_name[hosts[r]];
      if (list.empty()) leaders_.push_back(r);
      list += (list.empty() ? "" : ",") + std::to_string(r);
    }
    two_level_ = true;
    for (uint32_t r = 0; r < size_; ++r)
      if (lists[r] != "-" && lists[r] != by_name[hosts[r]]) two_level_ = false;
    local_.before_lost = [](void *self) { static_cast<PmixJob *>(self)->await_exit_notice(); };
    local_.before_lost_arg = this;
    local_.connect(contacts[host_ranks_[0]]);
    start_notifier();
    util::note("joined PMIx namespace %s as rank %u of %u; %zu rank(s) on this host", me_.nspace,
               rank_, size_, host_ranks_.size());
  }

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const char *spawner() const override { return spawner_.c_str(); }
  const std::string &job_id() const override { return job_id_; }
  const std::vector<uint32_t> &host_ranks() const override { return host_ranks_; }

  std::vector<std::vector<uint8_t> > exchange(const void *data, size_t len) override {
    std::lock_guard<std::mutex> guard(mu_);
    if (two_level_) return exchange_by_host(data, len);
    return exchange_pmix(data, len);
  }

  // Publishes `n` bytes under `key` for the next fence.
  void put_commit(const std::string &key, const void *bytes, size_t n) {
    pmix_value_t value;
    std::memset(&value, 0, sizeof value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = const_cast<char *>(static_cast<const char *>(bytes));
    value.data.bo.size = n;
    pmix_status_t rc = g_api.put(PMIX_GLOBAL, key.c_str(), &value);
    if (rc == PMIX_SUCCESS) rc = g_api.commit();
    if (rc != PMIX_SUCCESS)
      util::fatal("PMIx_Put/Commit of %s failed (status %d)", key.c_str(), rc);
  }

  // A fence of every rank of the job that collects what they put.
  void fence_all() {
    pmix_info_t collect;
    set_key(collect, PMIX_COLLECT_DATA);
    collect.value.type = PMIX_BOOL;
    collect.value.data.flag = true;
    pmix_status_t rc = g_api.fence(nullptr, 0, &collect, 1);
    if (rc != PMIX_SUCCESS) {
      await_exit_notice();
      util::fatal("PMIx_Fence failed (status %d): a rank left the job?", rc);
    }
  }

  // What `rank` put under `key` before the last fence.
  std::vector<uint8_t> get_bytes(uint32_t rank, const std::string &key) {
    pmix_proc_t peer = me_;
    peer.rank = rank;
    pmix_value_t *got = nullptr;
    pmix_status_t rc = g_api.get(&peer, key.c_str(), nullptr, 0, &got);
    if (rc != PMIX_SUCCESS || got->type != PMIX_BYTE_OBJECT) {
      await_exit_notice();
      util::fatal("PMIx_Get of rank %u's %s failed (status %d)", rank, key.c_str(), rc);
    }
    const auto *b = reinterpret_cast<const uint8_t *>(got->data.bo.bytes);
    std::vector<uint8_t> out(b, b + got->data.bo.size);
    release(got);
    return out;
  }

  // Every rank's bytes through PMIx: put, commit, fence, a get per rank.
  std::vector<std::vector<uint8_t> > exchange_pmix(const void *data, size_t len) {
    std::string key = "gexx.x" + std::to_string(seq_++);
    // One leading byte, so that an empty contribution is still a value.
    std::vector<char> bytes(len + 1);
    bytes[0] = 'x';
    if (len) std::memcpy(bytes.data() + 1, data, len);
    put_commit(key, bytes.data(), bytes.size());
    fence_all();
    std::vector<std::vector<uint8_t> > out(size_);
    for (uint32_t r = 0; r < size_; ++r) {
      std::vector<uint8_t> b = get_bytes(r, key);
      if (b.empty()) util::fatal("PMIx_Get of rank %u's %s: an empty value", r, key.c_str());
      out[r].assign(b.begin() + 1, b.end());
    }
    return out;
  }

  // The ranks of a host send their bytes to its first rank; the first ranks
  // alone go through PMIx (a get per host, not per rank; nothing at all
  // when the job has one host) and hand the whole back.
  std::vector<std::vector<uint8_t> > exchange_by_host(const void *data, size_t len) {
    std::vector<std::vector<uint8_t> > out(size_);
    auto put_u64 = [](std::vector<uint8_t> &b, uint64_t v) {
      b.insert(b.end(), reinterpret_cast<uint8_t *>(&v), reinterpret_cast<uint8_t *>(&v) + 8);
    };
    auto get_u64 = [](const std::vector<uint8_t> &b, size_t &off) {
      uint64_t v;
      if (off + 8 > b.size()) util::fatal("truncated bootstrap exchange");
      std::memcpy(&v, b.data() + off, 8);
      off += 8;
      return v;
    };
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
      auto all = local_.ask_leader(data, len);
      // The fence takes every rank; only the first of each host put data.
      if (size_ > host_size()) fence_all();
      unpack(all);
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
      // The first rank of each host: its host's records through PMIx; every
      // rank of the job enters the fence, only these put and get.
      std::string key = "gexx.h" + std::to_string(seq_++);
      put_commit(key, host_blob.data(), host_blob.size());
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
    g_api.abort(code, reason.c_str(), nullptr, 0);
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
      // holding a lock libpmix needs.
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
      util::fatal("cannot create the PMIx exit pipes: %s", std::strerror(errno));
    remote_read_ = remote[0];
    g_remote_pipe = remote[1];
    open_board();
    remote_ranks_ = host_ranks_.size() < size_;
    if (remote_ranks_) {
      pmix_status_t code = kExitEvent;
      QuietSignals quiet;
      pmix_status_t rc =
          g_api.register_handler(&code, 1, nullptr, 0, on_exit_event, nullptr, nullptr);
      if (rc < 0) util::warn("cannot register the PMIx exit event handler (status %d)", rc);
    }
    QuietSignals quiet;
    pthread_t thread;
    if (pthread_create(&thread, nullptr, &PmixJob::notifier_main, this) != 0)
      util::fatal("cannot start the PMIx exit thread");
    pthread_detach(thread);
  }

  // The helper thread: waits for this rank's exit (then finalizes) or
  // another's (then, after the grace, tells this rank to leave with its code).
  static void *notifier_main(void *self_ptr) {
    auto *self = static_cast<PmixJob *>(self_ptr);
    // Then one pidfd per other rank of this host: one that ends without
    // announcing its exit (killed, crashed) ends the job, as gasnetrun would.
    std::vector<pollfd> fds = {{self->request_[0], POLLIN, 0},
                               {self->board_ ? self->board_event_ : -1, POLLIN, 0},
                               {self->remote_read_, POLLIN, 0}};
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
      for (size_t i = 3; n > 0 && i < fds.size(); ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
        ::close(fds[i].fd);
        fds[i].fd = -1;
        if (told || (self->board_ && self->board_->first.load() != 0)) continue;
        told = true;
        grace_end = -1;
        fds[1].fd = fds[2].fd = -1;
        util::warn("rank %u (pid %d) of this host ended without gasnet_exit; ending the job",
                   watched[i - 3], static_cast<int>(self->pids_[watched[i - 3]]));
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
      pmix_info_t info;
      set_key(info, kExitCodeKey);
      info.value.type = PMIX_INT;
      info.value.data.integer = code;
      g_api.notify(kExitEvent, &self->me_, PMIX_RANGE_NAMESPACE, &info, 1, nullptr, nullptr);
    }
    g_api.finalize(nullptr, 0);
    char c = 'f';
    (void)!::write(self->ack_[1], &c, 1);
    return nullptr;
  }

  pmix_proc_t me_{}, wild_{};
  uint32_t rank_ = 0, size_ = 1;
  std::string job_id_, spawner_;
  std::vector<uint32_t> host_ranks_;
  std::vector<pid_t> pids_;
  LocalGroup local_;
  uint64_t seq_ = 0;
  std::mutex mu_;
  int request_[2] = {-1, -1}, ack_[2] = {-1, -1};
  int remote_read_ = -1;
  std::vector<uint32_t> leaders_;         // the first rank of each host, by host name
  bool two_level_ = false;                // exchanges through the first rank of each host
  std::atomic<int64_t> remote_code_{-1};  // the first exit heard of from another host
  ExitBoard *board_ = nullptr;
  int board_event_ = -1;
  bool remote_ranks_ = false;
};

}  // namespace

std::unique_ptr<Bootstrap> join_pmix_job(const std::string &why) {
  return std::make_unique<PmixJob>(why);
}

#endif  // GEXX_HAVE_PMIX

}  // namespace gexx::bootstrap
