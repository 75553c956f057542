// The agent of the ssh spawner (gasnetrun --ssh-agent) on one host: forks
// the host's ranks, reports how they end, relays signals from the launcher,
// and ends them when the launcher falls silent.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "launcher/hub.hpp"
#include "launcher/ssh_job.hpp"
#include "launcher/supervisor.hpp"
#include "bootstrap/wire.hpp"
#include "util/config.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::launcher {

namespace {

constexpr size_t kMaxQueuedOutput = 1 << 20;
constexpr double kKillEscalationSeconds = 0.5;
constexpr int kAgentSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};

struct AgentJob {
  std::string address, secret, job_id, program;
  uint32_t size = 0, host = 0;
  bool verbose = false;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::vector<uint32_t> ranks;
};

std::string unhex_text(const std::string &hex) {
  std::vector<uint8_t> bytes;
  if (!util::unhex(hex, bytes)) return "";
  return std::string(bytes.begin(), bytes.end());
}

// Parses one line of the job description; false for a malformed one.
bool job_line(AgentJob &job, const std::string &line) {
  size_t sp = line.find(' ');
  std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
  auto number = [&](uint32_t &out) {
    auto n = config::parse_int(value);
    if (!n || *n < 0 || *n > UINT32_MAX) return false;
    out = static_cast<uint32_t>(*n);
    return true;
  };
  if (key == "addr")
    job.address = value;
  else if (key == "secret")
    job.secret = value;
  else if (key == "job")
    job.job_id = value;
  else if (key == "size")
    return number(job.size);
  else if (key == "host")
    return number(job.host);
  else if (key == "verbose")
    job.verbose = value == "1";
  else if (key == "prog")
    job.program = unhex_text(value);
  else if (key == "arg")
    job.argv.push_back(unhex_text(value));
  else if (key == "env")
    job.env.push_back(unhex_text(value));
  else if (key == "rank") {
    uint32_t r = 0;
    if (!number(r)) return false;
    job.ranks.push_back(r);
  } else {
    return false;
  }
  return true;
}

class Agent {
 public:
  explicit Agent(std::string who) : who_(std::move(who)) {}
  int run();

 private:
  bool read_job();
  bool start_ranks();
  void command(const std::string &line);
  void reap();
  void launcher_gone(const std::string &why);
  void queue(const std::string &text) { outq_ += text; }
  void flush();
  void pump_output();

  std::string who_;
  AgentJob job_;
  std::string inbuf_, outq_;
  std::map<pid_t, uint32_t> rank_of_pid_;
  std::map<uint32_t, pid_t> pid_of_rank_;
  // The ranks of this host exchange shared-memory descriptors here (the
  // launcher's hub is across the network).
  std::unique_ptr<Hub> host_hub_;
  int out_pipe_ = -1;
  int sigfd_ = -1;
  double last_heard_ = 0;
  std::optional<double> kill_deadline_;
  bool gone_ = false;
};

// Reads the job description, which ends with "start".
bool Agent::read_job() {
  std::string first;
  bool greeted = false;
  double deadline = now_seconds() + kAgentSilenceSeconds * 4;
  for (;;) {
    size_t nl;
    while ((nl = inbuf_.find('\n')) != std::string::npos) {
      std::string line = inbuf_.substr(0, nl);
      inbuf_.erase(0, nl + 1);
      if (!greeted) {
        if (line != kAgentGreeting) {
          say(who_,
              "this agent does not speak the launcher's protocol (is gasnetrun of the "
              "same gexx installed at the same path on every host?)");
          return false;
        }
        greeted = true;
      } else if (line == "start") {
        return true;
      } else if (!job_line(job_, line)) {
        say(who_, "malformed job description from the launcher");
        return false;
      }
    }
    pollfd p{STDIN_FILENO, POLLIN, 0};
    int left = static_cast<int>((deadline - now_seconds()) * 1000);
    if (left <= 0 || ::poll(&p, 1, left) <= 0) {
      say(who_, "no job description from the launcher");
      return false;
    }
    char buf[65536];
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n <= 0) return false;  // the launcher is gone before the job began
    inbuf_.append(buf, static_cast<size_t>(n));
  }
}

bool Agent::start_ranks() {
  if (::access(job_.program.c_str(), X_OK) != 0) {
    say(who_, util::format("cannot run '%s' here: %s", job_.program.c_str(), std::strerror(errno)));
    return false;
  }
  std::vector<uint8_t> secret_bytes;
  if (!util::unhex(job_.secret, secret_bytes) || secret_bytes.size() != kSecretBytes) {
    say(who_, "malformed job secret from the launcher");
    return false;
  }
  host_hub_ = std::make_unique<Hub>(static_cast<uint32_t>(job_.ranks.size()), secret_bytes.data(),
                                    who_, job_.verbose);
  if (!host_hub_->listen()) {
    say(who_, util::format("cannot open this host's bootstrap socket: %s", std::strerror(errno)));
    return false;
  }
  std::string host_ranks;
  for (uint32_t r : job_.ranks) host_ranks += (host_ranks.empty() ? "" : ",") + std::to_string(r);
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return false;
  out_pipe_ = p[0];
  ::fcntl(out_pipe_, F_SETFL, O_NONBLOCK);
  std::string secret = job_.secret;
  pid_t self = ::getpid();
  sigset_t none;
  sigemptyset(&none);
  for (uint32_t r : job_.ranks) {
    pid_t pid = ::fork();
    if (pid < 0) {
      say(who_, util::format("cannot start rank %u: fork failed: %s", r, std::strerror(errno)));
      break;
    }
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != self) _exit(1);
      for (int sig : kAgentSignals) ::signal(sig, SIG_DFL);
      ::signal(SIGPIPE, SIG_DFL);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
      ::dup2(p[1], STDOUT_FILENO);
      ::setenv(kEnvAddress, job_.address.c_str(), 1);
      ::setenv(kEnvSecret, secret.c_str(), 1);
      ::setenv(kEnvRank, std::to_string(r).c_str(), 1);
      ::setenv(kEnvSize, std::to_string(job_.size).c_str(), 1);
      ::setenv(kEnvJob, job_.job_id.c_str(), 1);
      ::setenv(kEnvHost, std::to_string(job_.host).c_str(), 1);
      ::setenv(kEnvHostAddress, host_hub_->address().c_str(), 1);
      ::setenv(kEnvHostRanks, host_ranks.c_str(), 1);
      if (job_.verbose) ::setenv(kEnvVerbose, "1", 1);
      std::vector<char *> args;
      for (const auto &a : job_.argv) args.push_back(const_cast<char *>(a.c_str()));
      args.push_back(nullptr);
      ::execv(job_.program.c_str(), args.data());
      say(who_, util::format("cannot run %s: %s", job_.program.c_str(), std::strerror(errno)));
      _exit(127);
    }
    rank_of_pid_[pid] = r;
    pid_of_rank_[r] = pid;
    queue(util::format("pid %u %d\n", r, pid));
  }
  ::close(p[1]);
  return true;
}

void Agent::command(const std::string &line) {
  last_heard_ = now_seconds();
  if (line == "hb") return;
  unsigned rank = 0;
  int sig = 0;
  long pid = 0;
  char value[32] = {0};
  if (std::sscanf(line.c_str(), "sig %u %d %31s %ld", &rank, &sig, value, &pid) != 4) return;
  auto it = pid_of_rank_.find(rank);
  if (it == pid_of_rank_.end() || !rank_of_pid_.count(it->second)) return;  // gone already
  pid_t target = pid > 0 ? static_cast<pid_t>(pid) : it->second;
  if (std::strcmp(value, "-") == 0) {
    ::kill(target, sig);
  } else {
    sigval v{};
    v.sival_int = std::atoi(value);
    ::sigqueue(target, sig, v);
  }
}

void Agent::reap() {
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    auto it = rank_of_pid_.find(pid);
    if (it == rank_of_pid_.end()) continue;  // an orphan a rank left
    queue(util::format("status %u %d\n", it->second, status));
    rank_of_pid_.erase(it);
  }
}

// Without its launcher the job is over: the ranks end (SIGTERM, then SIGKILL).
void Agent::launcher_gone(const std::string &why) {
  if (gone_) return;
  gone_ = true;
  if (!rank_of_pid_.empty()) say(who_, why + "; ending this host's ranks");
  for (const auto &[pid, rank] : rank_of_pid_) ::kill(pid, SIGTERM);
  kill_deadline_ = now_seconds() + kKillEscalationSeconds;
  outq_.clear();
}

void Agent::flush() {
  while (!outq_.empty() && !gone_) {
    ssize_t n = ::write(STDOUT_FILENO, outq_.data(), outq_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      launcher_gone("lost the connection to the launcher");
      return;
    }
    outq_.erase(0, static_cast<size_t>(n));
  }
}

void Agent::pump_output() {
  if (outq_.size() >= kMaxQueuedOutput) return;
  read_available(out_pipe_, [&](const char *data, size_t n) {
    if (!gone_) {
      queue(util::format("out %zu\n", n));
      outq_.append(data, n);
    }
    return outq_.size() < kMaxQueuedOutput;
  });
}

int Agent::run() {
  ::signal(SIGPIPE, SIG_IGN);
  if (!read_job()) return 1;
  for (const auto &kv : job_.env) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos && eq > 0)
      ::setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
  }
  who_ += util::format(" (agent on host %u, %s)", job_.host, util::hostname().c_str());
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : kAgentSignals) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, nullptr);
  sigfd_ = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  // Processes the ranks leave behind come back to the agent, which ends them.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (!start_ranks()) return 127;
  ::fcntl(STDOUT_FILENO, F_SETFL, ::fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);
  queue("ready\n");
  last_heard_ = now_seconds();
  bool stdin_open = true;
  while (!rank_of_pid_.empty() || out_pipe_ >= 0) {
    if (rank_of_pid_.empty() && out_pipe_ >= 0) {
      // The ranks are gone; what they wrote is read to its end, unless an
      // orphan still holds the pipe (it is ended below).
      pump_output();
      if (out_pipe_ >= 0) break;
    }
    std::vector<pollfd> fds = {{sigfd_, POLLIN, 0}};
    if (stdin_open) fds.push_back({STDIN_FILENO, POLLIN, 0});
    if (out_pipe_ >= 0 && outq_.size() < kMaxQueuedOutput) fds.push_back({out_pipe_, POLLIN, 0});
    if (!outq_.empty() && !gone_) fds.push_back({STDOUT_FILENO, POLLOUT, 0});
    size_t first_hub_fd = fds.size();
    host_hub_->collect_pollfds(fds);
    double now = now_seconds();
    double next = gone_ ? now + 0.1 : last_heard_ + kAgentSilenceSeconds;
    if (kill_deadline_) next = std::min(next, *kill_deadline_);
    next = std::min(next, host_hub_->tick(now));
    ::poll(fds.data(), fds.size(), static_cast<int>(std::max(0.0, next - now) * 1000) + 1);
    for (size_t i = 0; i < fds.size(); ++i) {
      const pollfd &p = fds[i];
      if (!p.revents) continue;
      if (i >= first_hub_fd) {
        host_hub_->handle(p);
      } else if (p.fd == sigfd_) {
        signalfd_siginfo si;
        while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
          if (si.ssi_signo != SIGCHLD)
            launcher_gone(util::format("received %s", signal_name(static_cast<int>(si.ssi_signo))));
        }
      } else if (p.fd == STDIN_FILENO) {
        char buf[4096];
        ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
        if (n <= 0) {
          stdin_open = false;
          launcher_gone("the launcher closed its connection");
        } else {
          inbuf_.append(buf, static_cast<size_t>(n));
          size_t nl;
          while ((nl = inbuf_.find('\n')) != std::string::npos) {
            command(inbuf_.substr(0, nl));
            inbuf_.erase(0, nl + 1);
          }
        }
      } else if (p.fd == out_pipe_) {
        pump_output();
      }
    }
    reap();
    flush();
    now = now_seconds();
    if (!gone_ && now - last_heard_ > kAgentSilenceSeconds)
      launcher_gone(util::format("no word from the launcher for %.0f s", kAgentSilenceSeconds));
    if (kill_deadline_ && now >= *kill_deadline_) {
      for (const auto &[pid, rank] : rank_of_pid_) ::kill(pid, SIGKILL);
      kill_deadline_.reset();
    }
  }
  if (out_pipe_ >= 0) ::close(out_pipe_);
  end_orphans(who_, job_.verbose);
  sweep_job_files(job_.job_id);
  if (!gone_) {
    queue("done\n");
    ::fcntl(STDOUT_FILENO, F_SETFL, ::fcntl(STDOUT_FILENO, F_GETFL) & ~O_NONBLOCK);
    flush();
  }
  return 0;
}

}  // namespace

int run_ssh_agent(const std::string &who) {
  return Agent(who).run();
}

}  // namespace gexx::launcher
