// The local spawner (the spawner table's "local" row): forks the ranks of a
// job on this host, each execs the program, and this process serves their
// bootstrap through a Hub and supervises them until the last one is gone.
// Also the supervisor a GASNET_PSHM_NODES program execs (supervise_pshm).
#include "launcher/spawner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "launcher/hub.hpp"
#include "launcher/supervisor.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

namespace gexx::launcher {

namespace {

// In a freshly forked rank: die with the supervisor, restore signals. A rank
// that returns into the program keeps the handlers the program installed.
// System calls only: the local spawner runs it in a vfork child, which
// shares the launcher's memory until it execs.
void become_rank(pid_t supervisor, uint32_t rank, const sigset_t &old_mask, bool execs,
                 const rlimit *files) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (files) ::setrlimit(RLIMIT_NOFILE, files);
  if (::getppid() != supervisor) _exit(1);
  if (execs)
    for (int sig : kSupervisorSignals) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (rank != 0) {
    int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0) {
      ::dup2(devnull, STDIN_FILENO);
      ::close(devnull);
    }
  }
}

// What a rank's vfork child needs, all made before the fork.
struct RankExec {
  pid_t supervisor;
  const sigset_t *old_mask;
  const rlimit *files;
  int sigfd;
  const char *program;
  char *const *argv;
  char *const *envp;
  const char *exec_failed;  // "<who>: cannot run <program>: "
  size_t exec_failed_len;
};

// Starts rank `rank` (its GEXX_BOOT_RANK is in x.envp already); returns its
// pid, or -1 with errno set. The child shares this process's memory until
// execve, so it makes system calls only (no allocation, no stdio).
__attribute__((noinline)) pid_t spawn_rank(const RankExec &x, uint32_t rank) {
  pid_t pid = ::vfork();
  if (pid != 0) return pid;
  become_rank(x.supervisor, rank, *x.old_mask, true, x.files);
  ::close(x.sigfd);
  ::execve(x.program, x.argv, x.envp);
  const char *why = ::strerrordesc_np(errno);
  iovec line[3] = {{const_cast<char *>(x.exec_failed), x.exec_failed_len},
                   {const_cast<char *>(why ? why : "?"), why ? std::strlen(why) : 1},
                   {const_cast<char *>("\n"), 1}};
  ssize_t ignored = ::writev(STDERR_FILENO, line, 3);
  (void)ignored;
  _exit(127);
}

// RLIMIT_NPROC as a user would read it.
std::string process_limit_text() {
  rlimit nproc{};
  if (::getrlimit(RLIMIT_NPROC, &nproc) != 0) return "unknown";
  if (nproc.rlim_cur == RLIM_INFINITY) return "unlimited";
  return std::to_string(static_cast<unsigned long long>(nproc.rlim_cur));
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

// The local row of the spawner table: forks the ranks here, each execs the
// program, and this process supervises them.
int run_local_job(const JobOptions &o) {
  if (o.used_hosts > 1) {
    usage_error(o.who, "-N " + std::to_string(o.used_hosts) + ": the local spawner runs every " +
                           "rank on this host (--spawner ssh spreads them)");
  }
  // Under a process limit too low for the job, say so before starting any.
  rlimit nproc{};
  if (::getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY &&
      ::geteuid() != 0 && o.ranks >= nproc.rlim_cur) {
    say(o.who, util::format("cannot start %u ranks: the process limit is %s (ulimit -u), and "
                            "each rank is a process",
                            o.ranks, process_limit_text().c_str()));
    return 2;
  }
  // Files a launcher killed outright left behind (its job is over).
  sweep_orphaned_job_files();
  JobKeys keys = new_job_keys();
  const uint8_t *secret = keys.secret;
  const std::string &job_id = keys.id;

  // One descriptor per rank and a bounded number of connections not joined
  // yet: the soft limit is raised to the hard one here, and restored in the ranks.
  rlimit files{};
  bool raised_files = false;
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    rlimit raised = files;
    raised.rlim_cur = files.rlim_max;
    raised_files = ::setrlimit(RLIMIT_NOFILE, &raised) == 0;
  }
  Hub hub(o.ranks, secret, o.who, o.verbose);
  if (!hub.listen()) {
    say(o.who, util::format("cannot open the bootstrap socket: %s", std::strerror(errno)));
    return 1;
  }

  sigset_t mask, old_mask;
  sigemptyset(&mask);
  for (int sig : kSupervisorSignals) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  int sigfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

  // Descendants that outlive their rank come back to us, so none is orphaned.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  std::string secret_hex = util::hex(secret, kSecretBytes);
  pid_t self = ::getpid();
  std::fflush(nullptr);
  Supervisor sup(o, hub, sigfd, job_id);
  // Each rank's arguments and environment are made here, before its fork:
  // the child is a vfork child (no copy of the launcher's page tables, the
  // launcher resumes as soon as it execs), which may only make system calls.
  std::vector<char *> args;
  for (const auto &a : o.argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  auto var = [](const char *name, const std::string &value) {
    return std::string(name) + "=" + value;
  };
  std::vector<std::string> job_vars = {var(kEnvAddress, hub.address()), var(kEnvSecret, secret_hex),
                                       var(kEnvSize, std::to_string(o.ranks)),
                                       var(kEnvJob, job_id)};
  if (o.verbose) job_vars.push_back(var(kEnvVerbose, "1"));
  std::vector<char *> env;  // the launcher's, less what the ranks get from us
  for (char **e = environ; *e; ++e) {
    bool ours = std::string_view(*e).starts_with(std::string(kEnvRank) + "=");
    for (const auto &v : job_vars)
      ours = ours || std::string_view(*e).starts_with(v.substr(0, v.find('=') + 1));
    if (!ours) env.push_back(*e);
  }
  for (auto &v : job_vars) env.push_back(v.data());
  size_t rank_slot = env.size();
  env.push_back(nullptr);  // this rank's GEXX_BOOT_RANK
  env.push_back(nullptr);
  std::string exec_failed = o.who + ": cannot run " + o.program + ": ";
  RankExec rank_exec{self,       &old_mask,          raised_files ? &files : nullptr,
                     sigfd,      o.program.c_str(),  args.data(),
                     env.data(), exec_failed.data(), exec_failed.size()};
  if (o.verbose) {
    say(o.who, util::format("starting %u rank(s) of %s on %s (local spawner, bootstrap %s)",
                            o.ranks, o.program.c_str(), "this host", hub.address().c_str()));
  }
  for (uint32_t r = 0; r < o.ranks; ++r) {
    std::string rank_var = var(kEnvRank, std::to_string(r));
    env[rank_slot] = rank_var.data();
    pid_t pid = spawn_rank(rank_exec, r);
    if (pid < 0) {
      int error = errno;
      say(o.who, util::format("cannot start rank %u: %s; the process limit is %s", r,
                              std::strerror(error), process_limit_text().c_str()));
      sup.start_failed(2);  // the supervisor loop ends the ranks already started
      break;
    }
    sup.procs()[r].pid = pid;
    sup.procs()[r].alive = true;
    if (o.verbose) say(o.who, util::format("rank %u is pid %d", r, pid));
  }
  int code = sup.run();
  ::close(sigfd);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  return code;
}

// `gasnetrun --supervise-pshm`: this process was the program, which forked
// its ranks in bootstrap/pshm.cpp and then exec'd gasnetrun; the ranks are
// its children and connect to the listening socket it kept open.
int supervise_pshm(const std::string &who) {
  std::string protocol = take_env(kEnvPshmProtocol), fd_text = take_env(kEnvPshmFd);
  std::string address = take_env(kEnvPshmAddress), secret_hex = take_env(kEnvPshmSecret);
  std::string job_id = take_env(kEnvPshmJob), pid_list = take_env(kEnvPshmPids);
  bool verbose = !take_env(kEnvPshmVerbose).empty();
  std::vector<pid_t> pids;
  for (const auto &word : util::split(pid_list, ",")) {
    auto pid = config::parse_int(word);
    pids.push_back(pid && *pid > 0 ? static_cast<pid_t>(*pid) : -1);
  }
  std::vector<uint8_t> secret;
  auto fd = config::parse_int(fd_text);
  bool pids_ok = !pids.empty() && std::find(pids.begin(), pids.end(), -1) == pids.end();
  if (protocol != std::to_string(kProtocolVersion) || !fd || *fd < 0 || address.empty() ||
      !util::unhex(secret_hex, secret) || secret.size() != kSecretBytes || !pids_ok) {
    say(who, util::format("--supervise-pshm: the job handed over by a GASNET_PSHM_NODES program "
                          "is malformed or of another gexx version (protocol '%s', this "
                          "gasnetrun speaks %u); ending its ranks",
                          protocol.c_str(), kProtocolVersion));
    for (pid_t pid : pids)
      if (pid > 0) ::kill(pid, SIGKILL);
    return 1;
  }
  JobOptions o;
  o.ranks = static_cast<uint32_t>(pids.size());
  o.argv = {"(this program)"};
  o.verbose = verbose;
  o.who = who;
  o.exit_timeout_seconds = exit_timeout_seconds(o.ranks);
  o.init_timeout_seconds = config::get_seconds("GASNET_INIT_TIMEOUT");

  sweep_orphaned_job_files();
  Hub hub(o.ranks, secret.data(), o.who, o.verbose);
  hub.adopt(static_cast<int>(*fd), address);
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : kSupervisorSignals) sigaddset(&mask, sig);
  // Already blocked by the program before it forked; signals that arrived
  // since (a rank's SIGCHLD) are pending and reach the signalfd.
  ::sigprocmask(SIG_BLOCK, &mask, nullptr);
  int sigfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  Supervisor sup(o, hub, sigfd, job_id);
  if (o.verbose) {
    say(o.who, util::format("started %u rank(s) of %s on %s (GASNET_PSHM_NODES, bootstrap %s)",
                            o.ranks, o.argv[0].c_str(), "this host", hub.address().c_str()));
  }
  for (uint32_t r = 0; r < o.ranks; ++r) {
    sup.procs()[r].pid = pids[r];
    sup.procs()[r].alive = true;
    if (o.verbose) say(o.who, util::format("rank %u is pid %d", r, pids[r]));
  }
  int code = sup.run();
  ::close(sigfd);
  return code;
}

}  // namespace gexx::launcher
