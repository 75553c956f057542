// The tools API's tracing and statistics entry points (GASNETT_TRACE_PRINTF,
// GASNETT_STATS_PRINTF with GASNET_TRACE / GASNET_STATS compiled in). Until
// they join src/util/trace they write each message as one line to the file
// GASNET_TRACEFILE (GASNET_STATSFILE) names ("stderr" and "stdout" name the
// streams), and nothing when it is unset.
// joins src/util/trace
#include "tools/tools.hpp"

#include <cstdarg>
#include <cstring>
#include <mutex>
#include <string>

#include "util/strings.hpp"

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

gasnett_stats_callback_t gasnett_stats_callback = nullptr;

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

}  // extern "C"
