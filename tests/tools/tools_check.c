/* tools_check.c: the GASNet tools API as a client sees it. Built as a C and
 * as a C++ program, tools-only (against libgasnet_tools-seq/-par) and after
 * gasnet.h (TOOLS_CHECK_WITH_GASNET, against libgasnet); CTest runs one
 * case per invocation: tools_check <case>. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#ifdef TOOLS_CHECK_WITH_GASNET
#include <gasnet.h>
#endif
#include <gasnet_tools.h>

#include <math.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdint.h>

#include "check_tools.h"

GASNETT_THREADKEY_DEFINE(tools_test_key);
GASNETT_IDENT(tools_check_ident, "$gexxToolsCheck: ident text $");

#if GASNETT_THREAD_SAFE
int run_thread_case(const char *name); /* tools_threads.c */
#endif

/* ---- atomics, one thread: values, wrap-around, return values ---- */
static void case_atomics(void) {
  gasnett_atomic_t a = gasnett_atomic_init(5);
  CHECK(gasnett_atomic_read(&a, 0) == 5, "init");
  gasnett_atomic_set(&a, 0, GASNETT_ATOMIC_WMB_POST);
  gasnett_atomic_decrement(&a, GASNETT_ATOMIC_RMB_PRE);
  CHECK(gasnett_atomic_read(&a, 0) == GASNETT_ATOMIC_MAX, "wraps below 0");
  CHECK(gasnett_atomic_signed(gasnett_atomic_read(&a, 0)) == -1, "signed view");
  CHECK(gasnett_atomic_add(&a, 3, 0) == 2, "add returns the new value");
  CHECK(gasnett_atomic_subtract(&a, 2, 0) == 0, "subtract returns the new value");
  CHECK(!gasnett_atomic_compare_and_swap(&a, 7, 9, 0), "CAS with a wrong old value");
  CHECK(gasnett_atomic_compare_and_swap(&a, 0, 9, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST),
        "CAS");
  CHECK(gasnett_atomic_swap(&a, 4, 0) == 9 && gasnett_atomic_read(&a, 0) == 4, "swap");
  CHECK(GASNETT_ATOMIC_SIGNED_MAX > 0 && GASNETT_ATOMIC_SIGNED_MIN < 0, "signed range");
  CHECK(GASNETT_HAVE_ATOMIC_CAS && GASNETT_HAVE_ATOMIC_ADD_SUB, "features");

  gasnett_atomic32_t a32 = gasnett_atomic32_init(UINT32_MAX);
  gasnett_atomic32_increment(&a32, 0);
  CHECK(gasnett_atomic32_read(&a32, 0) == 0, "32-bit wraps above max");
  CHECK(gasnett_atomic32_add(&a32, 1, 0) == 1 && gasnett_atomic32_decrement_and_test(&a32, 0),
        "32-bit decrement_and_test");
  CHECK(gasnett_atomic32_swap(&a32, 7, 0) == 0 && gasnett_atomic32_subtract(&a32, 2, 0) == 5,
        "32-bit swap/subtract");

  /* Storage declared as the plain type may be used through a cast. */
  union {
    double d;
    uint64_t u;
  } cell;
  cell.u = 0;
  gasnett_atomic64_t *p64 = (gasnett_atomic64_t *)&cell;
  CHECK(sizeof(gasnett_atomic64_t) == 8 && sizeof(gasnett_atomic32_t) == 4, "natural sizes");
  gasnett_atomic64_set(p64, UINT64_MAX, 0);
  gasnett_atomic64_increment(p64, 0);
  CHECK(cell.u == 0 && gasnett_atomic64_add(p64, 1ull << 40, 0) == 1ull << 40, "64-bit");
  CHECK(gasnett_atomic64_compare_and_swap(p64, 1ull << 40, 3, GASNETT_ATOMIC_ACQ_IF_TRUE), "CAS");
  CHECK(!gasnett_atomic64_decrement_and_test(p64, 0) && gasnett_atomic64_read(p64, 0) == 2, "dec");

  gasnett_strongatomic_t s = gasnett_strongatomic_init(1);
  CHECK(gasnett_strongatomic_decrement_and_test(&s, GASNETT_ATOMIC_REL), "strong dec_and_test");
  gasnett_strongatomic32_t s32 = gasnett_strongatomic32_init(0);
  CHECK(gasnett_strongatomic32_compare_and_swap(&s32, 0, 1, 0), "strong32 CAS");
  CHECK(GASNETT_HAVE_STRONGATOMIC_CAS && GASNETT_HAVE_STRONGATOMIC_ADD_SUB, "strong features");
  gasnett_local_mb();
  gasnett_local_rmb();
  gasnett_local_wmb();
  gasnett_weak_mb();
  gasnett_weak_rmb();
  gasnett_weak_wmb();
  gasnett_compiler_fence();
  gasnett_spinloop_hint();
}

/* ---- timers: order and consistent conversions, never speed ---- */
static void case_timers(void) {
  gasnett_tick_t prev = gasnett_ticks_now();
  for (int i = 0; i < 100000; ++i) {
    gasnett_tick_t now = gasnett_ticks_now();
    CHECK(now >= prev, "ticks went backwards");
    prev = now;
  }
  gasnett_tick_t t = (gasnett_tick_t)123456789;
  CHECK(gasnett_ticks_to_us(t) == gasnett_ticks_to_ns(t) / 1000, "us vs ns");
  CHECK(fabs(gasnett_ticks_to_dbl_ns(t) - (double)gasnett_ticks_to_ns(t)) < 1, "dbl ns");
  CHECK(fabs(gasnett_ticks_to_dbl_us(t) * 1000 - gasnett_ticks_to_dbl_ns(t)) < 1, "dbl us");
  CHECK(GASNETT_TICK_MIN < GASNETT_TICK_MAX, "tick range");
  double gran = gasnett_tick_granularityus(), over = gasnett_tick_overheadus();
  CHECK(gran > 0 && gran < 1e6 && over >= 0 && over < 1e6, "granularity %g, overhead %g", gran,
        over);
  gasnett_tick_t before = gasnett_ticks_now();
  uint64_t wall_before = gasnett_gettimeofday_us();
  CHECK(gasnett_nsleep(2000000) == 0, "nsleep");
  CHECK(gasnett_ticks_to_ns(gasnett_ticks_now() - before) >= 2000000, "slept less than asked");
  CHECK(wall_before > 1000000000ull * 1000000ull, "gettimeofday_us is after 2001");
  CHECK(gasnett_sched_yield() == 0, "sched_yield");
}

/* ---- environment ---- */
static void case_env(void) {
  gasnett_unsetenv("GEXXT_V");
  CHECK(gasnett_getenv("GEXXT_V") == NULL, "unset");
  CHECK(!strcmp(gasnett_getenv_withdefault("GEXXT_V", "dflt"), "dflt"), "string default");
  CHECK(gasnett_getenv_int_withdefault("GEXXT_V", -7, 0) == -7, "int default");
  CHECK(gasnett_getenv_yesno_withdefault("GEXXT_V", 1) == 1, "yesno default");
  CHECK(gasnett_getenv_dbl_withdefault("GEXXT_V", 2.5) == 2.5, "dbl default");
  gasnett_setenv("GEXXT_V", "");
  CHECK(gasnett_getenv_int_withdefault("GEXXT_V", 11, 1) == 11, "empty counts as unset");
  CHECK(!strcmp(gasnett_getenv_withdefault("GEXXT_V", "x"), ""), "empty string is a value");

  static const struct {
    const char *text;
    uint64_t unit;
    int64_t want;
  } ints[] = {{"42", 0, 42},          {"-42", 0, -42},      {"0x1F", 0, 31},
              {" 17 ", 0, 17},        {"1K", 1, 1024},      {"1kb", 1, 1024},
              {"2", 1024, 2048},      {"1.5M", 1, 1572864}, {"3G", 1, 3ll << 30},
              {"2TB", 1, 2ll << 40},  {"100B", 1024, 100},  {"0.5", 1048576, 524288},
              {"64 MB", 1, 64 << 20}, {"0x10", 1024, 16384}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; ++i) {
    gasnett_setenv("GEXXT_V", ints[i].text);
    int64_t got = gasnett_getenv_int_withdefault("GEXXT_V", 0, ints[i].unit);
    CHECK(got == ints[i].want, "'%s' (unit %llu) read as %lld", ints[i].text,
          (unsigned long long)ints[i].unit, (long long)got);
    CHECK(gasnett_parse_int(ints[i].text, ints[i].unit) == ints[i].want, "parse_int");
  }
  static const char *const yes[] = {"1", "y", "YES", "yes", "Y"}, *const no[] = {"0", "n", "NO"};
  for (size_t i = 0; i < 5; ++i) {
    gasnett_setenv("GEXXT_V", yes[i]);
    CHECK(gasnett_getenv_yesno_withdefault("GEXXT_V", 0) == 1, "yes: %s", yes[i]);
  }
  for (size_t i = 0; i < 3; ++i) {
    gasnett_setenv("GEXXT_V", no[i]);
    CHECK(gasnett_getenv_yesno_withdefault("GEXXT_V", 1) == 0, "no: %s", no[i]);
  }
  gasnett_setenv("GEXXT_V", "3/8");
  CHECK(gasnett_getenv_dbl_withdefault("GEXXT_V", 0) == 0.375, "fraction");
  gasnett_setenv("GEXXT_V", "-1e4");
  CHECK(gasnett_getenv_dbl_withdefault("GEXXT_V", 0) == -1e4, "exponent");
  gasnett_setenv("GEXXT_V", "hello");
  CHECK(!strcmp(gasnett_getenv_withdefault("GEXXT_V", "x"), "hello"), "string");
  CHECK(!gasnett_verboseenv(), "GASNET_VERBOSEENV is not set in the test");
}

static const char *const int_words[] = {"GEXXT_BAD", "12Q", "integer", NULL};
static const char *const size_words[] = {"GEXXT_BAD", "12Q", "memory size", NULL};
static const char *const yesno_words[] = {"GEXXT_BAD", "maybe", "Y, YES, 1, N, NO or 0", NULL};
static const char *const dbl_words[] = {"GEXXT_BAD", "1.2.3", "fraction", NULL};

static void case_env_bad(void) {
  expect_fatal("bad_int", "GEXXT_BAD=12Q", int_words);
  expect_fatal("bad_size", "GEXXT_BAD=12Q", size_words);
  expect_fatal("bad_yesno", "GEXXT_BAD=maybe", yesno_words);
  expect_fatal("bad_dbl", "GEXXT_BAD=1.2.3", dbl_words);
  char err[4096];
  int status = run_child("verbose", "GASNET_VERBOSEENV=1", err, sizeof err);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "verbose child: 0x%x", status);
  CHECK(strstr(err, "GEXXT_SHOWN") && strstr(err, "4 KB") && strstr(err, "(default)"),
        "GASNET_VERBOSEENV report:\n%s", err);
  CHECK(strstr(err, "GEXXT_SHOWN") == strstr(err, "GEXXT_SHOWN =") &&
            !strstr(strstr(err, "GEXXT_SHOWN") + 1, "GEXXT_SHOWN"),
        "a key is reported once:\n%s", err);
}

/* ---- numbers and checksums ---- */
static void case_numbers(void) {
  char buf[64];
  CHECK(!strcmp(gasnett_format_number(123, buf, sizeof buf, 0), "123"), "%s", buf);
  CHECK(!strcmp(gasnett_format_number(1536, buf, sizeof buf, 1), "1.5 KB"), "%s", buf);
  CHECK(!strcmp(gasnett_format_number(64ll << 20, buf, sizeof buf, 1), "64 MB"), "%s", buf);
  CHECK(!strcmp(gasnett_format_number(-2048, buf, sizeof buf, 1), "-2 KB"), "%s", buf);
  CHECK(!strcmp(gasnett_format_number(100, buf, sizeof buf, 1), "100 B"), "%s", buf);
  /* A whole number of units reads back exactly; a fraction within 0.1%. */
  for (int64_t v = 1; v < (1ll << 50); v *= 7) {
    int64_t x = v << 10, back = gasnett_parse_int(gasnett_format_number(x, buf, sizeof buf, 1), 1);
    CHECK(strchr(buf, '.') ? fabs((double)(back - x)) <= 1e-3 * (double)x : back == x,
          "round trip of %lld through '%s' gave %lld", (long long)x, buf, (long long)back);
  }
  /* docs/tools.md: gexx's checksum is FNV-style (64-bit FNV-1a); the
   * published FNV-1a test vectors pin it, so sums agree between builds. */
  CHECK(gasnett_checksum("", 0) == 0xcbf29ce484222325ull, "empty: %#llx",
        (unsigned long long)gasnett_checksum("", 0));
  CHECK(gasnett_checksum("a", 1) == 0xaf63dc4c8601ec8cull, "'a': %#llx",
        (unsigned long long)gasnett_checksum("a", 1));
  CHECK(gasnett_checksum("foobar", 6) == 0x85944171f73967e8ull, "'foobar': %#llx",
        (unsigned long long)gasnett_checksum("foobar", 6));
  char data[256], twin[257];
  for (int i = 0; i < 256; ++i) data[i] = (char)i;
  uint64_t sum = gasnett_checksum(data, sizeof data);
  /* The same bytes elsewhere (another buffer, odd alignment) give the same sum. */
  memcpy(twin + 1, data, sizeof data);
  CHECK(sum == gasnett_checksum(twin + 1, sizeof data),
        "same bytes at another address: "
        "%#llx vs %#llx",
        (unsigned long long)sum, (unsigned long long)gasnett_checksum(twin + 1, sizeof data));
  data[100] ^= 1;
  CHECK(sum != gasnett_checksum(data, sizeof data), "one bit changes the checksum");
  data[100] ^= 1;
  char t = data[7];
  data[7] = data[8];
  data[8] = t;
  CHECK(sum != gasnett_checksum(data, sizeof data), "swapping two bytes changes the checksum");
  CHECK(gasnett_checksum(data, 0) == gasnett_checksum(buf, 0), "empty block");
  memset(data, 0, sizeof data);
  data[3] = 1;
  CHECK(gasnett_count0s(data, sizeof data) == 255, "count0s");
  char copy[256];
  CHECK(gasnett_count0s_copy(copy, data, sizeof data) == 255 && copy[3] == 1, "count0s_copy");
  CHECK(gasnett_count0s_uint32_t(0x00FF0000u) == 3 && gasnett_count0s_uint64_t(0) == 8, "words");
  CHECK(gasnett_count0s_uintptr_t((uintptr_t)-1) == 0, "uintptr");
}

/* ---- debug allocator ---- */
static void case_malloc(void) {
  gasnett_heapstats_t s0, s1, s2;
  gasnett_getheapstats(&s0);
  char *a = (char *)gasnett_debug_malloc(100);
  char *b = (char *)gasnett_debug_calloc(10, 20);
  CHECK(b[0] == 0 && b[199] == 0, "calloc zeroes");
  char *c = gasnett_debug_strdup("testing 1 2 3");
  char *d = gasnett_debug_strndup(c, 4);
  CHECK(!strcmp(c, "testing 1 2 3") && !strcmp(d, "test"), "strdup/strndup");
  memset(a, 'x', 100);
  a = (char *)gasnett_debug_realloc(a, 300);
  CHECK(a[99] == 'x', "realloc keeps the contents");
  gasnett_debug_memcheck(a);
  gasnett_debug_memcheck_one();
  gasnett_debug_memcheck_all();
  gasnett_getheapstats(&s1);
  CHECK(s1.live_objects - s0.live_objects == 4, "live objects %llu",
        (unsigned long long)(s1.live_objects - s0.live_objects));
  CHECK(s1.live_bytes - s0.live_bytes == 300 + 200 + 14 + 5, "live bytes");
  CHECK(s1.live_bytes_max >= s1.live_bytes && s1.live_objects_max >= s1.live_objects, "peak");
  CHECK(s1.allocated_objects - s0.allocated_objects == 5, "realloc allocates");
  CHECK(s1.freed_objects - s0.freed_objects == 1 && s1.freed_bytes - s0.freed_bytes == 100, "free");
  CHECK(s1.overhead_bytes > s0.overhead_bytes, "overhead");
  gasnett_debug_free(a);
  gasnett_debug_free(b);
  gasnett_debug_free(c);
  gasnett_debug_free(d);
  gasnett_debug_free(NULL);
  gasnett_getheapstats(&s2);
  CHECK(s2.live_objects == s0.live_objects && s2.live_bytes == s0.live_bytes, "all freed");
  CHECK(s2.live_bytes_max >= s1.live_bytes, "peak stays");

  static const char *const overrun[] = {"heap overrun", "(24 bytes)", "gasnett_debug_memcheck",
                                        NULL};
  expect_fatal("overrun", NULL, overrun);
  static const char *const freed[] = {"already freed", "gasnett_debug_free", NULL};
  expect_fatal("double_free", NULL, freed);
  static const char *const underrun[] = {"heap underrun", NULL};
  expect_fatal("underrun", NULL, underrun);
}

/* ---- system facts and misc ---- */
static void case_system(void) {
  CHECK(gasnett_cpu_count() >= 1, "cpu_count %d", gasnett_cpu_count());
  CHECK(gasnett_getPhysMemSz(1) >= (64ull << 20), "physical memory");
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  CHECK(gasnett_gethostname()[0] && !strcmp(gasnett_gethostname(), host), "hostname");
  /* set_affinity(r) binds this thread to CPU r: 0 and the mask read back is
   * {r} where r is allowed here; -1 and the mask unchanged where it is not. */
  cpu_set_t allowed, now;
  CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0, "sched_getaffinity");
  int bound = 0;
  for (int r = 0; r < gasnett_cpu_count() && r < CPU_SETSIZE; ++r) {
    int rc = gasnett_set_affinity(r);
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0, "sched_getaffinity");
    if (CPU_ISSET(r, &allowed)) {
      CHECK(rc == 0 && CPU_COUNT(&now) == 1 && CPU_ISSET(r, &now),
            "set_affinity(%d) returned %d, %d CPUs now", r, rc, CPU_COUNT(&now));
      ++bound;
      CHECK(sched_setaffinity(0, sizeof allowed, &allowed) == 0, "restoring the mask");
    } else {
      CHECK(rc == -1 && CPU_EQUAL(&now, &allowed), "set_affinity(%d) to a CPU not allowed: %d", r,
            rc);
    }
  }
  CHECK(bound > 0, "no allowed CPU below cpu_count %d", gasnett_cpu_count());
  char *p = (char *)gasnett_mmap(3 * GASNETT_PAGESIZE);
  CHECK(((uintptr_t)p % GASNETT_PAGESIZE) == 0 && p[0] == 0, "mmap");
  p[3 * GASNETT_PAGESIZE - 1] = 1;
  uint32_t one = 1;
  CHECK(gasnett_isLittleEndian() == (*(unsigned char *)&one == 1), "endianness");
  CHECK(GASNETT_PAGESIZE == 1 << GASNETT_PAGESHIFT && GASNETT_CACHE_LINE_BYTES >= 32, "sizes");
#if GASNETT_THREAD_SAFE
  const char *model = ",PAR,";
#else
  const char *model = ",SEQ,";
#endif
  CHECK(strstr(GASNETT_CONFIG_STRING, model) != NULL, "%s", GASNETT_CONFIG_STRING);
  CHECK(strstr(GASNETT_SYSTEM_TUPLE, "linux") != NULL, "tuple");
  CHECK(gasnett_release_version() == GASNETT_RELEASE_VERSION_MAJOR * 1000000ull +
                                         GASNETT_RELEASE_VERSION_MINOR * 10000ull +
                                         GASNETT_RELEASE_VERSION_PATCH,
        "release version");
  CHECK(gasnett_release_version_str()[0] && gasnett_performance_warning_str() != NULL, "strings");
  CHECK(GASNETT_SPEC_VERSION_MAJOR == 1, "spec major");
  CHECK(!strcmp(tools_check_ident, "$gexxToolsCheck: ident text $"), "ident");
  char *loc = gasnett_current_loc;
  CHECK(strstr(loc, "case_system") && strstr(loc, "tools_check.c:"), "current_loc: %s", loc);
  free(loc);
  gasnett_sighandlerfn_t old = gasnett_reghandler(SIGUSR1, SIG_IGN);
  CHECK(gasnett_reghandler(SIGUSR1, old) == SIG_IGN, "reghandler returns the previous handler");
  gasnett_flush_streams();
  CHECK(GASNETT_PREDICT_TRUE(1) && !GASNETT_PREDICT_FALSE(0), "predict");
  /* maximize_rlimit raises the soft limit to the hard one and returns 1. */
  struct rlimit lim;
  CHECK(getrlimit(RLIMIT_STACK, &lim) == 0, "getrlimit");
  if (lim.rlim_cur == lim.rlim_max) { /* lowers it first, so there is something to raise */
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY ? (64u << 20) : lim.rlim_max / 2;
    CHECK(setrlimit(RLIMIT_STACK, &lim) == 0, "setrlimit");
  }
  CHECK(gasnett_maximize_rlimit(RLIMIT_STACK, "RLIMIT_STACK") == 1, "maximize_rlimit");
  CHECK(getrlimit(RLIMIT_STACK, &lim) == 0 && lim.rlim_cur == lim.rlim_max,
        "RLIMIT_STACK soft %llu, hard %llu", (unsigned long long)lim.rlim_cur,
        (unsigned long long)lim.rlim_max);
}

static const char *const fatal_words[] = {"tools check 42 says goodbye", NULL};
static const char *const lock_words[] = {"already holds", NULL};

static void case_fatal(void) {
  expect_fatal("fatalerror", NULL, fatal_words);
  expect_fatal("relock", NULL, lock_words);
  char err[4096];
  int status = run_child("kill", NULL, err, sizeof err);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7, "killmyprocess status 0x%x", status);
  CHECK(!strstr(err, "atexit ran"), "killmyprocess ran atexit handlers");
}

/* ---- tracing: compiled out unless GASNET_TRACE ---- */
static void case_trace(void) {
  int evaluated = 0;
  GASNETT_TRACE_PRINTF("not evaluated %d", ++evaluated);
  GASNETT_STATS_PRINTF("not evaluated %d", ++evaluated);
  CHECK(evaluated == 0, "compiled-out trace macros evaluated their arguments");
  CHECK(!GASNETT_TRACE_ENABLED && !GASNETT_STATS_ENABLED, "enabled");
  CHECK(GASNETT_STATS_INIT(NULL) == 0 && !strcmp(GASNETT_TRACE_GETMASK(), ""), "stubs");
  GASNETT_TRACE_SETMASK("H");
  GASNETT_TRACE_SETSOURCELINE(__FILE__, __LINE__);
  char path[] = "/tmp/gexx-tools-trace.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  gasnett_setenv("GASNET_TRACEFILE", path);
#ifdef TOOLS_CHECK_WITH_GASNET
  /* In a GASNet library the client's lines join the job's trace, opened by
   * gasnet_init (tracetests.py, case user); there is no job here. */
  CHECK(!gasnett_trace_enabled(), "tracing without a job");
  gasnett_trace_printf("traced %d", 42);
  char text[128] = {0};
  CHECK(read(fd, text, sizeof text - 1) == 0, "trace without a job: '%s'", text);
#else
  /* The tools-only library writes plain lines to the file. */
  CHECK(gasnett_trace_enabled(), "GASNET_TRACEFILE set");
  gasnett_trace_printf("traced %d", 42);
  char text[128] = {0};
  CHECK(read(fd, text, sizeof text - 1) > 0 && !strcmp(text, "traced 42\n"), "trace: '%s'", text);
#endif
  close(fd);
  unlink(path);
}

/* ---- backtraces ---- */
static int user_backtrace(int fd) {
  const char line[] = "user backtrace hook\n";
  return write(fd, line, sizeof line - 1) > 0 ? 0 : 1;
}
gasnett_backtrace_type_t gasnett_backtrace_user = {"TOOLSCHECK", &user_backtrace, 1};

/* Reads a pipe's text to its end (its write end closed). */
static void read_all(int fd, char *text, size_t size) {
  size_t n = 0;
  ssize_t got;
  while (n + 1 < size && (got = read(fd, text + n, size - 1 - n)) > 0) n += (size_t)got;
  text[n] = '\0';
}

/* With the client's hook registered, a backtrace is exactly the hook's text. */
static void case_backtrace(void) {
  gasnett_backtrace_init(check_self);
  int fds[2];
  CHECK(pipe(fds) == 0, "pipe");
  gasnett_unsetenv("GASNET_BACKTRACE");
  CHECK((*gasnett_print_backtrace_ifenabled)(fds[1]) != 0, "backtrace without GASNET_BACKTRACE");
  int rc = gasnett_print_backtrace(fds[1]);
  close(fds[1]);
  char text[16384];
  read_all(fds[0], text, sizeof text);
  close(fds[0]);
  CHECK(rc == 0, "print_backtrace returned %d", rc);
  CHECK(!strcmp(text, "user backtrace hook\n"), "the user hook's text, and only it: '%s'", text);
}

/* Without a hook the library's own backtrace (execinfo): a header naming this
 * process, then numbered frames, one of them in this program. */
static void case_backtrace_builtin(void) {
  gasnett_backtrace_user.fnp = NULL; /* registers no hook */
  gasnett_setenv("GASNET_BACKTRACE_TYPE", "EXECINFO");
  gasnett_backtrace_init(check_self);
  int fds[2];
  CHECK(pipe(fds) == 0, "pipe");
  int rc = gasnett_print_backtrace(fds[1]);
  close(fds[1]);
  char text[65536];
  read_all(fds[0], text, sizeof text);
  close(fds[0]);
  CHECK(rc == 0, "print_backtrace returned %d: '%s'", rc, text);
  const char *base = strrchr(check_self, '/') ? strrchr(check_self, '/') + 1 : check_self;
  char head[256], frame[256];
  snprintf(head, sizeof head, "backtrace of process %d (%s):\n", (int)getpid(), base);
  CHECK(strstr(text, head) != NULL, "no header '%s' in '%s'", head, text);
  const char *frames = strstr(text, head) + strlen(head);
  CHECK(strstr(frames, "  #0 ") && strstr(frames, "  #1 ") && strstr(frames, "  #2 "),
        "fewer than 3 numbered frames: '%s'", text);
  snprintf(frame, sizeof frame, "%s(", base);
  CHECK(strstr(frames, frame) != NULL, "no frame in %s: '%s'", base, text);
}

static void run_child_case(const char *name) {
  if (!strcmp(name, "bad_int")) gasnett_getenv_int_withdefault("GEXXT_BAD", 0, 0);
  if (!strcmp(name, "bad_size")) gasnett_getenv_int_withdefault("GEXXT_BAD", 0, 1);
  if (!strcmp(name, "bad_yesno")) gasnett_getenv_yesno_withdefault("GEXXT_BAD", 0);
  if (!strcmp(name, "bad_dbl")) gasnett_getenv_dbl_withdefault("GEXXT_BAD", 0);
  if (!strcmp(name, "verbose")) {
    gasnett_getenv_int_withdefault("GEXXT_SHOWN", 4096, 1);
    gasnett_getenv_int_withdefault("GEXXT_SHOWN", 4096, 1);
    exit(0);
  }
  if (!strcmp(name, "overrun") || !strcmp(name, "underrun")) {
    char *p = (char *)gasnett_debug_malloc(24);
    memset(name[0] == 'o' ? p + 20 : p - 4, 'z', 8);
    gasnett_debug_memcheck(p);
  }
  if (!strcmp(name, "double_free")) {
    void *p = gasnett_debug_malloc(8);
    void *keep = gasnett_debug_malloc(8); /* keeps the freed block's memory unreused */
    gasnett_debug_free(p);
    gasnett_debug_free(p);
    gasnett_debug_free(keep);
  }
  if (!strcmp(name, "fatalerror")) gasnett_fatalerror("tools check %d says %s", 42, "goodbye");
  if (!strcmp(name, "relock")) {
    static gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
    gasnett_mutex_lock(&m);
    gasnett_mutex_lock(&m);
  }
  if (!strcmp(name, "kill")) gasnett_killmyprocess(7);
  fprintf(stderr, "child case %s did not end the process\n", name);
  exit(3);
}

/* ---- PLATFORM_* identification (gexx_platform.h) ---- */
#define PLATFORM_NAME_STR2(x) #x
#define PLATFORM_NAME_STR(x) PLATFORM_NAME_STR2(x)
static void case_platform(void) {
#if defined(__clang__)
  CHECK(PLATFORM_COMPILER_CLANG && PLATFORM_COMPILER_FAMILYID == 19, "clang not named");
  CHECK(PLATFORM_COMPILER_VERSION_EQ(__clang_major__, __clang_minor__, __clang_patchlevel__),
        "clang version");
#elif defined(__GNUC__)
  CHECK(PLATFORM_COMPILER_GNU && PLATFORM_COMPILER_FAMILYID == 1, "gcc not named");
  CHECK(!strcmp(PLATFORM_NAME_STR(PLATFORM_COMPILER_FAMILYNAME), "GNU"), "family name");
  CHECK(PLATFORM_COMPILER_VERSION_EQ(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__), "gcc version");
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
  CHECK(!strcmp(PLATFORM_COMPILER_VERSION_STR, want), "version string %s, expected %s",
        PLATFORM_COMPILER_VERSION_STR, want);
#endif
  CHECK(PLATFORM_COMPILER_VERSION_GT(2, 0, 0) && PLATFORM_COMPILER_VERSION_LT(1000, 0, 0) &&
            PLATFORM_COMPILER_VERSION_GE(2, 0, 0) && !PLATFORM_COMPILER_VERSION_LE(2, 0, 0),
        "version comparisons");
#ifdef __cplusplus
  CHECK(PLATFORM_COMPILER_ID == 10000 + PLATFORM_COMPILER_FAMILYID, "C++ compiler id");
  CHECK(strstr(PLATFORM_COMPILER_IDSTR, "-CXX(") != NULL, "idstr %s", PLATFORM_COMPILER_IDSTR);
  CHECK(PLATFORM_COMPILER_CXX_LANGLVL == __cplusplus, "C++ language level");
#else
  CHECK(PLATFORM_COMPILER_ID == PLATFORM_COMPILER_FAMILYID, "C compiler id");
  CHECK(strstr(PLATFORM_COMPILER_IDSTR, "-C(") != NULL, "idstr %s", PLATFORM_COMPILER_IDSTR);
  CHECK(PLATFORM_COMPILER_C_LANGLVL == __STDC_VERSION__, "C language level");
#endif
#if defined(__linux__)
  CHECK(PLATFORM_OS_LINUX && !strcmp(PLATFORM_NAME_STR(PLATFORM_OS_FAMILYNAME), "LINUX"), "os");
#endif
#if defined(__x86_64__)
  CHECK(PLATFORM_ARCH_X86_64 && !strcmp(PLATFORM_NAME_STR(PLATFORM_ARCH_FAMILYNAME), "X86_64"),
        "arch");
#elif defined(__aarch64__)
  CHECK(PLATFORM_ARCH_AARCH64, "arch");
#endif
#ifdef PLATFORM_ARCH_64
  CHECK(sizeof(void *) == 8, "PLATFORM_ARCH_64 with %zu-byte pointers", sizeof(void *));
#else
  CHECK(sizeof(void *) == 4, "PLATFORM_ARCH_32 with %zu-byte pointers", sizeof(void *));
#endif
  const uint16_t one = 1;
  int little = *(const unsigned char *)&one == 1;
#ifdef PLATFORM_ARCH_LITTLE_ENDIAN
  CHECK(little, "PLATFORM_ARCH_LITTLE_ENDIAN on a big-endian machine");
#else
  CHECK(!little, "PLATFORM_ARCH_BIG_ENDIAN on a little-endian machine");
#endif
}

int main(int argc, char **argv) {
  check_self = argv[0];
  CHECK(argc == 2, "usage: %s <case>", argv[0]);
  const char *name = argv[1];
  if (!strncmp(name, "child:", 6)) run_child_case(name + 6);
#if GASNETT_THREAD_SAFE
  if (run_thread_case(name)) return 0;
#endif
  if (!strcmp(name, "platform"))
    case_platform();
  else if (!strcmp(name, "atomics"))
    case_atomics();
  else if (!strcmp(name, "timers"))
    case_timers();
  else if (!strcmp(name, "env"))
    case_env();
  else if (!strcmp(name, "env_bad"))
    case_env_bad();
  else if (!strcmp(name, "numbers"))
    case_numbers();
  else if (!strcmp(name, "malloc"))
    case_malloc();
  else if (!strcmp(name, "system"))
    case_system();
  else if (!strcmp(name, "fatal"))
    case_fatal();
  else if (!strcmp(name, "trace"))
    case_trace();
  else if (!strcmp(name, "backtrace"))
    case_backtrace();
  else if (!strcmp(name, "backtrace_builtin"))
    case_backtrace_builtin();
  else
    CHECK(0, "unknown case %s", name);
  return 0;
}
