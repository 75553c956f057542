// The rank's side of a job started by a PMI-2 launcher (Slurm's
// srun --mpi=pmi2). libpmi2 is opened at run time (dlopen), so neither the
// build nor libgasnet depends on it.
#pragma once

#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"

namespace gexx::bootstrap {

// Joins the job through the PMI-2 server that started this process (PMI_FD);
// `why` names what detected it. Fatal when libpmi2 cannot be loaded
// (GEXX_PMI2_LIBRARY names it) or the server refuses.
std::unique_ptr<Bootstrap> join_pmi2_job(const std::string &why);

}  // namespace gexx::bootstrap
