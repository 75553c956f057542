// The PMIx service (pmi_job.hpp) over the libpmix found at run time: rank
// and size from the server, put and commit, fence collecting data, get,
// exits told across hosts by a PMIx event, finalize, abort; and
// guess_launch, which tells which launcher started this process.
#include "bootstrap/pmix.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "bootstrap/pmi_job.hpp"
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
        "mpirun, srun --mpi=pmix or --mpi=pmi2, or gasnetrun -spawner=%s",
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
                " tasks without a PMI gexx speaks: run srun --mpi=pmix or srun --mpi=pmi2 (see "
                "srun --mpi=list)"};
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
    std::string errors;
    void *lib = open_first_library(candidates, errors);
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

int g_remote_pipe = -1;  // where exits announced on other hosts go

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

class PmixService final : public PmiService {
 public:
  explicit PmixService(const std::string &why) {
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
    std::memset(&wild_, 0, sizeof wild_);
    std::memcpy(wild_.nspace, me_.nspace, sizeof wild_.nspace);
    wild_.rank = PMIX_RANK_WILDCARD;
    uint64_t size = 0;
    pmix_value_t *v = nullptr;
    if (g_api.get(&wild_, PMIX_JOB_SIZE, nullptr, 0, &v) != PMIX_SUCCESS || !as_integer(v, size) ||
        size < 1 || me_.rank >= size) {
      util::fatal("the PMIx server gave no usable job size (PMIX_JOB_SIZE) for namespace %s",
                  me_.nspace);
    }
    release(v);
    size_ = static_cast<uint32_t>(size);
    name_ = me_.nspace;
  }

  const char *kind() const override { return "PMIx"; }
  uint32_t rank() const override { return me_.rank; }
  uint32_t size() const override { return size_; }
  const std::string &job_name() const override { return name_; }

  std::vector<uint32_t> local_ranks() override {
    std::vector<uint32_t> out;
    pmix_value_t *v = nullptr;
    if (g_api.get(&wild_, PMIX_LOCAL_PEERS, nullptr, 0, &v) == PMIX_SUCCESS &&
        v->type == PMIX_STRING && v->data.string) {
      for (const auto &word : util::split(v->data.string, ",")) {
        auto r = config::parse_int(word);
        if (!r || *r < 0 || *r >= static_cast<int64_t>(size_)) {
          out.clear();
          break;
        }
        out.push_back(static_cast<uint32_t>(*r));
      }
      std::sort(out.begin(), out.end());
    }
    release(v);
    return out;
  }

  void put(const std::string &key, const void *bytes, size_t n) override {
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

  bool fence() override {
    pmix_info_t collect;
    set_key(collect, PMIX_COLLECT_DATA);
    collect.value.type = PMIX_BOOL;
    collect.value.data.flag = true;
    pmix_status_t rc = g_api.fence(nullptr, 0, &collect, 1);
    if (rc != PMIX_SUCCESS) util::warn("PMIx_Fence failed (status %d)", rc);
    return rc == PMIX_SUCCESS;
  }

  bool get(uint32_t rank, const std::string &key, std::vector<uint8_t> &out) override {
    pmix_proc_t peer = me_;
    peer.rank = rank;
    pmix_value_t *got = nullptr;
    pmix_status_t rc = g_api.get(&peer, key.c_str(), nullptr, 0, &got);
    if (rc != PMIX_SUCCESS || got->type != PMIX_BYTE_OBJECT) {
      util::warn("PMIx_Get of rank %u's %s failed (status %d)", rank, key.c_str(), rc);
      if (rc == PMIX_SUCCESS) release(got);
      return false;
    }
    const auto *b = reinterpret_cast<const uint8_t *>(got->data.bo.bytes);
    out.assign(b, b + got->data.bo.size);
    release(got);
    return true;
  }

  bool watch_remote_exits(int fd) override {
    g_remote_pipe = fd;
    pmix_status_t code = kExitEvent;
    pmix_status_t rc =
        g_api.register_handler(&code, 1, nullptr, 0, on_exit_event, nullptr, nullptr);
    if (rc < 0) util::warn("cannot register the PMIx exit event handler (status %d)", rc);
    return rc >= 0;
  }

  void tell_remote_exit(int code) override {
    // Not for default handlers: Slurm's PMIx plugin registers one that
    // kills the whole step on any event, before the ranks could leave with
    // the exit's code.
    pmix_info_t info[2];
    set_key(info[0], kExitCodeKey);
    info[0].value.type = PMIX_INT;
    info[0].value.data.integer = code;
    set_key(info[1], PMIX_EVENT_NON_DEFAULT);
    info[1].value.type = PMIX_BOOL;
    info[1].value.data.flag = true;
    g_api.notify(kExitEvent, &me_, PMIX_RANGE_NAMESPACE, info, 2, nullptr, nullptr);
  }

  void finalize() override { g_api.finalize(nullptr, 0); }

  void abort(int code, const char *reason) override { g_api.abort(code, reason, nullptr, 0); }

 private:
  pmix_proc_t me_{}, wild_{};
  uint32_t size_ = 1;
  std::string name_;
};

}  // namespace

std::unique_ptr<Bootstrap> join_pmix_job(const std::string &why) {
  return join_pmi_job(std::make_unique<PmixService>(why), why);
}

#endif  // GEXX_HAVE_PMIX

}  // namespace gexx::bootstrap
