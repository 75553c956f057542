// Descriptor exchange among the ranks of one host when no gasnetrun hub
// serves them (a PMIx or PMI-2 job): the host's first rank listens on an
// abstract Unix socket, the others connect once at start-up, and each
// exchange_fds passes through it as SCM_RIGHTS. The sockets stay open for
// the job's life; a member that dies makes the next exchange fail loudly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap/wire.hpp"

namespace gexx::bootstrap {

class LocalGroup {
 public:
  LocalGroup() = default;
  LocalGroup(const LocalGroup &) = delete;
  LocalGroup &operator=(const LocalGroup &) = delete;
  ~LocalGroup();

  // Member `index` of `members` (index 0 leads). The leader opens its socket
  // here and returns what the others need to reach it ("" for the others
  // and for a group of one); publish it through the job-wide exchange.
  std::string open(uint32_t index, uint32_t members);
  // After that exchange: the others connect to the leader's `contact`, the
  // leader takes their connections. Collective over the group.
  void connect(const std::string &leader_contact);

  // Collective over the group: each contributes descriptors (it keeps its
  // own), each receives duplicates by member index, its own included.
  std::vector<std::vector<int>> exchange_fds(const std::vector<int> &mine);

  // Byte exchanges through the leader. A member other than the leader sends
  // `data` and gets the leader's answer; the leader gathers every member's
  // bytes (by member index, its own first) and then answers them all.
  std::vector<uint8_t> ask_leader(const void *data, size_t len);
  // ask_leader in two halves, for a member that must enter a job-wide
  // collective between them.
  void tell_leader(const void *data, size_t len);
  std::vector<uint8_t> leader_answer();
  std::vector<std::vector<uint8_t>> gather(const void *data, size_t len);
  void answer_all(const std::vector<uint8_t> &answer);

  // Called before the fatal error when a member is lost (a rank that
  // announced its exit may be about to end this one with the job's code).
  void (*before_lost)(void *) = nullptr;
  void *before_lost_arg = nullptr;

 private:
  void send_fds(int fd, const std::vector<int> &fds, const std::vector<uint32_t> *counts);
  // Reads one header-framed message and the descriptors riding on it.
  void read_message(int fd, Header &h, std::vector<uint8_t> &payload);
  std::vector<int> take_fds(int fd, size_t count);
  [[noreturn]] void lost(const char *what);

  uint32_t index_ = 0, members_ = 1;
  int listen_fd_ = -1;
  uint8_t secret_[kSecretBytes] = {};
  std::vector<int> peers_;  // leader: by member index (its own slot -1); else one, the leader
  std::vector<std::vector<int>> pending_;  // received descriptors not yet handed out, by peer slot
};

}  // namespace gexx::bootstrap
