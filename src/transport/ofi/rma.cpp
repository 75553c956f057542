#include "transport/ofi/rma.hpp"

#include <rdma/fi_rma.h>
#include <sched.h>

#include <algorithm>
#include <cstring>

#include "bootstrap/bootstrap.hpp"
#include "util/log.hpp"

namespace gexx::transport::ofi {

namespace {
constexpr size_t kChunkBounces = 16;
// Bounce buffers at most (4 MiB); past it a put waits for one to free.
constexpr size_t kMaxBounceChunks = 4;
// Remote ranges in one operation at most (providers offer 4 to 8).
constexpr size_t kMaxRuns = Capabilities::kMaxRemoteRuns;

// What a rank publishes about its segment.
struct SegmentCard {
  uint64_t owner_base;
  uint64_t key;
};
}  // namespace

struct RmaChannel::Bounce {
  Bounce *next = nullptr;
  void *desc = nullptr;
  alignas(64) char data[kBounceBytes];
};

struct RmaChannel::BounceChunk {
  Bounce bounces[kChunkBounces];
  MemoryRegion mr;
};

RmaChannel::RmaChannel(Fabric &fabric, size_t bounce_limit)
    : fabric_(fabric),
      bounce_limit_(bounce_limit),
      max_fragment_(std::max<size_t>(fabric.max_msg_size(), 1)),
      runs_(std::min(fabric.rma_iov_limit(), kMaxRuns)) {}

RmaChannel::~RmaChannel() = default;  // the endpoint closes first

void RmaChannel::attach(bootstrap::Bootstrap &boot, void *base, uint64_t size) {
  seg_base_ = static_cast<char *>(base);
  seg_size_ = size;
  SegmentCard mine{reinterpret_cast<uint64_t>(base), 0};
  if (size) {
    segment_mr_ =
        fabric_.register_memory(base, size, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE);
    mine.key = segment_mr_.key();
  }
  auto cards = boot.exchange(&mine, sizeof mine);
  peers_.resize(cards.size());
  bool virt = fabric_.mr_mode() & FI_MR_VIRT_ADDR;
  for (size_t r = 0; r < cards.size(); ++r) {
    SegmentCard c;
    std::memcpy(&c, cards[r].data(), sizeof c);
    peers_[r].owner_base = c.owner_base;
    peers_[r].base = virt ? c.owner_base : 0;
    peers_[r].key = c.key;
  }
}

bool RmaChannel::in_segment(const void *p, size_t n) const {
  uint64_t off = reinterpret_cast<uint64_t>(p) - reinterpret_cast<uint64_t>(seg_base_);
  return off <= seg_size_ && n <= seg_size_ - off;
}

void *RmaChannel::local_desc(const void *p, size_t n) const {
  return in_segment(p, n) ? segment_mr_.desc() : nullptr;
}

RmaChannel::Op *RmaChannel::take_op(RmaCompletion &done) {
  Op *op = free_ops_;
  if (op) {
    free_ops_ = op->next;
  } else {
    ops_.push_back(std::make_unique<Op>());
    op = ops_.back().get();
    op->sink = this;
  }
  op->done = &done;
  op->bounce = nullptr;
  op->copy_to = nullptr;
  done.pending.fetch_add(1, std::memory_order_relaxed);
  return op;
}

void RmaChannel::release(Op *op) {
  if (op->bounce) {
    op->bounce->next = free_bounce_;
    free_bounce_ = op->bounce;
  }
  op->next = free_ops_;
  free_ops_ = op;
}

RmaChannel::Bounce *RmaChannel::take_bounce() {
  while (!free_bounce_) {
    if (bounce_chunks_.size() < kMaxBounceChunks) {
      auto chunk = std::make_unique<BounceChunk>();
      if (fabric_.mr_local())
        chunk->mr =
            fabric_.register_memory(chunk->bounces, sizeof chunk->bounces, FI_READ | FI_WRITE);
      for (Bounce &b : chunk->bounces) {
        b.desc = chunk->mr.desc();
        b.next = free_bounce_;
        free_bounce_ = &b;
      }
      bounce_chunks_.push_back(std::move(chunk));
    } else if (!fabric_.progress()) {
      // Every buffer is in flight: they come back as the peers acknowledge,
      // which on a busy host needs their turn on a core (VIS puts of many
      // small pieces wait here).
      sched_yield();
    }
  }
  Bounce *b = free_bounce_;
  free_bounce_ = b->next;
  return b;
}

void RmaChannel::post(bool write, Op *op, void *local, void *desc, uint32_t peer, uint64_t remote) {
  RemoteRun run{remote, op->len};
  post_runs(write, op, local, desc, peer, &run, 1);
}

void RmaChannel::post_runs(bool write, Op *op, void *local, void *desc, uint32_t peer,
                           const RemoteRun *runs, size_t n) {
  const Peer &p = peers_[peer];
  iovec iov{local, op->len};
  fi_rma_iov rma[kMaxRuns];
  for (size_t i = 0; i < n; ++i)
    rma[i] = fi_rma_iov{p.base + (runs[i].remote - p.owner_base), runs[i].len, p.key};
  fi_msg_rma msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = fabric_.addr(peer);
  msg.rma_iov = rma;
  msg.rma_iov_count = n;
  msg.context = &op->ctx;
  uint32_t pauses = 0;
  for (;;) {
    // Delivery completion: a completed put is visible at the target, which
    // is what the client's completion promises.
    ssize_t rc = write ? fi_writemsg(fabric_.ep(), &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
                       : fi_readmsg(fabric_.ep(), &msg, FI_COMPLETION);
    if (rc == 0) {
      ++posts_;
      return;
    }
    if (!fabric_.retry_post(rc, pauses)) {
      util::fatal("%s %zu bytes %s rank %u: %s", write ? "writing" : "reading", op->len,
                  write ? "to" : "from", peer,
                  fi_error(write ? "fi_writemsg" : "fi_readmsg", rc).c_str());
    }
  }
}

Result RmaChannel::put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                       RmaCompletion &done) {
  Fabric::Guard g(fabric_);
  bool bounce = nbytes <= bounce_limit_ || (fabric_.mr_local() && !in_segment(src, nbytes));
  size_t fragment = bounce ? std::min(kBounceBytes, max_fragment_) : max_fragment_;
  const char *from = static_cast<const char *>(src);
  for (size_t off = 0; off < nbytes; off += fragment) {
    Op *op = take_op(done);
    op->len = std::min(fragment, nbytes - off);
    if (bounce) {
      op->bounce = take_bounce();
      std::memcpy(op->bounce->data, from + off, op->len);
      post(true, op, op->bounce->data, op->bounce->desc, peer, remote + off);
    } else {
      post(true, op, const_cast<char *>(from + off), local_desc(src, nbytes), peer, remote + off);
    }
  }
  return bounce ? Result::done : Result::posted;
}

void RmaChannel::get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes,
                     RmaCompletion &done) {
  Fabric::Guard g(fabric_);
  bool bounce = fabric_.mr_local() && !in_segment(dest, nbytes);
  size_t fragment = bounce ? std::min(kBounceBytes, max_fragment_) : max_fragment_;
  char *to = static_cast<char *>(dest);
  for (size_t off = 0; off < nbytes; off += fragment) {
    Op *op = take_op(done);
    op->len = std::min(fragment, nbytes - off);
    if (bounce) {
      op->bounce = take_bounce();
      op->copy_to = to + off;
      post(false, op, op->bounce->data, op->bounce->desc, peer, remote + off);
    } else {
      post(false, op, to + off, local_desc(dest, nbytes), peer, remote + off);
    }
  }
}

Result RmaChannel::put_runs(uint32_t peer, const RemoteRun *runs, size_t n, const void *src,
                            RmaCompletion &done) {
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) total += runs[i].len;
  const char *from = static_cast<const char *>(src);
  if (n == 1 || n > runs_ || total > std::min(kBounceBytes, max_fragment_)) {
    // One range, or more than one operation carries: each on its own.
    for (size_t i = 0; i < n; from += runs[i].len, ++i)
      if (put(peer, runs[i].remote, from, runs[i].len, done) != Result::done)
        util::fatal("ofi: a put of %zu bytes from a run list was not copied (a gexx bug)",
                    runs[i].len);
    return Result::done;
  }
  Fabric::Guard g(fabric_);
  Op *op = take_op(done);
  op->len = total;
  op->bounce = take_bounce();
  std::memcpy(op->bounce->data, src, total);
  post_runs(true, op, op->bounce->data, op->bounce->desc, peer, runs, n);
  return Result::done;
}

void RmaChannel::get_runs(void *dest, uint32_t peer, const RemoteRun *runs, size_t n,
                          RmaCompletion &done) {
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) total += runs[i].len;
  char *to = static_cast<char *>(dest);
  bool bounce = fabric_.mr_local() && !in_segment(dest, total);
  if (n == 1 || n > runs_ || total > max_fragment_ || (bounce && total > kBounceBytes)) {
    for (size_t i = 0; i < n; to += runs[i].len, ++i)
      get(to, peer, runs[i].remote, runs[i].len, done);
    return;
  }
  Fabric::Guard g(fabric_);
  Op *op = take_op(done);
  op->len = total;
  if (bounce) {
    op->bounce = take_bounce();
    op->copy_to = to;
    post_runs(false, op, op->bounce->data, op->bounce->desc, peer, runs, n);
  } else {
    post_runs(false, op, to, local_desc(dest, total), peer, runs, n);
  }
}

void RmaChannel::completed(OpContext *ctx, const fi_cq_msg_entry &) {
  Op *op = static_cast<Op *>(ctx);
  if (op->copy_to)
    std::memcpy(op->copy_to, op->bounce ? op->bounce->data : static_cast<void *>(&op->fetched),
                op->len);
  RmaCompletion *done = op->done;
  release(op);
  // Last: the waiter may return and end `done` as soon as it reads zero.
  done->pending.fetch_sub(1, std::memory_order_release);
}

}  // namespace gexx::transport::ofi
