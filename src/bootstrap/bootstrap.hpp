// Out-of-band wire-up between the ranks of a job: rank and size, exchange,
// barrier, broadcast, descriptor exchange among host peers, abort and exit.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace gexx::bootstrap {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // Name of the spawner that started the job, for diagnostics.
  virtual const char *spawner() const = 0;
  // Identifier shared by every rank of the job.
  virtual const std::string &job_id() const = 0;

  // Collective: every rank contributes `len` bytes (any length); every rank
  // receives all contributions, indexed by rank.
  virtual std::vector<std::vector<uint8_t>> exchange(const void *data, size_t len) = 0;
  // Collective: every rank contributes `len` bytes, the same `len` on every
  // rank; `out` receives size() * len bytes, rank r's at r * len. Linear in
  // the ranks for each (no per-rank framing or allocation); by default
  // through exchange().
  virtual void allgather_bytes(const void *mine, size_t len, void *out);
  // The ranks started on this rank's host (by the same agent), ascending,
  // this rank among them: those that can share memory through exchange_fds.
  virtual const std::vector<uint32_t> &host_ranks() const = 0;
  // Collective over host_ranks(): each contributes descriptors (it keeps its
  // own); each receives, by job rank, duplicates it must close (none from
  // ranks of other hosts).
  virtual std::vector<std::vector<int>> exchange_fds(const std::vector<int> &mine) = 0;
  // Tells the launcher the job must end with `code`; does not return.
  [[noreturn]] virtual void abort(int code, const std::string &reason) = 0;
  // Tells the launcher this rank leaves with `code`, through gasnet_exit or
  // (process_exit) exit() or a return from main; the launcher then ends the
  // other ranks. Async-signal-safe.
  virtual void announce_exit(int code, bool process_exit) = 0;

  void barrier() { allgather_bytes(nullptr, 0, nullptr); }
  // Every rank receives root's bytes.
  std::vector<uint8_t> broadcast(uint32_t root, const void *data, size_t len);
  // Fixed-size values from every rank.
  template <typename T>
  std::vector<T> allgather(const T &mine) {
    std::vector<T> out(size());
    allgather_bytes(&mine, sizeof(T), out.data());
    return out;
  }
};

// A 64-bit FNV-1a digest of `len` bytes: ranks compare digests of what must
// agree (8 bytes each through an allgather) and exchange the whole only when
// two differ, to say how.
inline uint64_t fingerprint(const void *data, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; ++i) {
    h ^= static_cast<const uint8_t *>(data)[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// Joins the job this process belongs to: through the launcher when started
// by gasnetrun, as GASNET_PSHM_NODES ranks forked here, or as a 1-rank job.
std::unique_ptr<Bootstrap> join_job();

}  // namespace gexx::bootstrap
