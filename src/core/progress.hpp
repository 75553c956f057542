// Waiting: every blocking call polls, and yields the CPU when the host has
// more ranks than cores (or after a short spin otherwise). A client's own
// poll loop (gasnet_AMPoll, gasnet_try_syncnb) yields after the same spin.
#pragma once

#include <cstdint>

namespace gexx::transport {
class Transport;
}

namespace gexx::core {

// Start-up (core/runtime.cpp): whether waiting ranks must yield at once
// (more ranks than cores), then the transport polls drive, once the AM
// engine that takes its deliveries exists.
void progress_open(bool oversubscribed);
void progress_start(transport::Transport &tp);

// Polls the whole transport: runs incoming AMs and completes RMA. `api` names the caller in the
// error raised when it is called inside an AM handler (handlers may not poll or wait). A thread
// whose polls have found nothing for a while yields the CPU here, unless
// the wait mode is GASNET_WAIT_SPIN.
void poll(const char *api = "a blocking gexx call (wait, barrier or poll)");
void relax(uint32_t &spins);  // one step of a polite spin

// A function every poll calls while it is set (the collective engine sets
// it while collectives are in flight, so they progress from any poll).
void set_poll_hook(void (*hook)());

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
