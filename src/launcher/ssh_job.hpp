// The ssh spawner: the launcher starts one agent per host with
// `$GASNET_SSH_CMD $GASNET_SSH_OPTIONS host 'cd DIR && exec gasnetrun --ssh-agent'`
// and the agent forks that host's ranks. The job (the secret included) and
// the environment travel over ssh's standard input, never a command line.
//
// launcher -> agent (stdin), one line each:
//   the job ("gexx-agent 2", "addr A", "secret HEX", "job ID", "size N",
//   "host H", "verbose 0|1", "prog HEX", "arg HEX"..., "env HEX"...,
//   "rank R"..., "start"), then "hb" about every 0.5 s and
//   "sig RANK SIGNO VALUE|- PID" (PID 0: the rank's own process).
// agent -> launcher (stdout): "ready", "pid RANK PID", "status RANK WAITSTATUS",
//   "out N" followed by N bytes of the ranks' standard output, "done".
// The ranks' standard error is the agent's, which ssh carries back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/spawner.hpp"

namespace gexx::launcher {

constexpr const char *kAgentGreeting = "gexx-agent 2";
// An agent that hears nothing from its launcher for this long ends its ranks.
constexpr double kAgentSilenceSeconds = 5.0;
constexpr double kHeartbeatSeconds = 0.5;

// Whether the launcher's variable `name` is given to the ranks on other
// hosts: all but those that describe the launcher's own host or session.
bool forwarded_variable(std::string_view name);

// Runs `o` with rank r on hosts[host_of_rank[r]]; returns the job's exit code.
int run_ssh_job(const JobOptions &o, const std::vector<std::string> &hosts,
                const std::vector<uint32_t> &host_of_rank);

// `gasnetrun --ssh-agent`: reads a job from standard input and runs its
// host's ranks; returns the agent's exit status.
int run_ssh_agent(const std::string &who);

}  // namespace gexx::launcher
