// The tools API's tracing and statistics entry points (GASNETT_TRACE_PRINTF,
// GASNETT_STATS_PRINTF, the source-line and mask macros, with GASNET_TRACE /
// GASNET_STATS compiled in).
//
// In a GASNet library they join the runtime's trace layer (src/util/trace):
// client lines land in the GASNET_TRACEFILE / GASNET_STATSFILE of the job,
// as USER lines, filtered by the masks. The tools-only libraries have no
// runtime: there each message is one line in the file GASNET_TRACEFILE
// (GASNET_STATSFILE) names ("stderr"/"-" and "stdout" name the streams), and
// nothing when it is unset; masks are not applied.
#include "tools/tools.hpp"

#include <cstdarg>
#include <cstring>
#include <mutex>
#include <string>

#include "util/strings.hpp"

extern "C" {
gasnett_stats_callback_t gasnett_stats_callback = nullptr;
}

#ifdef GEXX_TOOLS_LIBRARY

namespace {

struct Sink {
  const char *env;
  std::once_flag opened;
  FILE *file = nullptr;
};
Sink g_trace{"GASNET_TRACEFILE", {}, nullptr};
Sink g_stats{"GASNET_STATSFILE", {}, nullptr};

FILE *open_sink(Sink &s) {
  std::call_once(s.opened, [&s] {
    const char *name = std::getenv(s.env);
    if (!name || !*name) return;
    if (!std::strcmp(name, "stderr") || !std::strcmp(name, "-"))
      s.file = stderr;
    else if (!std::strcmp(name, "stdout"))
      s.file = stdout;
    else if (!(s.file = std::fopen(name, "a")))
      gasnett_fatalerror("%s=%s: cannot open the file: %s", s.env, name, std::strerror(errno));
  });
  return s.file;
}

void emit(Sink &s, const char *fmt, va_list ap) {
  FILE *f = open_sink(s);
  if (!f) return;
  std::string line = gexx::util::vformat(fmt, ap) + "\n";
  std::fwrite(line.data(), 1, line.size(), f);  // stdio locks the stream: lines stay whole
  std::fflush(f);
}

}  // namespace

extern "C" {

int gasnett_trace_enabled(void) {
  return open_sink(g_trace) != nullptr;
}

int gasnett_stats_enabled(void) {
  return open_sink(g_stats) != nullptr;
}

void gasnett_trace_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(g_trace, fmt, ap);
  va_end(ap);
}

void gasnett_trace_printf_force(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(g_trace, fmt, ap);
  va_end(ap);
}

void gasnett_stats_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(g_stats, fmt, ap);
  va_end(ap);
}

int gasnett_stats_init(gasnett_stats_callback_t callbackfn) {
  gasnett_stats_callback = callbackfn;
  return gasnett_stats_enabled();
}

namespace {
thread_local const char *tl_file = nullptr;
thread_local unsigned tl_line = 0;
}  // namespace

void gasnett_trace_setsourceline(const char *file, unsigned int line) {
  tl_file = file;
  tl_line = line;
}
void gasnett_trace_getsourceline(const char **pfile, unsigned int *pline) {
  if (pfile) *pfile = tl_file;
  if (pline) *pline = tl_line;
}
const char *gasnett_trace_getmask(void) {
  return "";
}
void gasnett_trace_setmask(const char *) {}
const char *gasnett_stats_getmask(void) {
  return "";
}
void gasnett_stats_setmask(const char *) {}

}  // extern "C"

#else  // a GASNet library: the runtime's trace layer

#include "util/trace.hpp"

extern "C" {

void gasnett_trace_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gexx::trace::trace_vprintf(gexx::trace::kHigh, fmt, ap);
  va_end(ap);
}

void gasnett_trace_printf_force(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gexx::trace::trace_vprintf(gexx::trace::kUser, fmt, ap);
  va_end(ap);
}

void gasnett_stats_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gexx::trace::stats_vprintf(fmt, ap);
  va_end(ap);
}

int gasnett_trace_enabled(void) {
  return gexx::trace::trace_enabled('H');
}

int gasnett_stats_enabled(void) {
  return gexx::trace::stats_enabled();
}

int gasnett_stats_init(gasnett_stats_callback_t callbackfn) {
  gasnett_stats_callback = callbackfn;
  gexx::trace::stats_callback = callbackfn;
  return gasnett_stats_enabled();
}

void gasnett_trace_setsourceline(const char *file, unsigned int line) {
  gexx::trace::set_source_line(file, line);
}
void gasnett_trace_getsourceline(const char **pfile, unsigned int *pline) {
  gexx::trace::get_source_line(pfile, pline);
}
const char *gasnett_trace_getmask(void) {
  return gexx::trace::trace_mask();
}
void gasnett_trace_setmask(const char *mask) {
  gexx::trace::set_trace_mask(mask);
}
const char *gasnett_stats_getmask(void) {
  return gexx::trace::stats_mask();
}
void gasnett_stats_setmask(const char *mask) {
  gexx::trace::set_stats_mask(mask);
}

}  // extern "C"

#endif
