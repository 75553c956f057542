// The launcher's watch over a running job: the exit-code rules, the
// SIGQUIT-then-SIGKILL exit protocol and the failure reports of
// docs/launching.md, for ranks that are children of this process (local
// spawner) or run under an agent on another host (ssh spawner).
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "launcher/hub.hpp"
#include "launcher/spawner.hpp"

namespace gexx::launcher {

double now_seconds();
const char *signal_name(int sig);
// One line "who: text" on standard error, in a single write.
void say(const std::string &who, const std::string &text);
// Removes the shared-memory files of job `job_id` a rank may have left.
void sweep_job_files(const std::string &job_id);
// Removes the shared-memory files ("gexx-<job>-...") of jobs that are over,
// left by a launcher killed outright: only this user's, only those whose
// job's supervisor (the pid in the job id) is gone, and only those no live
// process maps or holds open. Returns how many it removed.
int sweep_orphaned_job_files();
// Ends (SIGTERM, then SIGKILL) the processes re-parented to this one.
void end_orphans(const std::string &who, bool verbose);

// What happened on another host, for the supervisor to act on.
struct RemoteEvent {
  enum class Kind { RankEnded, HostLost } kind = Kind::RankEnded;
  uint32_t rank = 0;  // RankEnded: the rank and its wait status
  int status = 0;
  long pid = 0;
  uint32_t host = 0;  // HostLost: the host, why, and the job's exit code
  std::string why;
  int code = 1;
};

// Ranks reached through agents on other hosts (launcher/ssh_job.cpp).
class RemoteRanks {
 public:
  virtual ~RemoteRanks() = default;
  virtual void collect_pollfds(std::vector<pollfd> &out) const = 0;
  virtual void handle(const pollfd &p) = 0;
  // A child of the launcher that is not a rank ended (an ssh process).
  virtual void child_ended(pid_t pid, int status) = 0;
  // Heartbeats and start-up deadlines; returns the next time it needs a call.
  virtual double tick(double now) = 0;
  virtual std::vector<RemoteEvent> take_events() = 0;
  // Sends `sig` (queued with `value` when set) to `pid`, or to the rank's
  // own process when pid is 0.
  virtual void signal(uint32_t rank, int sig, std::optional<int> value, long pid) = 0;
  // The job is over: lets the agents finish, then ends what is left.
  virtual void finish() = 0;
};

struct RankProc {
  pid_t pid = -1;       // the process (on its host)
  bool remote = false;  // under an agent, reached through RemoteRanks
  uint32_t host = 0;    // remote: the agent's host index
  bool alive = false;
  bool ended_by_us = false;
  bool quit = false;        // sent the SIGQUIT of an exit
  long long exit_cpu = -1;  // CPU ns it had when the exit began (-1: unknown)
};

class Supervisor {
 public:
  Supervisor(const JobOptions &o, Hub &hub, int sigfd, std::string job_id,
             RemoteRanks *remote = nullptr)
      : o_(o),
        hub_(hub),
        sigfd_(sigfd),
        job_id_(std::move(job_id)),
        remote_(remote),
        procs_(o.ranks) {}

  std::vector<RankProc> &procs() { return procs_; }
  // The job could not be started whole (a fork failed): it ends with `code`
  // once the ranks already started are gone.
  void start_failed(int code);
  int run();

 private:
  void reap();
  void rank_ended(uint32_t rank, pid_t pid, int status);
  void host_lost(const RemoteEvent &e);
  void on_signal(int sig);
  void send(uint32_t rank, int sig, std::optional<int> value = std::nullopt, long pid = 0);
  void end_all(int sig);
  void quit_all(int code, long except_rank);
  void begin_exit();
  void quit_due(double now);
  void check_deadlines();
  void init_expired();
  uint32_t alive() const {
    uint32_t n = 0;
    for (const auto &p : procs_) n += p.alive ? 1 : 0;
    return n;
  }

  const JobOptions &o_;
  Hub &hub_;
  int sigfd_;
  std::string job_id_;
  RemoteRanks *remote_;
  std::vector<RankProc> procs_;
  std::optional<int> failure_;
  std::optional<Hub::ExitNotice> exit_;  // the exit that is ending the job
  std::optional<double> drain_deadline_;
  std::optional<double> kill_deadline_;
  std::optional<double> quit_deadline_;  // when to look again for ranks due a SIGQUIT
  double exit_began_ = 0;
  std::optional<double> init_deadline_;  // when ranks not joined yet are named
  // The launcher ended a rank by force (SIGTERM or SIGKILL, not the SIGQUIT
  // of an exit that the rank honoured): the job cannot return 0.
  bool forced_ = false;
  long first_clean_exit_rank_ = -1;
  bool abort_seen_ = false;
  bool quit_sent_ = false;
};

}  // namespace gexx::launcher
