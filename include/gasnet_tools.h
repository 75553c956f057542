/* gasnet_tools.h: the GASNet tools API (gasnett_*, GASNETT_*), version 1 of
 * the GASNet tools specification as README-tools describes it.
 *
 * Usable with the communication API or without it (gasnetex.h and gasnet.h
 * include it, and it may come before or after them). A tools-only client links
 * libgasnet_tools-seq or, defining GASNETT_THREAD_SAFE, libgasnet_tools-par
 * (the installed gasnet_tools-{seq,par}.mak and .pc files do both); a
 * client of libgasnet-<conduit>-<mode> needs no extra library. See
 * docs/tools.md. */

/* A GASNet client (one of GASNET_SEQ, GASNET_PARSYNC, GASNET_PAR defined)
 * gets the tools through gasnetex.h, which includes this file after it has
 * settled the thread mode: included first, this file brings in gasnetex.h,
 * so gasnet.h / gasnetex.h and gasnet_tools.h may come in either order. */
#if !defined(GASNETEX_H) && !defined(GEXX_BUILDING_TOOLS) && \
    (defined(GASNET_SEQ) || defined(GASNET_PARSYNC) || defined(GASNET_PAR))
#include <gasnetex.h>
#endif

#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H
#define _INCLUDED_GASNET_TOOLS_H

/* ---- thread model: exactly one of THREAD_SAFE, THREAD_SINGLE, LITE ---- */
#if defined(GASNETT_LITE_MODE) + defined(GASNETT_THREAD_SAFE) + defined(GASNETT_THREAD_SINGLE) > 1
#error "gexx: define at most one of GASNETT_THREAD_SAFE, GASNETT_THREAD_SINGLE, GASNETT_LITE_MODE"
#endif
#if defined(GASNETT_THREAD_SAFE) && defined(GASNET_SEQ)
#error \
    "gexx: GASNETT_THREAD_SAFE (thread-safe tools) conflicts with GASNET_SEQ: compile a GASNet client in GASNET_PAR or GASNET_PARSYNC mode to use the thread-safe tools, or drop GASNETT_THREAD_SAFE"
#endif
#if defined(GASNETT_THREAD_SINGLE) && (defined(GASNET_PAR) || defined(GASNET_PARSYNC))
#error \
    "gexx: GASNETT_THREAD_SINGLE (single-threaded tools) conflicts with GASNET_PAR and GASNET_PARSYNC: drop GASNETT_THREAD_SINGLE or compile the client in GASNET_SEQ mode"
#endif
#if defined(GASNETT_LITE_MODE)
#if defined(GASNETEX_H)
#error "gexx: GASNETT_LITE_MODE is for tools-only clients"
#endif
#undef GASNETT_LITE_MODE
#define GASNETT_LITE_MODE 1
#define GASNETT_THREAD_MODEL LITE
#elif defined(GASNETT_THREAD_SAFE) || defined(GASNET_PAR) || defined(GASNET_PARSYNC) || \
    (!defined(GASNET_SEQ) && !defined(GASNETT_THREAD_SINGLE) &&                         \
     (defined(_REENTRANT) || defined(_THREAD_SAFE) || defined(PTHREAD_MUTEX_INITIALIZER)))
#undef GASNETT_THREAD_SAFE
#define GASNETT_THREAD_SAFE 1
#define GASNETT_THREAD_MODEL PAR
#else
#undef GASNETT_THREAD_SINGLE
#define GASNETT_THREAD_SINGLE 1
#define GASNETT_THREAD_MODEL SEQ
#endif

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <gasnet_config.h>
#include <gasnet_portable_platform.h>
#include <gexx_basic.h>

/* ---- versions and configuration ---- */
#define GASNETT_RELEASE_VERSION_MAJOR GASNET_RELEASE_VERSION_MAJOR
#define GASNETT_RELEASE_VERSION_MINOR GASNET_RELEASE_VERSION_MINOR
#define GASNETT_RELEASE_VERSION_PATCH GASNET_RELEASE_VERSION_PATCH

#define GEXXT_STRINGIFY_(x) #x
#define GEXXT_STRINGIFY(x) GEXXT_STRINGIFY_(x)
#define GEXXT_CONCAT_(a, b) a##b
#define GEXXT_CONCAT(a, b) GEXXT_CONCAT_(a, b)

#define GASNETT_SYSTEM_TUPLE GEXXP_ARCH_TUPLE "-unknown-linux-gnu"
#define GASNETT_CONFIGURE_ARGS ""

#define GASNETT_PAGESIZE GASNET_PAGESIZE
#define GASNETT_PAGESHIFT 12
#if defined(__powerpc64__)
#define GASNETT_CACHE_LINE_BYTES 128
#else
#define GASNETT_CACHE_LINE_BYTES 64
#endif

#if UINTPTR_MAX == UINT64_MAX
#define GASNETT_PTR_CONFIG 64bit
#else
#define GASNETT_PTR_CONFIG 32bit
#endif
#if defined(GASNET_NDEBUG) || defined(NDEBUG)
#define GASNETT_DEBUG_CONFIG nodebug
#else
#define GASNETT_DEBUG_CONFIG debug
#endif
#define GASNETT_TIMER_CONFIG timers_clock_monotonic
/* GASNet's internal assertion, which its public headers expose and some of
 * its tests call: gexx's libraries are release builds, where it checks
 * nothing (as in a GASNet build without debugging). */
#ifndef gasneti_assert
#define gasneti_assert(expr) ((void)0)
#endif

/* The most threads one process may have in the GASNet library at once (a
 * compile-time bound clients size their tables by). */
#ifndef GASNETT_MAX_THREADS
#define GASNETT_MAX_THREADS 256
#endif
#define GASNETT_MAX_THREADS_REASON "the bound gexx advertises; it keeps no fixed per-thread table"
#define GASNETT_MEMBAR_CONFIG membars_gcc_builtin

/* ---- compiler annotations (GCC and Clang forms) ---- */
#ifdef __cplusplus
#define GASNETT_BEGIN_EXTERNC extern "C" {
#define GASNETT_END_EXTERNC }
#define GASNETT_EXTERNC extern "C"
#define GASNETT_RESTRICT __restrict__
#else
#define GASNETT_BEGIN_EXTERNC
#define GASNETT_END_EXTERNC
#define GASNETT_EXTERNC extern
#define GASNETT_RESTRICT restrict
#endif
#define GASNETT_INLINE(fnname) static inline __attribute__((__always_inline__))
#define GASNETT_PLEASE_INLINE(fnname) static inline
#define GASNETT_NEVER_INLINE(fnname, declarator) __attribute__((__noinline__)) declarator
#define GASNETT_NORETURN __attribute__((__noreturn__))
#define GASNETT_NORETURNP(fnname)
#define GASNETT_MALLOC __attribute__((__malloc__))
#define GASNETT_MALLOCP(fnname)
#define GASNETT_PURE __attribute__((__pure__))
#define GASNETT_PUREP(fnname)
#define GASNETT_CONST __attribute__((__const__))
#define GASNETT_CONSTP(fnname)
#define GASNETT_HOT __attribute__((__hot__))
#define GASNETT_COLD __attribute__((__cold__))
#define GASNETT_DEPRECATED __attribute__((__deprecated__))
#define GASNETT_USED __attribute__((__used__))
#define GASNETT_UNUSED __attribute__((__unused__))
#define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
  __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#define GASNETT_FORMAT_PRINTF_FUNCPTR GASNETT_FORMAT_PRINTF
#define GASNETT_FALLTHROUGH __attribute__((__fallthrough__));
#define GASNETT_CURRENT_FUNCTION __func__
#define GASNETT_PREDICT_TRUE(expr) __builtin_expect(!!(expr), 1)
#define GASNETT_PREDICT_FALSE(expr) __builtin_expect(!!(expr), 0)
#define GASNETT_LIKELY GASNETT_PREDICT_TRUE
#define GASNETT_UNLIKELY GASNETT_PREDICT_FALSE
#ifndef if_pf
#define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif
#ifndef if_pt
#define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif
#define gasnett_constant_p(expr) __builtin_constant_p(expr)
#define gasnett_unreachable() __builtin_unreachable()
/* Embeds identText in the executable, where `ident` or `strings` find it. */
#define GASNETT_IDENT(identName, identText) \
  GASNETT_EXTERNC const char identName[];   \
  GASNETT_USED const char identName[] = identText

GASNETT_BEGIN_EXTERNC

/* ---- memory fences ---- */
#define gasnett_compiler_fence() __asm__ __volatile__("" ::: "memory")
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#if GASNETT_THREAD_SINGLE
#define gasnett_weak_mb() gasnett_compiler_fence()
#define gasnett_weak_wmb() gasnett_compiler_fence()
#define gasnett_weak_rmb() gasnett_compiler_fence()
#else
#define gasnett_weak_mb() gasnett_local_mb()
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()
#endif

#if defined(__x86_64__)
#define gasnett_spinloop_hint() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#define gasnett_spinloop_hint() gasnett_compiler_fence()
#endif

/* ---- timers ---- */
/* A tick is one nanosecond of CLOCK_MONOTONIC: monotone across threads. */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)

/* The POSIX clock and sleep are declared by <time.h> only when the client
 * asks for POSIX (a GNU mode, or _POSIX_C_SOURCE): in strict ISO C (gcc
 * -std=c99 or -std=c11) the timer and gasnett_nsleep are the library's
 * calls, the same clock and sleep. */
#if defined(CLOCK_MONOTONIC)
static inline gasnett_tick_t gasnett_ticks_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gasnett_tick_t)ts.tv_sec * 1000000000u + (gasnett_tick_t)ts.tv_nsec;
}
/* Sleeps at least ns_delay nanoseconds; returns 0, or -1 if interrupted. */
static inline int gasnett_nsleep(uint64_t ns_delay) {
  struct timespec ts;
  ts.tv_sec = (time_t)(ns_delay / 1000000000u);
  ts.tv_nsec = (long)(ns_delay % 1000000000u);
  return nanosleep(&ts, NULL) ? -1 : 0;
}
#else
extern gasnett_tick_t gexx_tools_ticks_now(void);
extern int gexx_tools_nsleep(uint64_t ns_delay);
static inline gasnett_tick_t gasnett_ticks_now(void) {
  return gexx_tools_ticks_now();
}
static inline int gasnett_nsleep(uint64_t ns_delay) {
  return gexx_tools_nsleep(ns_delay);
}
#endif
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
/* Smallest observable tick step and cost of one gasnett_ticks_now(), in
 * microseconds; measured once per process. */
extern double gasnett_tick_granularityus(void);
extern double gasnett_tick_overheadus(void);

static inline uint64_t gasnett_gettimeofday_us(void) {
  struct timeval tv;
  gettimeofday(&tv, 0);
  return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}
static inline int gasnett_sched_yield(void) {
  return sched_yield();
}

#define GEXXT_LITE_CONFIG_STRING \
  "RELEASE=" GEXXT_STRINGIFY(GASNETI_RELEASE_VERSION) ",SPEC=" GEXXT_STRINGIFY(         \
      GASNETT_SPEC_VERSION_MAJOR) "." GEXXT_STRINGIFY(GASNETT_SPEC_VERSION_MINOR) ",PTR=" \
      GEXXT_STRINGIFY(GASNETT_PTR_CONFIG) "," GEXXT_STRINGIFY(                            \
          GASNETT_DEBUG_CONFIG) "," GEXXT_STRINGIFY(GASNETT_THREAD_MODEL) "," GEXXT_STRINGIFY( \
          GASNETT_TIMER_CONFIG) "," GEXXT_STRINGIFY(GASNETT_MEMBAR_CONFIG)

#if GASNETT_LITE_MODE
#define GASNETT_CONFIG_STRING GEXXT_LITE_CONFIG_STRING
#else

#include <gexx_tools_atomic.h>
#define GASNETT_CONFIG_STRING                                                              \
  GEXXT_LITE_CONFIG_STRING "," GEXXT_STRINGIFY(GASNETT_ATOMIC_CONFIG) "," GEXXT_STRINGIFY( \
      GASNETT_ATOMIC32_CONFIG) "," GEXXT_STRINGIFY(GASNETT_ATOMIC64_CONFIG)

/* ---- errors, signals and process control ---- */
/* Prints the message with its origin, then (by GASNET_BACKTRACE and
 * GASNET_FREEZE_ON_ERROR) a backtrace or a freeze, and aborts. */
GASNETT_FORMAT_PRINTF(gasnett_fatalerror, 1, 2,
                      extern void gasnett_fatalerror(const char *msg, ...))
GASNETT_NORETURN;
/* Ends the process now with exitcode: no atexit handlers, no other threads. */
extern void gasnett_killmyprocess(int exitcode) GASNETT_NORETURN;
typedef void (*gasnett_sighandlerfn_t)(int);
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);
extern void gasnett_flush_streams(void);
extern void gasnett_close_streams(void);
/* "function at file:line", malloc'd (the caller frees it). */
extern char *gexx_tools_current_loc(const char *file, int line, const char *function);
#define gasnett_current_loc gexx_tools_current_loc(__FILE__, __LINE__, GASNETT_CURRENT_FUNCTION)

/* ---- backtraces and debugger attach ---- */
typedef struct {
  const char *name;  /* upper-case name of the mechanism */
  int (*fnp)(int);   /* writes the calling thread's backtrace to fd; 0 on success */
  int threadsupport; /* non-zero: works in multi-threaded programs */
} gasnett_backtrace_type_t;
/* A client may define this variable to supply its own backtrace mechanism. */
extern gasnett_backtrace_type_t gasnett_backtrace_user;
extern void gasnett_backtrace_init(const char *exename);
extern int gasnett_print_backtrace(int fd);
/* Called on every fatal error; prints a backtrace iff GASNET_BACKTRACE is
 * set. A client may point it elsewhere. */
extern int (*gasnett_print_backtrace_ifenabled)(int fd);
extern void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
extern void gasnett_freezeForDebuggerErr(void);

/* ---- system properties ---- */
extern const char *gasnett_gethostname(void);
extern int gasnett_cpu_count(void);
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
/* Pins the calling thread to processor rank mod gasnett_cpu_count();
 * 0 on success. */
extern int gasnett_set_affinity(int rank);
extern int gasnett_maximize_rlimits(void);
extern int gasnett_maximize_rlimit(int res, const char *lim_desc);
/* Page-aligned zeroed anonymous memory; a fatal error when none is left. */
extern void *gasnett_mmap(uintptr_t size);
static inline int gasnett_isLittleEndian(void) {
  const union {
    uint32_t word;
    unsigned char byte;
  } probe = {1};
  return probe.byte == 1;
}

/* ---- miscellaneous ---- */
extern const char *gasnett_performance_warning_str(void);
extern const char *gasnett_release_version_str(void);
extern uint64_t gasnett_release_version(void);
extern uint64_t gasnett_checksum(const void *p, int numbytes);
extern size_t gasnett_count0s(const void *p, size_t numbytes);
extern size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                                   size_t numbytes);
static inline int gasnett_count0s_uint64_t(uint64_t x) {
  int n = 0;
  for (int i = 0; i < 8; ++i) n += ((x >> (8 * i)) & 0xFF) == 0;
  return n;
}
static inline int gasnett_count0s_uint32_t(uint32_t x) {
  return gasnett_count0s_uint64_t((uint64_t)x | 0xFFFFFFFF00000000ull);
}
static inline int gasnett_count0s_uintptr_t(uintptr_t x) {
  return sizeof(uintptr_t) == 8 ? gasnett_count0s_uint64_t((uint64_t)x)
                                : gasnett_count0s_uint32_t((uint32_t)x);
}

/* ---- environment ---- */
/* Formats val ("1.5 GB" when is_mem_size, else "1500000") into buf. */
extern char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);
/* Parses an integer; a memory size when mem_size_multiplier is non-zero
 * (B, K[B], M[B], G[B], T[B], P[B], E[B] suffixes, fractions allowed; the multiplier is the
 * unit of a bare number). A malformed string is a fatal error. */
extern int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);
extern void gasnett_setenv(const char *key, const char *value);
extern void gasnett_unsetenv(const char *key);
extern char *gasnett_getenv(const char *keyname);
/* The typed getters treat an empty value as unset and stop the process,
 * naming the variable, the value and the forms accepted, on a bad one. */
extern char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval);
extern int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval);
extern int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                              uint64_t mem_size_multiplier);
extern double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval);
extern int gasnett_verboseenv(void);
extern void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
extern void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
extern void gasnett_envdbl_display(const char *key, double val, int is_dflt);

#include <gexx_tools_sync.h>

/* ---- debug allocator: guarded blocks and heap statistics ---- */
typedef struct {
  uint64_t allocated_bytes; /* totals since start */
  uint64_t freed_bytes;
  uint64_t live_bytes;
  uint64_t live_bytes_max;
  uint64_t allocated_objects;
  uint64_t freed_objects;
  uint64_t live_objects;
  uint64_t live_objects_max;
  uint64_t overhead_bytes; /* bookkeeping and guards of the live blocks */
} gasnett_heapstats_t;
extern void *gasnett_debug_malloc(size_t sz) GASNETT_MALLOC;
extern void *gasnett_debug_calloc(size_t n, size_t s) GASNETT_MALLOC;
extern void *gasnett_debug_realloc(void *ptr, size_t sz);
extern void gasnett_debug_free(void *ptr);
extern char *gasnett_debug_strdup(const char *s) GASNETT_MALLOC;
extern char *gasnett_debug_strndup(const char *s, size_t n) GASNETT_MALLOC;
/* Check one block (ptr), the next block in turn (_one) or all of them
 * (_all): a damaged guard is a fatal error naming the block. */
extern void gasnett_debug_memcheck(void *ptr);
extern void gasnett_debug_memcheck_one(void);
extern void gasnett_debug_memcheck_all(void);
extern void gasnett_getheapstats(gasnett_heapstats_t *pstat);

/* ---- tracing and statistics ---- */
/* Compiled in when the client defines GASNET_TRACE / GASNET_STATS;
 * otherwise the macros evaluate nothing (arguments are still type-checked). */
GASNETT_FORMAT_PRINTF(gasnett_trace_printf, 1, 2,
                      extern void gasnett_trace_printf(const char *fmt, ...));
GASNETT_FORMAT_PRINTF(gasnett_trace_printf_force, 1, 2,
                      extern void gasnett_trace_printf_force(const char *fmt, ...));
GASNETT_FORMAT_PRINTF(gasnett_stats_printf, 1, 2,
                      extern void gasnett_stats_printf(const char *fmt, ...));
extern int gasnett_trace_enabled(void);
extern int gasnett_stats_enabled(void);
typedef void (*gasnett_stats_callback_t)(void (*stats_printf)(const char *fmt, ...));
extern gasnett_stats_callback_t gasnett_stats_callback;
/* Registers the callback run when the statistics are written at exit;
 * returns whether statistics are being collected. */
extern int gasnett_stats_init(gasnett_stats_callback_t callbackfn);
/* The calling thread's source position, shown on its trace lines when the
 * trace mask has N; and the masks in effect, as letters. */
extern void gasnett_trace_setsourceline(const char *file, unsigned int line);
extern void gasnett_trace_getsourceline(const char **pfile, unsigned int *pline);
extern const char *gasnett_trace_getmask(void);
extern void gasnett_trace_setmask(const char *mask);
extern const char *gasnett_stats_getmask(void);
extern void gasnett_stats_setmask(const char *mask);

#define GEXXT_NOT_EVALUATED(...) ((void)(0 && (__VA_ARGS__, 0)))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_GET_TRACELOCAL() (0)
#define GASNETT_TRACE_SET_TRACELOCAL(newval) ((void)0)
#ifdef GASNET_TRACE
#define GASNETT_TRACE_SETSOURCELINE(file, line) gasnett_trace_setsourceline((file), (line))
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) gasnett_trace_getsourceline((pfile), (pline))
#define GASNETT_TRACE_GETMASK() gasnett_trace_getmask()
#define GASNETT_TRACE_SETMASK(mask) gasnett_trace_setmask(mask)
#define GASNETT_TRACE_ENABLED gasnett_trace_enabled()
#define GASNETT_TRACE_PRINTF gasnett_trace_printf
#define GASNETT_TRACE_PRINTF_FORCE gasnett_trace_printf_force
#else
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)0)
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) ((void)0)
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)0)
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_TRACE_PRINTF(...) GEXXT_NOT_EVALUATED(gasnett_trace_printf(__VA_ARGS__))
#define GASNETT_TRACE_PRINTF_FORCE(...) GEXXT_NOT_EVALUATED(gasnett_trace_printf_force(__VA_ARGS__))
#endif
#ifdef GASNET_STATS
#define GASNETT_STATS_GETMASK() gasnett_stats_getmask()
#define GASNETT_STATS_SETMASK(mask) gasnett_stats_setmask(mask)
#define GASNETT_STATS_ENABLED gasnett_stats_enabled()
#define GASNETT_STATS_PRINTF gasnett_stats_printf
#define GASNETT_STATS_INIT(callbackfn) gasnett_stats_init(callbackfn)
#else
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_STATS_SETMASK(mask) ((void)0)
#define GASNETT_STATS_ENABLED 0
#define GASNETT_STATS_PRINTF(...) GEXXT_NOT_EVALUATED(gasnett_stats_printf(__VA_ARGS__))
#define GASNETT_STATS_INIT(callbackfn) 0
#endif

#endif /* !GASNETT_LITE_MODE */

/* ---- link-time thread-model check (tools-only clients) ---- */
/* libgasnet_tools-par defines only the THREAD_SAFE symbol, -seq only the
 * THREAD_SINGLE one, so a mismatch fails to link with a message naming the
 * model the client was compiled for and the library it needs. A libgasnet
 * client has the conduit library's own mode check instead. */
#if !defined(GASNETEX_H) && !defined(GEXX_BUILDING_TOOLS) && !GASNETT_LITE_MODE
#if GASNETT_THREAD_SAFE
#define GEXXT_LINKCHECK gasnett_client_compiled_GASNETT_THREAD_SAFE__link_libgasnet_tools_par
#else
#define GEXXT_LINKCHECK gasnett_client_compiled_GASNETT_THREAD_SINGLE__link_libgasnet_tools_seq
#endif
extern int GEXXT_LINKCHECK;
static int *const gexxt_linkcheck_ref GASNETT_USED = &GEXXT_LINKCHECK;
#endif

GASNETT_END_EXTERNC

#endif /* GASNET_TOOLS_H */
