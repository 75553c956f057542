// Fatal errors, backtraces and debugger attach of the tools API: thin
// wrappers over the crash diagnostics the runtime uses (util/debug.hpp), so
// GASNET_BACKTRACE, GASNET_FREEZE and GASNET_FREEZE_ON_ERROR mean the same
// for tools-only programs as for GASNet ones.
#include "tools/tools.hpp"

#include <unistd.h>

#include <cstdarg>
#include <string>

#include "util/debug.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

// Defined by a client that brings its own backtrace mechanism; weak, so a
// program without one still links.
extern "C" __attribute__((weak)) gasnett_backtrace_type_t gasnett_backtrace_user;

namespace {

int print_backtrace_if_enabled(int fd) {
  if (!gasnett_getenv_yesno_withdefault("GASNET_BACKTRACE", 0)) return 1;
  return gasnett_print_backtrace(fd);
}

}  // namespace

extern "C" {

int (*gasnett_print_backtrace_ifenabled)(int fd) = print_backtrace_if_enabled;

void gasnett_fatalerror(const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  std::string line =
      gexx::util::log_prefix() + "fatal error: " + gexx::util::vformat(msg, ap) + "\n";
  va_end(ap);
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  gexx::util::on_fatal_error();
  std::fflush(nullptr);
  // The crash handlers would report the abort a second time.
  signal(SIGABRT, SIG_DFL);
  std::abort();
}

void gasnett_backtrace_init(const char *exename) {
  if (&gasnett_backtrace_user && gasnett_backtrace_user.fnp)
    gexx::util::set_user_backtrace(gasnett_backtrace_user.fnp);
  gexx::util::install_crash_handlers(exename);
}

int gasnett_print_backtrace(int fd) {
  return gexx::util::print_backtrace(fd);
}

void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname) {
  // The freeze spins on gexx_frozen; the client's flag says it happened.
  *flag = 1;
  gexx::util::freeze_for_debugger(
      gexx::util::format("gasnett_freezeForDebuggerNow (client flag %s)", flagsymname).c_str());
  *flag = 0;
}

void gasnett_freezeForDebuggerErr(void) {
  if (gasnett_getenv_yesno_withdefault("GASNET_FREEZE_ON_ERROR", 0))
    gexx::util::freeze_for_debugger("gasnett_freezeForDebuggerErr");
}

}  // extern "C"
