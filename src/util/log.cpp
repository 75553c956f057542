#include "util/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "util/debug.hpp"
#include "util/strings.hpp"

namespace gexx::util {

namespace {
long g_rank = -1;
std::string g_host;
FatalHook g_fatal_hook = nullptr;
bool g_verbose = false;
// One thread reports a fatal error; another that fails meanwhile waits for
// it to end the process, and a fatal error inside the report just exits.
std::atomic<bool> g_in_fatal{false};
thread_local bool t_in_fatal = false;
char g_prefix[320] = "gexx: ";

void emit(const char *kind, const char *fmt, va_list ap) {
  std::string msg = vformat(fmt, ap);
  std::string line = log_prefix() + kind + msg + "\n";
  // One write so lines from different ranks do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}
}  // namespace

const std::string &hostname() {
  if (g_host.empty()) {
    char buf[256] = {0};
    if (gethostname(buf, sizeof buf - 1) != 0) buf[0] = '\0';
    g_host = buf[0] ? buf : "localhost";
  }
  return g_host;
}

void set_log_identity(long rank, const std::string &host) {
  g_rank = rank;
  g_host = host;
  std::snprintf(g_prefix, sizeof g_prefix, "gexx: rank %ld on %s: ", g_rank, g_host.c_str());
}

std::string log_prefix() {
  return g_prefix;
}

const char *log_prefix_raw() {
  return g_prefix;
}

void set_fatal_hook(FatalHook hook) {
  g_fatal_hook = hook;
}

void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = vformat(fmt, ap);
  va_end(ap);
  std::string line = log_prefix() + "fatal error: " + msg + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  if (!t_in_fatal) {
    t_in_fatal = true;
    if (g_in_fatal.exchange(true)) {
      for (;;) pause();  // another thread is reporting; it ends the process
    }
    on_fatal_error();  // before the job is told, so a frozen rank keeps it alive
    if (g_fatal_hook) g_fatal_hook(kFatalExitCode, msg);
  }
  std::fflush(nullptr);
  _exit(kFatalExitCode);
}

void warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("warning: ", fmt, ap);
  va_end(ap);
}

void set_verbose(bool on) {
  g_verbose = on;
}
bool verbose() {
  return g_verbose;
}

void note(const char *fmt, ...) {
  if (!g_verbose) return;
  va_list ap;
  va_start(ap, fmt);
  emit("", fmt, ap);
  va_end(ap);
}

}  // namespace gexx::util
