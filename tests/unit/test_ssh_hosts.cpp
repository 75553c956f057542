#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "launcher/ssh_hosts.hpp"

using namespace gexx::launcher::ssh;
using Hosts = std::vector<std::string>;

TEST(SshHosts, ServersTakeCommasAndSpaces) {
  EXPECT_EQ(parse_servers("a,b c\td\n e,,f ,"), (Hosts{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(parse_servers(""), Hosts{});
  EXPECT_EQ(parse_servers(" , "), Hosts{});
  EXPECT_EQ(parse_servers("user@node1.example.org"), Hosts{"user@node1.example.org"});
}

TEST(SshHosts, NodefileSkipsCommentsAndBlankLines) {
  EXPECT_EQ(parse_nodefile("# cluster\nn1\n\n  n2   # spare\n#n3\nn4 slots=4\r\nn5"),
            (Hosts{"n1", "n2", "n4", "n5"}));
  EXPECT_EQ(parse_nodefile("\n\n#only comments\n"), Hosts{});
}

TEST(SshHosts, DuplicatesDroppedInOrder) {
  EXPECT_EQ(without_duplicates({"b", "a", "b", "c", "a"}), (Hosts{"b", "a", "c"}));
}

TEST(SshHosts, WordsSplitLikeAShell) {
  auto w = split_words(R"(-o 'StrictHostKeyChecking no' -p 2222 -o "User=a b" x\ y "q\"t" '')");
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (Hosts{"-o", "StrictHostKeyChecking no", "-p", "2222", "-o", "User=a b", "x y",
                       "q\"t", ""}));
  EXPECT_EQ(*split_words("   "), Hosts{});
  EXPECT_FALSE(split_words("-o 'open"));
  EXPECT_FALSE(split_words("-o \"open"));
  EXPECT_FALSE(split_words("trailing\\"));
}

TEST(SshHosts, QuotedWordsSurviveTheRemoteShell) {
  EXPECT_EQ(shell_quote("plain/path-1.0"), "plain/path-1.0");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's $HOME"), "'it'\\''s $HOME'");
  auto back = split_words(shell_quote("it's $HOME") + " " + shell_quote("x\"y"));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, (Hosts{"it's $HOME", "x\"y"}));
}

TEST(SshHosts, RoundRobinWithoutN) {
  EXPECT_EQ(place_ranks(5, 2, 0), (std::vector<uint32_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(place_ranks(2, 3, 0), (std::vector<uint32_t>{0, 1}));
}

TEST(SshHosts, BlocksWithN) {
  EXPECT_EQ(place_ranks(4, 2, 2), (std::vector<uint32_t>{0, 0, 1, 1}));
  EXPECT_EQ(place_ranks(5, 3, 2), (std::vector<uint32_t>{0, 0, 0, 1, 1}));
  EXPECT_EQ(place_ranks(7, 3, 3), (std::vector<uint32_t>{0, 0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(place_ranks(3, 4, 1), (std::vector<uint32_t>{0, 0, 0}));
}

class SshEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char *v : kVars) ::unsetenv(v);
  }
  void TearDown() override {
    for (const char *v : kVars) ::unsetenv(v);
    if (!file_.empty()) std::remove(file_.c_str());
  }
  std::string write_file(const std::string &text) {
    char path[] = "/tmp/gexx-nodefile-XXXXXX";
    int fd = ::mkstemp(path);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
    file_ = path;
    return file_;
  }
  static constexpr const char *kVars[] = {"GASNET_SSH_SERVERS", "GASNET_SSH_NODEFILE",
                                          "GASNET_SSH_KEEPDUP"};
  std::string file_;
};

TEST_F(SshEnv, ServersFromTheVariable) {
  ::setenv("GASNET_SSH_SERVERS", "h1,h2 h1", 1);
  auto r = hosts_from_environment();
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.hosts, (Hosts{"h1", "h2"}));
  ::setenv("GASNET_SSH_KEEPDUP", "1", 1);
  EXPECT_EQ(hosts_from_environment().hosts, (Hosts{"h1", "h2", "h1"}));
}

TEST_F(SshEnv, NodefileWinsOverServers) {
  ::setenv("GASNET_SSH_SERVERS", "s1,s2", 1);
  ::setenv("GASNET_SSH_NODEFILE", write_file("# hosts\nf1\nf2\n").c_str(), 1);
  auto r = hosts_from_environment();
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.hosts, (Hosts{"f1", "f2"}));
  EXPECT_EQ(r.source, "GASNET_SSH_NODEFILE=" + file_);
}

TEST_F(SshEnv, ErrorsSayWhatIsMissing) {
  EXPECT_EQ(hosts_from_environment().error,
            "the ssh spawner needs hosts: set GASNET_SSH_SERVERS or GASNET_SSH_NODEFILE");
  ::setenv("GASNET_SSH_SERVERS", " , ", 1);
  EXPECT_EQ(hosts_from_environment().error, "GASNET_SSH_SERVERS names no host");
  ::setenv("GASNET_SSH_NODEFILE", "/nonexistent/nodes", 1);
  EXPECT_EQ(hosts_from_environment().error,
            "cannot read GASNET_SSH_NODEFILE '/nonexistent/nodes': No such file or directory");
  ::setenv("GASNET_SSH_NODEFILE", write_file("# nothing\n").c_str(), 1);
  EXPECT_EQ(hosts_from_environment().error, "GASNET_SSH_NODEFILE=" + file_ + " names no host");
}
