// A job whose ranks a PMI launcher started (PMIx: mpirun, srun --mpi=pmix;
// PMI-2: srun --mpi=pmi2). What the launcher offers is behind PmiService;
// join_pmi_job builds the rest the same way for both: the ranks of a host
// through a LocalGroup, exchanges through the first rank of each host, and
// exit as the launcher expects it (finalize before leaving, abort with a code).
#pragma once

#include <pthread.h>
#include <signal.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"

namespace gexx::bootstrap {

class PmiService {
 public:
  virtual ~PmiService() = default;

  // "PMIx" or "PMI-2", for messages.
  virtual const char *kind() const = 0;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // The launcher's name for the job (a namespace, a job id): the same in
  // every rank.
  virtual const std::string &job_name() const = 0;
  // This host's ranks as the launcher tells them, ascending; empty when it
  // does not tell.
  virtual std::vector<uint32_t> local_ranks() = 0;

  // Publishes `n` bytes (n >= 1) under `key` for the next fence; fatal on error.
  virtual void put(const std::string &key, const void *bytes, size_t n) = 0;
  // Every rank of the job, collecting what they put. False when it failed
  // (a rank left the job?).
  virtual bool fence() = 0;
  // What `rank` put under `key` before the last fence; false when not there.
  virtual bool get(uint32_t rank, const std::string &key, std::vector<uint8_t> &out) = 0;

  // Exits announced by ranks of other hosts: the service writes each one's
  // code (an int32_t) to `fd`. False when it cannot tell them.
  virtual bool watch_remote_exits(int fd) = 0;
  // Tells the ranks of other hosts that this one leaves with `code`
  // (called once, from the exit thread, before finalize).
  virtual void tell_remote_exit(int code) = 0;
  virtual void finalize() = 0;
  // Ends the whole job with `code`.
  virtual void abort(int code, const char *reason) = 0;
};

// Blocks the signals the job's exit rides on in threads the launcher's
// library or this code start, so that they reach the program's threads.
class QuietSignals {
 public:
  QuietSignals() {
    sigset_t set;
    sigfillset(&set);
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigdelset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~QuietSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  QuietSignals(const QuietSignals &) = delete;
  QuietSignals &operator=(const QuietSignals &) = delete;

 private:
  sigset_t old_;
};

// Joins the job; `why` names what detected the launcher, for diagnostics.
std::unique_ptr<Bootstrap> join_pmi_job(std::unique_ptr<PmiService> service,
                                        const std::string &why);

// dlopen()s the first of `candidates` that loads (RTLD_NOW | RTLD_GLOBAL),
// so that the build depends on no PMI library; nullptr when none does, with
// every loader message, "; "-separated, in `errors`.
void *open_first_library(const std::vector<std::string> &candidates, std::string &errors);

}  // namespace gexx::bootstrap
