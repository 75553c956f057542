// The process-wide state of a gexx job and its life cycle: init, attach,
// exit. The C entry points in capi/ and legacy/ call into it.
#pragma once

#include <gasnetex.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "coll/barrier.hpp"
#include "core/topology.hpp"
#include "core/am.hpp"
#include "core/handlers.hpp"
#include "core/objects.hpp"
#include "transport/transport.hpp"

namespace gexx::core {

class Runtime;
namespace detail {
extern Runtime *g_runtime;
[[noreturn]] void not_initialized(const char *api);
}  // namespace detail

class Runtime {
 public:
  // Collective over the job; `api` names the calling function in errors.
  // thread_mode: 0 SEQ, 1 PARSYNC, 2 PAR (as the client was compiled).
  static Runtime &init(const char *api, const char *client_name, gex_Flags_t flags,
                       int thread_mode);
  // Several client threads may be inside gexx at once (GASNET_PAR).
  bool concurrent() const { return concurrent_; }
  static bool initialized();
  // The runtime, or a fatal error naming `api` if init has not run.
  static Runtime &get(const char *api) {
    if (__builtin_expect(detail::g_runtime != nullptr, 1)) return *detail::g_runtime;
    detail::not_initialized(api);
  }

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }
  uint64_t max_local_segment() const { return max_local_; }
  uint64_t max_global_segment() const { return max_global_; }

  // Collective; one segment per process. Returns the segment handle.
  gex_Segment_t attach(const char *api, uint64_t size);
  bool attached() const { return attached_; }
  // GASNET_SPREAD_RANKS after a step that slept in the bootstrap
  // (core/progress.hpp, spread_over_cpus).
  void spread();

  bootstrap::Bootstrap &boot() { return *boot_; }
  transport::Transport &transport() { return *transport_; }
  coll::Barrier &barrier() { return *barrier_; }
  const Topology &topology() const { return *topology_; }
  HandlerTable &handlers() { return handlers_; }
  am::Engine &am() { return *am_; }

  gex_Client_t client() { return &client_; }
  gex_EP_t ep() { return &ep_; }
  gex_TM_t tm() { return &tm_; }
  gex_Segment_t segment() { return attached_ ? &segment_ : nullptr; }

  // Address in this process of [addr, addr+len) in rank's segment; a fatal
  // error naming the rank, the range and the segment bounds if it is not
  // inside that segment. Inline: it is on every put and get.
  char *translate(const char *api, uint32_t rank, const void *addr, size_t len) {
    if (char *p = locate(api, rank, addr, len)) return p;
    bad_range(api, rank, addr, len);
  }
  // The same, but null when the range is in a segment this process does not
  // map (a peer reached through the network): RMA then goes to the transport.
  char *locate(const char *api, uint32_t rank, const void *addr, size_t len) {
    if (__builtin_expect(rank < size_ && segs_ != nullptr, 1)) {
      const transport::PeerSegment &s = segs_[rank];
      uint64_t off = reinterpret_cast<uint64_t>(addr) - s.owner_base;  // wraps if below
      if (__builtin_expect(off <= s.size && len <= s.size - off, 1))
        return __builtin_expect(s.local != nullptr, 1) ? s.local + off : nullptr;
    }
    bad_range(api, rank, addr, len);
  }
  // rank's segment table entry (null before the segments are attached or
  // for a rank out of range): VIS checks many pieces against one entry.
  const transport::PeerSegment *peer_segment(uint32_t rank) const {
    return rank < size_ && segs_ != nullptr ? &segs_[rank] : nullptr;
  }

 private:
  [[noreturn]] void bad_range(const char *api, uint32_t rank, const void *addr, size_t len);
  Runtime() = default;
  void start(const char *client_name, gex_Flags_t flags);
  // In the host area when every rank of the job shares it, else over AMs;
  // the AM engine exists already.
  std::unique_ptr<coll::SplitBarrier> job_barrier();
  bool concurrent_ = true;

  // Where the transport delivers AMs: the engine, made after the transport.
  struct AmRelay final : transport::AmSink {
    am::Engine *engine = nullptr;
    void deliver(const transport::AmHeader &h, const int32_t *args, void *payload) override {
      engine->deliver(h, args, payload);
    }
  };

  // Where the engine lands Long payloads: this runtime's segment table.
  struct SegmentRelay final : am::Segments {
    Runtime *rt = nullptr;
    char *locate(const char *api, uint32_t rank, const void *addr, size_t len) override {
      return rt->locate(api, rank, addr, len);
    }
  };

  std::unique_ptr<bootstrap::Bootstrap> boot_;
  SegmentRelay segment_relay_;
  AmRelay am_relay_;  // declared before the transport, which keeps a reference
  std::unique_ptr<transport::Transport> transport_;
  std::unique_ptr<coll::Barrier> barrier_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<am::Engine> am_;
  HandlerTable handlers_;
  uint32_t rank_ = 0, size_ = 0;
  uint64_t max_local_ = 0, max_global_ = 0;
  bool attached_ = false;
  const transport::PeerSegment *segs_ = nullptr;  // by rank, once attached
  std::vector<transport::PeerSegment> seg_table_;

  gexx_client_s client_;
  gexx_ep_s ep_;
  gexx_tm_s tm_;
  gexx_segment_s segment_;
};

}  // namespace gexx::core
