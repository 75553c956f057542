// gasnetrun: starts a job of N ranks and supervises it to the end.
//
//   gasnetrun -n N [-E VAR,...] [-v] [--] program [args...]
//
// Exit status: the job's (see docs/launching.md); 2 for bad usage.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bootstrap/local_job.hpp"
#include "bootstrap/ssh_hosts.hpp"
#include "bootstrap/ssh_job.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

namespace {

std::string g_name = "gasnetrun";

const char *kUsage =
    "usage: %s -n N [-N HOSTS] [--spawner local|ssh] [-E VAR,...] [-v] [--] program "
    "[args...]\n"
    "\n"
    "Starts N ranks of program and returns the job's exit status.\n"
    "\n"
    "  -n N, -np N   number of ranks (1 or more)\n"
    "  -N HOSTS      ssh spawner: run on the first HOSTS hosts, in blocks of ranks\n"
    "                (default: every host, ranks dealt round-robin)\n"
    "  --spawner S   local (fork here, the default) or ssh (the hosts of\n"
    "                GASNET_SSH_SERVERS or GASNET_SSH_NODEFILE); GASNET_SPAWNFN=L|S\n"
    "  -E VAR,...    environment variables the ranks must receive (the local\n"
    "                spawner passes the whole environment; listed names are checked)\n"
    "  -v            say what the launcher does (also makes the ranks verbose)\n"
    "  --help        this text\n"
    "  --help-env    the GASNET_* environment variables gexx reads\n"
    "  --version     the gexx release\n";

[[noreturn]] void usage_error(const std::string &msg) {
  std::fprintf(stderr, "%s: %s\n(run '%s --help' for usage)\n", g_name.c_str(), msg.c_str(),
               g_name.c_str());
  std::exit(2);
}

bool is_executable_file(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string resolve_program(const std::string &prog) {
  if (prog.find('/') != std::string::npos) {
    struct stat st;
    if (::stat(prog.c_str(), &st) != 0) usage_error("program '" + prog + "' does not exist");
    if (!S_ISREG(st.st_mode)) usage_error("program '" + prog + "' is not a regular file");
    if (::access(prog.c_str(), X_OK) != 0)
      usage_error("program '" + prog + "' is not executable (chmod +x it?)");
    return prog;
  }
  const char *path = std::getenv("PATH");
  for (const auto &dir : gexx::util::split(path ? path : "/usr/bin:/bin", ":")) {
    std::string candidate = dir + "/" + prog;
    if (is_executable_file(candidate)) return candidate;
  }
  usage_error("program '" + prog + "' was not found in PATH (give a path such as ./" + prog + ")");
}

bool valid_env_name(const std::string &name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 0) {
    const char *slash = std::strrchr(argv[0], '/');
    g_name = slash ? slash + 1 : argv[0];
  }
  // The ssh spawner's agent on another host (not for users: see ssh_job.hpp).
  if (argc == 2 && std::strcmp(argv[1], "--ssh-agent") == 0)
    return gexx::bootstrap::run_ssh_agent(g_name);
  long ranks = -1;
  long used_hosts = 0;
  std::string spawner;
  bool verbose = false;
  std::vector<std::string> env_names;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    if (a == "--help" || a == "-h") {
      std::printf(kUsage, g_name.c_str());
      return 0;
    }
    if (a == "--help-env") {
      std::printf("%s", gexx::config::describe_all().c_str());
      return 0;
    }
    if (a == "--version") {
      std::printf("%s (gexx) %s\n", g_name.c_str(), GEXX_VERSION);
      return 0;
    }
    if (a == "-v") {
      verbose = true;
    } else if (a == "-n" || a == "-np" || a.rfind("-n=", 0) == 0) {
      std::string value;
      if (a.rfind("-n=", 0) == 0)
        value = a.substr(3);
      else if (i + 1 < argc)
        value = argv[++i];
      else
        usage_error(a + " needs a number of ranks");
      auto n = gexx::config::parse_int(value);
      if (!n || *n < 1) usage_error(a + " expects a positive number of ranks, got '" + value + "'");
      if (*n > 1 << 20) usage_error(a + " " + value + " is more ranks than one host can run");
      ranks = static_cast<long>(*n);
    } else if (a == "-N") {
      if (i + 1 >= argc) usage_error("-N needs a number of hosts");
      std::string value = argv[++i];
      auto n = gexx::config::parse_int(value);
      if (!n || *n < 1 || *n > 1 << 20)
        usage_error("-N expects a positive number of hosts, got '" + value + "'");
      used_hosts = static_cast<long>(*n);
    } else if (a == "--spawner" || a.rfind("--spawner=", 0) == 0) {
      if (a == "--spawner" && i + 1 >= argc) usage_error("--spawner needs local or ssh");
      spawner = a == "--spawner" ? argv[++i] : a.substr(10);
      if (spawner != "local" && spawner != "ssh")
        usage_error("--spawner expects local or ssh, got '" + spawner + "'");
    } else if (a == "-E") {
      if (i + 1 >= argc) usage_error("-E needs a comma-separated list of variable names");
      for (const auto &name : gexx::util::split(argv[++i], ",")) {
        if (!valid_env_name(name)) usage_error("-E: '" + name + "' is not a variable name");
        env_names.push_back(name);
      }
    } else {
      usage_error("unknown option '" + a + "'");
    }
  }
  if (ranks < 0) usage_error("say how many ranks to start with -n N");
  if (i >= argc) usage_error("no program given to run");

  gexx::bootstrap::LocalJobOptions o;
  o.ranks = static_cast<uint32_t>(ranks);
  o.program = resolve_program(argv[i]);
  for (int k = i; k < argc; ++k) o.argv.emplace_back(argv[k]);
  o.verbose = verbose;
  o.who = g_name;
  // A malformed variable is caught once, here, rather than by every rank.
  if (auto message = gexx::config::first_invalid()) {
    std::fprintf(stderr, "%s: %s\n(run '%s --help-env' for the variables and what they accept)\n",
                 g_name.c_str(), message->c_str(), g_name.c_str());
    return 2;
  }
  o.exit_timeout_seconds = gexx::bootstrap::exit_timeout_seconds(o.ranks);
  if (spawner.empty()) {
    std::string fn = gexx::config::get_string("GASNET_SPAWNFN");
    if (fn == "L" || fn == "l") {
      spawner = "local";
    } else if (fn == "S" || fn == "s") {
      spawner = "ssh";
    } else {
      std::fprintf(stderr, "%s: GASNET_SPAWNFN='%s' is not valid: use L (local) or S (ssh)\n",
                   g_name.c_str(), fn.c_str());
      return 2;
    }
  }
  std::vector<std::string> hosts;
  std::vector<uint32_t> placement;
  if (spawner == "ssh") {
    auto found = gexx::bootstrap::ssh::hosts_from_environment();
    if (!found.error.empty()) usage_error(found.error);
    hosts = found.hosts;
    if (used_hosts > static_cast<long>(hosts.size())) {
      usage_error(gexx::util::format("-N %ld asks for more hosts than %s names (%zu)", used_hosts,
                                     found.source.c_str(), hosts.size()));
    }
    placement = gexx::bootstrap::ssh::place_ranks(o.ranks, static_cast<uint32_t>(hosts.size()),
                                                  static_cast<uint32_t>(used_hosts));
  } else if (used_hosts > 1) {
    usage_error("-N " + std::to_string(used_hosts) +
                ": the local spawner runs every rank on this host (--spawner ssh spreads them)");
  }
  if (verbose) {
    for (const auto &name : env_names) {
      std::fprintf(stderr, "%s: -E %s: %s\n", g_name.c_str(), name.c_str(),
                   std::getenv(name.c_str()) ? "passed to every rank" : "not set here");
    }
  }
  if (spawner == "ssh") return gexx::bootstrap::run_ssh_job(o, hosts, placement);
  return gexx::bootstrap::run_local_job(o).exit_code;
}
