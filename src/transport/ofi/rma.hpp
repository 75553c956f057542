// Puts and gets over libfabric RMA. Each rank registers its segment at
// attach and publishes its key and base; a put is fi_write with delivery
// completion (the data is visible at the target when it completes), a get
// is fi_read; both split at the provider's max_msg_size.
//
// A put up to the bounce limit is copied into a registered bounce buffer, so
// its source is free again when the call returns; a larger one is written
// from the client's memory (its source is busy until it completes). Where
// the provider wants local buffers registered (FI_MR_LOCAL) and the client's
// buffer is outside our segment, puts and gets go through bounce buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "transport/ofi/fabric.hpp"
#include "transport/transport.hpp"

namespace gexx::bootstrap {
class Bootstrap;
}

namespace gexx::transport::ofi {

class RmaChannel final : public CompletionSink {
 public:
  static constexpr size_t kBounceBytes = 65536;

  RmaChannel(Fabric &fabric, size_t bounce_limit);
  ~RmaChannel();

  // Collective: registers [base, base + size) and learns every rank's
  // segment key and base.
  void attach(bootstrap::Bootstrap &boot, void *base, uint64_t size);
  // `remote` is an address in `peer`'s segment as its owner sees it.
  // done when `src` was copied (may be reused now), posted otherwise.
  Result put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes, RmaCompletion &done);
  void get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes, RmaCompletion &done);
  // Several ranges of one peer's segment in one operation (Transport::
  // rma_put_runs): at most runs() of them, the put's bytes at most
  // bounce_limit() in all (copied at once: returns done).
  size_t runs() const { return runs_; }
  // Puts and gets posted (fi_writemsg, fi_readmsg), for the exit note.
  uint64_t posts() const { return posts_; }
  Result put_runs(uint32_t peer, const RemoteRun *runs, size_t n, const void *src,
                  RmaCompletion &done);
  void get_runs(void *dest, uint32_t peer, const RemoteRun *runs, size_t n, RmaCompletion &done);

  // Native atomics (transport/ofi/atomics.cpp): what the provider performs
  // (none when the endpoint lacks FI_ATOMIC or wants local buffers
  // registered), and one operation (Transport::atomic).
  void atomic_ops(uint64_t ops[Capabilities::kAtomicTypes]) const;
  void atomic(uint32_t peer, uint64_t remote, Capabilities::AtomicType type, uint32_t op,
              uint64_t a, uint64_t b, void *result, RmaCompletion &done);

  void completed(OpContext *op, const fi_cq_msg_entry &entry) override;
  // Puts up to this many bytes are copied into bounce buffers.
  size_t bounce_limit() const { return bounce_limit_; }

 private:
  struct Bounce;
  struct Op : OpContext {
    Op *next = nullptr;
    RmaCompletion *done = nullptr;
    Bounce *bounce = nullptr;
    void *copy_to = nullptr;  // a get through a bounce buffer (an atomic's prior value) lands here
    size_t len = 0;
    uint64_t operand = 0, compare = 0, fetched = 0;  // an atomic's buffers
  };
  struct Peer {
    uint64_t base = 0;  // what the provider wants added to a segment offset
    uint64_t owner_base = 0;
    uint64_t key = 0;
  };
  struct BounceChunk;

  Op *take_op(RmaCompletion &done);
  void release(Op *op);
  Bounce *take_bounce();
  bool in_segment(const void *p, size_t n) const;
  // The segment's descriptor for a buffer inside it; none (which a provider
  // without FI_MR_LOCAL accepts) for any other.
  void *local_desc(const void *p, size_t n) const;
  // Posts one fragment (fi_writemsg or fi_readmsg), retrying while the
  // provider is busy. Callers hold the fabric lock.
  void post(bool write, Op *op, void *local, void *desc, uint32_t peer, uint64_t remote);
  // The same for `n` remote ranges, `op->len` bytes in all at `local`.
  void post_runs(bool write, Op *op, void *local, void *desc, uint32_t peer, const RemoteRun *runs,
                 size_t n);

  Fabric &fabric_;
  size_t bounce_limit_;
  size_t max_fragment_;
  size_t runs_;
  uint64_t posts_ = 0;
  MemoryRegion segment_mr_;
  char *seg_base_ = nullptr;
  uint64_t seg_size_ = 0;
  std::vector<Peer> peers_;
  std::vector<std::unique_ptr<Op>> ops_;
  Op *free_ops_ = nullptr;
  std::vector<std::unique_ptr<BounceChunk>> bounce_chunks_;
  Bounce *free_bounce_ = nullptr;
};

}  // namespace gexx::transport::ofi
