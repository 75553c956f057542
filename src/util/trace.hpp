// Tracing and statistics: GASNET_TRACEFILE / GASNET_TRACEMASK write one line
// per operation, GASNET_STATSFILE / GASNET_STATSMASK a summary per operation
// kind at exit (docs/tracing.md has both formats).
//
// Both are off by default. An instrumented operation then costs one load and
// one predictable branch; everything else is out of line:
//
//   if (trace::active(trace::kPut)) [[unlikely]] { ...the traced path... }
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <functional>
#include <string>

namespace gexx::trace {

// Categories, one bit per GASNet mask letter (kLetters[i] is bit i).
enum Category : uint32_t {
  kGet = 1u << 0,       // G: gets
  kPut = 1u << 1,       // P: puts and memsets
  kAtomic = 1u << 2,    // R: remote atomics
  kSync = 1u << 3,      // S: waits and tests of NB and NBI operations
  kColl = 1u << 4,      // W: collectives other than barriers
  kBarrier = 1u << 5,   // B: barriers
  kLock = 1u << 6,      // L: handler-safe locks
  kAm = 1u << 7,        // A: AM requests, replies and handler runs
  kPoll = 1u << 8,      // X: gasnet_AMPoll
  kInfo = 1u << 9,      // I: informational lines
  kObject = 1u << 10,   // O: objects created and destroyed
  kConduit = 1u << 11,  // C: conduit-specific lines
  kDetail = 1u << 12,   // D: addresses and AM arguments on each line
  kLine = 1u << 13,     // N: the client's source line on each line
  kHigh = 1u << 14,     // H: the client's own lines (GASNETT_TRACE_PRINTF)
  kUser = 1u << 15,     // U: client lines that every mask lets through
};
inline constexpr char kLetters[] = "GPRSWBLAXIOCDNHU";

// Operation kinds: (enumerator, name in the files, category, timed). Timed
// kinds block until the operation is complete; the statistics give their
// latency. AM kinds go request, reply, and Short, Medium, Long within each.
#define GEXX_TRACE_OPS(X)                               \
  X(Put, "PUT", kPut, true)                             \
  X(PutNB, "PUT_NB", kPut, false)                       \
  X(PutNBI, "PUT_NBI", kPut, false)                     \
  X(Get, "GET", kGet, true)                             \
  X(GetNB, "GET_NB", kGet, false)                       \
  X(GetNBI, "GET_NBI", kGet, false)                     \
  X(Memset, "MEMSET", kPut, true)                       \
  X(MemsetNB, "MEMSET_NB", kPut, false)                 \
  X(MemsetNBI, "MEMSET_NBI", kPut, false)               \
  X(AmReqShort, "AMREQ_SHORT", kAm, false)              \
  X(AmReqMedium, "AMREQ_MEDIUM", kAm, false)            \
  X(AmReqLong, "AMREQ_LONG", kAm, false)                \
  X(AmRepShort, "AMREP_SHORT", kAm, false)              \
  X(AmRepMedium, "AMREP_MEDIUM", kAm, false)            \
  X(AmRepLong, "AMREP_LONG", kAm, false)                \
  X(AmReqShortRun, "AMREQ_SHORT_HANDLER", kAm, false)   \
  X(AmReqMediumRun, "AMREQ_MEDIUM_HANDLER", kAm, false) \
  X(AmReqLongRun, "AMREQ_LONG_HANDLER", kAm, false)     \
  X(AmRepShortRun, "AMREP_SHORT_HANDLER", kAm, false)   \
  X(AmRepMediumRun, "AMREP_MEDIUM_HANDLER", kAm, false) \
  X(AmRepLongRun, "AMREP_LONG_HANDLER", kAm, false)     \
  X(BarrierNotify, "BARRIER_NOTIFY", kBarrier, false)   \
  X(BarrierWait, "BARRIER_WAIT", kBarrier, true)        \
  X(BarrierTry, "BARRIER_TRY", kBarrier, false)         \
  X(BarrierNB, "BARRIER_NB", kBarrier, false)           \
  X(SyncWait, "SYNC_WAIT", kSync, true)                 \
  X(SyncTry, "SYNC_TRY", kSync, false)                  \
  X(Poll, "AMPOLL", kPoll, false)

enum class Op : uint8_t {
#define GEXX_TRACE_ENUM(op, name, cat, timed) op,
  GEXX_TRACE_OPS(GEXX_TRACE_ENUM)
#undef GEXX_TRACE_ENUM
      Count
};

inline constexpr uint32_t kCategoryOf[] = {
#define GEXX_TRACE_CAT(op, name, cat, timed) cat,
    GEXX_TRACE_OPS(GEXX_TRACE_CAT)
#undef GEXX_TRACE_CAT
};
constexpr uint32_t category(Op op) {
  return kCategoryOf[static_cast<unsigned>(op)];
}

// The AM kinds: `reply` picks AMREP_*, `run` the *_HANDLER kinds;
// `am_category` is 0 Short, 1 Medium, 2 Long.
constexpr Op am_op(bool reply, unsigned am_category, bool run) {
  return static_cast<Op>(static_cast<unsigned>(run ? Op::AmReqShortRun : Op::AmReqShort) +
                         (reply ? 3 : 0) + am_category);
}

namespace detail {
// Categories traced or counted; 0 when both are off. Atomic (relaxed: a plain
// load) because masks change and finish() clears it while threads run.
extern std::atomic<uint32_t> g_active;
}  // namespace detail

// Called (under the trace lock) after the categories in effect change, so a
// cache of "nothing traced" (rma/inline_table.hpp, the poll's word in
// core/progress.cpp) follows them. A few listeners; adding one twice adds it
// once.
void add_active_listener(void (*listener)());

// The one test on every instrumented path.
inline bool active(uint32_t categories) {
  return __builtin_expect((detail::g_active.load(std::memory_order_relaxed) & categories) != 0, 0);
}

// Reads the four variables (and GASNET_TRACEFLUSH, GASNET_TRACELOCAL) and
// opens the files; a fatal error names the variable, the value and the fix.
// Collective when a file name without '%' is shared by the ranks: rank 0
// truncates it, `job_barrier` runs, then the others open it.
void init(uint32_t rank, uint32_t ranks, const std::function<void()> &job_barrier);
// Writes the statistics and flushes both files; the first call does it, at
// exit (normal return from main or gasnet_exit).
void finish();

// Nanoseconds on the trace clock (CLOCK_MONOTONIC).
uint64_t now();

// Whether recording `op` toward `peer` writes a trace line (its category is
// traced, and a loopback put or get is wanted).
bool writes_line(Op op, int64_t peer);
// What record() does once the line is decided: `detail` is used only when
// `line` is true.
void record_decided(Op op, int64_t peer, uint64_t bytes, uint64_t start, const char *api, bool line,
                    const std::string &detail);

// Records one operation begun at `start` (from now(); 0: now): a trace line
// when writes_line(), a count (and its latency, for timed kinds) when its
// category is counted. `peer` < 0: none; `api` may be null. `detail()`
// returns more key=value fields for the line; it is called only when a line
// is written, so counting alone formats nothing.
template <typename Detail>
void record(Op op, int64_t peer, uint64_t bytes, uint64_t start, const char *api, Detail &&detail) {
  bool line = writes_line(op, peer);
  record_decided(op, peer, bytes, start, api, line, line ? std::string(detail()) : std::string());
}
inline void record(Op op, int64_t peer, uint64_t bytes, uint64_t start, const char *api) {
  record_decided(op, peer, bytes, start, api, writes_line(op, peer), std::string());
}

// Whether D (addresses, AM arguments) is in the mask of a trace being written.
bool detailed();

// The client's source position, per thread, shown on trace lines when N is
// in the mask (GASNETT_TRACE_SETSOURCELINE / GETSOURCELINE).
void set_source_line(const char *file, unsigned line);
void get_source_line(const char **file, unsigned *line);

// The client's own lines (GASNETT_TRACE_PRINTF and friends): a USER trace
// line when `category` (kHigh or kUser) is traced; stats_vprintf writes a
// USER line into the statistics file.
bool trace_enabled(char letter);
bool stats_enabled();
void trace_vprintf(uint32_t category, const char *fmt, va_list ap);
void stats_vprintf(const char *fmt, va_list ap);

// The client's statistics callback (GASNETT_STATS_INIT), run by finish()
// with a printf that writes USER lines into the statistics file.
using StatsCallback = void (*)(void (*stats_printf)(const char *fmt, ...));
inline StatsCallback stats_callback = nullptr;

// The masks in effect as letters, and changing them while running
// (GASNETT_TRACE_GETMASK / SETMASK; only letters of kLetters count).
const char *trace_mask();
const char *stats_mask();
void set_trace_mask(const char *letters);
void set_stats_mask(const char *letters);

}  // namespace gexx::trace
