// The rank's side of a job started by a PMIx launcher (Open MPI's mpirun,
// Slurm's srun --mpi=pmix, any PMIx server), and how join_job recognises
// such a launcher from its environment. libpmix is opened at run time
// (dlopen), so neither libgasnet nor a client links it.
#pragma once

#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"

namespace gexx::bootstrap {

enum class Launch {
  Gasnetrun,  // none of the below: gasnetrun, GASNET_PSHM_NODES or one rank
  Pmix,       // a PMIx server: PMIX_RANK and PMIX_NAMESPACE are set
  Pmi2,       // Slurm's srun --mpi=pmi2: PMI_FD, PMI_RANK, PMI_SIZE
  Unserved,   // srun or mpirun started several ranks but offers no PMI we speak
};

struct LaunchGuess {
  Launch how = Launch::Gasnetrun;
  std::string why;  // for messages: what in the environment decided
};

// Reads the environment: GASNET_SPAWNFN=M or P forces a PMI launch (fatal
// when the launcher offers none), L or S forces the gasnetrun paths; else the
// launcher's own variables decide (PMIx's, Slurm's SLURM_*, Open MPI's
// OMPI_COMM_WORLD_*).
LaunchGuess guess_launch();

// Joins the job through the PMIx server that started this process; `why`
// names what detected it, for diagnostics. Fatal when libpmix cannot be
// loaded or the server refuses.
std::unique_ptr<Bootstrap> join_pmix_job(const std::string &why);

// True when this build can speak PMIx (it was built with PMIx's headers).
bool pmix_supported();

}  // namespace gexx::bootstrap
