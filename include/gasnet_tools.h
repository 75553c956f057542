/* gasnet_tools.h: portable helpers GASNet clients use beside the
 * communication API. This release provides timers, memory fences and
 * scheduling helpers; the rest of the tools family arrives with the tools
 * layer. Usable with or without gasnet.h (include gasnet.h first). */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H
#define _INCLUDED_GASNET_TOOLS_H

#include <stdint.h>
#include <sched.h>
#include <time.h>
#include <sys/time.h>
#include <gasnet_config.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)

/* Ticks are nanoseconds of CLOCK_MONOTONIC: monotone across threads. */
static inline gasnett_tick_t gasnett_ticks_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gasnett_tick_t)ts.tv_sec * 1000000000u + (gasnett_tick_t)ts.tv_nsec;
}
static inline uint64_t gasnett_ticks_to_ns(gasnett_tick_t t) {
  return t;
}
static inline uint64_t gasnett_ticks_to_us(gasnett_tick_t t) {
  return t / 1000u;
}
static inline double gasnett_ticks_to_dbl_ns(gasnett_tick_t t) {
  return (double)t;
}
static inline double gasnett_ticks_to_dbl_us(gasnett_tick_t t) {
  return (double)t / 1000.0;
}

static inline uint64_t gasnett_gettimeofday_us(void) {
  struct timeval tv;
  gettimeofday(&tv, 0);
  return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

#define gasnett_compiler_fence() __asm__ __volatile__("" ::: "memory")
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)

static inline int gasnett_sched_yield(void) {
  return sched_yield();
}

#ifdef __cplusplus
}
#endif

#endif /* GASNET_TOOLS_H */
