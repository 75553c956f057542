// A cheap clock for telling apart what follows closely from what follows a
// pause: a loop issuing operations from a lone one (a burst), a spinning
// wait's polls from a poll after computing. The time-stamp counter where
// there is one (no system call, a few ns), else the monotonic clock in ns;
// the constants below are in its units, tuned on the 2.6 GHz VM of
// docs/performance.md (the TSC's rate elsewhere moves them a little, which
// only moves where a burst starts).
#pragma once

#include <cstdint>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <time.h>
#endif

namespace gexx::util {

#if defined(__x86_64__) || defined(__i386__)
inline uint64_t cycle_clock() {
  return __rdtsc();
}
constexpr uint64_t kClock50us = uint64_t{1} << 17;
constexpr uint64_t kClock6us = uint64_t{1} << 14;
constexpr uint64_t kClock800ns = uint64_t{1} << 11;
#else
inline uint64_t cycle_clock() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}
constexpr uint64_t kClock50us = 50000;
constexpr uint64_t kClock6us = 6300;
constexpr uint64_t kClock800ns = 800;
#endif

// An operation that follows the previous one toward the same peer within
// this much is part of a burst: about one network send's system call there
// (5-10 us), so holding it for the next costs it no more than sending it
// alone costs the caller, and a loop's operations, small or large (a VIS
// call packing 256 pieces takes a few us), leave together. A burst held for
// sending together leaves by kBurstHold (about 50 us) while it lasts.
constexpr uint64_t kBurstGap = kClock6us;
constexpr uint64_t kBurstHold = kClock50us;
// A test's poll (Transport::poll_in_test) within kTestPollGap of the
// previous poll leaves the network alone: one read of a socket costs a
// system call, and a client that tests many operations in a row (UPC++
// after every rput: the oldest ones it waits for) or right after a poll
// (UPC++'s progress: a poll, then its tests) would pay one per test.
constexpr uint64_t kTestPollGap = kClock800ns;

}  // namespace gexx::util
