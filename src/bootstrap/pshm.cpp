#include "bootstrap/pshm.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/log.hpp"
#include "util/strings.hpp"

#ifndef GEXX_BUILD_GASNETRUN
#define GEXX_BUILD_GASNETRUN ""
#endif
#ifndef GEXX_INSTALL_GASNETRUN
#define GEXX_INSTALL_GASNETRUN ""
#endif

namespace gexx::bootstrap {

namespace {

std::string real_path(const std::string &path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool is_executable_file(const std::string &path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

// Ends the ranks already forked when the hand-over fails.
void end_children(const std::vector<pid_t> &pids) {
  for (pid_t pid : pids) ::kill(pid, SIGKILL);
  for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
}

}  // namespace

std::vector<std::string> gasnetrun_candidates() {
  std::vector<std::string> out;
  // Named by the user: that one or none.
  if (const char *env = std::getenv("GEXX_GASNETRUN"); env && *env) return {env};
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&gasnetrun_candidates), &info) && info.dli_fname) {
    std::string object = real_path(info.dli_fname);
    if (!object.empty() && object != real_path("/proc/self/exe")) {
      out.push_back(dir_of(object) + "/../bin/gasnetrun");
      out.push_back(dir_of(object) + "/gasnetrun");
    }
  }
  if (*GEXX_BUILD_GASNETRUN) out.emplace_back(GEXX_BUILD_GASNETRUN);
  if (*GEXX_INSTALL_GASNETRUN) out.emplace_back(GEXX_INSTALL_GASNETRUN);
  return out;
}

PshmRank fork_pshm_ranks(uint32_t ranks, bool verbose) {
  std::string gasnetrun;
  std::string tried;
  for (const auto &candidate : gasnetrun_candidates()) {
    if (is_executable_file(candidate)) {
      gasnetrun = candidate;
      break;
    }
    tried += (tried.empty() ? "" : ", ") + candidate;
  }
  if (gasnetrun.empty()) {
    util::fatal(
        "GASNET_PSHM_NODES=%u needs gasnetrun to supervise the ranks, and none was found "
        "(looked at: %s); set GEXX_GASNETRUN to its path, or start the job with "
        "gasnetrun -n %u",
        ranks, tried.empty() ? "nowhere" : tried.c_str(), ranks);
  }
  PshmRank me;
  random_bytes(me.secret, kSecretBytes);
  me.job_id = new_job_id();  // this process supervises the job once it execs gasnetrun
  int listen_fd = listen_abstract("gexx", me.address);
  if (listen_fd < 0) util::fatal("cannot open the bootstrap socket: %s", std::strerror(errno));

  sigset_t mask, old_mask;
  sigemptyset(&mask);
  for (int sig : kSupervisorSignals) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  // Descendants that outlive their rank come back to this process (and to
  // the gasnetrun it becomes), so none is orphaned.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  pid_t self = ::getpid();
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (uint32_t r = 0; r < ranks; ++r) {
    pid_t pid = ::fork();
    if (pid < 0) {
      int saved = errno;
      end_children(pids);
      util::fatal("cannot start rank %u: fork failed: %s", r, std::strerror(saved));
    }
    if (pid == 0) {
      // A rank: dies with the supervisor; keeps the program's own handlers.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != self) _exit(1);
      ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
      if (r != 0) {
        int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull >= 0) {
          ::dup2(devnull, STDIN_FILENO);
          ::close(devnull);
        }
      }
      ::close(listen_fd);
      me.rank = r;
      return me;
    }
    pids.push_back(pid);
  }
  // The original process hands the job to gasnetrun, keeping its pid, its
  // children and the listening socket.
  std::string pid_list;
  for (pid_t pid : pids) pid_list += (pid_list.empty() ? "" : ",") + std::to_string(pid);
  ::fcntl(listen_fd, F_SETFD, 0);
  ::setenv(kEnvPshmProtocol, std::to_string(kProtocolVersion).c_str(), 1);
  ::setenv(kEnvPshmFd, std::to_string(listen_fd).c_str(), 1);
  ::setenv(kEnvPshmAddress, me.address.c_str(), 1);
  ::setenv(kEnvPshmSecret, util::hex(me.secret, kSecretBytes).c_str(), 1);
  ::setenv(kEnvPshmJob, me.job_id.c_str(), 1);
  ::setenv(kEnvPshmPids, pid_list.c_str(), 1);
  if (verbose) ::setenv(kEnvPshmVerbose, "1", 1);
  // Its messages start with "gexx:", the name it runs under.
  char name[] = "gexx";
  char flag[64];
  std::snprintf(flag, sizeof flag, "%s", kSupervisePshmFlag);
  char *args[] = {name, flag, nullptr};
  ::execv(gasnetrun.c_str(), args);
  int saved = errno;
  end_children(pids);
  util::fatal("cannot run %s to supervise the GASNET_PSHM_NODES ranks: %s", gasnetrun.c_str(),
              std::strerror(saved));
}

}  // namespace gexx::bootstrap
