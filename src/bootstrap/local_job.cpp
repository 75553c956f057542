#include "bootstrap/local_job.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "bootstrap/hub.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

namespace {

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

const char *signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  static thread_local char buf[32];
  std::snprintf(buf, sizeof buf, "SIG%s", abbrev ? abbrev : "?");
  return buf;
}

void say(const std::string &who, const std::string &text) {
  std::string line = who + ": " + text + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

constexpr int kHandledSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr double kKillEscalationSeconds = 0.5;
// After a rank exits, how long the others get to reach their own exit (the
// usual end of a program: a barrier, some output, exit on every rank) before
// they are sent SIGQUIT.
constexpr double kExitGraceSeconds = 0.5;

// Removes files a rank may have left in the short window between creating
// and unlinking a named shared-memory file (see transport/smp/shm_backing).
void sweep_job_files(const std::string &job_id) {
  std::vector<std::string> dirs = {"/dev/shm"};
  for (const char *var : {"GASNET_TMPDIR", "TMPDIR"}) {
    const char *v = std::getenv(var);
    if (v && *v) dirs.emplace_back(v);
  }
  dirs.emplace_back("/tmp");
  std::string prefix = "gexx-" + job_id + "-";
  for (const auto &dir : dirs) {
    DIR *d = ::opendir(dir.c_str());
    if (!d) continue;
    while (dirent *e = ::readdir(d)) {
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0)
        ::unlinkat(dirfd(d), e->d_name, 0);
    }
    ::closedir(d);
  }
}

struct RankProc {
  pid_t pid = -1;
  bool alive = false;
  bool ended_by_us = false;
};

class Supervisor {
 public:
  Supervisor(const LocalJobOptions &o, Hub &hub, int sigfd, std::string job_id)
      : o_(o), hub_(hub), sigfd_(sigfd), job_id_(std::move(job_id)), procs_(o.ranks) {}

  std::vector<RankProc> &procs() { return procs_; }
  int run();

 private:
  void reap();
  void on_signal(int sig);
  void end_all(int sig);
  void quit_all(int code, long except_rank);
  void begin_exit();
  void check_deadlines();
  void end_orphans();
  uint32_t alive() const {
    uint32_t n = 0;
    for (const auto &p : procs_) n += p.alive ? 1 : 0;
    return n;
  }

  const LocalJobOptions &o_;
  Hub &hub_;
  int sigfd_;
  std::string job_id_;
  std::vector<RankProc> procs_;
  std::optional<int> failure_;
  std::optional<Hub::ExitNotice> exit_;  // the exit that is ending the job
  std::optional<double> drain_deadline_;
  std::optional<double> kill_deadline_;
  std::optional<double> quit_deadline_;  // when the ranks left get SIGQUIT
  long first_clean_exit_rank_ = -1;
  bool abort_seen_ = false;
  bool quit_sent_ = false;
};

void Supervisor::end_all(int sig) {
  for (auto &p : procs_) {
    if (!p.alive) continue;
    ::kill(p.pid, sig);
    p.ended_by_us = true;
  }
  if (!kill_deadline_) kill_deadline_ = now_seconds() + kKillEscalationSeconds;
}

// Ranks that have joined get SIGQUIT carrying `code`, as GASNet promises, so a
// client handler can clean up; gexx's own handler exits at once. Ranks not
// joined yet have no handler and get SIGTERM. All are killed after the exit
// timeout.
void Supervisor::quit_all(int code, long except_rank) {
  quit_sent_ = true;
  quit_deadline_.reset();
  for (size_t r = 0; r < procs_.size(); ++r) {
    RankProc &p = procs_[r];
    if (!p.alive) continue;
    p.ended_by_us = true;
    if (static_cast<long>(r) == except_rank) continue;  // on its way out already
    long pid = hub_.joined_pid(static_cast<uint32_t>(r));
    if (pid > 0) {
      sigval value{};
      value.sival_int = code;
      ::sigqueue(static_cast<pid_t>(pid), SIGQUIT, value);
    } else {
      ::kill(p.pid, SIGTERM);
    }
  }
  double deadline = now_seconds() + o_.exit_timeout_seconds;
  if (!kill_deadline_ || *kill_deadline_ > deadline) kill_deadline_ = deadline;
}

// A rank announced its exit (gasnet_exit, exit() or a return from main): the
// job ends with its code, whatever the other ranks do meanwhile. They have
// kExitGraceSeconds to exit too, then get SIGQUIT.
void Supervisor::begin_exit() {
  if (exit_ || failure_ || !hub_.first_exit()) return;
  exit_ = *hub_.first_exit();
  if (exit_->code != 0 || o_.verbose) {
    say(o_.who, exit_->how == ExitHow::GasnetExit
                    ? util::format("rank %u called gasnet_exit(%d); ending the job", exit_->rank,
                                   exit_->code)
                    : util::format("rank %u exited with status %d; ending the job", exit_->rank,
                                   exit_->code));
  }
  for (auto &p : procs_)
    if (p.alive) p.ended_by_us = true;
  quit_deadline_ = now_seconds() + std::min(kExitGraceSeconds, o_.exit_timeout_seconds);
}

void Supervisor::on_signal(int sig) {
  if (sig == SIGCHLD) {
    reap();
    return;
  }
  if (!failure_) failure_ = 128 + sig;
  say(o_.who, util::format("received %s; ending the job", signal_name(sig)));
  quit_all(128 + sig, -1);
}

void Supervisor::reap() {
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (size_t r = 0; r < procs_.size(); ++r) {
      RankProc &p = procs_[r];
      if (p.pid != pid) continue;
      p.alive = false;
      hub_.drain();  // an exit or abort it announced may still be unread
      begin_exit();
      if (p.ended_by_us || exit_) break;
      bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (clean) {
        if (o_.verbose) say(o_.who, util::format("rank %zu (pid %d) exited with status 0", r, pid));
        if (first_clean_exit_rank_ < 0) first_clean_exit_rank_ = static_cast<long>(r);
        if (!drain_deadline_ && !kill_deadline_)
          drain_deadline_ = now_seconds() + o_.exit_timeout_seconds;
        break;
      }
      int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      bool announced = hub_.aborted(static_cast<uint32_t>(r));
      if (!failure_) failure_ = code;
      if (!announced) {
        say(o_.who, util::format("rank %zu (pid %d) %s; ending the job", r, pid,
                                 describe_status(status).c_str()));
      }
      end_all(SIGTERM);
      break;
    }
  }
}

void Supervisor::check_deadlines() {
  double now = now_seconds();
  if (quit_deadline_ && now >= *quit_deadline_) quit_all(exit_->code, exit_->rank);
  if (kill_deadline_ && now >= *kill_deadline_) {
    std::string list;
    for (size_t r = 0; r < procs_.size(); ++r) {
      if (!procs_[r].alive) continue;
      ::kill(procs_[r].pid, SIGKILL);
      procs_[r].ended_by_us = true;
      list += (list.empty() ? "" : ", ") + std::to_string(r);
    }
    if (!list.empty() && quit_sent_) {
      say(o_.who, util::format("rank(s) %s did not end within %.1f s; killing them "
                               "(GASNET_EXITTIMEOUT sets this wait)",
                               list.c_str(), o_.exit_timeout_seconds));
    }
    kill_deadline_ = now + 3600;  // already escalated
  }
  if (drain_deadline_ && !kill_deadline_ && now >= *drain_deadline_) {
    std::string list;
    for (size_t r = 0; r < procs_.size(); ++r)
      if (procs_[r].alive) list += (list.empty() ? "" : ", ") + std::to_string(r);
    say(o_.who, util::format("rank %ld exited %.1f s ago but rank(s) %s are still running; ending "
                             "them (GASNET_EXITTIMEOUT sets this wait)",
                             first_clean_exit_rank_, o_.exit_timeout_seconds, list.c_str()));
    end_all(SIGTERM);
  }
}

int Supervisor::run() {
  while (alive() > 0) {
    begin_exit();
    if (!abort_seen_ && hub_.abort_request()) {
      abort_seen_ = true;
      if (!failure_) failure_ = hub_.abort_request()->code ? hub_.abort_request()->code : 1;
      end_all(SIGTERM);
    }
    std::vector<pollfd> fds;
    fds.push_back({sigfd_, POLLIN, 0});
    hub_.collect_pollfds(fds);
    double now = now_seconds();
    double next = now + 1.0;
    if (kill_deadline_) next = std::min(next, *kill_deadline_);
    if (quit_deadline_) next = std::min(next, *quit_deadline_);
    if (drain_deadline_ && !kill_deadline_) next = std::min(next, *drain_deadline_);
    int timeout_ms = static_cast<int>(std::max(0.0, (next - now) * 1000.0)) + 1;
    int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) break;
    // Messages first: a rank's abort arrives before its exit is reaped, so
    // the launcher knows the rank already explained itself.
    for (size_t k = 1; k < fds.size(); ++k) hub_.handle(fds[k]);
    if (fds[0].revents) {
      signalfd_siginfo si;
      while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
        on_signal(static_cast<int>(si.ssi_signo));
    }
    reap();  // signalfd coalesces SIGCHLDs; never miss one
    check_deadlines();
  }
  end_orphans();
  sweep_job_files(job_id_);
  int code = failure_ ? *failure_ : (exit_ ? exit_->code : 0);
  if (o_.verbose) say(o_.who, util::format("job finished with exit code %d", code));
  return code;
}

// Processes the ranks started and left behind were re-parented to the
// supervisor (a child subreaper); they end with the job.
void Supervisor::end_orphans() {
  for (int sig : {SIGTERM, SIGKILL}) {
    bool any = false;
    DIR *d = ::opendir("/proc");
    if (!d) return;
    std::string self = std::to_string(::getpid());
    while (dirent *e = ::readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      FILE *f = std::fopen(("/proc/" + std::string(e->d_name) + "/stat").c_str(), "r");
      if (!f) continue;
      char buf[512] = {0};
      size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      const char *close_paren = std::strrchr(buf, ')');
      if (!n || !close_paren) continue;
      char state = 0;
      long ppid = 0;
      if (std::sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2) continue;
      if (ppid == ::getpid() && state != 'Z') {
        ::kill(static_cast<pid_t>(std::atol(e->d_name)), sig);
        any = true;
      }
    }
    ::closedir(d);
    if (!any) break;
    if (sig == SIGTERM) {
      if (o_.verbose) say(o_.who, "ending processes the ranks left behind");
      ::usleep(200 * 1000);
    }
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// In a freshly forked rank: die with the supervisor, restore signals. A rank
// that returns into the program keeps the handlers the program installed.
void become_rank(pid_t supervisor, uint32_t rank, const sigset_t &old_mask, bool execs) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != supervisor) _exit(1);
  if (execs)
    for (int sig : kHandledSignals) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (rank != 0) {
    int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0) {
      ::dup2(devnull, STDIN_FILENO);
      ::close(devnull);
    }
  }
}

}  // namespace

double exit_timeout_seconds(uint32_t ranks) {
  const char *fixed = std::getenv("GASNET_EXITTIMEOUT");
  if (fixed && *fixed) return config::get_seconds("GASNET_EXITTIMEOUT");
  double computed = config::get_seconds("GASNET_EXITTIMEOUT_MIN") +
                    config::get_seconds("GASNET_EXITTIMEOUT_FACTOR") * ranks;
  return std::min(config::get_seconds("GASNET_EXITTIMEOUT_MAX"), computed);
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return util::format("exited with status %d", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return util::format("was killed by signal %d (%s)%s", sig, signal_name(sig),
                        WCOREDUMP(status) ? ", core dumped" : "");
  }
  return util::format("ended with wait status %#x", status);
}

LocalJobResult run_local_job(const LocalJobOptions &o) {
  LocalJobResult result;
  random_bytes(result.secret, kSecretBytes);
  uint8_t id[4];
  random_bytes(id, sizeof id);
  result.job_id = util::hex(id, sizeof id);

  Hub hub(o.ranks, result.secret, o.who, o.verbose);
  if (!hub.listen()) {
    say(o.who, util::format("cannot open the bootstrap socket: %s", std::strerror(errno)));
    result.exit_code = 1;
    return result;
  }
  result.address = hub.address();

  sigset_t mask, old_mask;
  sigemptyset(&mask);
  for (int sig : kHandledSignals) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  int sigfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

  // Descendants that outlive their rank come back to us, so none is orphaned.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  std::string secret_hex = util::hex(result.secret, kSecretBytes);
  pid_t self = ::getpid();
  std::fflush(nullptr);
  Supervisor sup(o, hub, sigfd, result.job_id);
  if (o.verbose) {
    say(o.who, util::format("starting %u rank(s) of %s on %s (local spawner, bootstrap %s)",
                            o.ranks, o.program.empty() ? o.argv[0].c_str() : o.program.c_str(),
                            "this host", hub.address().c_str()));
  }
  for (uint32_t r = 0; r < o.ranks; ++r) {
    pid_t pid = ::fork();
    if (pid < 0) {
      say(o.who, util::format("cannot start rank %u: fork failed: %s", r, std::strerror(errno)));
      sup.procs()[r].alive = false;
      ::kill(self, SIGTERM);  // the supervisor loop ends the ranks already started
      break;
    }
    if (pid == 0) {
      become_rank(self, r, old_mask, !o.program.empty());
      ::close(sigfd);
      if (o.program.empty()) {
        hub.forget_in_child();
        result.is_rank = true;
        result.rank = r;
        return result;
      }
      ::setenv(kEnvAddress, hub.address().c_str(), 1);
      ::setenv(kEnvSecret, secret_hex.c_str(), 1);
      ::setenv(kEnvRank, std::to_string(r).c_str(), 1);
      ::setenv(kEnvSize, std::to_string(o.ranks).c_str(), 1);
      ::setenv(kEnvJob, result.job_id.c_str(), 1);
      if (o.verbose) ::setenv(kEnvVerbose, "1", 1);
      std::vector<char *> args;
      for (const auto &a : o.argv) args.push_back(const_cast<char *>(a.c_str()));
      args.push_back(nullptr);
      ::execv(o.program.c_str(), args.data());
      say(o.who, util::format("cannot run %s: %s", o.program.c_str(), std::strerror(errno)));
      _exit(127);
    }
    sup.procs()[r].pid = pid;
    sup.procs()[r].alive = true;
    if (o.verbose) say(o.who, util::format("rank %u is pid %d", r, pid));
  }
  result.exit_code = sup.run();
  ::close(sigfd);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  return result;
}

}  // namespace gexx::bootstrap
