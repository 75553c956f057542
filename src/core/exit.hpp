// How a rank leaves its job: gasnet_exit, exit() or a return from main after
// init, and the SIGQUIT the launcher sends when another rank leaves.
#pragma once

#include "bootstrap/bootstrap.hpp"

namespace gexx::core {

// Installs gexx's SIGQUIT handler (unless the client has its own) and the
// exit() hook that tells the launcher. Called once the job is joined.
void install_exit_handling(bootstrap::Bootstrap &boot);

// gasnet_exit: flushes trace files and stdio, tells the launcher, which ends
// the other ranks, and exits with `code`. A second caller waits for the first.
[[noreturn]] void leave_job(int code);

}  // namespace gexx::core
