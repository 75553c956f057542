// The launcher's side of the ssh spawner: one ssh (and agent) per host,
// heartbeats, the ranks' output, and what it means when an ssh ends.
#include "launcher/ssh_job.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "launcher/hub.hpp"
#include "launcher/ssh_hosts.hpp"
#include "launcher/supervisor.hpp"
#include "bootstrap/wire.hpp"
#include "util/config.hpp"
#include "util/strings.hpp"

extern char **environ;

namespace gexx::launcher {

namespace {

constexpr size_t kKeptStartupStderr = 8192;
constexpr double kAgentFinishSeconds = 2.0;

std::string hex_of(const std::string &s) {
  return util::hex(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

bool contains_nocase(const std::string &hay, const std::string &needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}

std::string last_line(const std::string &text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "gasnetrun";
}

std::string working_dir() {
  std::string dir = config::get_string("GASNET_SSH_REMOTE_PATH");
  if (!dir.empty()) return dir;
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) ? buf : ".";
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

struct AgentLink {
  uint32_t index = 0;
  std::string host;
  pid_t ssh = -1;
  int in = -1, out = -1, err = -1;  // ssh's stdin, stdout, stderr (our ends)
  std::string inq, outbuf, startup_err;
  bool ready = false, done = false, ended = false;
  int status = 0;
  double next_beat = 0;
  std::vector<uint32_t> ranks;
  std::vector<std::pair<uint32_t, long>> pids;  // what the agent reported
};

class SshAgents final : public RemoteRanks {
 public:
  SshAgents(const JobOptions &o, std::vector<AgentLink> links) : o_(o), links_(std::move(links)) {}
  ~SshAgents() override {
    for (auto &l : links_)
      for (int *fd : {&l.in, &l.out, &l.err})
        if (*fd >= 0) ::close(*fd);
  }

  bool start(const std::vector<std::string> &ssh_argv_prefix, const std::string &remote_cmd,
             const std::string &job_text, const sigset_t &old_mask);
  std::vector<AgentLink> &links() { return links_; }

  void collect_pollfds(std::vector<pollfd> &out) const override {
    for (const auto &l : links_) {
      if (l.out >= 0) out.push_back({l.out, POLLIN, 0});
      if (l.err >= 0) out.push_back({l.err, POLLIN, 0});
    }
  }
  void handle(const pollfd &p) override {
    if (!p.revents) return;
    for (auto &l : links_) {
      if (p.fd == l.out && l.out >= 0) read_out(l);
      if (p.fd == l.err && l.err >= 0) read_err(l);
    }
  }
  void child_ended(pid_t pid, int status) override;
  double tick(double now) override;
  std::vector<RemoteEvent> take_events() override { return std::exchange(events_, {}); }
  void signal(uint32_t rank, int sig, std::optional<int> value, long pid) override {
    for (auto &l : links_) {
      if (std::find(l.ranks.begin(), l.ranks.end(), rank) == l.ranks.end()) continue;
      l.inq += util::format("sig %u %d %s %ld\n", rank, sig,
                            value ? std::to_string(*value).c_str() : "-", pid);
      flush(l);
    }
  }
  void finish() override;

 private:
  void read_out(AgentLink &l);
  void read_err(AgentLink &l);
  void parse_out(AgentLink &l);
  void flush(AgentLink &l);
  void drain(AgentLink &l);
  std::string why_failed(const AgentLink &l, int &code) const;

  const JobOptions &o_;
  std::vector<AgentLink> links_;
  std::vector<RemoteEvent> events_;
};

bool SshAgents::start(const std::vector<std::string> &prefix, const std::string &remote_cmd,
                      const std::string &job_text, const sigset_t &old_mask) {
  for (auto &l : links_) {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC)) return false;
    std::vector<std::string> argv = prefix;
    argv.push_back(l.host);
    argv.push_back(remote_cmd);
    pid_t self = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
      // Its own process group: a Ctrl-C reaches the launcher, which ends the
      // job in order, rather than cutting every ssh at once.
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != self) _exit(1);
      for (int sig : kSupervisorSignals) ::signal(sig, SIG_DFL);
      ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
      std::vector<char *> args;
      for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      say(o_.who, util::format("cannot run the remote shell '%s': %s (GASNET_SSH_CMD sets it)",
                               args[0], std::strerror(errno)));
      _exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    l.ssh = pid;
    l.in = in[1];
    l.out = out[0];
    l.err = err[0];
    set_nonblocking(l.in);
    set_nonblocking(l.out);
    set_nonblocking(l.err);
    l.inq = job_text;
    for (uint32_t r : l.ranks) l.inq += util::format("rank %u\n", r);
    l.inq += util::format("host %u\nstart\n", l.index);
    l.next_beat = now_seconds() + kHeartbeatSeconds;
    flush(l);
    if (o_.verbose)
      say(o_.who, util::format("host %u (%s): ssh is pid %d, %zu rank(s)", l.index, l.host.c_str(),
                               pid, l.ranks.size()));
  }
  return true;
}

void SshAgents::flush(AgentLink &l) {
  while (l.in >= 0 && !l.inq.empty()) {
    ssize_t n = ::write(l.in, l.inq.data(), l.inq.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // full (the next tick retries) or gone (its ssh ends)
    l.inq.erase(0, static_cast<size_t>(n));
  }
}

double SshAgents::tick(double now) {
  double next = now + kHeartbeatSeconds;
  for (auto &l : links_) {
    if (l.ended || l.in < 0) continue;
    if (now >= l.next_beat) {
      if (l.inq.size() < 4096) l.inq += "hb\n";
      l.next_beat = now + kHeartbeatSeconds;
    }
    flush(l);
    next = std::min(next, l.next_beat);
  }
  return next;
}

void SshAgents::read_out(AgentLink &l) {
  read_available(l.out, [&](const char *data, size_t n) {
    l.outbuf.append(data, n);
    return true;
  });
  parse_out(l);
}

void SshAgents::parse_out(AgentLink &l) {
  for (;;) {
    size_t nl = l.outbuf.find('\n');
    if (nl == std::string::npos) return;
    std::string line = l.outbuf.substr(0, nl);
    unsigned rank = 0;
    long value = 0;
    size_t bytes = 0;
    if (std::sscanf(line.c_str(), "out %zu", &bytes) == 1) {
      if (l.outbuf.size() < nl + 1 + bytes) return;  // the rest is still on its way
      const char *p = l.outbuf.data() + nl + 1;
      for (size_t done = 0; done < bytes;) {
        ssize_t w = ::write(STDOUT_FILENO, p + done, bytes - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += static_cast<size_t>(w);
      }
      l.outbuf.erase(0, nl + 1 + bytes);
      continue;
    }
    l.outbuf.erase(0, nl + 1);
    int status = 0;
    if (line == "ready") {
      l.ready = true;
    } else if (line == "done") {
      l.done = true;
    } else if (std::sscanf(line.c_str(), "pid %u %ld", &rank, &value) == 2) {
      l.pids.emplace_back(rank, value);
      if (o_.verbose)
        say(o_.who, util::format("rank %u is pid %ld on %s", rank, value, l.host.c_str()));
    } else if (std::sscanf(line.c_str(), "status %u %d", &rank, &status) == 2) {
      if (std::find(l.ranks.begin(), l.ranks.end(), rank) != l.ranks.end()) {
        RemoteEvent e;
        e.kind = RemoteEvent::Kind::RankEnded;
        e.rank = rank;
        e.status = status;
        e.pid = -1;
        for (const auto &[r, pid] : l.pids)
          if (r == rank) e.pid = pid;
        events_.push_back(e);
      }
    }
  }
}

void SshAgents::read_err(AgentLink &l) {
  read_available(l.err, [&](const char *data, size_t n) {
    if (!l.ready && l.startup_err.size() < kKeptStartupStderr) l.startup_err.append(data, n);
    ssize_t ignored = ::write(STDERR_FILENO, data, n);
    (void)ignored;
    return true;
  });
}

// After its ssh ended: what is still in the pipes is read to its end (a
// process the ssh left may hold them, so only briefly).
void SshAgents::drain(AgentLink &l) {
  double deadline = now_seconds() + 1.0;
  while ((l.out >= 0 || l.err >= 0) && now_seconds() < deadline) {
    std::vector<pollfd> fds;
    if (l.out >= 0) fds.push_back({l.out, POLLIN, 0});
    if (l.err >= 0) fds.push_back({l.err, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 100) <= 0) continue;
    for (const auto &p : fds) handle(p);
  }
}

std::string SshAgents::why_failed(const AgentLink &l, int &code) const {
  code = 1;
  std::string how = describe_status(l.status);
  std::string said = last_line(l.startup_err);
  std::string detail = said.empty() ? how : how + ": " + said;
  if (l.ready) {
    return util::format("lost host %s (its ssh %s)", l.host.c_str(), detail.c_str());
  }
  if (contains_nocase(l.startup_err, "permission denied")) {
    return util::format(
        "host %s refused the login (ssh %s); check the keys for it and "
        "GASNET_SSH_OPTIONS",
        l.host.c_str(), detail.c_str());
  }
  int exit_code = WIFEXITED(l.status) ? WEXITSTATUS(l.status) : -1;
  if (exit_code == 255) {
    return util::format("cannot reach host %s (ssh %s)", l.host.c_str(), detail.c_str());
  }
  if (exit_code == 127) {
    code = 127;
    return util::format(
        "cannot start the job on host %s: a program was not found there (%s); "
        "gasnetrun and the program must exist at the same paths on every host, "
        "and GASNET_SSH_REMOTE_PATH sets the working directory there",
        l.host.c_str(), detail.c_str());
  }
  return util::format("the agent on host %s ended before starting its ranks (ssh %s)",
                      l.host.c_str(), detail.c_str());
}

void SshAgents::child_ended(pid_t pid, int status) {
  for (auto &l : links_) {
    if (l.ssh != pid || l.ended) continue;
    l.ended = true;
    l.status = status;
    drain(l);
    if (l.in >= 0) ::close(l.in);
    l.in = -1;
    if (l.done) return;
    RemoteEvent e;
    e.kind = RemoteEvent::Kind::HostLost;
    e.host = l.index;
    e.why = why_failed(l, e.code);
    events_.push_back(e);
    return;
  }
}

// The ranks are gone: the agents finish (sweep, report "done") and exit;
// any that does not within a bound is cut off.
void SshAgents::finish() {
  double deadline = now_seconds() + kAgentFinishSeconds;
  auto pending = [&] {
    return std::any_of(links_.begin(), links_.end(), [](const AgentLink &l) { return !l.ended; });
  };
  bool closed = false;
  while (pending()) {
    double now = now_seconds();
    if (now >= deadline) {
      if (closed) {
        for (auto &l : links_)
          if (!l.ended) ::kill(l.ssh, SIGKILL);
      } else {
        // EOF on its stdin makes an agent end what it still runs.
        for (auto &l : links_) {
          if (l.in >= 0) ::close(l.in);
          l.in = -1;
        }
        closed = true;
        deadline = now + kAgentSilenceSeconds;
      }
    }
    std::vector<pollfd> fds;
    collect_pollfds(fds);
    ::poll(fds.data(), fds.size(), 100);
    for (const auto &p : fds) handle(p);
    for (auto &l : links_) {
      if (l.ended) continue;
      int status = 0;
      if (::waitpid(l.ssh, &status, WNOHANG) == l.ssh) {
        l.ended = true;
        l.status = status;
        drain(l);
      }
    }
  }
  events_.clear();
}

// Options the spawner adds unless the user's set them: no password prompts,
// and a dead link is noticed within seconds.
std::vector<std::string> ssh_prefix(std::string &error) {
  auto cmd = ssh::split_words(config::get_string("GASNET_SSH_CMD"));
  auto opts = ssh::split_words(config::get_string("GASNET_SSH_OPTIONS"));
  if (!cmd || cmd->empty()) {
    error = "GASNET_SSH_CMD='" + config::get_string("GASNET_SSH_CMD") +
            "' is not a command (an open quote, or empty)";
    return {};
  }
  if (!opts) {
    error =
        "GASNET_SSH_OPTIONS='" + config::get_string("GASNET_SSH_OPTIONS") + "' has an open quote";
    return {};
  }
  std::vector<std::string> out = *cmd;
  out.insert(out.end(), opts->begin(), opts->end());
  std::string given = config::get_string("GASNET_SSH_OPTIONS");
  for (const char *o :
       {"BatchMode=yes", "ConnectTimeout=5", "ServerAliveInterval=1", "ServerAliveCountMax=3"}) {
    std::string key(o, std::strchr(o, '=') - o);
    if (contains_nocase(given, key)) continue;
    out.push_back("-o");
    out.push_back(o);
  }
  return out;
}

std::string hub_ip(const std::vector<std::string> &hosts, std::string &error) {
  std::string ip = config::get_string("GASNET_MASTERIP");
  if (!ip.empty()) return ip;
  std::string first_error;
  for (const auto &h : hosts) {
    std::string e;
    std::string a = local_ip_towards(h, e);
    if (a.empty()) {
      if (first_error.empty()) first_error = e;
      continue;
    }
    if (a.rfind("127.", 0) != 0 && a != "::1") return a;
  }
  if (!first_error.empty()) {
    error = first_error;
    return "";
  }
  return "127.0.0.1";  // every host is this one
}

}  // namespace

bool forwarded_variable(std::string_view name) {
  static constexpr std::string_view kHostOwn[] = {
      "DISPLAY", "HOME",   "HOSTNAME", "HOST",     "LOGNAME",   "USER",    "SHELL",
      "PWD",     "OLDPWD", "SHLVL",    "_",        "TERM",      "TERMCAP", "XAUTHORITY",
      "MAIL",    "TMUX",   "STY",      "WINDOWID", "KRB5CCNAME"};
  for (auto n : kHostOwn)
    if (name == n) return false;
  if (name.rfind("SSH_", 0) == 0) return false;
  if (name.rfind("GEXX_BOOT_", 0) == 0 || name == kEnvJob || name == kEnvVerbose) return false;
  return true;
}

int run_ssh_job(const JobOptions &o, const std::vector<std::string> &hosts,
                const std::vector<uint32_t> &host_of_rank) {
  std::string error;
  auto prefix = ssh_prefix(error);
  if (prefix.empty()) {
    say(o.who, error);
    return 2;
  }
  std::string ip = hub_ip(hosts, error);
  if (ip.empty()) {
    say(o.who, error + " (GASNET_MASTERIP sets the launcher's address)");
    return 1;
  }
  JobKeys keys = new_job_keys();
  const uint8_t *secret = keys.secret;
  const std::string &job_id = keys.id;
  Hub hub(o.ranks, secret, o.who, o.verbose);
  if (!hub.listen_tcp(ip)) {
    say(o.who, util::format("cannot open the bootstrap socket at %s: %s (GASNET_MASTERIP sets "
                            "the address)",
                            ip.c_str(), std::strerror(errno)));
    return 1;
  }

  std::vector<AgentLink> links;
  std::vector<int> link_of_host(hosts.size(), -1);
  for (uint32_t r = 0; r < o.ranks; ++r) {
    uint32_t h = host_of_rank[r];
    if (link_of_host[h] < 0) {
      link_of_host[h] = static_cast<int>(links.size());
      AgentLink l;
      l.index = h;
      l.host = hosts[h];
      links.push_back(l);
    }
    links[static_cast<size_t>(link_of_host[h])].ranks.push_back(r);
  }
  std::string job = std::string(kAgentGreeting) + "\n";
  job += "addr " + hub.address() + "\n";
  job += "secret " + util::hex(secret, kSecretBytes) + "\n";
  job += "job " + job_id + "\n";
  job += util::format("size %u\nverbose %d\n", o.ranks, o.verbose ? 1 : 0);
  job += "prog " + hex_of(o.program) + "\n";
  for (const auto &a : o.argv) job += "arg " + hex_of(a) + "\n";
  for (char **e = environ; *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos && forwarded_variable(std::string_view(kv).substr(0, eq)))
      job += "env " + hex_of(kv) + "\n";
  }
  std::string remote_cmd = "cd " + ssh::shell_quote(working_dir()) + " && exec " +
                           ssh::shell_quote(self_path()) + " --ssh-agent";

  sigset_t mask, old_mask;
  sigemptyset(&mask);
  for (int sig : kSupervisorSignals) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  int sigfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  ::signal(SIGPIPE, SIG_IGN);  // an ssh gone is seen when it is reaped
  if (o.verbose) {
    say(o.who, util::format("starting %u rank(s) of %s on %zu host(s) (ssh spawner, bootstrap %s)",
                            o.ranks, o.program.c_str(), links.size(), hub.address().c_str()));
  }
  std::fflush(nullptr);
  SshAgents agents(o, std::move(links));
  Supervisor sup(o, hub, sigfd, job_id, &agents);
  for (const auto &l : agents.links()) {
    for (uint32_t r : l.ranks) {
      sup.procs()[r].remote = true;
      sup.procs()[r].host = l.index;
      sup.procs()[r].alive = true;
    }
  }
  if (!agents.start(prefix, remote_cmd, job, old_mask)) {
    say(o.who, util::format("cannot start ssh: %s", std::strerror(errno)));
    ::kill(::getpid(), SIGTERM);  // the supervisor ends what was started
  }
  int code = sup.run();
  ::close(sigfd);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  return code;
}

// The ssh row of the spawner table: the hosts from the environment, -N,
// then the job.
int run_ssh_spawner(const JobOptions &o) {
  auto found = ssh::hosts_from_environment();
  if (!found.error.empty()) usage_error(o.who, found.error);
  if (o.used_hosts > found.hosts.size()) {
    usage_error(o.who, util::format("-N %u asks for more hosts than %s names (%zu)", o.used_hosts,
                                    found.source.c_str(), found.hosts.size()));
  }
  auto placement =
      ssh::place_ranks(o.ranks, static_cast<uint32_t>(found.hosts.size()), o.used_hosts);
  return run_ssh_job(o, found.hosts, placement);
}

}  // namespace gexx::launcher
