// Crash diagnostics shared by the runtime (GASNET_BACKTRACE, GASNET_FREEZE,
// GASNET_FREEZE_ON_ERROR) and the tools API (gasnett_print_backtrace,
// gasnett_freezeForDebuggerNow, ...). Implemented in debug.cpp; every
// function writes with write(2) only and is safe to call from a handler for
// a fatal signal.
#pragma once

namespace gexx::util {

// Writes a symbolised backtrace of the calling thread to fd, one frame per
// line, each line starting with the log prefix (rank and host). Returns 0 on
// success, non-zero when no backtrace could be produced.
int print_backtrace(int fd);

// A client hook that produces a backtrace instead (gasnett_backtrace_user).
using UserBacktraceFn = int (*)(int fd);
void set_user_backtrace(UserBacktraceFn fn);

// Stops the calling process for a debugger: prints how to attach
// (host, pid, "gdb -p <pid>", and how to release: "set var
// gexx_frozen = 0" then "continue"), then spins until released. reason
// names what caused the freeze.
void freeze_for_debugger(const char *reason);

// Installs the fatal-signal handlers that honour GASNET_BACKTRACE and
// GASNET_FREEZE_ON_ERROR (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), once;
// called by the runtime at init and by the tools library's
// gasnett_backtrace_init.
void install_crash_handlers(const char *exe_name);

// Called by fatal() before the process ends: backtrace if GASNET_BACKTRACE,
// freeze if GASNET_FREEZE_ON_ERROR.
void on_fatal_error();

}  // namespace gexx::util
