#include "transport/ofi/am_channel.hpp"

#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <sched.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "util/cycle_clock.hpp"
#include "util/log.hpp"

namespace gexx::transport::ofi {

namespace {
constexpr size_t kChunkBuffers = 16;
// Receives posted at start; the pool grows when arrivals outrun handlers.
constexpr size_t kPostedRecvs = 64;
constexpr int kPollBudget = 64;
// Extra reads of a poll after a pause (AmChannel::poll): each takes at
// least one write per socket, and a loaded host makes some empty reads look
// busy (a preempted read), so the count stays small.
constexpr int kPauseReads = 16;

// A poll that follows a pause (a passive rank between its sleeps, a rank
// computing) against one of a spinning wait, and a progress call that read
// something against one that found nothing: kPause is about 50 us;
// kBusyRead about 0.8 us, twice an empty progress call of net or tcp (one
// epoll_wait) on the VM of docs/performance.md, a tenth of reading a 64 KiB
// write.
uint64_t poll_clock() {
  return util::cycle_clock();
}
constexpr uint64_t kPause = util::kClock50us;
constexpr uint64_t kBusyRead = util::kClock800ns;
// A held bundle of deferrable requests (AmChannel::hold) leaves by kMaxHold
// (about 50 us) if requests keep coming, at the next poll if not.
constexpr uint64_t kMaxHold = util::kBurstHold;
static_assert(sizeof(AmHeader) == AmChannel::kHeaderBytes, "the wire header is 32 bytes");
}  // namespace

struct AmChannel::Chunk {
  Buffer buffers[kChunkBuffers];
  MemoryRegion mr;
};

AmChannel::AmChannel(Fabric &fabric, uint32_t ranks, const Limits &limits, AmSink &sink)
    : fabric_(fabric), sink_(sink), limits_(limits), in_flight_(ranks, 0), bundles_(ranks) {
  limits_.inline_limit = std::min(limits_.inline_limit, fabric.inject_size());
  // The client's memory is not registered: a provider that wants it
  // (FI_MR_LOCAL) gets every payload copied into a send buffer.
  if (fabric.mr_local()) limits_.direct_min = SIZE_MAX;
  for (size_t i = 0; i < kPostedRecvs; ++i) post_recv(take(free_recv_, true));
}

AmChannel::~AmChannel() = default;  // the endpoint closes first, cancelling receives

AmChannel::Buffer *AmChannel::grow(bool recv) {
  auto chunk = std::make_unique<Chunk>();
  if (fabric_.mr_local())
    chunk->mr = fabric_.register_memory(chunk->buffers, sizeof chunk->buffers, FI_SEND | FI_RECV);
  Buffer *&list = recv ? free_recv_ : free_send_;
  for (size_t i = 1; i < kChunkBuffers; ++i) {
    Buffer *b = &chunk->buffers[i];
    b->sink = this;
    b->desc = chunk->mr.desc();
    b->recv = recv;
    b->next = list;
    list = b;
  }
  Buffer *first = &chunk->buffers[0];
  first->sink = this;
  first->desc = chunk->mr.desc();
  first->recv = recv;
  if (!recv) send_buffers_ += kChunkBuffers;
  chunks_.push_back(std::move(chunk));
  return first;
}

AmChannel::Buffer *AmChannel::take(Buffer *&list, bool recv) {
  if (Buffer *b = list) {
    list = b->next;
    return b;
  }
  return grow(recv);
}

void AmChannel::post_recv(Buffer *b) {
  for (;;) {
    ssize_t rc = fi_recv(fabric_.ep(), b->data, kBufferBytes, b->desc, FI_ADDR_UNSPEC, &b->ctx);
    if (rc == 0) return;
    if (rc != -FI_EAGAIN) util::fatal("%s", fi_error("fi_recv", rc).c_str());
    fi_cq_read(fabric_.cq(), nullptr, 0);  // progress, then retry
  }
}

void AmChannel::completed(OpContext *op, const fi_cq_msg_entry &entry) {
  Buffer *b = static_cast<Buffer *>(op);
  if (entry.flags & FI_RECV) {
    post_recv(take(free_recv_, true));
    const AmHeader *h = reinterpret_cast<const AmHeader *>(b->data);
    (h->kind == wire::kRequest ? requests_ : replies_).push_back({b, entry.len});
  } else {
    --in_flight_[b->peer];
    b->sent = true;
    b->next = free_send_;
    free_send_ = b;
  }
}

bool AmChannel::room(uint32_t peer) {
  if (!free_send_ || in_flight_[peer] >= limits_.depth_per_peer) {
    fabric_.progress();
    if (in_flight_[peer] >= limits_.depth_per_peer) return false;
    if (!free_send_ && send_buffers_ >= limits_.depth_total) return false;
  }
  return true;
}

Result AmChannel::reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t /*payload*/,
                          AmSlot &slot) {
  Fabric::Guard g(fabric_);
  if (!room(peer)) return Result::retry;
  Buffer *b = take(free_send_, false);
  slot.payload = b->data + payload_offset(nargs);
  slot.capacity = kMaxMedium;
  slot.peer = peer;
  slot.lane = lane;
  slot.where = reinterpret_cast<uint64_t>(b);
  return Result::done;
}

size_t AmChannel::write_head(Buffer *b, const AmHeader &h, const int32_t *args) {
  std::memcpy(b->data, &h, sizeof h);
  if (h.nargs) std::memcpy(b->data + kHeaderBytes, args, h.nargs * sizeof(int32_t));
  return payload_offset(h.nargs);
}

void AmChannel::commit(AmSlot &slot, const AmHeader &h, const int32_t *args) {
  Buffer *b = reinterpret_cast<Buffer *>(slot.where);
  size_t head = write_head(b, h, args);
  bool carried = h.category == wire::kMedium || (h.flags & wire::kPackedLong);
  size_t len = head + (carried ? h.nbytes : 0);
  Fabric::Guard g(fabric_);
  // A bundled reply is counted in sends_ when its bundle leaves, which is
  // before poll compares the count (flush_bundles ends each delivery loop).
  if (slot.lane == AmLane::Reply && batching_ && bundle(b, slot.peer, len, false)) return;
  if ((h.flags & wire::kDeferrable) && slot.lane == AmLane::Request && hold(b, slot.peer, len))
    return;
  if (bundles_[slot.peer]) send_bundle(slot.peer);  // in order behind it
  post(b, slot.peer, len);
}

void AmChannel::post(Buffer *b, uint32_t peer, size_t len) {
  fi_addr_t to = fabric_.addr(peer);
  bool inject = len <= limits_.inline_limit;
  uint32_t pauses = 0;
  for (;;) {
    ssize_t rc = inject ? fi_inject(fabric_.ep(), b->data, len, to)
                        : fi_send(fabric_.ep(), b->data, len, b->desc, to, &b->ctx);
    if (rc == 0) break;
    if (!fabric_.retry_post(rc, pauses)) {
      util::fatal("sending an AM of %zu bytes to rank %u: %s", len, peer,
                  fi_error(inject ? "fi_inject" : "fi_send", rc).c_str());
    }
  }
  fabric_.push_sends();
  ++sends_;
  if (inject) {  // the provider has copied it: no completion will come
    b->next = free_send_;
    free_send_ = b;
  } else {
    b->peer = peer;
    ++in_flight_[peer];
  }
}

bool AmChannel::bundle(Buffer *b, uint32_t peer, size_t len, bool requests) {
  if (len > kBundleItemMax) return false;
  Buffer *&open = bundles_[peer];
  // One kind per bundle: the receiver queues a message by its first header,
  // and replies must never wait behind requests.
  if (open && open->requests != requests) send_bundle(peer);
  if (open) {
    size_t at = (open->len + 15) / 16 * 16;
    if (at + len <= kBufferBytes) {
      reinterpret_cast<AmHeader *>(open->data + open->last)->flags |= kMore;
      std::memcpy(open->data + at, b->data, len);
      open->last = static_cast<uint32_t>(at);
      open->len = static_cast<uint32_t>(at + len);
      b->next = free_send_;
      free_send_ = b;
      return true;
    }
    send_bundle(peer);  // full: out it goes, and `b` opens the next
  }
  open = b;
  b->len = static_cast<uint32_t>(len);
  b->last = 0;
  b->requests = requests;
  bundled_.push_back(peer);
  return true;
}

bool AmChannel::hold(Buffer *b, uint32_t peer, size_t len) {
  uint64_t now = poll_clock();
  if (!bundle(b, peer, len, true)) return false;
  Buffer *open = bundles_[peer];
  if (open == b) {
    b->opened = now;
  } else if (now - open->opened > kMaxHold) {
    send_bundle(peer);
  }
  return true;
}

void AmChannel::send_bundle(uint32_t peer) {
  Buffer *b = bundles_[peer];
  bundles_[peer] = nullptr;
  post(b, peer, b->len);
}

void AmChannel::flush_bundles(bool keep_young) {
  if (!keep_young) {
    for (uint32_t peer : bundled_) {
      if (bundles_[peer]) send_bundle(peer);
    }
    bundled_.clear();
    return;
  }
  uint64_t now = poll_clock();
  size_t keep = 0;
  for (uint32_t peer : bundled_) {
    Buffer *b = bundles_[peer];
    // (A peer is listed again when its kept bundle left by other means and
    // it opened another: keep it once.)
    if (!b || std::find(bundled_.begin(), bundled_.begin() + keep, peer) != bundled_.begin() + keep)
      continue;
    if (b->requests && now - b->opened < util::kBurstGap) {
      bundled_[keep++] = peer;
    } else {
      send_bundle(peer);
    }
  }
  bundled_.resize(keep);
}

Result AmChannel::send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
                       const void *payload, size_t nbytes) {
  if (nbytes < limits_.direct_min || nbytes == 0) {
    AmSlot slot;
    if (reserve(peer, lane, h.nargs, nbytes, slot) == Result::retry) return Result::retry;
    if (nbytes) std::memcpy(slot.payload, payload, nbytes);
    commit(slot, h, args);
    return Result::done;
  }
  Fabric::Guard g(fabric_);
  if (!room(peer)) return Result::retry;
  if (bundles_[peer]) send_bundle(peer);  // in order behind it
  Buffer *b = take(free_send_, false);
  iovec iov[2] = {{b->data, write_head(b, h, args)}, {const_cast<void *>(payload), nbytes}};
  void *desc[2] = {b->desc, nullptr};
  fi_msg msg{};
  msg.msg_iov = iov;
  msg.desc = desc;
  msg.iov_count = 2;
  msg.addr = fabric_.addr(peer);
  msg.context = &b->ctx;
  b->peer = peer;
  b->sent = false;
  uint32_t pauses = 0;
  for (;;) {
    ssize_t rc = fi_sendmsg(fabric_.ep(), &msg, FI_COMPLETION);
    if (rc == 0) break;
    if (!fabric_.retry_post(rc, pauses)) {
      util::fatal("sending an AM of %zu bytes to rank %u: %s", iov[0].iov_len + nbytes, peer,
                  fi_error("fi_sendmsg", rc).c_str());
    }
  }
  ++in_flight_[peer];
  ++sends_;
  fabric_.push_sends();
  // The payload is the caller's until the provider is done with it. Arrivals
  // read meanwhile are queued, not delivered: no handler runs in here.
  for (uint32_t idle = 0; !b->sent;) {
    if (fabric_.progress()) {
      idle = 0;
    } else if (++idle % 256 == 0) {
      sched_yield();  // the peer must read its socket: on a shared core, let it
    }
  }
  return Result::done;
}

int AmChannel::deliver(Arrival a) {
  int n = 0;
  for (size_t at = 0;;) {
    AmHeader *h = reinterpret_cast<AmHeader *>(a.buf->data + at);
    size_t left = a.len - at;
    if (left < kHeaderBytes || left < payload_offset(h->nargs)) {
      util::fatal("received a %zu-byte AM, shorter than its header says", left);
    }
    const int32_t *args = reinterpret_cast<const int32_t *>(a.buf->data + at + kHeaderBytes);
    char *payload = a.buf->data + at + payload_offset(h->nargs);
    bool carried = h->category == wire::kMedium || (h->flags & wire::kPackedLong);
    size_t len = payload_offset(h->nargs) + (carried ? h->nbytes : 0);
    if (left < len) util::fatal("received a %zu-byte AM, shorter than its payload says", left);
    bool more = h->flags & kMore;
    h->flags &= static_cast<uint8_t>(~wire::kTransportFlags);
    sink_.deliver(*h, args, payload);
    ++n;
    if (!more) return n;
    at += (len + 15) / 16 * 16;
    if (at >= a.len) util::fatal("received a bundle of AMs that ends inside its last message");
  }
}

bool AmChannel::poll(bool replies_only, bool keep_young_bursts) {
  int done = 0;
  bool concurrent = fabric_.concurrent();
  std::unique_lock<std::mutex> lock(fabric_.mutex(), std::defer_lock);
  if (concurrent) lock.lock();
  uint64_t now = poll_clock();
  if (keep_young_bursts && now - last_poll_ < util::kTestPollGap) return false;
  // Held requests (hold) leave first: every wait polls.
  if (!bundled_.empty()) flush_bundles(keep_young_bursts);
  // A poll after a pause also reads again while the reads keep finding
  // work: a peer's RMA on our memory (a put into our segment) leaves no
  // completion entry, and net and tcp take about one write off a socket
  // per read, so a passive rank (testimm -p: a poll every 500 us) took one
  // put per poll. Whether a read found a write shows only in how long it
  // took (net's remote-write counter stays at 0 in libfabric 1.17). A
  // spinning wait's polls skip this: its extra read would cost a system
  // call each and delay the next message.
  bool after_pause = now - last_poll_ > kPause;
  last_poll_ = now;
  int rma_rounds = after_pause ? kPauseReads : 0;
  // A poll that delivered requests and sent nothing reads the completion
  // queue again, until it is empty or the budget is spent: stream providers
  // (net, tcp) take about one message off a socket per read, so a rank that
  // polls seldom (a passive rank between its sleeps, testimm) fell one
  // message further behind per poll. A poll whose handlers replied, or that
  // delivered only replies, returns at once: a round trip's next step
  // waits on it, and pays no extra read's syscall.
  for (bool more = true; more && done < kPollBudget;) {
    fabric_.progress();
    more = false;
    uint64_t sends_before = sends_;
    ++batching_;
    while (done < kPollBudget) {
      std::deque<Arrival> *q = !replies_.empty()                     ? &replies_
                               : !replies_only && !requests_.empty() ? &requests_
                                                                     : nullptr;
      if (!q) break;
      more = more || q == &requests_;
      Arrival a = q->front();
      q->pop_front();
      if (concurrent) lock.unlock();
      int n = deliver(a);
      if (concurrent) lock.lock();
      a.buf->next = free_recv_;
      free_recv_ = a.buf;
      done += n;
    }
    --batching_;
    flush_bundles(keep_young_bursts);
    more = more && sends_ == sends_before;
    if (!more && rma_rounds > 0 && sends_ == sends_before) {
      --rma_rounds;
      uint64_t t0 = poll_clock();
      more = fabric_.progress() || poll_clock() - t0 > kBusyRead;
    }
  }
  return done > 0;
}

}  // namespace gexx::transport::ofi
