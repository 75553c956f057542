// The process-wide state of a gexx job and its life cycle: init, attach,
// exit. The C entry points in capi/ and legacy/ call into it.
#pragma once

#include <gasnetex.h>

#include <cstdint>
#include <memory>

#include "bootstrap/bootstrap.hpp"
#include "coll/barrier.hpp"
#include "core/handlers.hpp"
#include "core/objects.hpp"
#include "transport/transport.hpp"

namespace gexx::core {

class Runtime {
 public:
  // Collective over the job; `api` names the calling function in errors.
  static Runtime &init(const char *api, const char *client_name, gex_Flags_t flags);
  static bool initialized();
  // The runtime, or a fatal error naming `api` if init has not run.
  static Runtime &get(const char *api);

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }
  uint64_t max_local_segment() const { return max_local_; }
  uint64_t max_global_segment() const { return max_global_; }

  // Collective; one segment per process. Returns the segment handle.
  gex_Segment_t attach(const char *api, uint64_t size);
  bool attached() const { return attached_; }

  bootstrap::Bootstrap &boot() { return *boot_; }
  transport::Transport &transport() { return *transport_; }
  coll::Barrier &barrier() { return *barrier_; }
  HandlerTable &handlers() { return handlers_; }

  gex_Client_t client() { return &client_; }
  gex_EP_t ep() { return &ep_; }
  gex_TM_t tm() { return &tm_; }
  gex_Segment_t segment() { return attached_ ? &segment_ : nullptr; }

  // Address in this process of [addr, addr+len) in rank's segment; a fatal
  // error naming the rank, the range and the segment bounds if it is not
  // inside that segment.
  char *translate(const char *api, uint32_t rank, const void *addr, size_t len);

  [[noreturn]] void exit_job(int code);

 private:
  Runtime() = default;
  void start(const char *client_name, gex_Flags_t flags);

  std::unique_ptr<bootstrap::Bootstrap> boot_;
  std::unique_ptr<transport::Transport> transport_;
  std::unique_ptr<coll::Barrier> barrier_;
  HandlerTable handlers_;
  uint32_t rank_ = 0, size_ = 0;
  uint64_t max_local_ = 0, max_global_ = 0;
  bool attached_ = false;

  gexx_client_s client_;
  gexx_ep_s ep_;
  gexx_tm_s tm_;
  gexx_segment_s segment_;
};

}  // namespace gexx::core
