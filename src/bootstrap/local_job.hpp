// The local spawner: forks the ranks of a job on this host, serves their
// bootstrap through a Hub, and supervises them until the last one is gone.
//
// Used by gasnetrun (each rank execs the program) and by the library itself
// for `GASNET_PSHM_NODES=N ./prog` (each rank returns from the call).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap/wire.hpp"

namespace gexx::bootstrap {

struct LocalJobOptions {
  uint32_t ranks = 1;
  std::string program;            // resolved path to exec; empty: ranks return instead
  std::vector<std::string> argv;  // argv[0] first
  bool verbose = false;
  // How long ranks get to end once the job is ending (exit_timeout_seconds).
  double exit_timeout_seconds = 2.0;
  std::string who = "gasnetrun";  // prefix of the supervisor's messages
};

struct LocalJobResult {
  bool is_rank = false;  // true in a forked rank, which goes on to join the job
  uint32_t rank = 0;
  std::string address;
  uint8_t secret[kSecretBytes] = {};
  std::string job_id;
  int exit_code = 0;  // in the supervisor: the job's exit code
};

LocalJobResult run_local_job(const LocalJobOptions &options);

// GASNET_EXITTIMEOUT if set, else min(GASNET_EXITTIMEOUT_MAX,
// GASNET_EXITTIMEOUT_MIN + ranks * GASNET_EXITTIMEOUT_FACTOR), as GASNet has it.
double exit_timeout_seconds(uint32_t ranks);

// Describes a wait status: "exited with status 3", "was killed by signal 9 (SIGKILL)".
std::string describe_status(int status);

}  // namespace gexx::bootstrap
