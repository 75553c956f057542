// Waiting: every blocking call polls, and yields the CPU when the host has
// more ranks than usable cores (or after a short spin otherwise). A poll
// alone (gasnet_AMPoll, gex_Event_Test, gasnet_try_syncnb) never yields,
// as in GASNet, except on an oversubscribed host, after the same spin.
#pragma once

#include <atomic>
#include <cstdint>

namespace gexx::transport {
class Transport;
}

namespace gexx::core {

namespace detail {
// The transport every poll drives; set once the runtime is up (before
// that, polls do nothing: no AM engine exists to take deliveries).
extern transport::Transport *g_transport;
// What a poll does besides the transport's poll: bit i while hook slot i is
// set, kPollOversubscribed on an oversubscribed host, kPollNotStarted until
// g_transport is set, kPollTraced while explicit polls are traced. One load
// tells a poll that is the transport's alone (the common case, 0) from the
// others; gasnet_AMPoll makes that test itself.
constexpr unsigned kPollOversubscribed = 1u << 31;
constexpr unsigned kPollNotStarted = 1u << 30;
constexpr unsigned kPollTraced = 1u << 29;
extern std::atomic<unsigned> g_poll_extra;
}  // namespace detail

// Start-up (core/runtime.cpp): whether waiting ranks must yield at once
// (more ranks than cores), then the transport polls drive, once the AM
// engine that takes its deliveries exists.
void progress_open(bool oversubscribed);
void progress_start(transport::Transport &tp);
// GASNET_SPREAD_RANKS: moves this rank, the `local`-th of its host's
// `ranks`, onto the local-th CPU it may run on (when it may run on at least
// `ranks`), leaving it free to move. Called after the start-up steps that
// sleep in the bootstrap: a rank woken there is often put on its waker's CPU.
void spread_over_cpus(uint32_t local, uint32_t ranks);

// Polls the whole transport: runs incoming AMs and completes RMA. `api` names the caller in the
// error raised when it is called inside an AM handler (handlers may not poll or wait). It yields
// the CPU only on an oversubscribed host, after its polls have found nothing for a while
// (and the wait mode is not GASNET_WAIT_SPIN); waits yield in relax().
void poll(const char *api = "a blocking gexx call (wait, barrier or poll)");
// The poll of a test that found its operation in flight: as poll, but a
// young burst the transport holds stays held (Transport::poll_in_test).
void poll_in_test(const char *api);
void relax(uint32_t &spins);  // one step of a polite spin

// Functions every poll calls after the transport's, one slot per owner, while
// set: the team collectives (coll/engine) and the GASNet-1 collectives set
// theirs while operations are in flight, so those progress from any poll.
// null clears a slot. A hook must not block.
enum class PollHook : unsigned { kColl, kG1Coll, kCount };
void set_poll_hook(PollHook slot, void (*hook)());

// gasnet_set_waitmode: how a waiting rank spends its time.
enum class WaitMode { Spin = 0, Block = 1, SpinBlock = 2 };
void set_wait_mode(WaitMode mode);

template <typename Pred>
void wait_until(Pred &&done) {
  uint32_t spins = 0;
  while (!done()) {
    poll();
    relax(spins);
  }
}

}  // namespace gexx::core
