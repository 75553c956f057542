#include <gtest/gtest.h>

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "launcher/hub.hpp"
#include "bootstrap/wire.hpp"

using namespace gexx::launcher;

namespace {

struct Reply {
  Op op = Op::Hello;
  std::string text;
};

// One rank's greeting over `address`; what the hub answered.
Reply greet(const std::string &address, const uint8_t *secret, uint32_t rank, uint32_t size) {
  Reply r;
  int fd = connect_address(address);
  if (fd < 0) return r;
  HelloBody hello{kMagic, kProtocolVersion, rank, size, {}, 0};
  std::memcpy(hello.secret, secret, kSecretBytes);
  Header h{};
  if (send_message(fd, Op::Hello, 0, &hello, sizeof hello) && read_all(fd, &h, sizeof h)) {
    r.op = static_cast<Op>(h.op);
    r.text.resize(h.length);
    if (h.length && !read_all(fd, r.text.data(), h.length)) r.text = "(truncated)";
  }
  ::close(fd);
  return r;
}

// Serves `hub` until `done` is set (generous hang bound: 30 s).
void serve(Hub &hub, const std::atomic<bool> &done) {
  for (int i = 0; i < 3000 && !done.load(); ++i) {
    std::vector<pollfd> fds;
    hub.collect_pollfds(fds);
    ::poll(fds.data(), fds.size(), 10);
    for (const auto &p : fds) hub.handle(p);
  }
}

}  // namespace

TEST(HubTcp, SecretAdmitsAndRefuses) {
  uint8_t secret[kSecretBytes], wrong[kSecretBytes];
  random_bytes(secret, sizeof secret);
  std::memcpy(wrong, secret, sizeof wrong);
  wrong[7] ^= 1;
  Hub hub(2, secret, "hubtest", false);
  ASSERT_TRUE(hub.listen_tcp("127.0.0.1")) << std::strerror(errno);
  ASSERT_EQ(hub.address().rfind("tcp:127.0.0.1:", 0), 0u) << hub.address();

  std::atomic<bool> done{false};
  Reply bad, good, twice, outside;
  std::thread client([&] {
    bad = greet(hub.address(), wrong, 0, 2);
    good = greet(hub.address(), secret, 1, 2);
    outside = greet(hub.address(), secret, 2, 2);
    done = true;
  });
  serve(hub, done);
  client.join();
  EXPECT_EQ(bad.op, Op::Reject);
  EXPECT_EQ(bad.text, "wrong job secret");
  EXPECT_EQ(good.op, Op::Welcome);
  EXPECT_EQ(outside.op, Op::Reject);
  EXPECT_EQ(outside.text, "rank 2 of 2 does not fit this job of 2 ranks");
  EXPECT_EQ(hub.joined_pid(1), -1);  // a TCP peer's pid means nothing here
}

TEST(HubTcp, ExchangeAcrossTcp) {
  uint8_t secret[kSecretBytes];
  random_bytes(secret, sizeof secret);
  Hub hub(2, secret, "hubtest", false);
  ASSERT_TRUE(hub.listen_tcp("127.0.0.1"));
  std::atomic<bool> done{false};
  std::atomic<int> finished{0};
  std::vector<std::string> seen(2);
  std::vector<std::thread> ranks;
  for (uint32_t r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      int fd = connect_address(hub.address());
      HelloBody hello{kMagic, kProtocolVersion, r, 2, {}, 0};
      std::memcpy(hello.secret, secret, kSecretBytes);
      Header h{};
      send_message(fd, Op::Hello, 0, &hello, sizeof hello);
      read_all(fd, &h, sizeof h);
      std::string mine = "from rank " + std::to_string(r);
      send_message(fd, Op::Exchange, 0, mine.data(), mine.size());
      if (read_all(fd, &h, sizeof h) && static_cast<Op>(h.op) == Op::Exchange) {
        seen[r].resize(h.length);
        read_all(fd, seen[r].data(), h.length);
      }
      ::close(fd);
      if (++finished == 2) done = true;
    });
  }
  serve(hub, done);
  for (auto &t : ranks) t.join();
  for (uint32_t r = 0; r < 2; ++r) {
    EXPECT_NE(seen[r].find("from rank 0"), std::string::npos);
    EXPECT_NE(seen[r].find("from rank 1"), std::string::npos);
  }
}

TEST(HubTcp, LocalAddressTowardsAHost) {
  std::string error;
  EXPECT_EQ(local_ip_towards("127.0.0.1", error), "127.0.0.1");
  EXPECT_EQ(local_ip_towards("me@127.0.0.1", error), "127.0.0.1");
  EXPECT_EQ(local_ip_towards("no-such-host.invalid", error), "");
  EXPECT_EQ(error.rfind("cannot resolve host 'no-such-host.invalid'", 0), 0u) << error;
}
