#include "rma/remote.hpp"

#include <memory>
#include <vector>

#include "core/objects.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"

namespace gexx::rma {

using transport::RmaCompletion;

namespace {

// The event of NB operations and access regions carried by the transport.
class RmaEvent final : public gexx_event_s {
 public:
  explicit RmaEvent(std::unique_ptr<RmaCompletion> c) : c_(std::move(c)) {}
  bool test() override {
    if (c_->done()) return true;
    core::poll();
    return c_->done();
  }
  void wait() override { rma::wait(*c_); }

 private:
  std::unique_ptr<RmaCompletion> c_;
};

gex_Event_t event_for(std::unique_ptr<RmaCompletion> c) {
  if (c->done()) return GEX_EVENT_INVALID;
  return new RmaEvent(std::move(c));
}

struct NbiState {
  std::unique_ptr<RmaCompletion> put = std::make_unique<RmaCompletion>();
  std::unique_ptr<RmaCompletion> get = std::make_unique<RmaCompletion>();
  std::unique_ptr<RmaCompletion> region;
  bool in_region = false;
  // A thread that ends with NBI operations in flight (which it should
  // not) leaves their counters to them: another thread's poll completes them.
  ~NbiState() {
    if (!put->done()) put.release();
    if (!get->done()) get.release();
  }
};
thread_local NbiState t_nbi;

RmaCompletion &nbi_put_counter() {
  return t_nbi.region ? *t_nbi.region : *t_nbi.put;
}
RmaCompletion &nbi_get_counter() {
  return t_nbi.region ? *t_nbi.region : *t_nbi.get;
}

uint64_t remote_addr(const void *p) {
  return reinterpret_cast<uint64_t>(p);
}

transport::Transport &tp() {
  return core::Runtime::get("RMA").transport();
}

bool is_event_pointer(gex_Event_t *lc) {
  return lc != GEX_EVENT_NOW && lc != GEX_EVENT_DEFER && lc != GEX_EVENT_GROUP;
}

}  // namespace

void wait(RmaCompletion &c) {
  uint32_t spins = 0;
  while (!c.done()) {
    core::poll();
    if (c.done()) break;
    core::relax(spins);
  }
}

void remote_put(uint32_t rank, void *dest, const void *src, size_t nbytes) {
  RmaCompletion c;
  tp().rma_put(rank, remote_addr(dest), src, nbytes, c);
  wait(c);
}

void remote_get(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  RmaCompletion c;
  tp().rma_get(dest, rank, remote_addr(src), nbytes, c);
  wait(c);
}

void remote_memset(uint32_t rank, void *dest, int value, size_t nbytes) {
  std::vector<char> bytes(nbytes, static_cast<char>(value));
  remote_put(rank, dest, bytes.data(), nbytes);
}

gex_Event_t remote_put_nb(uint32_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt) {
  auto c = std::make_unique<RmaCompletion>();
  bool copied = tp().rma_put(rank, remote_addr(dest), src, nbytes, *c) == transport::Result::done;
  // The source is busy until the put completes: local completion now or as
  // an event of its own comes to waiting for it here.
  if (!copied && lc_opt != GEX_EVENT_DEFER) wait(*c);
  if (is_event_pointer(lc_opt)) *lc_opt = GEX_EVENT_INVALID;
  return event_for(std::move(c));
}

gex_Event_t remote_get_nb(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  auto c = std::make_unique<RmaCompletion>();
  tp().rma_get(dest, rank, remote_addr(src), nbytes, *c);
  return event_for(std::move(c));
}

void remote_put_nbi(uint32_t rank, void *dest, const void *src, size_t nbytes,
                    gex_Event_t *lc_opt) {
  RmaCompletion &c = nbi_put_counter();
  bool copied = tp().rma_put(rank, remote_addr(dest), src, nbytes, c) == transport::Result::done;
  if (!copied && lc_opt == GEX_EVENT_NOW) wait(c);
}

void remote_get_nbi(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  tp().rma_get(dest, rank, remote_addr(src), nbytes, nbi_get_counter());
}

bool nbi_done(gex_EC_t ec) {
  bool puts = (ec & (GEX_EC_PUT | GEX_EC_LC)) != 0 || ec == GEX_EC_ALL;
  bool gets = (ec & GEX_EC_GET) != 0 || ec == GEX_EC_ALL;
  return (!puts || t_nbi.put->done()) && (!gets || t_nbi.get->done());
}

void begin_region(const char *api) {
  if (t_nbi.in_region) {
    util::fatal(
        "%s: this thread is already in an NBI access region (regions do not nest; end "
        "it first)",
        api);
  }
  t_nbi.in_region = true;
  t_nbi.region = std::make_unique<RmaCompletion>();
}

gex_Event_t end_region(const char *api) {
  if (!t_nbi.in_region) util::fatal("%s: this thread has no NBI access region to end", api);
  t_nbi.in_region = false;
  return event_for(std::move(t_nbi.region));
}

}  // namespace gexx::rma
