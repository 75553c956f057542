// gasnetrun -spawner=mpi: runs the job under mpirun (or mpiexec, or
// GASNET_MPIRUN_CMD), whose PMIx server the ranks join; plus the helpers
// the pmi spawner shares (spawn_cmd.hpp).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "launcher/spawn_cmd.hpp"
#include "launcher/ssh_hosts.hpp"
#include "launcher/supervisor.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

extern char **environ;

namespace gexx::launcher {

std::string find_in_path(const std::vector<std::string> &names) {
  const char *path = std::getenv("PATH");
  for (const auto &name : names) {
    if (name.find('/') != std::string::npos) {
      if (::access(name.c_str(), X_OK) == 0) return name;
      continue;
    }
    for (const auto &dir : util::split(path ? path : "/usr/bin:/bin", ":")) {
      std::string candidate = dir + "/" + name;
      struct stat st;
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          ::access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
  }
  return "";
}

std::vector<std::string> command_words(const JobOptions &o, const char *knob,
                                       const std::vector<std::string> &fallback) {
  std::string text = config::get_string(knob);
  if (text.empty()) return fallback;
  auto words = ssh::split_words(text);
  if (!words || words->empty())
    usage_error(o.who, util::format("%s='%s' is not a command", knob, text.c_str()));
  return *words;
}

int run_launcher_command(const JobOptions &o, const std::vector<std::string> &argv,
                         const std::vector<std::pair<std::string, std::string>> &set_env,
                         const char *knob) {
  std::string path = find_in_path({argv[0]});
  if (path.empty()) {
    say(o.who, util::format("cannot run the job: '%s' was not found in PATH (%s names the "
                            "command)",
                            argv[0].c_str(), knob));
    return 127;
  }
  if (o.verbose) {
    std::string line;
    for (const auto &a : argv) line += (line.empty() ? "" : " ") + a;
    say(o.who, "running: " + line);
  }
  sigset_t mask, old_mask;
  sigemptyset(&mask);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child < 0) {
    say(o.who, util::format("cannot run %s: fork failed: %s", path.c_str(), std::strerror(errno)));
    return 1;
  }
  if (child == 0) {
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    for (const auto &[name, value] : set_env) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    ::execv(path.c_str(), args.data());
    std::fprintf(stderr, "%s: cannot run %s: %s\n", o.who.c_str(), path.c_str(),
                 std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  for (;;) {
    siginfo_t info;
    int sig = ::sigwaitinfo(&mask, &info);
    if (sig < 0) continue;
    if (sig != SIGCHLD) {
      if (o.verbose)
        say(o.who, util::format("passing %s to %s", signal_name(sig), argv[0].c_str()));
      ::kill(child, sig);
      continue;
    }
    pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) break;
  }
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  say(o.who, util::format("%s %s", argv[0].c_str(), describe_status(status).c_str()));
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

namespace {

// Variables the ranks need on every host: gexx's and GASNet's, and -E's.
std::vector<std::string> passed_names(const JobOptions &o) {
  std::vector<std::string> names;
  for (char **e = environ; *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (name.rfind("GASNET_", 0) == 0 || name.rfind("GEXX_", 0) == 0) names.push_back(name);
  }
  for (const auto &name : o.env_names)
    if (std::getenv(name.c_str())) names.push_back(name);
  return names;
}

bool is_open_mpi(const std::string &mpirun) {
  std::string path = find_in_path({mpirun});
  if (path.empty()) return false;
  std::string cmd = "'" + path + "' --version 2>/dev/null";
  FILE *p = ::popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[256];
  std::string out;
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  return out.find("Open MPI") != std::string::npos || out.find("OpenRTE") != std::string::npos;
}

}  // namespace

int run_mpi_spawner(const JobOptions &o) {
  std::string found = find_in_path({"mpirun", "mpiexec"});
  auto argv = command_words(o, "GASNET_MPIRUN_CMD", {found.empty() ? "mpirun" : found});
  bool ompi = is_open_mpi(argv[0]);
  std::vector<std::pair<std::string, std::string>> env = {{"GASNET_SPAWNFN", "M"}};
  if (o.verbose || config::get_bool("GASNET_VERBOSEENV"))
    env.emplace_back("GASNET_VERBOSEENV", "1");
  argv.insert(argv.end(), {"-n", std::to_string(o.ranks)});
  if (o.used_hosts > 0) {
    if (!ompi) usage_error(o.who, "-N with the mpi spawner needs Open MPI's mpirun");
    argv.insert(argv.end(),
                {"--map-by",
                 "ppr:" + std::to_string((o.ranks + o.used_hosts - 1) / o.used_hosts) + ":node"});
  }
  if (ompi) {
    // gasnetrun -n N runs N ranks whatever the cores, as the local spawner does.
    argv.emplace_back("--oversubscribe");
    for (const auto &name : passed_names(o))
      if (name != "GASNET_SPAWNFN" && name != "GASNET_VERBOSEENV")
        argv.insert(argv.end(), {"-x", name});
    for (const auto &[name, value] : env) argv.insert(argv.end(), {"-x", name});
  }
  argv.push_back(o.program);
  argv.insert(argv.end(), o.argv.begin() + 1, o.argv.end());
  return run_launcher_command(o, argv, env, "GASNET_MPIRUN_CMD");
}

}  // namespace gexx::launcher
