// Diagnostics: every message names the rank and host it comes from.
#pragma once

#include <string>

namespace gexx::util {

// Rank and host used in message prefixes once the job knows them.
void set_log_identity(long rank, const std::string &host);
std::string log_prefix();
// The same prefix from a static buffer, for signal handlers (no allocation).
const char *log_prefix_raw();
const std::string &hostname();

// Called by fatal() before the process ends, so the job can be told.
using FatalHook = void (*)(int exit_code, const std::string &message);
void set_fatal_hook(FatalHook hook);

constexpr int kFatalExitCode = 1;

[[noreturn]] void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void set_verbose(bool on);
bool verbose();
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  // only when verbose

}  // namespace gexx::util
