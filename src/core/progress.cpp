// The progress engine: one poll of the whole transport (AM delivery and
// RMA completion alike), and how a waiting thread spends its time.
#include "core/progress.hpp"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "core/am.hpp"
#include "transport/transport.hpp"
#include "util/config.hpp"
#include "util/trace.hpp"

namespace gexx::core {

namespace detail {
transport::Transport *g_transport = nullptr;
std::atomic<unsigned> g_poll_extra{kPollNotStarted};
}  // namespace detail

namespace {
// More ranks on this host than CPUs this process may run on: waits yield at
// once, and a client's own poll loop yields after a short spin.
bool g_oversubscribed = false;
std::atomic<int> g_wait_mode{static_cast<int>(WaitMode::SpinBlock)};
// Poll hooks, one slot per owner.
std::atomic<void (*)()> g_poll_hooks[static_cast<unsigned>(PollHook::kCount)];
constexpr unsigned kOversubscribedBit = detail::kPollOversubscribed;
constexpr unsigned kNotHooks =
    detail::kPollOversubscribed | detail::kPollNotStarted | detail::kPollTraced;
using detail::g_poll_extra;
using detail::g_transport;

void run_poll_hooks(unsigned set) {
  for (unsigned i = 0; set; ++i, set >>= 1)
    if (set & 1u)
      if (void (*hook)() = g_poll_hooks[i].load(std::memory_order_acquire)) hook();
}

// How long a waiting thread spins before it yields its core. A time, not a
// count of polls: a poll costs tens of ns on the smp transport but about a
// microsecond through libfabric, and a waiter that shares a core with the
// rank it waits for (a busy or shared host) must yield well inside the
// scheduler's time slice, or every message of a ping-pong waits out a slice
// (milliseconds).
constexpr uint64_t kSpinNs = 20000;
// This thread's current spin: when it began and when it last polled in vain
// (0: not spinning). Initial-exec: this code lives in a shared library.
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_spin_since = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_spin_last = 0;
// Idle polls since the clock was last read (oversubscribed hosts only): it
// is read every kClockEvery, so an idle poll does not pay for a clock read
// each time.
__attribute__((tls_model("initial-exec"))) thread_local uint32_t t_idle_polls = 0;
constexpr uint32_t kClockEvery = 32;
// Longer than this between two clock reads of a spin (kClockEvery polls):
// the thread was computing, not spinning, and its spin starts anew.
constexpr uint64_t kComputeGapNs = 1000000;

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// One idle step of a spin; true when the spin has lasted kSpinNs, which
// starts the next one. A gap of kComputeGapNs between idle steps (the
// thread was computing) starts a new spin rather than yielding at once.
bool spun_long_enough(bool restart) {
  uint64_t now = monotonic_ns();
  if (restart || now - t_spin_last > kComputeGapNs) t_spin_since = now;
  t_spin_last = now;
  if (now - t_spin_since < kSpinNs) return false;
  t_spin_since = now;
  return true;
}

// The CPUs this process may run on (its affinity mask), else the online ones.
long usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return sysconf(_SC_NPROCESSORS_ONLN);
}

// An explicit poll on an oversubscribed host: one that found nothing for
// kSpinNs yields, or a rank polling in its own loop (gasnet_AMPoll until a
// flag is set) would hold its core from the rank it waits for until the
// scheduler preempts it.
[[gnu::noinline]] void idle_poll_oversubscribed(bool any) {
  if (any) {
    t_spin_last = 0;
    t_idle_polls = 0;
    return;
  }
  if (++t_idle_polls % kClockEvery == 0 &&
      g_wait_mode.load(std::memory_order_relaxed) != static_cast<int>(WaitMode::Spin) &&
      spun_long_enough(false))
    sched_yield();
}

// gasnet_AMPoll's trace (category X) is the explicit poll's to record: it
// takes its slow path while X is traced (a trace listener keeps the bit).
void follow_poll_trace() {
  if (trace::active(trace::kPoll))
    g_poll_extra.fetch_or(detail::kPollTraced, std::memory_order_acq_rel);
  else
    g_poll_extra.fetch_and(~detail::kPollTraced, std::memory_order_acq_rel);
}

}  // namespace

void mark_oversubscribed() {
  g_oversubscribed = true;
  g_poll_extra.fetch_or(kOversubscribedBit, std::memory_order_acq_rel);
}

void progress_open(bool oversubscribed) {
  if (oversubscribed) mark_oversubscribed();
}

void progress_start(transport::Transport &tp) {
  // The transport counts the host's cores; a job pinned to fewer (taskset,
  // a batch system's cgroup) is oversubscribed when its ranks outnumber them.
  long cpus = usable_cpus();
  if (cpus > 0 && tp.ranks_on_host() > static_cast<uint64_t>(cpus)) mark_oversubscribed();
  g_transport = &tp;
  trace::add_active_listener(&follow_poll_trace);
  follow_poll_trace();
  g_poll_extra.fetch_and(~detail::kPollNotStarted, std::memory_order_acq_rel);
}

// Ranks that slept in the bootstrap (its socket reads, the launcher's
// answers) are woken on their waker's CPU more often than not: two of a host
// then share a CPU while another idles, until the kernel's load balancing
// moves one, which it puts off while both run often (tens of ms here: every
// 2-rank barrier of that time took a polite spin and a time slice, 22 us,
// against 0.08 us apart). Binding the rank to its CPU for a moment moves it
// there at once; the whole set is given back at once, so nothing stays bound.
void spread_over_cpus(uint32_t local, uint32_t ranks) {
  static const bool enabled = config::get_bool("GASNET_SPREAD_RANKS");
  if (ranks < 2 || !enabled) return;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  if (CPU_COUNT(&allowed) < static_cast<int>(ranks)) return;
  int cpu = -1;
  for (int c = 0, seen = 0; c < CPU_SETSIZE && cpu < 0; ++c)
    if (CPU_ISSET(c, &allowed) && seen++ == static_cast<int>(local)) cpu = c;
  if (cpu < 0 || sched_getcpu() == cpu) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) == 0) sched_setaffinity(0, sizeof allowed, &allowed);
}

void set_poll_hook(PollHook slot, void (*hook)()) {
  unsigned i = static_cast<unsigned>(slot);
  g_poll_hooks[i].store(hook, std::memory_order_release);
  if (hook)
    g_poll_extra.fetch_or(1u << i, std::memory_order_acq_rel);
  else
    g_poll_extra.fetch_and(~(1u << i), std::memory_order_acq_rel);
}

namespace {
// A poll that is not the transport's alone: before start-up (nothing to
// poll), inside a handler (fatal), with hooks set or on an oversubscribed host.
[[gnu::noinline]] void poll_with_extras(transport::Transport *tp, const char *api) {
  if (!tp) return;
  am::check_may_poll(api);
  bool any = tp->poll(false);
  if (unsigned hooks = g_poll_extra.load(std::memory_order_acquire) & ~kNotHooks)
    run_poll_hooks(hooks);
  // A poll never yields (GASNet's does not either: a client's poll loop is
  // its own to pace); blocking waits yield in relax. Only an oversubscribed
  // host, where the rank polled for may have no core, yields here too.
  if (g_oversubscribed) idle_poll_oversubscribed(any);
}

// Whether a poll is the transport's alone: the common case, after which a
// poll is a tail call into the transport (gasnet_AMPoll makes the same test
// itself, legacy/gasnet1_am.cpp). A traced explicit poll counts as plain here.
inline bool plain_poll() {
  return (g_poll_extra.load(std::memory_order_acquire) & ~detail::kPollTraced) == 0 &&
         !am::detail::tl_token;
}
}  // namespace

void poll(const char *api) {
  // Every wait's poll is this and the transport's look at its queues.
  if (plain_poll()) [[likely]] {
    g_transport->poll(false);
    return;
  }
  poll_with_extras(g_transport, api);
}

void poll_in_test(const char *api) {
  if (plain_poll()) [[likely]] {
    g_transport->poll_in_test();
    return;
  }
  poll_with_extras(g_transport, api);
}

void set_wait_mode(WaitMode mode) {
  g_wait_mode.store(static_cast<int>(mode), std::memory_order_relaxed);
}

// The first polls of a wait spin bare: an answer a round trip away comes
// sooner than a pause (up to 140 cycles on recent x86) would let us see it.
constexpr uint32_t kBareSpins = 64;

void relax(uint32_t &spins) {
  int mode = g_wait_mode.load(std::memory_order_relaxed);
  // More ranks than cores: yield whatever the mode, or the rank we wait for
  // may not get a core at all.
  bool yield_now = mode == static_cast<int>(WaitMode::Block) || g_oversubscribed;
  // The clock is first read kClockEvery steps into a wait (which starts its
  // spin), so a wait that ends sooner, as most do, reads no clock at all.
  uint32_t step = spins++;
  if (yield_now || (mode != static_cast<int>(WaitMode::Spin) && step != 0 &&
                    step % kClockEvery == 0 && spun_long_enough(step == kClockEvery))) {
    sched_yield();
    spins = 0;
  } else if (spins > kBareSpins) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
  }
}

}  // namespace gexx::core
