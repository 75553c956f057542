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
#include "bootstrap/supervisor.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

namespace gexx::bootstrap {

namespace {

constexpr int kHandledSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};

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
