// GASNET_PSHM_NODES=N ./prog: the rank's side of a job the program starts
// itself. At init the program forks its N ranks, which return into it; the
// original process then execs gasnetrun (`--supervise-pshm`), which
// supervises them exactly as the local spawner does its own. The library
// holds only this fork and hand-over; the supervisor is launcher code
// (src/launcher/), never linked into libgasnet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap/wire.hpp"

namespace gexx::bootstrap {

struct PshmRank {
  uint32_t rank = 0;
  std::string address;  // the hub's listening socket
  uint8_t secret[kSecretBytes] = {};
  std::string job_id;
};

// Forks `ranks` ranks and returns in each of them; the calling process
// becomes the job's supervisor and does not return. Stops with a fatal
// error when no gasnetrun is found (nothing is forked then).
PshmRank fork_pshm_ranks(uint32_t ranks, bool verbose);

// Where the supervisor is looked for: $GEXX_GASNETRUN alone when set; else,
// in order, beside the shared library holding this code (../bin/gasnetrun,
// ./gasnetrun), the build tree's, the install's.
std::vector<std::string> gasnetrun_candidates();

}  // namespace gexx::bootstrap
