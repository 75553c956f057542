#include "launcher/supervisor.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "util/strings.hpp"

namespace gexx::launcher {

namespace {
constexpr double kKillEscalationSeconds = 0.5;
// After a rank announces its exit, a rank that has not announced its own
// gets SIGQUIT once it has had kExitCpuSeconds of CPU since (it is
// computing or spinning, not leaving) or sleeps in a call (waiting for
// something), but not before kExitHoldoffSeconds,
// and at the latest kExitBoundSeconds after the first exit. A rank of a
// collective exit that the scheduler has not run yet (a loaded host) is so
// not cut short before its last output; a non-collective exit ends as soon
// as the others have run a little. The bound is a bound, not a wait.
constexpr double kExitHoldoffSeconds = 0.05;
constexpr double kExitCpuSeconds = 0.02;
constexpr double kExitBoundSeconds = 0.5;
constexpr double kExitRecheckSeconds = 0.01;

// The scheduler state of the process's main thread ('R' runnable, 'S'
// sleeping in a call, ...), or 0 if unknown.
char run_state(pid_t pid) {
  char path[64], buf[512] = {0};
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE *f = std::fopen(path, "r");
  if (!f) return 0;
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const char *close_paren = n ? std::strrchr(buf, ')') : nullptr;
  return close_paren && close_paren[1] == ' ' ? close_paren[2] : 0;
}

// CPU time in ns the process's main thread has had, or -1 if unknown.
long long cpu_ns(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/schedstat", static_cast<int>(pid));
  if (FILE *f = std::fopen(path, "r")) {
    unsigned long long ns = 0;
    bool ok = std::fscanf(f, "%llu", &ns) == 1;
    std::fclose(f);
    if (ok) return static_cast<long long>(ns);
  }
  return -1;
}
}  // namespace

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

namespace {
// Where a job's named files may be.
std::vector<std::string> job_file_dirs() {
  std::vector<std::string> dirs = {"/dev/shm"};
  for (const char *var : {"GASNET_TMPDIR", "TMPDIR"}) {
    const char *v = std::getenv(var);
    if (v && *v) dirs.emplace_back(v);
  }
  dirs.emplace_back("/tmp");
  return dirs;
}

}  // namespace

// Removes files a rank may have left in the short window between creating
// and unlinking a named shared-memory file (see transport/smp/shm_backing).
void sweep_job_files(const std::string &job_id) {
  std::vector<std::string> dirs = job_file_dirs();
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

namespace {
// The (device, inode) of every file some live process maps or holds open,
// among `wanted`.
std::set<std::pair<dev_t, ino_t>> files_in_use(const std::set<std::pair<dev_t, ino_t>> &wanted) {
  std::set<std::pair<dev_t, ino_t>> used;
  DIR *proc = ::opendir("/proc");
  if (!proc) return wanted;  // cannot tell: treat every one as in use
  while (dirent *e = ::readdir(proc)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string base = std::string("/proc/") + e->d_name;
    // Mappings: "start-end perms offset dev inode path"; dev in hex major:minor.
    if (FILE *f = std::fopen((base + "/maps").c_str(), "r")) {
      char line[4096];
      while (std::fgets(line, sizeof line, f)) {
        unsigned major = 0, minor = 0;
        unsigned long long inode = 0;
        if (std::sscanf(line, "%*s %*s %*s %x:%x %llu", &major, &minor, &inode) != 3 || !inode)
          continue;
        for (const auto &w : wanted)
          if (w.second == inode && ::major(w.first) == major && ::minor(w.first) == minor)
            used.insert(w);
      }
      std::fclose(f);
    }
    if (DIR *fds = ::opendir((base + "/fd").c_str())) {
      while (dirent *fe = ::readdir(fds)) {
        if (fe->d_name[0] == '.') continue;
        struct stat st;
        if (::fstatat(dirfd(fds), fe->d_name, &st, 0) != 0) continue;
        if (wanted.count({st.st_dev, st.st_ino})) used.insert({st.st_dev, st.st_ino});
      }
      ::closedir(fds);
    }
  }
  ::closedir(proc);
  return used;
}
}  // namespace

int sweep_orphaned_job_files() {
  struct Candidate {
    std::string dir, name;
    dev_t dev;
    ino_t ino;
  };
  std::vector<Candidate> candidates;
  for (const auto &dir : job_file_dirs()) {
    DIR *d = ::opendir(dir.c_str());
    if (!d) continue;
    while (dirent *e = ::readdir(d)) {
      if (std::strncmp(e->d_name, "gexx-", 5) != 0) continue;
      std::string name = e->d_name;
      size_t dash = name.find('-', 5);
      if (dash == std::string::npos) continue;
      struct stat st;
      if (::fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;  // never another user's
      long pid = job_id_pid(name.substr(5, dash - 5));
      // The job's supervisor still runs (or its pid was reused): not ours to judge.
      if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;
      candidates.push_back({dir, name, st.st_dev, st.st_ino});
    }
    ::closedir(d);
  }
  if (candidates.empty()) return 0;
  // A job of another host's launcher (ssh spawner) has its ranks here: they
  // map their files, or hold them open from the moment they create them.
  std::set<std::pair<dev_t, ino_t>> wanted;
  for (const auto &c : candidates) wanted.insert({c.dev, c.ino});
  auto used = files_in_use(wanted);
  int removed = 0;
  for (const auto &c : candidates) {
    if (used.count({c.dev, c.ino})) continue;
    std::string path = c.dir + "/" + c.name;
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && st.st_dev == c.dev && st.st_ino == c.ino &&
        ::unlink(path.c_str()) == 0)
      ++removed;
  }
  return removed;
}

// Processes the ranks started and left behind were re-parented to the
// supervisor (a child subreaper); they end with the job.
void end_orphans(const std::string &who, bool verbose) {
  for (int sig : {SIGTERM, SIGKILL}) {
    bool any = false;
    DIR *d = ::opendir("/proc");
    if (!d) return;
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
      if (verbose) say(who, "ending processes the ranks left behind");
      ::usleep(200 * 1000);
    }
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

void Supervisor::send(uint32_t rank, int sig, std::optional<int> value, long pid) {
  RankProc &p = procs_[rank];
  if (p.remote) {
    remote_->signal(rank, sig, value, pid);
    return;
  }
  pid_t target = pid > 0 ? static_cast<pid_t>(pid) : p.pid;
  if (value) {
    sigval v{};
    v.sival_int = *value;
    ::sigqueue(target, sig, v);
  } else {
    ::kill(target, sig);
  }
}

void Supervisor::end_all(int sig) {
  for (size_t r = 0; r < procs_.size(); ++r) {
    if (!procs_[r].alive) continue;
    send(static_cast<uint32_t>(r), sig);
    procs_[r].ended_by_us = true;
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
    // On their way out already: they announced their own exit.
    if (static_cast<long>(r) == except_rank || hub_.exiting(static_cast<uint32_t>(r))) continue;
    long pid = hub_.joined_pid(static_cast<uint32_t>(r));
    if (pid > 0)
      send(static_cast<uint32_t>(r), SIGQUIT, code, pid);
    else
      send(static_cast<uint32_t>(r), SIGTERM);
  }
  double deadline = now_seconds() + o_.exit_timeout_seconds;
  if (!kill_deadline_ || *kill_deadline_ > deadline) kill_deadline_ = deadline;
}

// A rank announced its exit (gasnet_exit, exit() or a return from main): the
// job ends with its code, whatever the other ranks do meanwhile. Those that
// have not announced their own exit kExitHoldoffSeconds later get SIGQUIT.
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
  exit_began_ = now_seconds();
  for (auto &p : procs_) {
    if (!p.alive) continue;
    p.ended_by_us = true;
    if (!p.remote) p.exit_cpu = cpu_ns(p.pid);
  }
  quit_deadline_ = exit_began_ + std::min(kExitHoldoffSeconds, o_.exit_timeout_seconds);
  init_deadline_.reset();
}

// Sends the exit's SIGQUIT to each rank now due one (see kExitCpuSeconds).
void Supervisor::quit_due(double now) {
  bool waiting = false;
  double bound = exit_began_ + std::min(kExitBoundSeconds, o_.exit_timeout_seconds);
  for (size_t r = 0; r < procs_.size(); ++r) {
    RankProc &p = procs_[r];
    auto rank = static_cast<uint32_t>(r);
    if (!p.alive || p.quit || rank == exit_->rank || hub_.exiting(rank)) continue;
    // Runnable but hardly run since the exit began: it may be on its way to
    // its own exit, and gets the chance to leave by itself. A rank asleep in
    // a call (a bootstrap exchange, a sleep) or computing is not.
    long long cpu = p.remote || p.exit_cpu < 0 ? -1 : cpu_ns(p.pid);
    if (now < bound && cpu >= 0 && cpu - p.exit_cpu < kExitCpuSeconds * 1e9 &&
        run_state(p.pid) == 'R') {
      waiting = true;
      continue;
    }
    p.quit = true;
    quit_sent_ = true;
    long pid = hub_.joined_pid(rank);
    if (pid > 0)
      send(rank, SIGQUIT, exit_->code, pid);
    else
      send(rank, SIGTERM);
    double deadline = now + o_.exit_timeout_seconds;
    if (!kill_deadline_ || *kill_deadline_ < deadline) kill_deadline_ = deadline;
  }
  if (waiting)
    quit_deadline_ = now + kExitRecheckSeconds;
  else
    quit_deadline_.reset();
}

void Supervisor::start_failed(int code) {
  if (!failure_) failure_ = code;
  init_deadline_.reset();
  end_all(SIGTERM);
}

// Ranks that have not joined by GASNET_INIT_TIMEOUT never will, as far as the
// job is concerned: they are named and the job ends with status 1.
void Supervisor::init_expired() {
  init_deadline_.reset();
  std::string list;
  for (size_t r = 0; r < procs_.size(); ++r)
    if (!hub_.joined_ever(static_cast<uint32_t>(r)) && procs_[r].alive)
      list += (list.empty() ? "" : ", ") + std::to_string(r);
  if (list.empty()) return;
  say(o_.who, util::format("rank(s) %s did not join the job within %g s of its start (did they "
                           "call gasnet_init?); ending the job (GASNET_INIT_TIMEOUT sets this "
                           "wait)",
                           list.c_str(), o_.init_timeout_seconds));
  if (!failure_) failure_ = 1;
  end_all(SIGTERM);
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
    bool rank = false;
    for (size_t r = 0; r < procs_.size(); ++r) {
      if (procs_[r].remote || procs_[r].pid != pid || !procs_[r].alive) continue;
      rank_ended(static_cast<uint32_t>(r), pid, status);
      rank = true;
      break;
    }
    if (!rank && remote_) remote_->child_ended(pid, status);
  }
}

void Supervisor::rank_ended(uint32_t r, pid_t pid, int status) {
  RankProc &p = procs_[r];
  p.alive = false;
  if (p.ended_by_us && WIFSIGNALED(status)) forced_ = true;
  hub_.drain();  // an exit or abort it announced may still be unread
  begin_exit();
  if (p.ended_by_us || exit_) return;
  bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (clean) {
    if (o_.verbose) say(o_.who, util::format("rank %u (pid %d) exited with status 0", r, pid));
    if (first_clean_exit_rank_ < 0) first_clean_exit_rank_ = static_cast<long>(r);
    if (!drain_deadline_ && !kill_deadline_)
      drain_deadline_ = now_seconds() + o_.exit_timeout_seconds;
    return;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  bool announced = hub_.aborted(r);
  if (!failure_) failure_ = code;
  if (!announced) {
    say(o_.who, util::format("rank %u (pid %d) %s; ending the job", r, pid,
                             describe_status(status).c_str()));
  }
  end_all(SIGTERM);
}

// The ranks of a lost host are beyond reach: they are counted as gone (their
// agent ends them when it stops hearing from the launcher).
void Supervisor::host_lost(const RemoteEvent &e) {
  bool had_live_ranks = false;
  for (size_t r = 0; r < procs_.size(); ++r) {
    if (procs_[r].remote && procs_[r].alive && procs_[r].host == e.host) {
      procs_[r].alive = false;
      had_live_ranks = true;
    }
  }
  if (!had_live_ranks) return;
  hub_.drain();
  begin_exit();
  if (exit_ && !failure_) return;  // the job was ending anyway
  if (!failure_) failure_ = e.code;
  say(o_.who, e.why + "; ending the job");
  end_all(SIGTERM);
}

void Supervisor::check_deadlines() {
  double now = now_seconds();
  if (quit_deadline_ && now >= *quit_deadline_) quit_due(now);
  if (kill_deadline_ && now >= *kill_deadline_) {
    std::string list;
    for (size_t r = 0; r < procs_.size(); ++r) {
      if (!procs_[r].alive) continue;
      send(static_cast<uint32_t>(r), SIGKILL);
      procs_[r].ended_by_us = true;
      list += (list.empty() ? "" : ", ") + std::to_string(r);
    }
    if (!list.empty()) forced_ = true;
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
    forced_ = true;
    end_all(SIGTERM);
  }
  if (init_deadline_ && now >= *init_deadline_) init_expired();
}

int Supervisor::run() {
  if (o_.init_timeout_seconds > 0 && !failure_)
    init_deadline_ = now_seconds() + o_.init_timeout_seconds;
  while (alive() > 0) {
    if (init_deadline_ && (hub_.joined_count() == procs_.size() || kill_deadline_))
      init_deadline_.reset();
    begin_exit();
    if (!abort_seen_ && hub_.abort_request()) {
      abort_seen_ = true;
      // A rank that fails once the job is ending (a peer already gone under
      // it, say) has said why on its own; the job keeps the exit's code and
      // the exit's schedule.
      if (!exit_) {
        if (!failure_) failure_ = hub_.abort_request()->code ? hub_.abort_request()->code : 1;
        end_all(SIGTERM);
      }
    }
    std::vector<pollfd> fds;
    fds.push_back({sigfd_, POLLIN, 0});
    hub_.collect_pollfds(fds);
    size_t hub_end = fds.size();
    if (remote_) remote_->collect_pollfds(fds);
    double now = now_seconds();
    double next = now + 1.0;
    next = std::min(next, hub_.tick(now));
    if (remote_) next = std::min(next, remote_->tick(now));
    if (kill_deadline_) next = std::min(next, *kill_deadline_);
    if (quit_deadline_) next = std::min(next, *quit_deadline_);
    if (drain_deadline_ && !kill_deadline_) next = std::min(next, *drain_deadline_);
    if (init_deadline_) next = std::min(next, *init_deadline_);
    int timeout_ms = static_cast<int>(std::max(0.0, (next - now) * 1000.0)) + 1;
    int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) break;
    // Messages first: a rank's abort arrives before its exit is reaped, so
    // the launcher knows the rank already explained itself.
    for (size_t k = 1; k < hub_end; ++k) hub_.handle(fds[k]);
    for (size_t k = hub_end; k < fds.size(); ++k) remote_->handle(fds[k]);
    if (fds[0].revents) {
      signalfd_siginfo si;
      while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
        on_signal(static_cast<int>(si.ssi_signo));
    }
    reap();  // signalfd coalesces SIGCHLDs; never miss one
    if (remote_) {
      for (const auto &e : remote_->take_events()) {
        if (e.kind == RemoteEvent::Kind::RankEnded) {
          if (procs_[e.rank].alive) rank_ended(e.rank, static_cast<pid_t>(e.pid), e.status);
        } else {
          host_lost(e);
        }
      }
    }
    check_deadlines();
  }
  if (remote_) remote_->finish();
  end_orphans(o_.who, o_.verbose);
  sweep_job_files(job_id_);
  int code = failure_ ? *failure_ : (exit_ ? exit_->code : 0);
  if (code == 0 && forced_) {
    say(o_.who,
        "the launcher had to end rank(s) that did not end by themselves; the job "
        "returns 1, not 0");
    code = 1;
  }
  if (o_.verbose) say(o_.who, util::format("job finished with exit code %d", code));
  return code;
}

}  // namespace gexx::launcher
