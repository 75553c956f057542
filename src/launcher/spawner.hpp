// gasnetrun's spawners: the ways a job's ranks are started (local, ssh, mpi,
// pmi), behind one table. A spawner is one file defining its
// entry point plus one row of the table in spawners.cpp; gasnetrun's help,
// its --spawner check and GASNET_SPAWNFN all read the table.
//
// Nothing under src/launcher/ is linked into libgasnet: the rank's side of a
// job (bootstrap/client.cpp, bootstrap/wire.hpp) is all a library holds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bootstrap/wire.hpp"

namespace gexx::launcher {

// The wire vocabulary the ranks speak (bootstrap/wire.hpp).
using namespace gexx::bootstrap;

struct JobOptions {
  uint32_t ranks = 1;
  std::string program;            // resolved path to exec
  std::vector<std::string> argv;  // argv[0] first
  bool verbose = false;
  // How long ranks get to end once the job is ending (exit_timeout_seconds).
  double exit_timeout_seconds = 2.0;
  // How long the ranks get to join the job (GASNET_INIT_TIMEOUT); 0: forever.
  double init_timeout_seconds = 0;
  std::string who = "gasnetrun";       // prefix of the launcher's messages
  uint32_t used_hosts = 0;             // -N: hosts to run on; 0 when not given
  std::vector<std::string> env_names;  // -E: variables the ranks must receive
};

// A fresh job's secret (ranks prove they belong with it) and its id (names
// its shared-memory files).
struct JobKeys {
  uint8_t secret[kSecretBytes];
  std::string id;
};
JobKeys new_job_keys();

struct Spawner {
  const char *name;         // --spawner NAME
  char spawnfn;             // its GASNET_SPAWNFN letter (either case)
  const char *description;  // for gasnetrun --help
  // Starts and supervises the job; returns the job's exit status. Bad usage
  // (a setting this spawner cannot honour) ends gasnetrun with usage_error.
  int (*run)(const JobOptions &);
};

// The table, the default (local) first.
const std::vector<Spawner> &spawners();
const Spawner *find_spawner(std::string_view name);
const Spawner *find_spawner_by_letter(char spawnfn);
// "local or ssh" and "L (local) or S (ssh)": the table, for messages.
std::string spawner_names();
std::string spawner_letters();

// "who: msg", a pointer to --help, and exit status 2.
[[noreturn]] void usage_error(const std::string &who, const std::string &msg);

// GASNET_EXITTIMEOUT if set, else min(GASNET_EXITTIMEOUT_MAX,
// GASNET_EXITTIMEOUT_MIN + ranks * GASNET_EXITTIMEOUT_FACTOR), as GASNet has it.
double exit_timeout_seconds(uint32_t ranks);

// Describes a wait status: "exited with status 3", "was killed by signal 9 (SIGKILL)".
std::string describe_status(int status);

// The rank side of GASNET_PSHM_NODES=N ./prog (bootstrap/pshm.cpp) forks the
// ranks, then execs `gasnetrun --supervise-pshm` in the original process,
// which supervises its children as the local spawner does its own.
int supervise_pshm(const std::string &who);

}  // namespace gexx::launcher
