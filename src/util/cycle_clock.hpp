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
constexpr uint64_t kClock12us = uint64_t{1} << 15;
constexpr uint64_t kClock1600ns = uint64_t{1} << 12;
constexpr uint64_t kClock800ns = uint64_t{1} << 11;
#else
inline uint64_t cycle_clock() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}
constexpr uint64_t kClock50us = 50000;
constexpr uint64_t kClock12us = 12500;
constexpr uint64_t kClock1600ns = 1600;
constexpr uint64_t kClock800ns = 800;
#endif

// An operation that follows the previous one toward the same peer within
// this much is part of a burst (a network send's system call costs 5-10 us
// there, so a loop's operations come faster than they could leave one by
// one); a burst held for sending together leaves by kBurstHold.
constexpr uint64_t kBurstGap = kClock1600ns;
constexpr uint64_t kBurstHold = kClock12us;

}  // namespace gexx::util
