// The PMI-2 service (pmi_job.hpp) over the libpmi2 found at run time
// (Slurm's, for srun --mpi=pmi2): rank and size from PMI2_Init, this host's
// ranks from the job attribute PMI_process_mapping, the exchanges as KVS
// put, fence and get. Values are text of at most 1024 characters: bytes go
// as hex, a long value in several keys. PMI-2 has no events: an exit does
// not reach the ranks of other hosts through it (the launcher's rules apply).
#include "bootstrap/pmi2.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "bootstrap/pmi_job.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

namespace {

// The entry points used, with the types PMI-2's interface gives them.
struct Pmi2Api {
  int (*init)(int *spawned, int *size, int *rank, int *appnum) = nullptr;
  int (*finalize)() = nullptr;
  int (*abort)(int flag, const char msg[]) = nullptr;
  int (*job_get_id)(char jobid[], int jobid_size) = nullptr;
  int (*kvs_put)(const char key[], const char value[]) = nullptr;
  int (*kvs_fence)() = nullptr;
  int (*kvs_get)(const char *jobid, int src_pmi_id, const char key[], char value[], int maxvalue,
                 int *vallen) = nullptr;
  int (*get_job_attr)(const char name[], char value[], int valuelen, int *found) = nullptr;

  void load() {
    std::vector<std::string> candidates;
    if (const char *env = std::getenv("GEXX_PMI2_LIBRARY"); env && *env) {
      candidates.emplace_back(env);
    } else {
      candidates = {"libpmi2.so.0", "libpmi2.so", "/usr/lib/x86_64-linux-gnu/slurm/libpmi2.so",
                    "/usr/lib64/slurm/libpmi2.so"};
    }
    std::string errors;
    void *lib = open_first_library(candidates, errors);
    if (!lib) {
      util::fatal(
          "cannot load libpmi2 to join the PMI-2 job (%s); install Slurm's libpmi2 (Debian: "
          "libpmi2-0) or set GEXX_PMI2_LIBRARY to its path, or run srun --mpi=pmix",
          errors.c_str());
    }
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)> >(::dlsym(lib, name));
      if (!fn) util::fatal("libpmi2 lacks %s", name);
    };
    sym(init, "PMI2_Init");
    sym(finalize, "PMI2_Finalize");
    sym(abort, "PMI2_Abort");
    sym(job_get_id, "PMI2_Job_GetId");
    sym(kvs_put, "PMI2_KVS_Put");
    sym(kvs_fence, "PMI2_KVS_Fence");
    sym(kvs_get, "PMI2_KVS_Get");
    sym(get_job_attr, "PMI2_Info_GetJobAttr");
  }
};

struct Block {
  uint32_t v[3];  // first node, nodes, ranks per node
};

constexpr int kMaxValue = 1024;     // PMI2_MAX_VALLEN
constexpr size_t kChunkHex = 1000;  // hex characters in one value
constexpr int kSuccess = 0;         // PMI2_SUCCESS

class Pmi2Service final : public PmiService {
 public:
  explicit Pmi2Service(const std::string &why) {
    api_.load();
    int spawned = 0, size = 0, rank = -1, appnum = 0;
    int rc;
    {
      QuietSignals quiet;
      rc = api_.init(&spawned, &size, &rank, &appnum);
    }
    if (rc != kSuccess || size < 1 || rank < 0 || rank >= size) {
      util::fatal(
          "PMI2_Init failed (status %d, rank %d of %d) although %s says a PMI-2 server "
          "started this process",
          rc, rank, size, why.c_str());
    }
    rank_ = static_cast<uint32_t>(rank);
    size_ = static_cast<uint32_t>(size);
    char id[kMaxValue] = {};
    if (api_.job_get_id(id, sizeof id) != kSuccess || !id[0])
      util::fatal("PMI2_Job_GetId failed: no job id from the PMI-2 server");
    name_ = id;
  }

  const char *kind() const override { return "PMI-2"; }
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const std::string &job_name() const override { return name_; }

  // PMI_process_mapping: "(vector,(first node,nodes,ranks per node),...)",
  // blocks laid out in rank order, the vector repeated until every rank
  // has a node. The ranks on this rank's node; empty when it cannot tell.
  std::vector<uint32_t> local_ranks() override {
    char value[kMaxValue] = {};
    int found = 0;
    if (api_.get_job_attr("PMI_process_mapping", value, sizeof value, &found) != kSuccess || !found)
      return {};
    std::string text = value;
    const std::string head = "(vector,";
    if (text.rfind(head, 0) != 0 || text.back() != ')') return {};
    std::vector<Block> blocks;
    size_t at = head.size();
    while (at < text.size() && text[at] == '(') {
      size_t close = text.find(')', at);
      if (close == std::string::npos) return {};
      auto words = util::split(text.substr(at + 1, close - at - 1), ",");
      if (words.size() != 3) return {};
      Block b;
      for (int i = 0; i < 3; ++i) {
        auto v = config::parse_int(words[i]);
        if (!v || *v < 0 || *v > (1 << 30)) return {};
        b.v[i] = static_cast<uint32_t>(*v);
      }
      blocks.push_back(b);
      at = close + 1;
      if (at < text.size() && text[at] == ',') ++at;
    }
    if (blocks.empty() || at != text.size() - 1) return {};
    std::vector<uint32_t> node(size_);
    uint32_t r = 0;
    bool progress = true;
    while (r < size_ && progress) {
      progress = false;
      for (const auto &b : blocks) {
        for (uint32_t n = 0; n < b.v[1] && r < size_; ++n) {
          for (uint32_t k = 0; k < b.v[2] && r < size_; ++k) {
            node[r++] = b.v[0] + n;
            progress = true;
          }
        }
      }
    }
    if (r < size_) return {};
    std::vector<uint32_t> out;
    for (uint32_t q = 0; q < size_; ++q)
      if (node[q] == node[rank_]) out.push_back(q);
    return out;
  }

  void put(const std::string &key, const void *bytes, size_t n) override {
    std::string text = util::hex(static_cast<const uint8_t *>(bytes), n);
    size_t chunks = std::max<size_t>(1, (text.size() + kChunkHex - 1) / kChunkHex);
    for (size_t i = 0; i < chunks; ++i) {
      std::string k = key_of(rank_, key, i);
      std::string v = text.substr(i * kChunkHex, kChunkHex);
      if (i == 0) v = std::to_string(chunks) + ":" + v;
      if (api_.kvs_put(k.c_str(), v.c_str()) != kSuccess)
        util::fatal("PMI2_KVS_Put of %s failed", k.c_str());
    }
  }

  bool fence() override {
    int rc = api_.kvs_fence();
    if (rc != kSuccess) util::warn("PMI2_KVS_Fence failed (status %d)", rc);
    return rc == kSuccess;
  }

  bool get(uint32_t rank, const std::string &key, std::vector<uint8_t> &out) override {
    std::string text;
    size_t chunks = 1;
    for (size_t i = 0; i < chunks; ++i) {
      std::string k = key_of(rank, key, i);
      char value[kMaxValue + 1] = {};
      int len = 0;
      int rc =
          api_.kvs_get(name_.c_str(), static_cast<int>(rank), k.c_str(), value, kMaxValue, &len);
      if (rc != kSuccess) {
        util::warn("PMI2_KVS_Get of rank %u's %s failed (status %d)", rank, k.c_str(), rc);
        return false;
      }
      std::string v = value;
      if (i == 0) {
        size_t colon = v.find(':');
        auto n = config::parse_int(v.substr(0, colon));
        if (colon == std::string::npos || !n || *n < 1) {
          util::warn("PMI-2: rank %u's %s is malformed", rank, k.c_str());
          return false;
        }
        chunks = static_cast<size_t>(*n);
        v.erase(0, colon + 1);
      }
      text += v;
    }
    if (!util::unhex(text, out)) {
      util::warn("PMI-2: rank %u's %s is not hex", rank, key.c_str());
      return false;
    }
    return true;
  }

  bool watch_remote_exits(int) override { return false; }
  void tell_remote_exit(int) override {}
  void finalize() override { api_.finalize(); }
  void abort(int, const char *reason) override { api_.abort(1, reason); }

 private:
  // Slurm's KVS is one space for the whole job (the rank given to a get
  // is a hint): each rank's keys carry its rank.
  static std::string key_of(uint32_t rank, const std::string &key, size_t chunk) {
    std::string k = std::to_string(rank) + "/" + key;
    return chunk == 0 ? k : k + "." + std::to_string(chunk);
  }

  Pmi2Api api_;
  uint32_t rank_ = 0, size_ = 1;
  std::string name_;
};

}  // namespace

std::unique_ptr<Bootstrap> join_pmi2_job(const std::string &why) {
  return join_pmi_job(std::make_unique<Pmi2Service>(why), why);
}

}  // namespace gexx::bootstrap
