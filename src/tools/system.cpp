// Process, host and timer facts of the tools API, and the small helpers
// (checksums, zero counts, version strings) that need no state.
#include "tools/tools.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "util/log.hpp"
#include "util/strings.hpp"

namespace {

// Timer properties, measured once: the smallest non-zero step between two
// readings and the mean cost of one reading.
struct TickFacts {
  double granularity_us;
  double overhead_us;
};

const TickFacts &tick_facts() {
  static const TickFacts facts = [] {
    constexpr int kReadings = 1000;
    gasnett_tick_t smallest = GASNETT_TICK_MAX;
    gasnett_tick_t start = gasnett_ticks_now(), last = start;
    for (int i = 0; i < kReadings; ++i) {
      gasnett_tick_t now = gasnett_ticks_now();
      if (now > last) smallest = std::min(smallest, now - last);
      last = now;
    }
    if (smallest == GASNETT_TICK_MAX) smallest = 1;
    return TickFacts{gasnett_ticks_to_dbl_us(smallest),
                     gasnett_ticks_to_dbl_us(last - start) / kReadings};
  }();
  return facts;
}

}  // namespace

extern "C" {

double gasnett_tick_granularityus(void) {
  return tick_facts().granularity_us;
}

double gasnett_tick_overheadus(void) {
  return tick_facts().overhead_us;
}

void gexx_tools_lock_misuse(const char *what, const void *lock) {
  gasnett_fatalerror("%s (lock at %p)", what, lock);
}

// gasnet_tools.h's timer and sleep for clients in strict ISO C, where
// <time.h> declares neither (the header's inline forms otherwise).
gasnett_tick_t gexx_tools_ticks_now(void) {
  return gasnett_ticks_now();
}

int gexx_tools_nsleep(uint64_t ns_delay) {
  return gasnett_nsleep(ns_delay);
}

// gasnett_rwlock_t for those clients: the header's storage as the POSIX
// rwlock (gexx_tools_sync.h). A zeroed lock is PTHREAD_RWLOCK_INITIALIZER
// where that storage is used (checked below).
int gexx_tools_rwlock_op(void *lock, int op) {
  static_assert(sizeof(pthread_rwlock_t) == __SIZEOF_PTHREAD_RWLOCK_T,
                "gasnett_rwlock_t's strict-C storage is not a pthread_rwlock_t");
  static const pthread_rwlock_t kInitial = PTHREAD_RWLOCK_INITIALIZER;
  static const bool zero_initial = [] {
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&kInitial);
    return std::all_of(b, b + sizeof kInitial, [](unsigned char c) { return c == 0; });
  }();
  if (!zero_initial)
    gasnett_fatalerror(
        "gasnett_rwlock_t: this C library's PTHREAD_RWLOCK_INITIALIZER is not all zeros, so a "
        "lock made with GASNETT_RWLOCK_INITIALIZER in strict ISO C is not a valid lock; "
        "compile with -D_POSIX_C_SOURCE=200809L or a GNU mode (-std=gnu11)");
  auto *l = static_cast<pthread_rwlock_t *>(lock);
  switch (op) {
    case GEXXT_RWLOCK_OP_init:
      return pthread_rwlock_init(l, nullptr);
    case GEXXT_RWLOCK_OP_destroy:
      return pthread_rwlock_destroy(l);
    case GEXXT_RWLOCK_OP_rdlock:
      return pthread_rwlock_rdlock(l);
    case GEXXT_RWLOCK_OP_wrlock:
      return pthread_rwlock_wrlock(l);
    case GEXXT_RWLOCK_OP_tryrdlock:
      return pthread_rwlock_tryrdlock(l);
    case GEXXT_RWLOCK_OP_trywrlock:
      return pthread_rwlock_trywrlock(l);
    case GEXXT_RWLOCK_OP_unlock:
      return pthread_rwlock_unlock(l);
    default:
      gasnett_fatalerror("gexx_tools_rwlock_op: unknown operation %d (a gexx bug)", op);
  }
}

void gasnett_killmyprocess(int exitcode) {
  _exit(exitcode);
}

gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp) {
  struct sigaction now = {}, before = {};
  now.sa_handler = fp;
  sigemptyset(&now.sa_mask);
  if (sigaction(sigtocatch, &now, &before))
    gasnett_fatalerror("gasnett_reghandler: cannot handle signal %d: %s", sigtocatch,
                       std::strerror(errno));
  return before.sa_handler;
}

void gasnett_flush_streams(void) {
  std::fflush(nullptr);
  fsync(STDOUT_FILENO);
  fsync(STDERR_FILENO);
}

void gasnett_close_streams(void) {
  gasnett_flush_streams();
  std::fclose(stdin);
  std::fclose(stdout);
  std::fclose(stderr);
}

char *gexx_tools_current_loc(const char *file, int line, const char *function) {
  return strdup(gexx::util::format("%s at %s:%d", function, file, line).c_str());
}

const char *gasnett_gethostname(void) {
  return gexx::util::hostname().c_str();
}

int gasnett_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 0;
}

uint64_t gasnett_getPhysMemSz(int failureIsFatal) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  if (failureIsFatal)
    gasnett_fatalerror("gasnett_getPhysMemSz: the physical memory size is unknown");
  return 0;
}

int gasnett_set_affinity(int rank) {
  int cpus = gasnett_cpu_count();
  if (cpus <= 0) return -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(((rank % cpus) + cpus) % cpus, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) ? -1 : 0;
}

int gasnett_maximize_rlimit(int res, const char *lim_desc) {
  struct rlimit lim;
  if (getrlimit(res, &lim)) return 0;
  if (lim.rlim_cur == lim.rlim_max) return 1;
  lim.rlim_cur = lim.rlim_max;
  if (setrlimit(res, &lim)) {
    gexx::util::warn("cannot raise the %s limit: %s", lim_desc, std::strerror(errno));
    return 0;
  }
  return 1;
}

int gasnett_maximize_rlimits(void) {
  int ok = gasnett_maximize_rlimit(RLIMIT_DATA, "RLIMIT_DATA");
  ok &= gasnett_maximize_rlimit(RLIMIT_AS, "RLIMIT_AS");
  ok &= gasnett_maximize_rlimit(RLIMIT_RSS, "RLIMIT_RSS");
  ok &= gasnett_maximize_rlimit(RLIMIT_STACK, "RLIMIT_STACK");
  return ok;
}

void *gasnett_mmap(uintptr_t size) {
  void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    gasnett_fatalerror("gasnett_mmap(%llu bytes) failed: %s", static_cast<unsigned long long>(size),
                       std::strerror(errno));
  return p;
}

const char *gasnett_performance_warning_str(void) {
  return "";
}

const char *gasnett_release_version_str(void) {
  return GEXX_VERSION_STRING;
}

uint64_t gasnett_release_version(void) {
  return uint64_t{GASNETT_RELEASE_VERSION_MAJOR} * 1000000 +
         uint64_t{GASNETT_RELEASE_VERSION_MINOR} * 10000 + GASNETT_RELEASE_VERSION_PATCH;
}

// A position-dependent mix of 64-bit words (FNV-style): cheap, and any
// change of one byte changes the sum. Not for security.
uint64_t gasnett_checksum(const void *p, int numbytes) {
  const unsigned char *bytes = static_cast<const unsigned char *>(p);
  uint64_t sum = 0xcbf29ce484222325ull;
  for (int i = 0; i < numbytes; ++i) sum = (sum ^ bytes[i]) * 0x100000001b3ull;
  return sum;
}

size_t gasnett_count0s(const void *p, size_t numbytes) {
  const unsigned char *bytes = static_cast<const unsigned char *>(p);
  return static_cast<size_t>(std::count(bytes, bytes + numbytes, 0));
}

size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                            size_t numbytes) {
  return gasnett_count0s(std::memcpy(dst, src, numbytes), numbytes);
}

}  // extern "C"
