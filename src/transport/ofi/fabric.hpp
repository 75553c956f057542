// The libfabric objects of one rank: fabric, domain, a reliable-datagram
// endpoint with one completion queue, and an address vector holding every
// rank's endpoint (names exchanged through the bootstrap).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace gexx::bootstrap {
class Bootstrap;
}

namespace gexx::transport::ofi {

// A libfabric call's error as text: "fi_send: Resource temporarily unavailable (-11)".
std::string fi_error(const char *call, long rc);

// What the conduit uses when no provider is named (GASNET_OFI_PROVIDER and
// FI_PROVIDER unset), from fi_getinfo's list: the first entry of a network
// other than Ethernet, else the Ethernet provider we measured fastest; shm
// only when nothing else is offered.
fi_info *default_provider(fi_info *list);

// A registered region: what a local operation passes as its descriptor and
// what a peer needs (key) to reach it. Closed on destruction.
class MemoryRegion {
 public:
  MemoryRegion() = default;
  MemoryRegion(fid_mr *mr) : mr_(mr) {}
  MemoryRegion(MemoryRegion &&o) noexcept : mr_(o.mr_) { o.mr_ = nullptr; }
  MemoryRegion &operator=(MemoryRegion &&o) noexcept;
  ~MemoryRegion();
  void *desc() const;
  uint64_t key() const;

 private:
  fid_mr *mr_ = nullptr;
};

struct OpContext;

// Whoever posted an operation hears of its completion here, from
// Fabric::progress with the fabric's lock held.
class CompletionSink {
 public:
  virtual void completed(OpContext *op, const fi_cq_msg_entry &entry) = 0;

 protected:
  ~CompletionSink() = default;
};

// The context of every operation we post; a completion's op_context is it.
struct OpContext {
  fi_context2 ctx;  // first: libfabric's own scratch space
  CompletionSink *sink = nullptr;
};

class Fabric {
 public:
  // Collective over the job: opens this rank's endpoint and learns every
  // rank's address. `provider`: libfabric's name ("tcp;ofi_rxm"), or empty
  // for libfabric's own choice (FI_PROVIDER applies then).
  Fabric(bootstrap::Bootstrap &boot, const std::string &provider);
  ~Fabric();
  Fabric(const Fabric &) = delete;
  Fabric &operator=(const Fabric &) = delete;

  fid_ep *ep() const { return ep_; }
  fid_domain *domain() const { return domain_; }
  // The endpoint has FI_ATOMIC (transport/ofi/atomics.cpp).
  bool atomics() const { return atomics_; }
  fid_cq *cq() const { return cq_; }
  fi_addr_t addr(uint32_t rank) const { return addrs_[rank]; }
  const std::string &provider() const { return provider_; }
  // A core provider whose RMA and atomics the NIC performs (cxi, verbs, efa,
  // opx), with no utility provider layered on it; the others (net, tcp,
  // shm, anything under ofi_rxm ...) perform them in software at the target.
  bool offloaded() const;
  // True when nobody named the provider and we chose it over libfabric's first.
  bool chosen_by_default() const { return by_default_; }
  size_t inject_size() const { return inject_size_; }
  size_t max_msg_size() const { return max_msg_size_; }
  // Most remote ranges one fi_writemsg or fi_readmsg names (rma_iov_limit).
  size_t rma_iov_limit() const { return rma_iov_limit_; }
  // The provider needs local buffers of sends and receives registered.
  bool mr_local() const { return mr_mode_ & FI_MR_LOCAL; }
  uint64_t mr_mode() const { return mr_mode_; }

  // Registers [addr, addr + len) for `access` (FI_SEND | FI_RECV,
  // FI_REMOTE_WRITE ...), honouring the provider's registration mode.
  MemoryRegion register_memory(void *addr, size_t len, uint64_t access);

  // Calls into the domain are serialised (FI_THREAD_DOMAIN) by this lock
  // when several threads may make them (GASNET_PAR, a progress thread).
  void set_concurrent(bool on) { concurrent_ = on; }
  bool concurrent() const { return concurrent_; }
  std::mutex &mutex() { return mutex_; }
  class Guard {
   public:
    explicit Guard(Fabric &f) : m_(f.concurrent_ ? &f.mutex_ : nullptr) {
      if (m_) m_->lock();
    }
    ~Guard() {
      if (m_) m_->unlock();
    }
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;

   private:
    std::mutex *m_;
  };

  // Reads completions and hands each to its operation's sink; a failed
  // operation stops the job. Callers hold the lock. True if any completed.
  bool progress();

  // A post (fi_send, fi_inject, fi_writemsg ...) returned `rc`, not 0: true
  // when the caller should post again, after progress or a pause here;
  // false when rc is an error for the caller to report. `pauses` (0 at
  // first) counts the pauses made for a departed peer. Callers hold the lock.
  bool retry_post(long rc, uint32_t &pauses);

  // Pushes a message just posted onto the wire where the provider would
  // leave it queued until the next progress call. Callers hold the lock.
  void push_sends() {
    if (queues_sends_) fi_cq_read(cq_, nullptr, 0);
  }

 private:
  void close_all();
  void release_shm_name(bootstrap::Bootstrap &boot, const std::string &name);

  fi_info *info_ = nullptr;
  fid_fabric *fabric_ = nullptr;
  fid_domain *domain_ = nullptr;
  fid_av *av_ = nullptr;
  fid_cq *cq_ = nullptr;
  fid_ep *ep_ = nullptr;
  std::vector<fi_addr_t> addrs_;
  std::string provider_;
  size_t inject_size_ = 0;
  size_t max_msg_size_ = 0;
  size_t rma_iov_limit_ = 1;
  uint64_t mr_mode_ = 0;
  bool by_default_ = false;
  bool atomics_ = false;
  bool queues_sends_ = false;
  uint64_t next_key_ = 1;  // requested keys when the provider does not pick them
  bool concurrent_ = true;
  std::mutex mutex_;
};

}  // namespace gexx::transport::ofi
