// The launcher's side of the bootstrap channel: authenticates ranks and
// serves their collectives (exchange, fd exchange), aborts and exit codes.
#pragma once

#include <poll.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bootstrap/wire.hpp"

namespace gexx::launcher {

// The wire vocabulary the ranks speak (bootstrap/wire.hpp).
using namespace gexx::bootstrap;

class Hub {
 public:
  Hub(uint32_t size, const uint8_t *secret, std::string who, bool verbose);
  ~Hub();
  Hub(const Hub &) = delete;
  Hub &operator=(const Hub &) = delete;

  // Opens the listening socket, an abstract Unix one for ranks on this host,
  // or (listen_tcp) a TCP one at `ip` for ranks on other hosts; false (errno
  // set) if it cannot. Over TCP the job secret alone admits a rank.
  bool listen();
  bool listen_tcp(const std::string &ip);
  // Serves on a listening socket opened by another (the program that
  // forked GASNET_PSHM_NODES ranks and exec'd gasnetrun); takes `fd`.
  void adopt(int fd, const std::string &address);
  const std::string &address() const { return address_; }
  int listen_fd() const { return listen_fd_; }
  // Closes the listening socket in a forked child that is not the hub.
  void forget_in_child();

  void collect_pollfds(std::vector<pollfd> &out) const;
  void handle(const pollfd &p);
  // Drops connections that have not greeted within their deadline and
  // resumes accepting after a pause; returns when it next needs a call.
  double tick(double now);
  // Reads whatever the ranks have sent, without waiting.
  void drain();

  struct AbortRequest {
    uint32_t rank;
    int code;
    std::string reason;
  };
  const std::optional<AbortRequest> &abort_request() const { return abort_; }
  // True once `rank` has asked to abort (it has reported its own error).
  bool aborted(uint32_t rank) const { return aborted_[rank]; }
  // The first rank to announce its exit (gasnet_exit, exit() or a return
  // from main after init), if any did.
  struct ExitNotice {
    uint32_t rank;
    int code;
    ExitHow how;
  };
  const std::optional<ExitNotice> &first_exit() const { return first_exit_; }
  // Process id `rank` joined with while its connection is still open, else -1:
  // such a process has gexx's SIGQUIT handling in place.
  long joined_pid(uint32_t rank) const { return rank_fd_[rank] >= 0 ? rank_pid_[rank] : -1; }
  // True once `rank` has joined (it may have left since); how many have.
  bool joined_ever(uint32_t rank) const { return joined_[rank]; }
  uint32_t joined_count() const { return joined_count_; }
  // True once `rank` has announced its own exit: it is on its way out.
  bool exiting(uint32_t rank) const { return exiting_[rank]; }

 private:
  struct Conn {
    int fd = -1;
    long rank = -1;
    double greet_by = 0;  // not joined yet: dropped if still silent then
    std::vector<uint8_t> in;
    std::vector<int> fds;
  };
  enum class Pending { None, Exchange, Fds, Allgather };

  void accept_all();
  void read_conn(Conn &c);
  bool process(Conn &c, const Header &h, const uint8_t *payload);
  bool hello(Conn &c, const Header &h, const uint8_t *payload);
  void reject(Conn &c, const std::string &reason);
  // Counts a refused connection; the first is reported in full, the rest in
  // one line when the hub closes.
  void refused(const std::string &peer, const std::string &reason);
  bool make_room();
  void sweep();
  std::string describe_peer(int fd) const;
  void drop(Conn &c);
  void protocol_failure(const std::string &what);
  void finish_exchange();
  void finish_fds();
  void finish_allgather();

  uint32_t size_;
  uint8_t secret_[kSecretBytes];
  std::string who_;
  bool verbose_;
  std::string address_;
  int listen_fd_ = -1;
  std::vector<Conn> conns_;
  std::vector<long> conn_at_;   // index in conns_ of each open descriptor, -1 if none
  bool dropped_ = false;        // some conns_ entry is closed: sweep() removes it
  std::vector<int> rank_fd_;    // fd of each joined rank, -1 if none
  std::vector<long> rank_pid_;  // pid each rank joined with

  Pending pending_ = Pending::None;
  uint32_t arrived_ = 0;
  std::vector<std::vector<uint8_t>> contrib_;
  std::vector<std::vector<int>> fd_contrib_;
  std::vector<uint8_t> gathered_;  // Allgather: contributions in rank order
  uint64_t gather_len_ = 0;        // Allgather: each rank's length
  std::vector<bool> contributed_;

  std::optional<AbortRequest> abort_;
  std::vector<bool> aborted_;
  std::optional<ExitNotice> first_exit_;
  std::vector<bool> joined_, exiting_;
  uint32_t joined_count_ = 0;
  size_t pending_limit_;            // connections not joined yet, at most
  double accept_paused_until_ = 0;  // out of descriptors: accept later
  std::vector<std::pair<std::string, unsigned long>> refusals_;  // reason, count
  unsigned long refused_total_ = 0;
};

}  // namespace gexx::launcher
