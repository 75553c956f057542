// Crash diagnostics: backtraces, fatal-signal handlers and the freeze for a
// debugger. Everything a handler reaches writes with write(2) into fixed
// buffers; settings are read from the environment before a crash needs them.
#include "util/debug.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

// A debugger sets this to 0 to release a frozen rank.
extern "C" {
__attribute__((used)) volatile int gexx_frozen = 0;
}

namespace gexx::util {

namespace {

enum class Method { Addr2line, Gdb, Execinfo };

struct Settings {
  bool loaded = false;
  bool backtrace = false;
  bool freeze_on_error = false;
  Method order[3] = {Method::Addr2line, Method::Gdb, Method::Execinfo};
  int methods = 3;
};

Settings g_settings;
UserBacktraceFn g_user_backtrace = nullptr;
char g_exe[256] = "";
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr int kMaxFrames = 64;
constexpr int kAddr2lineSeconds = 10;
constexpr int kGdbSeconds = 30;

// Reads the settings outside any handler; a malformed value counts as unset
// here (validate_environment reports it).
const Settings &settings() {
  if (g_settings.loaded) return g_settings;
  auto flag = [](const char *name) {
    const char *v = std::getenv(name);
    return v && config::parse_bool(v).value_or(false);
  };
  g_settings.backtrace = flag("GASNET_BACKTRACE");
  g_settings.freeze_on_error = flag("GASNET_FREEZE_ON_ERROR");
  if (const char *types = std::getenv("GASNET_BACKTRACE_TYPE")) {
    int n = 0;
    for (const auto &t : split(types, ", ")) {
      std::string lt;
      for (char c : t) lt += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (n < 3 && lt == "addr2line") g_settings.order[n++] = Method::Addr2line;
      if (n < 3 && lt == "gdb") g_settings.order[n++] = Method::Gdb;
      if (n < 3 && lt == "execinfo") g_settings.order[n++] = Method::Execinfo;
    }
    if (n > 0) g_settings.methods = n;
  }
  if (!g_exe[0]) {
    ssize_t n = ::readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    g_exe[n > 0 ? n : 0] = '\0';
  }
  g_settings.loaded = true;
  return g_settings;
}

// A line assembled in a fixed buffer and written with one write(2).
class Line {
 public:
  explicit Line(bool prefixed = true) {
    if (prefixed) add(log_prefix_raw());
  }
  Line &add(const char *s) { return add(s, std::strlen(s)); }
  Line &add(const char *s, size_t len) {
    len = std::min(len, sizeof buf_ - 1 - n_);
    std::memcpy(buf_ + n_, s, len);
    n_ += len;
    return *this;
  }
  Line &num(unsigned long v) {
    char tmp[24];
    int i = sizeof tmp;
    do tmp[--i] = static_cast<char>('0' + v % 10);
    while ((v /= 10) != 0);
    return add(tmp + i, sizeof tmp - static_cast<size_t>(i));
  }
  Line &hex(uintptr_t v) {
    char tmp[24];
    int i = sizeof tmp;
    do tmp[--i] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    add("0x");
    return add(tmp + i, sizeof tmp - static_cast<size_t>(i));
  }
  const char *c_str() {
    buf_[n_] = '\0';
    return buf_;
  }
  // Starts another prefixed line in the same write.
  Line &next_line() { return add("\n").add(log_prefix_raw()); }
  template <size_t N>
  void copy_to(char (&dst)[N]) {
    size_t len = std::min(n_, N - 1);
    std::memcpy(dst, buf_, len);
    dst[len] = '\0';
  }
  void write_to(int fd) {
    buf_[n_] = '\n';
    const char *p = buf_;
    size_t left = n_ + 1;
    while (left > 0) {
      ssize_t w = ::write(fd, p, left);
      if (w <= 0) return;
      p += w;
      left -= static_cast<size_t>(w);
    }
  }

 private:
  char buf_[1024];
  size_t n_ = 0;
};

const char *signal_abbrev(int sig) {
  const char *a = sigabbrev_np(sig);
  return a ? a : "?";
}

const char *base_name(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// Runs argv with its standard output (and error) on a pipe, and hands each
// line to on_line; ends the child when it outlives `seconds`. Returns the
// number of lines read.
template <typename OnLine>
int run_child(char *const argv[], int seconds, OnLine &&on_line) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return 0;
  pid_t child = ::_Fork();  // no atfork handlers: the crash may hold malloc's lock
  if (child < 0) {
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    return 0;
  }
  if (child == 0) {
    ::dup2(pipefd[1], STDOUT_FILENO);
    ::dup2(pipefd[1], STDERR_FILENO);
    ::execvp(argv[0], argv);
    _exit(127);
  }
  ::close(pipefd[1]);
  timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  char buf[4096];
  size_t have = 0;
  int lines = 0;
  for (;;) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long left_ms = seconds * 1000L - (now.tv_sec - start.tv_sec) * 1000L -
                   (now.tv_nsec - start.tv_nsec) / 1000000L;
    pollfd p{pipefd[0], POLLIN, 0};
    if (left_ms <= 0 || ::poll(&p, 1, static_cast<int>(left_ms)) == 0) {
      ::kill(child, SIGKILL);
      break;
    }
    ssize_t n = ::read(pipefd[0], buf + have, sizeof buf - 1 - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    char *start_of_line = buf;
    while (char *nl = static_cast<char *>(
               std::memchr(start_of_line, '\n', have - static_cast<size_t>(start_of_line - buf)))) {
      *nl = '\0';
      on_line(start_of_line);
      ++lines;
      start_of_line = nl + 1;
    }
    have -= static_cast<size_t>(start_of_line - buf);
    std::memmove(buf, start_of_line, have);
    if (have == sizeof buf - 1) have = 0;  // an absurdly long line: drop it
  }
  ::close(pipefd[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
  return lines;
}

// The object holding `pc` and pc's address as addr2line wants it: relative
// to the load address for a shared object or PIE, absolute otherwise.
bool locate(void *pc, char (&object)[256], uintptr_t &address, const char *&symbol) {
  Dl_info info;
  if (!::dladdr(pc, &info) || !info.dli_fbase) return false;
  symbol = info.dli_sname;
  const auto *ehdr = static_cast<const ElfW(Ehdr) *>(info.dli_fbase);
  uintptr_t a = reinterpret_cast<uintptr_t>(pc);
  address = ehdr->e_type == ET_DYN ? a - reinterpret_cast<uintptr_t>(info.dli_fbase) : a;
  // The main program's name is argv[0], which may be relative; the child
  // reads it through this process's /proc entry instead.
  const char *name = info.dli_fname;
  Line path(false);
  if (name && name[0] == '/')
    path.add(name);
  else
    path.add("/proc/").num(static_cast<unsigned long>(::getpid())).add("/exe");
  path.copy_to(object);
  return true;
}

// One addr2line run per object; every frame gets "func at file:line".
// frames[exact] is the instruction a signal interrupted, after the signal
// trampoline; every later frame is a return address, which points after its
// call.
bool print_addr2line(int fd, void *const *frames, int n, int exact) {
  struct Frame {
    char object[256];
    uintptr_t address;
    const char *symbol;
    bool located, done;
    char text[512];
  };
  static Frame f[kMaxFrames];  // handlers run one at a time: entered guards it
  for (int i = 0; i < n; ++i) {
    void *pc = static_cast<char *>(frames[i]) - (i <= exact ? 0 : 1);
    f[i].object[0] = '\0';
    f[i].located = locate(pc, f[i].object, f[i].address, f[i].symbol);
    f[i].done = !f[i].located;
    f[i].text[0] = '\0';
  }
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (f[i].done) continue;
    char addresses[kMaxFrames][24];
    char *argv[kMaxFrames + 8] = {const_cast<char *>("addr2line"), const_cast<char *>("-f"),
                                  const_cast<char *>("-C"), const_cast<char *>("-e"), f[i].object};
    int argc = 5, which[kMaxFrames], count = 0;
    for (int j = i; j < n; ++j) {
      if (f[j].done || std::strcmp(f[j].object, f[i].object) != 0) continue;
      Line a(false);
      a.hex(f[j].address);
      a.copy_to(addresses[count]);
      argv[argc++] = addresses[count];
      which[count++] = j;
      f[j].done = true;
    }
    argv[argc] = nullptr;
    int line = 0;
    run_child(argv, kAddr2lineSeconds, [&](const char *text) {
      int k = line / 2;
      if (k >= count) return;
      Frame &fr = f[which[k]];
      Line t(false);
      if (line % 2 == 0) {
        t.add(std::strcmp(text, "??") == 0 && fr.symbol ? fr.symbol : text);
      } else {
        t.add(fr.text);
        if (std::strncmp(text, "??", 2) != 0 && text[0] != ':') t.add(" at ").add(text);
      }
      t.copy_to(fr.text);
      ++line;
    });
    any = any || line > 0;
  }
  if (!any) return false;
  for (int i = 0; i < n; ++i) {
    Line l;
    l.add("  #")
        .num(static_cast<unsigned long>(i))
        .add(" ")
        .hex(reinterpret_cast<uintptr_t>(frames[i]));
    if (f[i].text[0]) l.add(" in ").add(f[i].text);
    bool main_program = std::strncmp(f[i].object, "/proc/", 6) == 0 && g_exe[0];
    if (f[i].located) l.add(" (").add(base_name(main_program ? g_exe : f[i].object)).add(")");
    l.write_to(fd);
  }
  return true;
}

// gdb attached to this process prints every thread's stack.
bool print_gdb(int fd) {
  Line pid(false);
  pid.num(static_cast<unsigned long>(::getpid()));
  char pid_text[24];
  pid.copy_to(pid_text);
  char *argv[] = {const_cast<char *>("gdb"),
                  const_cast<char *>("-nx"),
                  const_cast<char *>("-batch"),
                  const_cast<char *>("-p"),
                  pid_text,
                  const_cast<char *>("-ex"),
                  const_cast<char *>("set pagination off"),
                  const_cast<char *>("-ex"),
                  const_cast<char *>("thread apply all bt"),
                  nullptr};
  ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);  // where Yama restricts ptrace
  bool frames = false;
  run_child(argv, kGdbSeconds, [&](const char *text) {
    if (text[0] != '#' && std::strncmp(text, "Thread ", 7) != 0) return;
    frames = true;
    Line l;
    l.add("  ").add(text).write_to(fd);
  });
  ::prctl(PR_SET_PTRACER, 0);
  return frames;
}

void print_execinfo(int fd, void *const *frames, int n) {
  for (int i = 0; i < n; ++i) {
    Line l;
    l.add("  #").num(static_cast<unsigned long>(i)).add(" ");
    // backtrace_symbols_fd ends the line itself.
    const char *text = l.c_str();
    ssize_t ignored = ::write(fd, text, std::strlen(text));
    (void)ignored;
    ::backtrace_symbols_fd(&frames[i], 1, fd);
  }
}

__attribute__((noinline)) int backtrace_from(int fd, int skip, int exact = -1) {
  if (g_user_backtrace) return g_user_backtrace(fd);
  const Settings &s = settings();
  void *frames[kMaxFrames + 4];
  int n = ::backtrace(frames, kMaxFrames + 4) - skip;
  if (n <= 0) return 1;
  Line head;
  head.add("backtrace of process ").num(static_cast<unsigned long>(::getpid()));
  if (g_exe[0]) head.add(" (").add(base_name(g_exe)).add(")");
  head.add(":").write_to(fd);
  for (int i = 0; i < s.methods; ++i) {
    if (s.order[i] == Method::Addr2line && print_addr2line(fd, frames + skip, n, exact)) return 0;
    if (s.order[i] == Method::Gdb && print_gdb(fd)) return 0;
    if (s.order[i] == Method::Execinfo) break;
  }
  print_execinfo(fd, frames + skip, n);
  return 0;
}

volatile sig_atomic_t g_in_crash = 0;

void crash_handler(int sig, siginfo_t *si, void *) {
  if (!g_in_crash) {
    g_in_crash = 1;
    const Settings &s = g_settings;
    Line l;
    l.add("caught fatal signal SIG").add(signal_abbrev(sig)).add(" (");
    l.add(sigdescr_np(sig) ? sigdescr_np(sig) : "?").add(")");
    if ((sig == SIGSEGV || sig == SIGBUS) && si->si_code > 0)  // a fault, not a kill
      l.add(" at address ").hex(reinterpret_cast<uintptr_t>(si->si_addr));
    l.add(" in process ").num(static_cast<unsigned long>(::getpid()));
    if (g_exe[0]) l.add(" (").add(base_name(g_exe)).add(")");
    if (!s.backtrace) l.add("; set GASNET_BACKTRACE=1 for a backtrace");
    l.write_to(STDERR_FILENO);
    if (s.backtrace) backtrace_from(STDERR_FILENO, 2, 1);  // after the signal trampoline
    if (s.freeze_on_error) {
      Line reason(false);
      reason.add("GASNET_FREEZE_ON_ERROR, after SIG").add(signal_abbrev(sig));
      freeze_for_debugger(reason.c_str());
    }
  }
  // The default action, so the launcher sees the rank die of this signal.
  ::signal(sig, SIG_DFL);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  ::raise(sig);
}

}  // namespace

__attribute__((noinline)) int print_backtrace(int fd) {
  int rc = backtrace_from(fd, 2);
  __asm__ __volatile__("" ::: "memory");  // keeps this frame: no tail call
  return rc;
}

void set_user_backtrace(UserBacktraceFn fn) {
  g_user_backtrace = fn;
}

void freeze_for_debugger(const char *reason) {
  gexx_frozen = 1;
  ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);  // any debugger of this user may attach
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  unsigned long pid = static_cast<unsigned long>(::getpid());
  Line l;
  l.add("frozen for a debugger (").add(reason).add("): process ").num(pid).add(" on ").add(host);
  l.next_line().add("  attach with: gdb -p ").num(pid);
  l.next_line().add("  then release it with: set var gexx_frozen = 0, then: continue");
  l.write_to(STDERR_FILENO);
  while (gexx_frozen) {
    timespec pause{0, 10 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
  ::prctl(PR_SET_PTRACER, 0);
}

void install_crash_handlers(const char *exe_name) {
  static bool installed = false;
  if (installed) return;
  installed = true;
  if (exe_name) std::strncpy(g_exe, exe_name, sizeof g_exe - 1);
  settings();
  // The first backtrace() loads libgcc, which allocates: not in a handler.
  void *warm[2];
  ::backtrace(warm, 2);
  // Room to run the handler when the crash is a stack overflow.
  constexpr size_t kAltStack = 256 * 1024;
  void *stack =
      ::mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack != MAP_FAILED) {
    stack_t ss{};
    ss.ss_sp = stack;
    ss.ss_size = kAltStack;
    ::sigaltstack(&ss, nullptr);
  }
  for (int sig : kFatalSignals) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_DFL) continue;  // the client handles it
    struct sigaction sa {};
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

void on_fatal_error() {
  static bool entered = false;
  if (entered) return;
  entered = true;
  const Settings &s = settings();
  if (s.backtrace) backtrace_from(STDERR_FILENO, 3);
  if (s.freeze_on_error) freeze_for_debugger("GASNET_FREEZE_ON_ERROR, after a fatal error");
}

}  // namespace gexx::util
