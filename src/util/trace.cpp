#include "util/trace.hpp"

#include <gasnetex.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>

#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

extern "C" {
// Exported (cmake/exports.map: gexx_*): ABI 1's inline tests and waits of
// GEX_EVENT_INVALID call the library while it is set (gexx_inline_rma.h's
// read gexx_rma_fast.sync_traced, set beside it).
uint32_t gexx_sync_traced = 0;
}

namespace gexx::trace {

namespace detail {
std::atomic<uint32_t> g_active{0};
}

namespace {
constexpr unsigned kMaxListeners = 4;
std::atomic<void (*)()> g_listeners[kMaxListeners];
void notify_listener() {
  for (auto &l : g_listeners)
    if (auto fn = l.load(std::memory_order_acquire)) fn();
}
}  // namespace

void add_active_listener(void (*listener)()) {
  for (auto &l : g_listeners) {
    void (*none)() = nullptr;
    if (l.load(std::memory_order_acquire) == listener ||
        l.compare_exchange_strong(none, listener, std::memory_order_acq_rel))
      return;
  }
  util::fatal("internal error: more than %u trace listeners", kMaxListeners);
}

namespace {

constexpr const char *kNames[] = {
#define GEXX_TRACE_NAME(op, name, cat, timed) name,
    GEXX_TRACE_OPS(GEXX_TRACE_NAME)
#undef GEXX_TRACE_NAME
};
constexpr bool kTimed[] = {
#define GEXX_TRACE_TIMED(op, name, cat, timed) timed,
    GEXX_TRACE_OPS(GEXX_TRACE_TIMED)
#undef GEXX_TRACE_TIMED
};
constexpr unsigned kOps = static_cast<unsigned>(Op::Count);
constexpr uint32_t kRma = kPut | kGet;

struct Tally {
  uint64_t count = 0, bytes = 0, min = UINT64_MAX, max = 0;
  uint64_t ns_sum = 0, ns_min = UINT64_MAX, ns_max = 0;
};

std::mutex g_lock;  // the files and the tallies
FILE *g_trace = nullptr;
FILE *g_stats = nullptr;
std::atomic<uint32_t> g_trace_mask{0}, g_stats_mask{0};  // read without g_lock
char g_trace_letters[sizeof kLetters], g_stats_letters[sizeof kLetters];
bool g_flush = false, g_local = true;
uint32_t g_rank = 0;
uint64_t g_start = 0;
std::atomic<bool> g_finished{false};
Tally g_tally[kOps];

__attribute__((tls_model("initial-exec"))) thread_local const char *tl_file = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local unsigned tl_line = 0;

uint32_t bit_of(char letter) {
  const char *p = std::strchr(kLetters, letter >= 'a' && letter <= 'z' ? letter - 32 : letter);
  return p && letter ? 1u << (p - kLetters) : 0;
}

// The mask's letters in kLetters order (what GETMASK returns).
void spell(uint32_t mask, char *out) {
  for (const char *p = kLetters; *p; ++p)
    if (mask & bit_of(*p)) *out++ = *p;
  *out = '\0';
}

void set_active(uint32_t categories) {
  detail::g_active.store(categories, std::memory_order_relaxed);
  uint32_t sync = (categories & kSync) ? 1u : 0u;
  __atomic_store_n(&gexx_rma_fast.sync_traced, sync, __ATOMIC_RELAXED);
  __atomic_store_n(&gexx_sync_traced, sync, __ATOMIC_RELAXED);  // ABI 1's word
  notify_listener();
}

void update_active() {
  set_active((g_trace ? g_trace_mask.load() : 0) | (g_stats ? g_stats_mask.load() : 0));
}

// A mask from the environment: every letter must be a category.
uint32_t read_mask(const char *var) {
  std::string value = config::get_string(var);
  uint32_t mask = 0;
  for (char c : value) {
    if (c == ' ' || c == ',') continue;
    uint32_t bit = bit_of(c);
    if (!bit) {
      util::fatal(
          "%s='%s' is not valid: '%c' is not a category; use letters from %s (G gets, P puts, "
          "R atomics, S syncs, W collectives, B barriers, L locks, A active messages, X "
          "AMPoll, I information, O objects, C conduit, D details, N source lines, H and U "
          "client lines), or unset %s for all of them",
          var, value.c_str(), c, kLetters, var);
    }
    mask |= bit;
  }
  return mask;
}

bool is_stream(const std::string &name) {
  return name == "-" || name == "stderr" || name == "stdout";
}

std::string expand(const std::string &name, uint32_t rank) {
  std::string out;
  for (char c : name) out += c == '%' ? std::to_string(rank) : std::string(1, c);
  return out;
}

// `shared`: every rank appends to the one file; rank 0 (first) truncates it.
FILE *open_output(const char *var, const std::string &value, uint32_t rank, bool shared) {
  if (value == "stdout") return stdout;
  if (is_stream(value)) return stderr;
  std::string path = expand(value, rank);
  // Never through a symbolic link (one planted in a shared folder would make
  // this process write wherever it points), never truncating a file that is
  // not this user's: opened without O_TRUNC, checked, then truncated.
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (shared ? O_APPEND : 0);
  int fd = ::open(path.c_str(), flags, 0666);
  struct stat link {};
  // ELOOP from O_NOFOLLOW, or EACCES where the kernel protects sticky folders.
  if (fd < 0 && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    util::fatal(
        "%s='%s': '%s' is a symbolic link, which gexx does not write through; name "
        "the file itself",
        var, value.c_str(), path.c_str());
  }
  struct stat st {};
  bool regular = fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular && st.st_uid != ::geteuid()) {
    ::close(fd);
    util::fatal(
        "%s='%s': '%s' belongs to another user, and gexx does not overwrite it; name a "
        "file of your own, or a new one",
        var, value.c_str(), path.c_str());
  }
  // A device or a pipe (/dev/null, a FIFO) is written as it is.
  if (regular && (!shared || rank == 0) && ::ftruncate(fd, 0) != 0) {
    ::close(fd);
    fd = -1;
  }
  FILE *f = fd >= 0 ? fdopen(fd, shared ? "a" : "w") : nullptr;
  if (!f) {
    util::fatal(
        "%s='%s': cannot write '%s' (%s); name a file in a folder you can write to ('%%' in "
        "the name becomes the rank), '-' for standard error, or unset %s",
        var, value.c_str(), path.c_str(), std::strerror(errno), var);
  }
  // Lines of several ranks in one file: each goes out whole, in one write.
  if (shared) setvbuf(f, nullptr, _IOLBF, 0);
  return f;
}

void emit(FILE *f, const std::string &line) {
  std::fwrite(line.data(), 1, line.size(), f);
  if (g_flush) std::fflush(f);
}

void header(FILE *f, const char *what, uint32_t ranks, const char *var, const char *letters) {
  emit(f, util::format("# gexx %s: rank %u of %u on %s, pid %d: %s\n# %s=%s\n", what, g_rank, ranks,
                       util::hostname().c_str(), static_cast<int>(getpid()),
                       program_invocation_name, var, letters));
}

std::string source_suffix() {
  if (!(g_trace_mask & kLine) || !tl_file) return "";
  return util::format(" [%s:%u]", tl_file, tl_line);
}

double seconds(uint64_t t) {
  return static_cast<double>(t - g_start) / 1e9;
}

void tally(Op op, uint64_t bytes, uint64_t ns) {
  Tally &t = g_tally[static_cast<unsigned>(op)];
  ++t.count;
  t.bytes += bytes;
  t.min = std::min(t.min, bytes);
  t.max = std::max(t.max, bytes);
  if (kTimed[static_cast<unsigned>(op)]) {
    t.ns_sum += ns;
    t.ns_min = std::min(t.ns_min, ns);
    t.ns_max = std::max(t.ns_max, ns);
  }
}

std::string summary(unsigned i) {
  const Tally &t = g_tally[i];
  std::string line =
      util::format("%u %s count=%llu bytes=%llu min=%llu avg=%.1f max=%llu", g_rank, kNames[i],
                   static_cast<unsigned long long>(t.count),
                   static_cast<unsigned long long>(t.bytes), static_cast<unsigned long long>(t.min),
                   static_cast<double>(t.bytes) / static_cast<double>(t.count),
                   static_cast<unsigned long long>(t.max));
  if (kTimed[i]) {
    line += util::format(" us_min=%.3f us_avg=%.3f us_max=%.3f", t.ns_min / 1e3,
                         static_cast<double>(t.ns_sum) / static_cast<double>(t.count) / 1e3,
                         t.ns_max / 1e3);
  }
  return line + "\n";
}

}  // namespace

uint64_t now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void init(uint32_t rank, uint32_t ranks, const std::function<void()> &job_barrier) {
  std::string trace_name = config::get_string("GASNET_TRACEFILE");
  std::string stats_name = config::get_string("GASNET_STATSFILE");
  uint32_t trace_mask = read_mask("GASNET_TRACEMASK") | kUser;
  uint32_t stats_mask = read_mask("GASNET_STATSMASK");
  g_flush = config::get_bool("GASNET_TRACEFLUSH");
  g_local = config::get_bool("GASNET_TRACELOCAL");
  g_rank = rank;
  g_start = now();
  auto shared = [&](const std::string &n) {
    return !n.empty() && ranks > 1 && !is_stream(n) && n.find('%') == std::string::npos;
  };
  auto open_all = [&] {
    if (!trace_name.empty())
      g_trace = open_output("GASNET_TRACEFILE", trace_name, rank, shared(trace_name));
    if (stats_name == trace_name)
      g_stats = g_trace;
    else if (!stats_name.empty())
      g_stats = open_output("GASNET_STATSFILE", stats_name, rank, shared(stats_name));
  };
  // Rank 0 truncates a shared file before anyone appends to it.
  bool any_shared = shared(trace_name) || shared(stats_name);
  if (any_shared && rank == 0) open_all();
  if (any_shared) job_barrier();
  if (!any_shared || rank != 0) open_all();
  if (!g_trace && !g_stats) return;
  g_trace_mask = trace_mask;
  g_stats_mask = stats_mask;
  spell(trace_mask & ~kUser, g_trace_letters);
  spell(stats_mask, g_stats_letters);
  if (g_trace) header(g_trace, "trace", ranks, "GASNET_TRACEMASK", g_trace_letters);
  if (g_stats && g_stats != g_trace)
    header(g_stats, "statistics", ranks, "GASNET_STATSMASK", g_stats_letters);
  std::atexit(finish);
  update_active();
}

namespace {
void callback_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  stats_vprintf(fmt, ap);
  va_end(ap);
}
}  // namespace

void finish() {
  if (g_finished.exchange(true)) return;
  // The client's GASNETT_STATS_INIT callback adds its lines first (it takes
  // the lock through stats_vprintf).
  if (g_stats && stats_callback) stats_callback(callback_printf);
  std::lock_guard<std::mutex> guard(g_lock);
  set_active(0);
  if (g_stats) {
    for (unsigned i = 0; i < kOps; ++i)
      if (g_tally[i].count) emit(g_stats, summary(i));
    std::fflush(g_stats);
  }
  if (g_trace) std::fflush(g_trace);
}

bool writes_line(Op op, int64_t peer) {
  uint32_t cat = category(op);
  return g_trace && (g_trace_mask & cat) &&
         (g_local || !(cat & kRma) || peer != static_cast<int64_t>(g_rank));
}

void record_decided(Op op, int64_t peer, uint64_t bytes, uint64_t start, const char *api,
                    bool traced, const std::string &detail) {
  uint32_t cat = category(op);
  uint64_t end = now();
  if (!start) start = end;
  std::string line;
  if (traced) {
    std::string peer_text = peer < 0 ? "-" : std::to_string(peer);
    line = util::format("%.6f %u %s peer=%s bytes=%llu", seconds(start), g_rank,
                        kNames[static_cast<unsigned>(op)], peer_text.c_str(),
                        static_cast<unsigned long long>(bytes));
    if (api) line += util::format(" api=%s", api);
    if (!detail.empty()) line += " " + detail;
    line += source_suffix() + "\n";
  }
  std::lock_guard<std::mutex> guard(g_lock);
  if (g_stats && (g_stats_mask & cat)) tally(op, bytes, end - start);
  if (traced) emit(g_trace, line);
}

bool detailed() {
  return g_trace && (g_trace_mask & kDetail);
}

void set_source_line(const char *file, unsigned line) {
  tl_file = file;
  tl_line = line;
}

void get_source_line(const char **file, unsigned *line) {
  if (file) *file = tl_file;
  if (line) *line = tl_line;
}

bool trace_enabled(char letter) {
  return g_trace && (g_trace_mask & bit_of(letter));
}

bool stats_enabled() {
  return g_stats != nullptr;
}

void trace_vprintf(uint32_t category, const char *fmt, va_list ap) {
  if (!g_trace || !(g_trace_mask & category)) return;
  std::string line = util::format("%.6f %u USER ", seconds(now()), g_rank) +
                     util::vformat(fmt, ap) + source_suffix() + "\n";
  std::lock_guard<std::mutex> guard(g_lock);
  emit(g_trace, line);
}

void stats_vprintf(const char *fmt, va_list ap) {
  if (!g_stats) return;
  std::string line = util::format("%u USER ", g_rank) + util::vformat(fmt, ap) + "\n";
  std::lock_guard<std::mutex> guard(g_lock);
  emit(g_stats, line);
}

const char *trace_mask() {
  return g_trace_letters;
}
const char *stats_mask() {
  return g_stats_letters;
}

void set_trace_mask(const char *letters) {
  uint32_t mask = kUser;
  for (const char *p = letters ? letters : ""; *p; ++p) mask |= bit_of(*p);
  std::lock_guard<std::mutex> guard(g_lock);
  g_trace_mask = mask;
  spell(mask & ~kUser, g_trace_letters);
  update_active();
}

void set_stats_mask(const char *letters) {
  uint32_t mask = 0;
  for (const char *p = letters ? letters : ""; *p; ++p) mask |= bit_of(*p);
  std::lock_guard<std::mutex> guard(g_lock);
  g_stats_mask = mask;
  spell(mask, g_stats_letters);
  update_active();
}

}  // namespace gexx::trace
