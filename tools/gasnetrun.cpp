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

#include "launcher/spawner.hpp"
#include "launcher/ssh_job.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

namespace {

std::string g_name = "gasnetrun";

void print_usage() {
  std::string names, letters;
  for (const auto &s : gexx::launcher::spawners()) {
    names += (names.empty() ? "" : "|") + std::string(s.name);
    letters += (letters.empty() ? "" : "|") + std::string(1, s.spawnfn);
  }
  std::printf(
      "usage: %s -n N [-N HOSTS] [--spawner %s] [-E VAR,...] [-v] [--] program [args...]\n"
      "\n"
      "Starts N ranks of program and returns the job's exit status.\n"
      "\n"
      "  -n N, -np N   number of ranks (1 or more)\n"
      "  -N HOSTS      ssh spawner: run on the first HOSTS hosts, in blocks of ranks\n"
      "                (default: every host, ranks dealt round-robin)\n"
      "  --spawner S   how the ranks start (default: the first below; GASNET_SPAWNFN=%s):\n",
      g_name.c_str(), names.c_str(), letters.c_str());
  for (const auto &s : gexx::launcher::spawners())
    std::printf("                  %-6s (%c) %s\n", s.name, s.spawnfn, s.description);
  std::printf(
      "  -E VAR,...    environment variables the ranks must receive (the local\n"
      "                spawner passes the whole environment; listed names are checked)\n"
      "  -v            say what the launcher does (also makes the ranks verbose)\n"
      "  --help        this text\n"
      "  --help-env    the GASNET_* environment variables gexx reads\n"
      "  --version     the gexx release\n");
}

[[noreturn]] void usage_error(const std::string &msg) {
  gexx::launcher::usage_error(g_name, msg);
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
    return gexx::launcher::run_ssh_agent(g_name);
  // The supervisor of a GASNET_PSHM_NODES program (not for users: see
  // bootstrap/pshm.hpp); the program exec'd this in its own process.
  if (argc == 2 && std::strcmp(argv[1], gexx::bootstrap::kSupervisePshmFlag) == 0)
    return gexx::launcher::supervise_pshm(g_name);
  long ranks = -1;
  long used_hosts = 0;
  const gexx::launcher::Spawner *spawner = nullptr;
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
      print_usage();
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
    } else if (a == "--spawner" || a.rfind("--spawner=", 0) == 0 || a == "-spawner" ||
               a.rfind("-spawner=", 0) == 0) {
      // GASNet's own launchers spell it -spawner=NAME.
      bool separate = a == "--spawner" || a == "-spawner";
      if (separate && i + 1 >= argc)
        usage_error("--spawner needs " + gexx::launcher::spawner_names());
      std::string name = separate ? argv[++i] : a.substr(a.find('=') + 1);
      spawner = gexx::launcher::find_spawner(name);
      if (!spawner) {
        usage_error("--spawner expects " + gexx::launcher::spawner_names() + ", got '" + name +
                    "'");
      }
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

  gexx::launcher::JobOptions o;
  o.ranks = static_cast<uint32_t>(ranks);
  o.program = resolve_program(argv[i]);
  for (int k = i; k < argc; ++k) o.argv.emplace_back(argv[k]);
  o.verbose = verbose;
  o.who = g_name;
  o.used_hosts = static_cast<uint32_t>(used_hosts);
  o.env_names = env_names;
  // A malformed variable is caught once, here, rather than by every rank.
  if (auto message = gexx::config::first_invalid()) {
    std::fprintf(stderr, "%s: %s\n(run '%s --help-env' for the variables and what they accept)\n",
                 g_name.c_str(), message->c_str(), g_name.c_str());
    return 2;
  }
  o.exit_timeout_seconds = gexx::launcher::exit_timeout_seconds(o.ranks);
  o.init_timeout_seconds = gexx::config::get_seconds("GASNET_INIT_TIMEOUT");
  if (!spawner) {
    std::string fn = gexx::config::get_string("GASNET_SPAWNFN");
    if (fn.size() == 1) spawner = gexx::launcher::find_spawner_by_letter(fn[0]);
    if (!spawner) {
      std::fprintf(stderr, "%s: GASNET_SPAWNFN='%s' is not valid: use %s\n", g_name.c_str(),
                   fn.c_str(), gexx::launcher::spawner_letters().c_str());
      return 2;
    }
  }
  if (verbose) {
    for (const auto &name : env_names) {
      std::fprintf(stderr, "%s: -E %s: %s\n", g_name.c_str(), name.c_str(),
                   std::getenv(name.c_str()) ? "passed to every rank" : "not set here");
    }
  }
  return spawner->run(o);
}
