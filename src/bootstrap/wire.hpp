// Framing of the bootstrap channel between ranks and their launcher.
//
// Every message is a Header followed by `length` payload bytes. File
// descriptors travel as SCM_RIGHTS ancillary data on Unix sockets.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gexx::bootstrap {

constexpr uint32_t kMagic = 0x58584547;  // "GEXX"
constexpr uint32_t kProtocolVersion = 3;
constexpr size_t kSecretBytes = 32;
constexpr size_t kMaxFdsPerMessage = 200;

// Environment the launcher gives each rank; unset again once read.
constexpr const char *kEnvAddress = "GEXX_BOOT_ADDR";
constexpr const char *kEnvSecret = "GEXX_BOOT_SECRET";
constexpr const char *kEnvRank = "GEXX_BOOT_RANK";
constexpr const char *kEnvSize = "GEXX_BOOT_SIZE";
constexpr const char *kEnvJob = "GEXX_JOB_ID";
constexpr const char *kEnvVerbose = "GEXX_LAUNCH_VERBOSE";
// The index of the rank's host among the job's hosts (ssh spawner).
constexpr const char *kEnvHost = "GEXX_BOOT_HOST";
// Ranks started on other hosts too: the host's own hub (its agent), where
// the ranks of this host exchange descriptors, and those ranks in order
// (comma-separated job ranks; a rank's position is its index there). Unset:
// every rank of the job is on this host and the launcher's hub serves.
constexpr const char *kEnvHostAddress = "GEXX_BOOT_HOST_ADDR";
constexpr const char *kEnvHostRanks = "GEXX_BOOT_HOST_RANKS";
// GASNET_PSHM_NODES=N ./prog: the program forks its N ranks at init
// (bootstrap/pshm.cpp), then execs `gasnetrun --supervise-pshm` in the
// original process with these: the listening socket it opened (descriptor
// and address), the secret, the job id, the ranks' pids in rank order
// (comma-separated), verbose, and kProtocolVersion, which gasnetrun checks.
constexpr const char *kEnvPshmProtocol = "GEXX_PSHM_PROTOCOL";
constexpr const char *kEnvPshmFd = "GEXX_PSHM_FD";
constexpr const char *kEnvPshmAddress = "GEXX_PSHM_ADDR";
constexpr const char *kEnvPshmSecret = "GEXX_PSHM_SECRET";
constexpr const char *kEnvPshmJob = "GEXX_PSHM_JOB";
constexpr const char *kEnvPshmPids = "GEXX_PSHM_PIDS";
constexpr const char *kEnvPshmVerbose = "GEXX_PSHM_VERBOSE";
// The signals a supervisor takes through a signalfd (blocked otherwise):
// gasnetrun's, and those the GASNET_PSHM_NODES program blocks before it
// forks so that none is lost while it execs gasnetrun.
constexpr int kSupervisorSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// gasnetrun's hidden modes (not for users).
constexpr const char *kSupervisePshmFlag = "--supervise-pshm";

enum class Op : uint32_t {
  Hello = 1,    // rank -> hub: HelloBody
  Welcome,      // hub -> rank
  Reject,       // hub -> rank: reason text, then the hub closes
  Exchange,     // rank -> hub: contribution; hub -> rank: all contributions
  ExchangeFds,  // rank -> hub: `arg` fds; hub -> rank: counts, then FdChunk messages
  FdChunk,      // hub -> rank: `arg` fds, no payload but one pad byte
  Abort,        // rank -> hub: `arg` exit code, payload reason
  Exit,         // rank -> hub: `arg` exit code the rank is leaving with, payload ExitHow
  Allgather,    // rank -> hub: `length` bytes, the same for all; hub -> rank: every
                // contribution back to back in rank order (size * length bytes)
};

// How a rank announced its exit (the one payload byte of Op::Exit).
enum class ExitHow : uint8_t {
  GasnetExit = 'g',   // gasnet_exit(code), or the default SIGQUIT handler
  ProcessExit = 'e',  // exit(code) or a return from main after init
};

struct Header {
  uint32_t op;
  uint32_t arg;
  uint64_t length;
};

struct HelloBody {
  uint32_t magic;
  uint32_t version;
  uint32_t rank;
  uint32_t size;
  uint8_t secret[kSecretBytes];
  uint32_t pid;  // the rank's process id on its host (what its agent signals)
};

// Blocking helpers; they retry on EINTR and wait out EAGAIN. They return
// false when the peer is gone.
bool write_all(int fd, const void *data, size_t len);
bool read_all(int fd, void *data, size_t len);
bool send_message(int fd, Op op, uint32_t arg, const void *payload, size_t len,
                  const int *fds = nullptr, size_t nfds = 0);

// Reads what the non-blocking `fd` holds now, handing each chunk to
// `take(data, n)`, until it would block or `take` returns false (enough for
// now). At end of stream or on an error it closes `fd` and sets it to -1.
template <class Take>
void read_available(int &fd, Take &&take) {
  char buf[65536];
  while (fd >= 0) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      ::close(fd);
      fd = -1;
      return;
    }
    if (!take(buf, static_cast<size_t>(n))) return;
  }
}

// Reads up to `len` bytes with recvmsg, appending any received fds to `fds`.
// Returns bytes read, 0 at end of stream, -1 on error (errno set).
long recv_some(int fd, void *data, size_t len, std::vector<int> &fds);

// Connects to "@name" (abstract Unix socket), "tcp:HOST:PORT" (an IPv6
// HOST in brackets) or a filesystem path.
int connect_address(const std::string &address);
// Listens on a fresh abstract address; `address` receives its "@name" form.
int listen_abstract(const std::string &name_hint, std::string &address);
// Listens on TCP at `ip` (numeric, v4 or v6) on a port the kernel picks;
// `address` receives its "tcp:IP:PORT" form.
int listen_tcp(const std::string &ip, std::string &address);
// The numeric address of this host on the route to `host` (what a process
// there would connect back to), or "" with `error` set.
std::string local_ip_towards(const std::string &host, std::string &error);
// True for a socket whose peer is on this host and has a kernel-vouched
// identity (a Unix socket); false for TCP, where only the secret counts.
bool is_unix_socket(int fd);

void random_bytes(uint8_t *out, size_t n);
// A fresh job id: the supervising process's pid in hex, 'p', 32 random bits
// in hex ("1a2bp9f3c0e11"). It names the job's shared-memory files, so a
// later launcher can tell whether their job's supervisor is still there.
std::string new_job_id();
// The supervisor pid a job id starts with, or -1 (an id of another form).
long job_id_pid(const std::string &job_id);
// The value of environment variable `name` ("" when unset), which is then
// removed so the client program does not inherit it.
std::string take_env(const char *name);
bool secrets_equal(const uint8_t *a, const uint8_t *b);  // constant time

}  // namespace gexx::bootstrap
