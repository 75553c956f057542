#include "rma/remote.hpp"

#include <memory>
#include <vector>

#include "core/events.hpp"
#include "core/objects.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"

namespace gexx::rma {

using transport::RmaCompletion;

namespace {

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

using core::events::wait;

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
  return core::events::for_rma(std::move(c));
}

gex_Event_t remote_get_nb(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  auto c = std::make_unique<RmaCompletion>();
  tp().rma_get(dest, rank, remote_addr(src), nbytes, *c);
  return core::events::for_rma(std::move(c));
}

void remote_put_nbi(uint32_t rank, void *dest, const void *src, size_t nbytes,
                    gex_Event_t *lc_opt) {
  RmaCompletion &c = core::events::nbi_put_counter();
  bool copied = tp().rma_put(rank, remote_addr(dest), src, nbytes, c) == transport::Result::done;
  if (!copied && lc_opt == GEX_EVENT_NOW) wait(c);
}

void remote_get_nbi(void *dest, uint32_t rank, const void *src, size_t nbytes) {
  tp().rma_get(dest, rank, remote_addr(src), nbytes, core::events::nbi_get_counter());
}

}  // namespace gexx::rma
