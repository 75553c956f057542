// bootstrap_check: exercises the bootstrap collectives directly in a real
// job (gasnetrun or GASNET_PSHM_NODES): exchange with lengths that differ by
// rank, broadcast from every root, barrier, and descriptor exchange (not
// with --no-fds: ranks of the ssh spawner reach the launcher over TCP).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "bootstrap/bootstrap.hpp"

namespace {
int failures = 0;
uint32_t me = 0;

void expect(bool ok, const std::string &what) {
  if (!ok) {
    std::printf("FAIL: rank %u: %s\n", me, what.c_str());
    ++failures;
  }
}
// Each rank shares a memfd holding its rank; every rank reads all of them.
void share_memfds(gexx::bootstrap::Bootstrap &boot, uint32_t n) {
  int fd = memfd_create("bootstrap_check", MFD_CLOEXEC);
  expect(fd >= 0 && ftruncate(fd, 4096) == 0, "memfd");
  char *p = static_cast<char *>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  std::snprintf(p, 64, "segment of rank %u", me);
  auto fds = boot.exchange_fds({fd});
  for (uint32_t r = 0; r < n; ++r) {
    expect(fds[r].size() == 1, "one descriptor from each rank");
    if (fds[r].size() != 1) continue;
    char *q = static_cast<char *>(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fds[r][0], 0));
    expect(std::string(q) == "segment of rank " + std::to_string(r),
           "descriptor of rank " + std::to_string(r) + " shows '" + std::string(q) + "'");
    munmap(q, 4096);
    close(fds[r][0]);
  }
}
}  // namespace

int main(int argc, char **argv) {
  bool fds_too = !(argc > 1 && std::strcmp(argv[1], "--no-fds") == 0);
  auto boot = gexx::bootstrap::join_job();
  me = boot->rank();
  uint32_t n = boot->size();

  // Rank r contributes r+1 copies of the letter 'a'+r (rank 0: one byte).
  std::string mine(me + 1, static_cast<char>('a' + me % 26));
  auto all = boot->exchange(mine.data(), mine.size());
  expect(all.size() == n, "exchange returned " + std::to_string(all.size()) + " entries");
  for (uint32_t r = 0; r < n && r < all.size(); ++r) {
    std::string got(all[r].begin(), all[r].end());
    expect(got == std::string(r + 1, static_cast<char>('a' + r % 26)),
           "exchange entry " + std::to_string(r) + " is '" + got + "'");
  }

  // Broadcast: each rank's text holds what no other rank can guess (its pid
  // and a random nonce), and every rank passes its own text, of the root's
  // length, so a broadcast that echoes the caller's bytes fails. What each
  // rank must receive is the root's token, taken from the exchange.
  std::random_device seed;
  char token[64];
  std::snprintf(token, sizeof token, "rank %05u pid %010ld nonce %08x%08x", me,
                static_cast<long>(getpid()), static_cast<unsigned>(seed()),
                static_cast<unsigned>(seed()));
  std::string mytoken(token);
  auto tokens = boot->exchange(mytoken.data(), mytoken.size());
  expect(tokens.size() == n && std::string(tokens[me].begin(), tokens[me].end()) == mytoken,
         "exchange of tokens");
  for (uint32_t root = 0; root < n && root < tokens.size(); ++root) {
    std::string want(tokens[root].begin(), tokens[root].end());
    auto got = boot->broadcast(root, mytoken.data(), mytoken.size());
    std::string text(got.begin(), got.end());
    expect(text == want, "broadcast from " + std::to_string(root) + " gave '" + text +
                             "', the root's token is '" + want + "'");
    expect(root == me || text != mytoken,
           "broadcast from " + std::to_string(root) + " gave this rank's own token");
    if (root == 0 && me == 0) std::printf("bootstrap root 0 broadcast '%s'\n", text.c_str());
  }

  auto values = boot->allgather(static_cast<uint64_t>(me) * 1000003u);
  for (uint32_t r = 0; r < n; ++r) expect(values[r] == r * 1000003ull, "allgather value");

  if (fds_too) share_memfds(*boot, n);
  boot->barrier();
  std::printf("bootstrap rank %u of %u: %s\n", me, n, failures ? "FAIL" : "PASS");
  std::fflush(stdout);
  boot->barrier();
  return failures ? 1 : 0;
}
