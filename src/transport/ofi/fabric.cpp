#include "transport/ofi/fabric.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bootstrap/bootstrap.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::transport::ofi {

namespace {
// The API version we are written to: registration modes as bits (1.5+),
// FI_MR_ENDPOINT (1.7+).
constexpr uint32_t kApiVersion = FI_VERSION(1, 9);

// Every registration mode we can honour; the provider keeps those it needs.
constexpr uint64_t kMrModes =
    FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;

void check(const char *call, int rc) {
  if (rc) util::fatal("%s", fi_error(call, rc).c_str());
}
}  // namespace

namespace {
// Providers that run over plain Ethernet and IP: where nothing faster
// exists the choice among them is ours.
bool ethernet_core(const std::string &core) {
  return core == "tcp" || core == "net" || core == "udp" || core == "sockets";
}

// Our order for Ethernet, fastest first (docs/performance.md, "choosing the
// Ethernet provider"): net's native reliable datagrams; tcp's (libfabric
// 1.18 on, where tcp is net's code); tcp under the rxm utility; then the
// rest. Lower is better; unknown names last.
int ethernet_rank(const std::string &name) {
  static const char *const kOrder[] = {"net",         "tcp",         "net;ofi_rxm",
                                       "tcp;ofi_rxm", "udp;ofi_rxd", "sockets"};
  for (size_t i = 0; i < sizeof kOrder / sizeof *kOrder; ++i)
    if (name == kOrder[i]) return static_cast<int>(i);
  return 100;
}
}  // namespace

fi_info *default_provider(fi_info *list) {
  // shm reaches only this host, and same-host peers already share memory:
  // it is the choice only when nothing else is offered.
  fi_info *best = nullptr;
  int best_rank = 0;
  for (fi_info *i = list; i; i = i->next) {
    std::string name = i->fabric_attr->prov_name ? i->fabric_attr->prov_name : "";
    std::string core = name.substr(0, name.find(';'));
    if (core == "shm") continue;
    // A network of its own (verbs, cxi, efa, opx, psm3, ...): libfabric's
    // order stands.
    if (!ethernet_core(core)) return i;
    int rank = ethernet_rank(name);
    if (!best || rank < best_rank) {
      best = i;
      best_rank = rank;
    }
  }
  return best ? best : list;
}

std::string fi_error(const char *call, long rc) {
  return util::format("%s: %s (%ld)", call, fi_strerror(static_cast<int>(rc < 0 ? -rc : rc)), rc);
}

MemoryRegion &MemoryRegion::operator=(MemoryRegion &&o) noexcept {
  if (this != &o) {
    if (mr_) fi_close(&mr_->fid);
    mr_ = o.mr_;
    o.mr_ = nullptr;
  }
  return *this;
}

MemoryRegion::~MemoryRegion() {
  if (mr_) fi_close(&mr_->fid);
}

void *MemoryRegion::desc() const {
  return mr_ ? fi_mr_desc(mr_) : nullptr;
}

uint64_t MemoryRegion::key() const {
  return mr_ ? fi_mr_key(mr_) : 0;
}

Fabric::Fabric(bootstrap::Bootstrap &boot, const std::string &provider) {
  fi_info *hints = fi_allocinfo();
  if (!hints) util::fatal("fi_allocinfo: out of memory");
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG | FI_RMA | FI_ATOMIC;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->domain_attr->mr_mode = static_cast<int>(kMrModes);
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  if (!provider.empty()) hints->fabric_attr->prov_name = ::strdup(provider.c_str());
  int rc = fi_getinfo(kApiVersion, nullptr, nullptr, 0, hints, &info_);
  atomics_ = rc == 0 && info_ && (info_->caps & FI_ATOMIC);
  if (!atomics_) {
    // Native atomics (transport/ofi/atomics.cpp) are optional.
    hints->caps = FI_MSG | FI_RMA;
    rc = fi_getinfo(kApiVersion, nullptr, nullptr, 0, hints, &info_);
  }
  fi_freeinfo(hints);
  const char *env = std::getenv("FI_PROVIDER");
  if (rc || !info_) {
    util::fatal(
        "the ofi conduit found no libfabric provider with reliable-datagram endpoints, "
        "messages and RMA%s%s%s: %s. List the providers with 'fi_info -t FI_EP_RDM' and "
        "choose one with GASNET_OFI_PROVIDER",
        provider.empty() ? "" : " named ", provider.c_str(),
        env && provider.empty() ? util::format(" (FI_PROVIDER=%s)", env).c_str() : "",
        fi_strerror(-rc));
  }
  // Nobody named a provider: on plain Ethernet take the one we measured
  // fastest rather than libfabric's first.
  if (provider.empty() && !(env && *env)) {
    fi_info *pick = default_provider(info_);
    if (pick != info_) {
      fi_info *one = fi_dupinfo(pick);
      if (!one) util::fatal("fi_dupinfo: out of memory");
      fi_freeinfo(info_);
      info_ = one;
      by_default_ = true;
    }
  }
  provider_ = info_->fabric_attr->prov_name ? info_->fabric_attr->prov_name : "?";
  if (provider_ == "sockets") {
    // sockets' automatic progress is a thread that spins 10 ms after each
    // wake-up (FI_SOCKETS_PE_WAITTIME) beside our own polling: with ranks
    // sharing cores every hand-off between the two waits for a time slice,
    // about 10 ms a round trip, so the job seems to lose messages. Every
    // wait of ours reads the CQ, which is all manual progress needs.
    info_->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    // Its sends then wait in a queue for our next progress call, which a
    // rank that leaves the job at once would never make.
    queues_sends_ = true;
  }
  inject_size_ = info_->tx_attr->inject_size;
  max_msg_size_ = info_->ep_attr->max_msg_size;
  rma_iov_limit_ = std::max<size_t>(info_->tx_attr->rma_iov_limit, 1);
  mr_mode_ = static_cast<uint64_t>(info_->domain_attr->mr_mode);

  check("fi_fabric", fi_fabric(info_->fabric_attr, &fabric_, nullptr));
  check("fi_domain", fi_domain(fabric_, info_, &domain_, nullptr));
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_MSG;
  cq_attr.size = 0;
  check("fi_cq_open", fi_cq_open(domain_, &cq_attr, &cq_, nullptr));
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  av_attr.count = boot.size();
  check("fi_av_open", fi_av_open(domain_, &av_attr, &av_, nullptr));
  check("fi_endpoint", fi_endpoint(domain_, info_, &ep_, nullptr));
  check("fi_ep_bind(cq)", fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV));
  check("fi_ep_bind(av)", fi_ep_bind(ep_, &av_->fid, 0));
  std::string shm_name;
  if (provider_ == "shm") {
    // The shm provider names a /dev/shm file after its endpoint and removes
    // it only when the endpoint closes, which a rank that is killed or calls
    // _exit never does. In the job's namespace the launcher sweeps it, and
    // once every peer has it mapped we remove the name ourselves (below).
    shm_name = util::format("gexx-%s-ofi-%u", boot.job_id().c_str(), boot.rank());
    check("fi_setname", fi_setname(&ep_->fid, shm_name.data(), shm_name.size() + 1));
  }
  check("fi_enable", fi_enable(ep_));

  std::vector<uint8_t> name(256);
  size_t len = name.size();
  rc = fi_getname(&ep_->fid, name.data(), &len);
  if (rc == -FI_ETOOSMALL) {
    name.resize(len);
    rc = fi_getname(&ep_->fid, name.data(), &len);
  }
  check("fi_getname", rc);
  // Every rank must have chosen the same provider (hosts may differ in what
  // libfabric offers): the name travels ahead of the address, NUL-ended.
  std::vector<uint8_t> card(provider_.begin(), provider_.end());
  card.push_back(0);
  card.insert(card.end(), name.begin(), name.begin() + static_cast<ptrdiff_t>(len));
  auto cards = boot.exchange(card.data(), card.size());
  addrs_.resize(boot.size());
  for (uint32_t r = 0; r < boot.size(); ++r) {
    const auto &c = cards[r];
    size_t at = 0;
    while (at < c.size() && c[at]) ++at;
    std::string theirs(c.begin(), c.begin() + static_cast<ptrdiff_t>(at));
    if (theirs != provider_ || at == c.size())
      util::fatal(
          "rank %u chose libfabric provider '%s' but rank %u chose '%s' (hosts offer different "
          "providers): name one for every rank with GASNET_OFI_PROVIDER",
          boot.rank(), provider_.c_str(), r, theirs.c_str());
    int n = fi_av_insert(av_, c.data() + at + 1, 1, &addrs_[r], 0, nullptr);
    if (n != 1) util::fatal("%s", fi_error("fi_av_insert", n).c_str());
  }
  if (!shm_name.empty()) release_shm_name(boot, shm_name);
}

namespace {
// Whether this process maps the shm provider's file of every rank of the job.
bool maps_every_shm_file(bootstrap::Bootstrap &boot) {
  FILE *f = std::fopen("/proc/self/maps", "r");
  if (!f) return false;
  std::vector<bool> seen(boot.size(), false);
  std::string prefix = util::format("/dev/shm/gexx-%s-ofi-", boot.job_id().c_str());
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    const char *at = std::strstr(line, prefix.c_str());
    if (!at) continue;
    char *end = nullptr;
    unsigned long r = std::strtoul(at + prefix.size(), &end, 10);
    if (end != at + prefix.size() && (*end == '\n' || *end == ' ' || !*end) && r < seen.size())
      seen[r] = true;
  }
  std::fclose(f);
  for (bool s : seen)
    if (!s) return false;
  return true;
}
}  // namespace

void Fabric::release_shm_name(bootstrap::Bootstrap &boot, const std::string &name) {
  // libfabric's shm provider (1.17) maps a peer's file when its address is
  // inserted. When every rank says it has mapped every file, no one will
  // open a name again, and each removes its own: a launcher killed outright
  // then leaves nothing in /dev/shm. A provider that maps later keeps its
  // names, for the endpoint's close or the launcher's sweep.
  uint8_t mine = maps_every_shm_file(boot) ? 1 : 0;
  bool all = true;
  for (const auto &v : boot.exchange(&mine, 1)) all = all && !v.empty() && v[0] == 1;
  if (all) ::shm_unlink(("/" + name).c_str());
}

Fabric::~Fabric() {
  close_all();
}

void Fabric::close_all() {
  // Reverse order of opening; the endpoint first, as it is bound to the rest.
  if (ep_) fi_close(&ep_->fid);
  if (av_) fi_close(&av_->fid);
  if (cq_) fi_close(&cq_->fid);
  if (domain_) fi_close(&domain_->fid);
  if (fabric_) fi_close(&fabric_->fid);
  if (info_) fi_freeinfo(info_);
  ep_ = nullptr;
  av_ = nullptr;
  cq_ = nullptr;
  domain_ = nullptr;
  fabric_ = nullptr;
  info_ = nullptr;
}

bool Fabric::progress() {
  // One read of up to kBatch completions, and more while the reads come back
  // full (a flood of arrivals or send completions), up to kMaxBatches: one
  // batch per poll left a rank that polls seldom (a passive one) a whole
  // batch behind for every poll it did not make.
  constexpr int kBatch = 16;
  constexpr int kMaxBatches = 4;
  fi_cq_msg_entry entries[kBatch];
  bool any = false;
  for (int round = 0; round < kMaxBatches; ++round) {
    ssize_t n = fi_cq_read(cq_, entries, kBatch);
    if (n == -FI_EAGAIN) return any;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      fi_cq_readerr(cq_, &err, 0);
      util::fatal("a libfabric operation failed (provider %s): %s (%s)", provider_.c_str(),
                  fi_strerror(err.err),
                  fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0));
    }
    if (n < 0) util::fatal("%s", fi_error("fi_cq_read", n).c_str());
    for (ssize_t i = 0; i < n; ++i) {
      auto *op = static_cast<OpContext *>(entries[i].op_context);
      op->sink->completed(op, entries[i]);
    }
    any = any || n > 0;
    if (n < kBatch) break;
  }
  return any;
}

bool Fabric::retry_post(long rc, uint32_t &pauses) {
  if (rc == -FI_EAGAIN) {
    progress();
    return true;
  }
  if (rc != -FI_ENOENT) return false;
  // The peer's endpoint is gone (sockets says so at once, where other
  // providers hold the message): it has left the job, and the launcher ends
  // this rank with the job's exit code within its grace period. Failing
  // first would replace that code with ours, so wait a while (at least 10 s
  // of 1 ms pauses) for the notice.
  constexpr uint32_t kDepartedPauses = 10000;
  if (++pauses > kDepartedPauses) return false;
  progress();
  ::usleep(1000);
  return true;
}

MemoryRegion Fabric::register_memory(void *addr, size_t len, uint64_t access) {
  // Without FI_MR_PROV_KEY we name the key; unique per domain is enough.
  uint64_t key = (mr_mode_ & FI_MR_PROV_KEY) ? 0 : next_key_++;
  fid_mr *mr = nullptr;
  int rc = fi_mr_reg(domain_, addr, len, access, 0, key, 0, &mr, nullptr);
  if (rc) {
    util::fatal("cannot register %s at %p with provider %s: %s", util::human_size(len).c_str(),
                addr, provider_.c_str(), fi_error("fi_mr_reg", rc).c_str());
  }
  MemoryRegion region(mr);
  if (mr_mode_ & FI_MR_ENDPOINT) {
    check("fi_mr_bind", fi_mr_bind(mr, &ep_->fid, 0));
    check("fi_mr_enable", fi_mr_enable(mr));
  }
  return region;
}

bool Fabric::offloaded() const {
  if (provider_.find(';') != std::string::npos) return false;
  return provider_ == "cxi" || provider_ == "verbs" || provider_ == "efa" || provider_ == "opx";
}

}  // namespace gexx::transport::ofi
