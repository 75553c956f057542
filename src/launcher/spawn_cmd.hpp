// The spawners that hand the job to another launcher (mpi: mpirun or
// mpiexec; pmi: srun or GASNET_PMI_LAUNCHER): gasnetrun runs that command,
// passes it the signals it receives, and returns its status. The ranks join
// through PMIx (bootstrap/pmix.cpp); the launcher's own rules end the job
// when a rank fails.
#pragma once

#include <string>
#include <vector>

#include "launcher/spawner.hpp"

namespace gexx::launcher {

// Runs `argv` (its [0] looked up in PATH) with `set_env` added to this
// environment, forwarding SIGINT, SIGTERM, SIGHUP and SIGQUIT; returns its
// exit status, 128 + N when signal N killed it, 127 when it cannot run.
int run_launcher_command(const JobOptions &o, const std::vector<std::string> &argv,
                         const std::vector<std::pair<std::string, std::string>> &set_env,
                         const char *knob);

// The words of a command variable (GASNET_MPIRUN_CMD, GASNET_PMI_LAUNCHER),
// split as a shell would without expanding anything; `fallback` when unset.
std::vector<std::string> command_words(const JobOptions &o, const char *knob,
                                       const std::vector<std::string> &fallback);

// The first of `names` found as an executable in PATH, or "".
std::string find_in_path(const std::vector<std::string> &names);

}  // namespace gexx::launcher
