// The smp conduit: every rank of the job is on this host; each rank's
// segment is an unnamed shared region that every rank maps (cross-mapped),
// so a put or get is a copy.
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "transport/smp/am_lanes.hpp"
#include "transport/smp/am_ring.hpp"
#include "transport/smp/shm_backing.hpp"
#include "transport/transport.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::transport {

namespace {
uint64_t page_round(uint64_t bytes) {
  uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
// The shared control region of a host: the host area the caller asked for
// (`client` bytes), two AM rings (request, reply) per rank, then the AM
// lanes (if this many ranks have them).
uint64_t am_rings_offset(uint64_t client) {
  return page_round(client);
}
uint64_t am_lanes_offset(uint64_t client, uint32_t ranks) {
  return am_rings_offset(client) + page_round(smp::AmRing::bytes()) * 2 * ranks;
}
uint64_t control_bytes(uint64_t client, uint32_t ranks) {
  return am_lanes_offset(client, ranks) + page_round(smp::AmLanes::bytes(ranks));
}
}  // namespace

namespace smp {
namespace {

constexpr uint64_t kPage = 4096;

struct HostId {
  char boot_id[40];
  char host[64];
};

HostId my_host_id() {
  HostId id{};
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string boot;
  in >> boot;
  std::strncpy(id.boot_id, boot.c_str(), sizeof id.boot_id - 1);
  std::strncpy(id.host, util::hostname().c_str(), sizeof id.host - 1);
  return id;
}

[[noreturn]] void unmapped(uint32_t peer) {
  util::fatal(
      "internal error: RMA toward rank %u through the smp transport, which maps every segment",
      peer);
}

class SmpTransport final : public Transport {
  static constexpr uint8_t kRingQueue = 0, kLaneQueue = 1, kRingOpensLane = 2;  // AmSlot::queue

 public:
  SmpTransport(bootstrap::Bootstrap &boot, bool whole_job, AmSink &sink, uint64_t host_area_bytes)
      : boot_(boot),
        sink_(sink),
        host_(boot.host_ranks()),
        local_of_(boot.size(), -1),
        segs_(boot.size()) {
    for (size_t i = 0; i < host_.size(); ++i) local_of_[host_[i]] = static_cast<int32_t>(i);
    me_ = static_cast<uint32_t>(local_of_[boot_.rank()]);
    if (whole_job && host_.size() != boot_.size()) {
      util::fatal(
          "the smp conduit runs every rank on one host, but this job's %u ranks were started "
          "on several hosts (%zu here); build and link the ofi conduit (libgasnet-ofi-*) for "
          "jobs across hosts",
          boot_.size(), host_.size());
    }
    check_one_host();
    cores_ = ::sysconf(_SC_NPROCESSORS_ONLN);
    oversubscribed_ = cores_ > 0 && host_.size() > static_cast<uint64_t>(cores_);
    order_ = backings_from_config();
    compute_max_segment();
    open_host_area(host_area_bytes);
    caps_.max_medium = AmRing::kMaxMedium;
    caps_.max_am_credits = UINT16_MAX;  // the queues' slots narrow credits to 16 bits
    caps_.inline_put = 0;               // no put goes through rma_put
    caps_.load_store.assign(boot_.size(), 0);
    for (uint32_t r : host_) caps_.load_store[r] = 1;
    caps_.all_segments_mapped = host_.size() == boot_.size();
  }

  const char *name() const override { return "smp"; }
  const Capabilities &capabilities() const override { return caps_; }
  uint64_t max_segment_size() const override { return max_segment_; }
  const PeerSegment &segment(uint32_t rank) const override { return segs_[rank]; }
  void *host_area() const override { return host_area_bytes_ ? host_area_.addr() : nullptr; }
  Locality locality() const override { return {host_[0], host_[0]}; }
  uint32_t ranks_on_host() const override { return static_cast<uint32_t>(host_.size()); }
  bool job_in_host_area() const override { return host_.size() == boot_.size(); }
  bool oversubscribed() const override { return oversubscribed_; }

  Result am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload,
                    AmSlot &slot) override {
    slot.peer = peer;
    slot.lane = lane;
    slot.queue = kRingQueue;
    uint32_t local = static_cast<uint32_t>(local_of_[peer]);
    if (send_lanes_ && AmLanes::fits(nargs, payload)) {
      if (lanes_.is_open(local, lane)) {
        if (lanes_.reserve(local, lane, nargs, payload, slot)) {
          slot.queue = kLaneQueue;
          return Result::done;
        }
      } else {
        slot.queue = kRingOpensLane;  // through the ring, telling the receiver
      }
    }
    uint32_t i = local * 2 + static_cast<uint32_t>(lane);
    return rings_[i].reserve(nargs, payload, head_cache_[i], slot) ? Result::done : Result::retry;
  }
  void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args) override {
    if (slot.queue == kLaneQueue) {
      AmSlot local = slot;  // the lanes count peers by local index
      local.peer = static_cast<uint32_t>(local_of_[slot.peer]);
      lanes_.commit(local, h, args);
      return;
    }
    bool opens = slot.queue == kRingOpensLane;
    rings_[static_cast<uint32_t>(local_of_[slot.peer]) * 2 + static_cast<uint32_t>(slot.lane)]
        .commit(slot, h, args, opens);
    if (opens) lanes_.set_open(static_cast<uint32_t>(local_of_[slot.peer]), slot.lane);
  }
  Result am_send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
                 const void *payload, size_t nbytes) override {
    uint32_t local = static_cast<uint32_t>(local_of_[peer]);
    if (send_lanes_ && lanes_.is_open(local, lane) &&
        lanes_.send(local, lane, h, args, payload, nbytes))
      return Result::done;
    return Transport::am_send(peer, lane, h, args, payload, nbytes);  // through the ring
  }
  // Shared memory has no RMA to complete: progress is AM delivery. An idle
  // poll (the common case: every upcxx::progress) only reads, and makes no
  // call that would need a frame.
  bool poll(bool replies_only) override {
    if (!lanes_.has_work(replies_only) && !my_reply_->has_work() &&
        (replies_only || !my_request_->has_work())) [[likely]]
      return false;
    return deliver(replies_only);
  }
  void am_set_concurrent(bool concurrent) override {
    my_request_->set_concurrent(concurrent);
    my_reply_->set_concurrent(concurrent);
    lanes_.set_concurrent(concurrent);
    // Threads that may inject at once would race on a lane's tail.
    send_lanes_ = !concurrent && lanes_.enabled();
  }

  std::string describe() const override {
    return util::format("conduit smp, %zu rank(s) on %s, segment %s per rank in %s", host_.size(),
                        util::hostname().c_str(),
                        util::human_size(segs_[boot_.rank()].size).c_str(),
                        backing_location(backing_).c_str());
  }

  std::string segment_limits() const override { return limits_; }

  // Every segment is mapped here: core copies and never calls these.
  Result rma_put(uint32_t peer, uint64_t, const void *, size_t, RmaCompletion &,
                 PutSource) override {
    unmapped(peer);
  }
  void rma_get(void *, uint32_t peer, uint64_t, size_t, RmaCompletion &) override {
    unmapped(peer);
  }

  // Collective over the job. The host's segments are ONE shared region,
  // created by the host's first rank once every size is known, each rank's
  // segment at a page-aligned offset in it; every rank maps it once, so a
  // host of N ranks costs N mappings and N descriptor passes, not N^2.
  void attach_segment(uint64_t size) override {
    size = (size + kPage - 1) / kPage * kPage;
    const uint32_t n = static_cast<uint32_t>(host_.size());
    auto sizes = boot_.allgather(size);
    std::vector<uint64_t> offset(n);
    uint64_t total = 0, largest = 0;
    for (uint32_t i = 0; i < n; ++i) {
      offset[i] = total;
      total += sizes[host_[i]];
      largest = std::max(largest, sizes[host_[i]]);
    }
    std::vector<int> mine;
    if (me_ == 0 && total > 0) mine.push_back(create_host_segments(total, n, largest));
    auto fds = boot_.exchange_fds(mine);
    for (int fd : mine) ::close(fd);
    if (total > 0) {
      if (fds[host_[0]].size() != 1) {
        util::fatal("internal error: the host's first rank (%u) passed no segment region",
                    host_[0]);
      }
      segments_ = Mapping(fds[host_[0]][0], total);
      if (!segments_.addr()) {
        util::fatal(
            "cannot map the %s shared region of this host's %u segments: %s (address space "
            "exhausted?)",
            util::human_size(total).c_str(), n, std::strerror(errno));
      }
    }
    for (auto &v : fds)
      for (int f : v) ::close(f);

    char *base = static_cast<char *>(segments_.addr());
    char *my_seg = size > 0 ? base + offset[me_] : nullptr;
    struct Published {
      uint64_t base, size;
      uint64_t backing;  // the host's first rank's choice, for describe()
    };
    Published me{reinterpret_cast<uint64_t>(my_seg), size, static_cast<uint64_t>(backing_)};
    auto all = boot_.allgather(me);
    backing_ = static_cast<Backing>(all[host_[0]].backing);
    for (uint32_t r = 0; r < boot_.size(); ++r) {
      segs_[r].owner_base = all[r].base;
      segs_[r].size = all[r].size;
      int32_t local = local_of_[r];
      segs_[r].local = local >= 0 && all[r].size > 0 ? base + offset[local] : nullptr;
    }
  }

 private:
  // A poll that found a message: delivers what the lanes and both rings
  // hold, up to a budget each.
  [[gnu::noinline]] bool deliver(bool replies_only) {
    constexpr int kBudget = 64;
    bool any = lanes_.has_work(replies_only) && lanes_.poll(replies_only, kBudget, sink_) > 0;
    if (my_reply_->has_work()) any = my_reply_->drain(kBudget, sink_) > 0 || any;
    if (!replies_only && my_request_->has_work())
      any = my_request_->drain(kBudget, sink_) > 0 || any;
    return any;
  }

  // The host's first rank: chooses the backing for `total` bytes and creates
  // the region (a fatal error naming the limits when none can hold it).
  int create_host_segments(uint64_t total, uint32_t n, uint64_t largest) {
    std::string why;
    if (!choose_backing(order_, total, backing_, why)) {
      util::fatal(
          "cannot create the segments of the %u ranks on this host (%s in all, the largest "
          "%s): %s. Ask for a smaller segment, set GASNET_MAX_SEGSIZE lower, or list "
          "another backing in GASNET_SHM_BACKING (now '%s')",
          n, util::human_size(total).c_str(), util::human_size(largest).c_str(), why.c_str(),
          config::get_string("GASNET_SHM_BACKING").c_str());
    }
    std::string error;
    int fd = create_region(backing_, total, boot_.job_id(), error);
    if (fd < 0) {
      util::fatal(
          "cannot create the %s region of this host's %u segments in %s: %s. Set "
          "GASNET_MAX_SEGSIZE lower or list another backing in GASNET_SHM_BACKING",
          util::human_size(total).c_str(), n, backing_location(backing_).c_str(), error.c_str());
    }
    if (backing_ != order_.front()) {
      util::note("segment backing: %s (%s could not hold %s: %s)",
                 backing_location(backing_).c_str(), backing_location(order_.front()).c_str(),
                 util::human_size(total).c_str(), why.c_str());
    }
    return fd;
  }

  // Digests of the boot id (8 bytes a rank), the host names only when two
  // differ (every rank sees it, so every rank takes the second exchange).
  void check_one_host() {
    HostId me = my_host_id();
    auto digests = boot_.allgather(bootstrap::fingerprint(me.boot_id, sizeof me.boot_id));
    bool same = true;
    for (uint32_t r : host_) same = same && digests[r] == digests[boot_.rank()];
    uint8_t differs = same ? 0 : 1;
    auto any = boot_.allgather(differs);
    if (std::find(any.begin(), any.end(), 1) == any.end()) return;
    auto all = boot_.allgather(me);
    for (uint32_t r : host_) {
      if (std::strncmp(all[r].boot_id, me.boot_id, sizeof me.boot_id) != 0) {
        util::fatal(
            "the smp conduit runs every rank on one host, but rank %u is on %s and this "
            "rank on %s; use a network conduit for jobs across hosts",
            r, all[r].host, me.host);
      }
    }
    boot_.barrier();  // a rank that saw no difference waits to be ended with the job
  }

  void compute_max_segment() {
    config::SizeSpec spec = config::get_size_spec("GASNET_MAX_SEGSIZE");
    uint64_t per_rank;
    uint32_t n = static_cast<uint32_t>(host_.size());
    double amount = static_cast<double>(spec.bytes);
    if (spec.fraction) {
      struct sysinfo si;
      ::sysinfo(&si);
      amount = static_cast<double>(si.totalram) * si.mem_unit * spec.share;
    }
    // A host-wide limit (the /H suffix) is shared by its ranks; any other is each rank's.
    per_rank = static_cast<uint64_t>(spec.per_host() ? amount / n : amount);
    limits_ = util::format("GASNET_MAX_SEGSIZE=%s allows %s per rank",
                           config::get_string("GASNET_MAX_SEGSIZE").c_str(),
                           util::human_size(per_rank).c_str());
    uint64_t best = 0;
    // A file on disk counts only when GASNET_SHM_BACKING names the backings:
    // the default list must not advertise a maximum only a disk can hold.
    const char *chosen = std::getenv("GASNET_SHM_BACKING");
    bool disk_ok = chosen && *chosen;
    for (Backing b : order_) {
      uint64_t cap = backing_capacity(b);
      bool counted = disk_ok || !backing_on_disk(b);
      if (counted) best = std::max(best, cap);
      limits_ += util::format(
          "; %s has %s free%s", backing_location(b).c_str(), util::human_size(cap).c_str(),
          counted ? "" : " (on disk: counted when GASNET_SHM_BACKING lists it)");
    }
    limits_ += util::format(" for the %u rank(s) of this host (GASNET_SHM_BACKING=%s)", n,
                            config::get_string("GASNET_SHM_BACKING").c_str());
    per_rank = std::min(per_rank, best / n);
    max_segment_ = per_rank / kPage * kPage;
  }

  void open_host_area(uint64_t client) {
    host_area_bytes_ = client;
    const uint32_t n = static_cast<uint32_t>(host_.size());
    uint64_t len = control_bytes(client, n);
    std::vector<int> mine;
    if (me_ == 0) {
      // Control memory (the host area, AM queues), not the client's segments:
      // memfd first whatever GASNET_SHM_BACKING says, as it has no size
      // limit of its own; then the listed backings.
      std::vector<Backing> order{Backing::Memfd};
      for (Backing b : order_)
        if (b != Backing::Memfd) order.push_back(b);
      std::string error, errors;
      int fd = -1;
      for (Backing b : order) {
        fd = create_region(b, len, boot_.job_id(), error);
        if (fd >= 0) break;
        errors += (errors.empty() ? "" : "; ") + error;
      }
      if (fd < 0) {
        util::fatal("cannot create the host's %s shared control area (host area and AM queues): %s",
                    util::human_size(len).c_str(), errors.c_str());
      }
      mine.push_back(fd);
    }
    auto fds = boot_.exchange_fds(mine);
    for (int fd : mine) ::close(fd);
    host_area_ = Mapping(fds[host_[0]].at(0), len);
    for (auto &v : fds)
      for (int fd : v) ::close(fd);
    if (!host_area_.addr())
      util::fatal("cannot map the host's shared control area: %s", std::strerror(errno));
    uint32_t nrings = 2 * n;
    rings_ = std::make_unique<AmRing[]>(nrings);
    head_cache_ = std::make_unique<std::atomic<uint64_t>[]>(nrings);
    char *ring_area = static_cast<char *>(host_area_.addr()) + am_rings_offset(client);
    for (uint32_t i = 0; i < nrings; ++i) {
      rings_[i].init(ring_area + i * page_round(AmRing::bytes()));
      head_cache_[i].store(0, std::memory_order_relaxed);
    }
    my_request_ = &rings_[me_ * 2];
    my_reply_ = &rings_[me_ * 2 + 1];
    lanes_.init(static_cast<char *>(host_area_.addr()) + am_lanes_offset(client, n), n, me_);
    // A ring message that opens a lane names its sender by job rank.
    my_request_->set_open_hook(
        [](void *self, uint32_t src) {
          auto *t = static_cast<SmpTransport *>(self);
          t->lanes_.accept(static_cast<uint32_t>(t->local_of_[src]), AmLane::Request);
        },
        this);
    my_reply_->set_open_hook(
        [](void *self, uint32_t src) {
          auto *t = static_cast<SmpTransport *>(self);
          t->lanes_.accept(static_cast<uint32_t>(t->local_of_[src]), AmLane::Reply);
        },
        this);
    boot_.barrier();  // every rank maps the queues before anyone sends
  }

  bootstrap::Bootstrap &boot_;
  AmSink &sink_;
  Capabilities caps_;
  std::vector<uint32_t> host_;     // the job ranks of this host, by local index
  std::vector<int32_t> local_of_;  // local index of each job rank, -1 off this host
  uint32_t me_ = 0;                // this rank's local index
  std::vector<Backing> order_;
  Backing backing_ = Backing::Memfd;
  uint64_t max_segment_ = 0;
  long cores_ = 0;
  bool oversubscribed_ = false;
  std::string limits_;
  Mapping host_area_;                                    // the host area, then the AM queues
  uint64_t host_area_bytes_ = 0;                         // the host area's part
  std::unique_ptr<AmRing[]> rings_;                      // [rank * 2 + lane]
  std::unique_ptr<std::atomic<uint64_t>[]> head_cache_;  // our view of each ring's head
  AmRing *my_request_ = nullptr;                         // the two rings this rank drains
  AmRing *my_reply_ = nullptr;
  AmLanes lanes_;            // small messages of one-thread-at-a-time senders
  bool send_lanes_ = false;  // we inject small messages into lanes
  Mapping segments_;         // every segment of this host, at offsets
  std::vector<PeerSegment> segs_;
};

}  // namespace

std::unique_ptr<Transport> open(bootstrap::Bootstrap &boot, bool whole_job, AmSink &sink,
                                uint64_t host_area_bytes) {
  return std::make_unique<SmpTransport>(boot, whole_job, sink, host_area_bytes);
}

}  // namespace smp
}  // namespace gexx::transport
