#include "core/runtime.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "atomics/domain.hpp"
#include "coll/am_barrier.hpp"
#include "coll/engine.hpp"
#include "coll/shm_barrier.hpp"
#include "core/exit.hpp"
#include "core/progress.hpp"
#include "core/progress_thread.hpp"
#include "legacy/gasnet1_coll.hpp"
#include "rma/inline_table.hpp"
#include "rma/remote.hpp"
#include "vis/vis.hpp"
#include "util/config.hpp"
#include "util/debug.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"
#include "util/trace.hpp"

namespace gexx::core {

namespace detail {
Runtime *g_runtime = nullptr;

void not_initialized(const char *api) {
  util::fatal("%s called before gex_Client_Init or gasnet_init: initialise gexx first", api);
}
}  // namespace detail

using detail::g_runtime;

namespace {
bootstrap::Bootstrap *g_boot = nullptr;  // set as soon as the job is joined
std::mutex g_init_mutex;
void on_fatal(int code, const std::string &message) {
  if (g_boot) g_boot->abort(code, message);
}

// Stops the job when a variable that must agree differs between ranks.
// Rank 0 reports it; the others wait to be ended with the job. Digests
// first (8 bytes a rank): the keys themselves, hundreds of bytes from each
// rank to every rank, only when two digests differ, which every rank sees.
void check_agreement(bootstrap::Bootstrap &boot, const std::map<std::string, std::string> &env) {
  std::string key = config::agreement_key(env);
  auto digests = boot.allgather(bootstrap::fingerprint(key.data(), key.size()));
  if (std::all_of(digests.begin(), digests.end(), [&](uint64_t d) { return d == digests[0]; }))
    return;
  std::vector<std::string> keys;
  for (const auto &k : boot.exchange(key.data(), key.size())) keys.emplace_back(k.begin(), k.end());
  auto problem = config::disagreement(keys);
  if (!problem) return;
  if (boot.rank() == 0) util::fatal("%s", problem->c_str());
  boot.barrier();
}

// What GASNET_VERBOSEENV promises, once, from rank 0; warnings in any case.
void report_environment(const std::map<std::string, std::string> &env) {
  for (const auto &w : config::unknown_variable_warnings(env)) util::warn("%s", w.c_str());
  if (!util::verbose()) return;
  util::note("environment in effect:");
  for (const auto &line : config::describe_in_effect(env)) util::note("  %s", line.c_str());
}
}  // namespace

bool Runtime::initialized() {
  return g_runtime != nullptr;
}

Runtime &Runtime::init(const char *api, const char *client_name, gex_Flags_t flags,
                       int thread_mode) {
  std::lock_guard<std::mutex> guard(g_init_mutex);
  if (g_runtime) {
    util::fatal(
        "%s called a second time: gexx is initialised once per process (by "
        "gex_Client_Init or gasnet_init)",
        api);
  }
  if (thread_mode < 0 || thread_mode > 2) {
    util::fatal("%s: thread mode %d is not 0 (SEQ), 1 (PARSYNC) or 2 (PAR)", api, thread_mode);
  }
  auto *rt = new Runtime();
  rt->concurrent_ = thread_mode == 2;
  rt->start(client_name, flags);
  g_runtime = rt;
  progress_start(rt->transport());
  rt->spread();
  return *rt;
}

void Runtime::start(const char *client_name, gex_Flags_t flags) {
  boot_ = bootstrap::join_job();
  g_boot = boot_.get();
  install_exit_handling(*boot_);
  rank_ = boot_->rank();
  size_ = boot_->size();
  util::set_log_identity(rank_, util::hostname());
  util::set_fatal_hook(on_fatal);
  util::install_crash_handlers(nullptr);
  config::validate_environment();
  auto env = config::gasnet_environment();
  check_agreement(*boot_, env);
  if (config::get_bool("GASNET_VERBOSEENV")) util::set_verbose(true);
  if (rank_ == 0) report_environment(env);
  if (config::get_bool("GASNET_FREEZE")) util::freeze_for_debugger("GASNET_FREEZE");
  trace::init(rank_, size_, [this] { boot_->barrier(); });

  // The host area holds the shared-memory barrier, then the collectives'
  // host phase (coll lays both out).
  uint32_t host_ranks = static_cast<uint32_t>(boot_->host_ranks().size());
  size_t coll_offset = (coll::ShmBarrier::area_size(host_ranks) + 63) / 64 * 64;
  transport_ =
      transport::open_conduit(*boot_, am_relay_, coll_offset + coll::host_area_size(host_ranks));
  progress_open(transport_->oversubscribed());
  // Where each rank is and the largest segment it can have, in one exchange.
  struct Published {
    transport::Transport::Locality where;
    uint64_t max_segment;
  };
  auto published =
      boot_->allgather(Published{transport_->locality(), transport_->max_segment_size()});
  {
    std::vector<transport::Transport::Locality> where(size_);
    for (uint32_t r = 0; r < size_; ++r) where[r] = published[r].where;
    topology_ = std::make_unique<Topology>(rank_, where);
  }
  {
    std::vector<uint8_t> shares(size_);
    for (uint32_t r = 0; r < size_; ++r)
      shares[r] = topology_->nbrhd_of(r) == topology_->nbrhd_of(rank_);
    auto *area = static_cast<char *>(transport_->host_area());
    coll::attach_host_area(area ? area + coll_offset : nullptr, host_ranks, std::move(shares));
  }

  max_local_ = transport_->max_segment_size();
  max_global_ = max_local_;
  for (const auto &p : published) max_global_ = std::min(max_global_, p.max_segment);
  // GASNET_RCV_THREAD runs handlers beside the client's threads, whatever its mode.
  if (config::get_bool("GASNET_RCV_THREAD")) concurrent_ = true;
  transport_->am_set_concurrent(concurrent_);
  segment_relay_.rt = this;
  am_ = std::make_unique<am::Engine>(
      *transport_, handlers_, segment_relay_,
      am::Limits::from_config(rank_, size_, transport_->capabilities(), max_global_, concurrent_));
  am_relay_.engine = am_.get();
  coll::open(*am_, handlers_, concurrent_);  // the collectives' handler, before any poll
  vis::register_handlers(handlers_);         // before any poll: a peer's packed VIS may come early
  atomics::register_handlers(handlers_);     // likewise a peer's first remote atomic
  rma::register_handlers(handlers_);         // and its first small NB put or get
  barrier_ = std::make_unique<coll::Barrier>(job_barrier());
  legacy::register_g1coll_handler(handlers_);

  client_.name = client_name ? client_name : "";
  client_.flags = flags;
  client_.ep = &ep_;
  client_.tm = &tm_;
  ep_.client = &client_;
  tm_.client = &client_;
  tm_.ep = &ep_;
  tm_.team = Team::identity(size_, rank_);
  segment_.client = &client_;
  if (rank_ == 0) {
    util::note(
        "conduit %s, job of %u rank(s) started by %s; largest segment per rank %s; "
        "shared-memory backings to try: %s",
        transport_->name(), size_, boot_->spawner(), util::human_size(max_global_).c_str(),
        config::get_string("GASNET_SHM_BACKING").c_str());
  }
}

std::unique_ptr<coll::SplitBarrier> Runtime::job_barrier() {
  if (transport_->job_in_host_area()) {
    auto shm = coll::ShmBarrier::open(*boot_, transport_->host_area(), rank_, size_,
                                      transport_->oversubscribed());
    if (rank_ == 0) {
      util::note("barrier algorithm: %s (GASNET_BARRIER=%s, %u rank(s), %ld core(s))",
                 shm->central() ? "central" : "dissem",
                 config::get_string("GASNET_BARRIER").c_str(), size_,
                 ::sysconf(_SC_NPROCESSORS_ONLN));
    }
    return shm;
  }
  if (rank_ == 0) {
    util::note(
        "barrier algorithm: am-dissem (peers over the network: %u round(s) of AM Short "
        "requests; GASNET_BARRIER chooses among shared-memory algorithms only)",
        coll::dissemination_rounds(size_));
  }
  // Before any poll: a peer's first barrier message may already be on its way.
  return coll::AmBarrier::over_am(*am_, handlers_, rank_, size_);
}

void Runtime::spread() {
  const auto &host = boot_->host_ranks();
  auto at = std::lower_bound(host.begin(), host.end(), rank_);
  spread_over_cpus(static_cast<uint32_t>(at - host.begin()), static_cast<uint32_t>(host.size()));
}

gex_Segment_t Runtime::attach(const char *api, uint64_t size) {
  if (attached_) {
    util::fatal(
        "%s called a second time: a process attaches one segment (to its primordial "
        "team)",
        api);
  }
  if (size > max_local_) {
    util::fatal(
        "%s asked for a %s segment, but at most %s is available to each rank (%s). Ask "
        "for at most gasnet_getMaxLocalSegmentSize() bytes, raise GASNET_MAX_SEGSIZE, or "
        "free memory",
        api, util::human_size(size).c_str(), util::human_size(max_local_).c_str(),
        transport_->segment_limits().c_str());
  }
  transport_->attach_segment(size);
  seg_table_.clear();
  for (uint32_t r = 0; r < size_; ++r) seg_table_.push_back(transport_->segment(r));
  segs_ = seg_table_.data();
  rma::publish_inline_table(segs_, size_, &tm_);
  const auto &mine = transport_->segment(rank_);
  segment_.addr = mine.local;
  segment_.size = mine.size;
  attached_ = true;
  client_.segment = &segment_;
  ep_.segment = &segment_;
  if (rank_ == 0) util::note("%s", transport_->describe().c_str());
  spread();
  barrier_->finish_anonymous(barrier_->start_anonymous());
  start_progress_thread(*this);
  return &segment_;
}

void Runtime::bad_range(const char *api, uint32_t rank, const void *addr, size_t len) {
  if (rank >= size_) util::fatal("%s: rank %u is not in this job of %u ranks", api, rank, size_);
  if (!attached_) util::fatal("%s called before the segment was attached", api);
  const auto &seg = transport_->segment(rank);
  if (!seg.local) {
    util::fatal(
        "%s: rank %u's segment is reached over the network (conduit %s) and has no address "
        "in this process",
        api, rank, transport_->name());
  }
  uint64_t a = reinterpret_cast<uint64_t>(addr);
  util::fatal(
      "%s: the range [%#llx, %#llx) of %zu bytes is not inside rank %u's segment "
      "[%#llx, %#llx)",
      api, static_cast<unsigned long long>(a), static_cast<unsigned long long>(a + len), len, rank,
      static_cast<unsigned long long>(seg.owner_base),
      static_cast<unsigned long long>(seg.owner_base + seg.size));
}

}  // namespace gexx::core
