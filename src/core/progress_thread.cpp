#include "core/progress_thread.hpp"

#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "util/config.hpp"
#include "util/log.hpp"

namespace gexx::core {

namespace {

constexpr uint32_t kBusyPolls = 64;  // empty polls before the first sleep
constexpr uint64_t kFirstSleepNs = 1000;

std::atomic<bool> g_stop{false};
std::atomic<bool> g_running{false};
std::atomic<bool> g_started{false};
thread_local bool t_is_progress_thread = false;

void sleep_ns(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000u), static_cast<long>(ns % 1000000000u)};
  nanosleep(&ts, nullptr);
}

// Polls; after kBusyPolls empty polls, sleeps, doubling the sleep up to
// `max_sleep_ns`. Any message resets the back-off.
void serve(transport::Transport &tp, bool oversubscribed, uint64_t max_sleep_ns) {
  t_is_progress_thread = true;
  uint32_t idle = 0;
  uint64_t sleep = kFirstSleepNs;
  while (!g_stop.load(std::memory_order_acquire)) {
    if (tp.poll(false)) {
      idle = 0;
      sleep = kFirstSleepNs;
      continue;
    }
    if (++idle < kBusyPolls || max_sleep_ns == 0) {
      if (oversubscribed || idle >= kBusyPolls) sched_yield();
      continue;
    }
    sleep_ns(sleep < max_sleep_ns ? sleep : max_sleep_ns);
    if (sleep < max_sleep_ns) sleep *= 2;
  }
  g_running.store(false, std::memory_order_release);
}

}  // namespace

void start_progress_thread(Runtime &rt) {
  if (!config::get_bool("GASNET_RCV_THREAD") || g_started.exchange(true)) return;
  int64_t rate = config::get_int("GASNET_RCV_THREAD_RATE");
  uint64_t max_sleep_ns = rate > 0 ? 1000000000u / static_cast<uint64_t>(rate) : 0;
  g_running.store(true, std::memory_order_relaxed);
  transport::Transport &tp = rt.transport();
  bool oversubscribed = tp.oversubscribed();
  // Detached: the process may end (gasnet_exit, _exit) at any moment; the
  // thread only polls, so it may be cut off anywhere.
  std::thread(serve, std::ref(tp), oversubscribed, max_sleep_ns).detach();
  // exit() and a return from main run static destructors; stop it first.
  std::atexit(stop_progress_thread);
  if (rt.rank() == 0) {
    util::note("GASNET_RCV_THREAD: a progress thread serves AMs (idle: at most %lld polls/s)",
               static_cast<long long>(rate));
  }
}

void stop_progress_thread() {
  if (!g_started.load(std::memory_order_acquire)) return;
  g_stop.store(true, std::memory_order_release);
  if (t_is_progress_thread) return;  // a handler on it is ending the job
  // Bounded: a handler on the thread may wait for something this thread holds.
  uint32_t spins = 0;
  for (int i = 0; i < 100000 && g_running.load(std::memory_order_acquire); ++i) relax(spins);
}

}  // namespace gexx::core
