// GASNet-1 active messages, handler-safe locks, interrupts and wait mode,
// through the same entry layer as the GASNet-EX calls (capi/entry.hpp).
#include <gasnet.h>

#include <cstdarg>

#include "capi/entry.hpp"
#include "core/am.hpp"
#include "core/progress.hpp"
#include "transport/transport.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"

using gexx::capi::AmForm;

namespace {

// Handler arguments as a variadic GASNet-1 entry point receives them.
struct ArgList {
  gex_AM_Arg_t v[16];
  unsigned n = 0;
};

// Reads `numargs` arguments following the parameter `last`.
#define GEXX_G1_READ_ARGS(api, numargs, last, out)                                       \
  do {                                                                                   \
    ::gexx::capi::check_numargs(api, numargs);                                           \
    va_list ap_;                                                                         \
    va_start(ap_, last);                                                                 \
    for (unsigned i_ = 0; i_ < (numargs); ++i_) (out).v[i_] = va_arg(ap_, gex_AM_Arg_t); \
    (out).n = (numargs);                                                                 \
    va_end(ap_);                                                                         \
  } while (0)

int request(const char *api, gasnet_node_t dest, AmForm form, gasnet_handler_t handler, void *src,
            size_t nbytes, void *dest_addr, const ArgList &a) {
  gexx::capi::am_request(api, form, gexx::capi::job_tm(api), dest, handler, src, nbytes, dest_addr,
                         GEX_EVENT_NOW, 0, a.n, a.v);
  return GASNET_OK;
}

int reply(const char *api, gasnet_token_t token, AmForm form, gasnet_handler_t handler, void *src,
          size_t nbytes, void *dest_addr, const ArgList &a) {
  gexx::capi::am_reply(api, form, token, handler, src, nbytes, dest_addr, GEX_EVENT_NOW, 0, a.n,
                       a.v);
  return GASNET_OK;
}

thread_local int tl_interrupts_held = 0;
thread_local char tl_lock_owner;    // its address names this thread as a lock owner
thread_local int tl_hsls_held = 0;  // while non-zero, hold/resume_interrupts are ignored

}  // namespace

extern "C" {

size_t gasnet_AMMaxArgs(void) {
  return gex_AM_MaxArgs();
}
size_t gasnet_AMMaxMedium(void) {
  return gex_AM_LUBRequestMedium();
}
size_t gasnet_AMMaxLongRequest(void) {
  return gex_AM_LUBRequestLong();
}
size_t gasnet_AMMaxLongReply(void) {
  return gex_AM_LUBReplyLong();
}

namespace {
// gasnet_AMPoll before init (fatal) or while polls are traced.
[[gnu::noinline]] void poll_checked(const char *api) {
  gexx::capi::job_tm(api);
  if (!gexx::trace::active(gexx::trace::kPoll)) return gexx::core::poll(api);
  uint64_t start = gexx::trace::now();
  gexx::core::poll(api);
  gexx::trace::record(gexx::trace::Op::Poll, -1, 0, start, api);
}
}  // namespace

void gexx_AMPoll(void) {
  // Straight to the transport (a tail call): the hot path of every poll loop
  // (upcxx::progress, a client's wait for a flag). One word says the job is
  // up, polls are not traced and there is nothing but the transport to poll
  // (core/progress.hpp); outside a handler that is core::poll's common case.
  namespace core = gexx::core;
  if (core::detail::g_poll_extra.load(std::memory_order_acquire) == 0 &&
      !core::am::detail::tl_token) [[likely]] {
    core::detail::g_transport->poll(false);
    return;
  }
  poll_checked("gasnet_AMPoll");
}

int(gasnet_AMPoll)(void) {
  gexx_AMPoll();
  return GASNET_OK;
}

int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex) {
  gex_Rank_t src = gexx::capi::token_source(__func__, token);
  if (!srcindex) gexx::util::fatal("%s: srcindex is NULL", __func__);
  *srcindex = src;
  return GASNET_OK;
}

int gexx_AMRequestShort(gasnet_node_t dest, gasnet_handler_t handler, unsigned int numargs, ...) {
  const char *api = "gasnet_AMRequestShort";
  ArgList a;
  GEXX_G1_READ_ARGS(api, numargs, numargs, a);
  return request(api, dest, AmForm::Short, handler, nullptr, 0, nullptr, a);
}
int gexx_AMRequestMedium(gasnet_node_t dest, gasnet_handler_t handler, void *src, size_t nbytes,
                         unsigned int numargs, ...) {
  const char *api = "gasnet_AMRequestMedium";
  ArgList a;
  GEXX_G1_READ_ARGS(api, numargs, numargs, a);
  return request(api, dest, AmForm::Medium, handler, src, nbytes, nullptr, a);
}
int gexx_AMRequestLong(gasnet_node_t dest, gasnet_handler_t handler, void *src, size_t nbytes,
                       void *dest_addr, unsigned int numargs, ...) {
  const char *api = "gasnet_AMRequestLong";
  ArgList a;
  GEXX_G1_READ_ARGS(api, numargs, numargs, a);
  return request(api, dest, AmForm::Long, handler, src, nbytes, dest_addr, a);
}
// The payload is copied before the call returns, so LongAsync is Long.
int gexx_AMRequestLongAsync(gasnet_node_t dest, gasnet_handler_t handler, void *src, size_t nbytes,
                            void *dest_addr, unsigned int numargs, ...) {
  const char *api = "gasnet_AMRequestLongAsync";
  ArgList a;
  GEXX_G1_READ_ARGS(api, numargs, numargs, a);
  return request(api, dest, AmForm::Long, handler, src, nbytes, dest_addr, a);
}
int gexx_AMReplyShort(gasnet_token_t token, gasnet_handler_t handler, unsigned int numargs, ...) {
  const char *api = "gasnet_AMReplyShort";
  ArgList a;
  GEXX_G1_READ_ARGS(api, numargs, numargs, a);
  return reply(api, token, AmForm::Short, handler, nullptr, 0, nullptr, a);
}
int gexx_AMReplyMedium(gasnet_token_t token, gasnet_handler_t handler, void *src, size_t nbytes,
                       unsigned int numargs, ...) {
  const char *api = "gasnet_AMReplyMedium";
  ArgList a;
  GEXX_G1_READ_ARGS(api, numargs, numargs, a);
  return reply(api, token, AmForm::Medium, handler, src, nbytes, nullptr, a);
}
int gexx_AMReplyLong(gasnet_token_t token, gasnet_handler_t handler, void *src, size_t nbytes,
                     void *dest_addr, unsigned int numargs, ...) {
  const char *api = "gasnet_AMReplyLong";
  ArgList a;
  GEXX_G1_READ_ARGS(api, numargs, numargs, a);
  return reply(api, token, AmForm::Long, handler, src, nbytes, dest_addr, a);
}

// ---- handler-safe locks ----

void gasnet_hsl_init(gasnet_hsl_t *hsl) {
  if (!hsl) gexx::util::fatal("gasnet_hsl_init: NULL lock");
  hsl->gexx_locked = 0;
  hsl->gexx_owner = nullptr;
}

void gasnet_hsl_destroy(gasnet_hsl_t *hsl) {
  if (!hsl) gexx::util::fatal("gasnet_hsl_destroy: NULL lock");
  if (__atomic_load_n(&hsl->gexx_locked, __ATOMIC_ACQUIRE)) {
    gexx::util::fatal("gasnet_hsl_destroy: the lock is held; unlock it first");
  }
}

void gasnet_hsl_lock(gasnet_hsl_t *hsl) {
  if (!hsl) gexx::util::fatal("gasnet_hsl_lock: NULL lock");
  if (__atomic_load_n(&hsl->gexx_owner, __ATOMIC_RELAXED) == &tl_lock_owner) {
    gexx::util::fatal("gasnet_hsl_lock: this thread already holds the lock (locks do not nest)");
  }
  uint32_t spins = 0;
  for (;;) {
    int expected = 0;
    if (!__atomic_load_n(&hsl->gexx_locked, __ATOMIC_RELAXED) &&
        __atomic_compare_exchange_n(&hsl->gexx_locked, &expected, 1, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
      break;
    gexx::capi::relax(spins);
  }
  __atomic_store_n(&hsl->gexx_owner, static_cast<void *>(&tl_lock_owner), __ATOMIC_RELAXED);
  ++tl_hsls_held;
}

int gasnet_hsl_trylock(gasnet_hsl_t *hsl) {
  if (!hsl) gexx::util::fatal("gasnet_hsl_trylock: NULL lock");
  int expected = 0;
  if (__atomic_compare_exchange_n(&hsl->gexx_locked, &expected, 1, false, __ATOMIC_ACQUIRE,
                                  __ATOMIC_RELAXED)) {
    __atomic_store_n(&hsl->gexx_owner, static_cast<void *>(&tl_lock_owner), __ATOMIC_RELAXED);
    ++tl_hsls_held;
    return GASNET_OK;
  }
  return GASNET_ERR_NOT_READY;
}

void gasnet_hsl_unlock(gasnet_hsl_t *hsl) {
  if (!hsl) gexx::util::fatal("gasnet_hsl_unlock: NULL lock");
  if (!__atomic_load_n(&hsl->gexx_locked, __ATOMIC_RELAXED)) {
    gexx::util::fatal("gasnet_hsl_unlock: the lock is not held");
  }
  __atomic_store_n(&hsl->gexx_owner, static_cast<void *>(nullptr), __ATOMIC_RELAXED);
  __atomic_store_n(&hsl->gexx_locked, 0, __ATOMIC_RELEASE);
  if (tl_hsls_held > 0) --tl_hsls_held;
}

// ---- interrupts and wait mode ----

void gasnet_hold_interrupts(void) {
  if (tl_hsls_held) return;  // GASNet-1: ignored while the thread holds an HSL
  ++tl_interrupts_held;
}

void gasnet_resume_interrupts(void) {
  if (tl_hsls_held) return;  // GASNet-1: ignored while the thread holds an HSL
  if (tl_interrupts_held == 0) {
    gexx::util::fatal("gasnet_resume_interrupts called without a matching gasnet_hold_interrupts");
  }
  --tl_interrupts_held;
}

int gasnet_set_waitmode(int wait_mode) {
  if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
      wait_mode != GASNET_WAIT_SPINBLOCK) {
    gexx::util::fatal(
        "gasnet_set_waitmode: %d is not GASNET_WAIT_SPIN, GASNET_WAIT_BLOCK or "
        "GASNET_WAIT_SPINBLOCK",
        wait_mode);
  }
  gexx::capi::set_wait_mode(wait_mode);
  return GASNET_OK;
}

void gexx_wait_relax(unsigned *spins) {
  uint32_t s = *spins;
  gexx::capi::relax(s);
  *spins = s;
}

}  // extern "C"
