#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/config.hpp"

using namespace gexx::config;

TEST(ParseBytes, SuffixesArePowersOf1024) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("64K"), 64u << 10);
  EXPECT_EQ(parse_bytes("64k"), 64u << 10);
  EXPECT_EQ(parse_bytes("512M"), 512ull << 20);
  EXPECT_EQ(parse_bytes("512MB"), 512ull << 20);
  EXPECT_EQ(parse_bytes("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_bytes("1.5G"), 3ull << 29);
  EXPECT_EQ(parse_bytes("1T"), 1ull << 40);
  EXPECT_EQ(parse_bytes(" 8M "), 8ull << 20);
}

TEST(ParseBytes, RejectsMalformed) {
  for (const char *bad : {"", "abc", "-1", "+5", "12Q", "1.5", "M", "10MM", "1e400G"})
    EXPECT_FALSE(parse_bytes(bad).has_value()) << bad;
}

TEST(ParseSizeSpec, FractionsOfMemory) {
  auto half = parse_size_spec("0.5");
  ASSERT_TRUE(half);
  EXPECT_TRUE(half->fraction);
  EXPECT_DOUBLE_EQ(half->share, 0.5);
  auto five_eighths = parse_size_spec("5/8");
  ASSERT_TRUE(five_eighths);
  EXPECT_TRUE(five_eighths->fraction);
  EXPECT_DOUBLE_EQ(five_eighths->share, 0.625);
  auto abs = parse_size_spec("2G");
  ASSERT_TRUE(abs);
  EXPECT_FALSE(abs->fraction);
  EXPECT_EQ(abs->bytes, 2ull << 30);
}

TEST(ParseSizeSpec, RejectsMalformed) {
  for (const char *bad : {"0", "0.0", "9/8", "1/0", "-1/2", "x/2", "1.5", "lots"})
    EXPECT_FALSE(parse_size_spec(bad).has_value()) << bad;
}

TEST(ParseBool, AcceptsCommonSpellings) {
  EXPECT_EQ(parse_bool("1"), true);
  EXPECT_EQ(parse_bool("YES"), true);
  EXPECT_EQ(parse_bool("on"), true);
  EXPECT_EQ(parse_bool("0"), false);
  EXPECT_EQ(parse_bool("false"), false);
  EXPECT_FALSE(parse_bool("maybe").has_value());
}

TEST(ParseInt, WholeNumbersOnly) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_EQ(parse_int(" -3 "), -3);
  EXPECT_FALSE(parse_int("4x").has_value());
  EXPECT_FALSE(parse_int("").has_value());
  EXPECT_FALSE(parse_int("99999999999999999999").has_value());
}

TEST(Registry, EveryVariableIsDocumented) {
  for (const auto &v : registry()) {
    EXPECT_EQ(std::string(v.name).rfind("GASNET_", 0), 0u) << v.name;
    EXPECT_GT(std::string(v.help).size(), 20u) << v.name;
    EXPECT_EQ(find(v.name), &v);
  }
  EXPECT_EQ(find("GASNET_NO_SUCH_THING"), nullptr);
}

TEST(ParseBytes, LargeAndEdgeSizes) {
  EXPECT_EQ(parse_bytes("16T"), 16ull << 40);
  EXPECT_EQ(parse_bytes("0.5t"), 1ull << 39);
  EXPECT_EQ(parse_bytes("16777215T"), 16777215ull << 40);
  EXPECT_FALSE(parse_bytes("16777216T").has_value());  // 2^64 bytes
  EXPECT_EQ(parse_bytes("0"), 0u);
  EXPECT_FALSE(parse_bytes("1 M B").has_value());
}

TEST(ParseSizeSpec, FractionEdges) {
  auto all = parse_size_spec("1.0");
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->fraction);
  EXPECT_DOUBLE_EQ(all->share, 1.0);
  auto quarter = parse_size_spec(".25");
  ASSERT_TRUE(quarter && quarter->fraction);
  EXPECT_DOUBLE_EQ(quarter->share, 0.25);
  auto whole = parse_size_spec("8/8");
  ASSERT_TRUE(whole && whole->fraction);
  auto one = parse_size_spec("1");  // a bare whole number is bytes
  ASSERT_TRUE(one);
  EXPECT_FALSE(one->fraction);
  EXPECT_EQ(one->bytes, 1u);
  auto tera = parse_size_spec("2T");
  ASSERT_TRUE(tera);
  EXPECT_EQ(tera->bytes, 2ull << 40);
  for (const char *bad : {"1.01", "0/8", "5/", "/8", "5/8/2", "0.5G/2", "2.5/8"})
    EXPECT_FALSE(parse_size_spec(bad).has_value()) << bad;
}

// GASNet's GASNET_MAX_SEGSIZE syntax: SIZE[/P|/H] (upcxx-run exports 128.0MB/P).
TEST(ParseSizeSpec, GasnetSyntax) {
  using Scope = SizeSpec::Scope;
  auto upcxx = parse_size_spec("128.0MB/P");
  ASSERT_TRUE(upcxx);
  EXPECT_FALSE(upcxx->fraction);
  EXPECT_EQ(upcxx->bytes, 128ull << 20);
  EXPECT_EQ(upcxx->scope, Scope::PerProcess);
  EXPECT_FALSE(upcxx->per_host());
  auto host = parse_size_spec("0.85/H");
  ASSERT_TRUE(host);
  EXPECT_TRUE(host->fraction);
  EXPECT_DOUBLE_EQ(host->share, 0.85);
  EXPECT_EQ(host->scope, Scope::PerHost);
  EXPECT_TRUE(host->per_host());
  auto half = parse_size_spec("0.5/h");  // either case
  ASSERT_TRUE(half && half->per_host());
  EXPECT_DOUBLE_EQ(half->share, 0.5);
  auto quarter_each = parse_size_spec("0.25/P");
  ASSERT_TRUE(quarter_each && quarter_each->fraction);
  EXPECT_FALSE(quarter_each->per_host());
  auto four_gb_host = parse_size_spec("4GB/H");
  ASSERT_TRUE(four_gb_host);
  EXPECT_EQ(four_gb_host->bytes, 4ull << 30);
  EXPECT_TRUE(four_gb_host->per_host());
  auto two_gb = parse_size_spec("2GB");
  ASSERT_TRUE(two_gb);
  EXPECT_EQ(two_gb->bytes, 2ull << 30);
  EXPECT_EQ(two_gb->scope, Scope::Unstated);
  EXPECT_FALSE(two_gb->per_host());  // bytes without a suffix: per process
  auto kb = parse_size_spec("1.5KB/p");
  ASSERT_TRUE(kb);
  EXPECT_EQ(kb->bytes, 1536u);
  auto eighths = parse_size_spec("5/8/H");
  ASSERT_TRUE(eighths && eighths->fraction && eighths->per_host());
  EXPECT_DOUBLE_EQ(eighths->share, 0.625);
  auto bare = parse_size_spec("0.5");  // a fraction without a suffix: each process's, as GASNet
  ASSERT_TRUE(bare && bare->fraction);
  EXPECT_EQ(bare->scope, Scope::Unstated);
  EXPECT_FALSE(bare->per_host());
  auto bare_eighths = parse_size_spec("5/8");
  ASSERT_TRUE(bare_eighths && bare_eighths->fraction);
  EXPECT_FALSE(bare_eighths->per_host());
  for (const char *bad : {"/P", "128MB/", "128MB/X", "128MB/PP", "0/H", "1.5/H", "9/8/P", "MB/P",
                          "-1MB/P", "128MB /Q"})
    EXPECT_FALSE(parse_size_spec(bad).has_value()) << bad;
}

// GASNet strips the scope letter with or without its slash (2GBp, 0.85H).
TEST(ParseSizeSpec, ScopeLetterWithoutSlash) {
  using Scope = SizeSpec::Scope;
  auto p = parse_size_spec("2GBp");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->bytes, 2ull << 30);
  EXPECT_EQ(p->scope, Scope::PerProcess);
  auto h = parse_size_spec("0.85H");
  ASSERT_TRUE(h && h->fraction);
  EXPECT_DOUBLE_EQ(h->share, 0.85);
  EXPECT_TRUE(h->per_host());
  auto spaced = parse_size_spec(" 64 MB / h ");
  ASSERT_TRUE(spaced);
  EXPECT_EQ(spaced->bytes, 64ull << 20);
  EXPECT_TRUE(spaced->per_host());
  for (const char *bad : {"P", "H", "/H", "hp", "2GB/HP", "0.5//H", "2GBx"})
    EXPECT_FALSE(parse_size_spec(bad).has_value()) << bad;
}

// The default, 0.5/H, keeps half of memory for the ranks of a host together.
TEST(ParseSizeSpec, DefaultIsTheHostsHalf) {
  const Var *v = find("GASNET_MAX_SEGSIZE");
  ASSERT_NE(v, nullptr);
  auto d = parse_size_spec(v->default_value);
  ASSERT_TRUE(d && d->fraction);
  EXPECT_DOUBLE_EQ(d->share, 0.5);
  EXPECT_TRUE(d->per_host());
}

TEST(ParseSeconds, NonNegativeNumbers) {
  EXPECT_EQ(parse_seconds("0"), 0.0);
  EXPECT_EQ(parse_seconds("2.5"), 2.5);
  for (const char *bad : {"-1", "", "2s", "inf", "nan"})
    EXPECT_FALSE(parse_seconds(bad).has_value()) << bad;
}

// Every malformed value, with the exact text of what is accepted.
TEST(CheckValue, EveryMalformedValueSaysWhatIsAccepted) {
  struct Case {
    const char *name, *value, *message;
  };
  const Case cases[] = {
      {"GASNET_PSHM_NODES", "0", "use a whole number from 1 to 1048576"},
      {"GASNET_PSHM_NODES", "1048577", "use a whole number from 1 to 1048576"},
      {"GASNET_PSHM_NODES", "two", "use a whole number from 1 to 1048576"},
      {"GASNET_PSHM_NODES", "4.0", "use a whole number from 1 to 1048576"},
      {"GASNET_MAX_SEGSIZE", "lots",
       "use a size with an optional K, M, G or T suffix (512M, 2G), or a fraction of physical "
       "memory (0.5, 5/8), then optionally /P (per rank, the default) or /H (per host)"},
      {"GASNET_MAX_SEGSIZE", "9/8",
       "use a size with an optional K, M, G or T suffix (512M, 2G), or a fraction of physical "
       "memory (0.5, 5/8), then optionally /P (per rank, the default) or /H (per host)"},
      {"GASNET_MAX_SEGSIZE", "0",
       "use a size with an optional K, M, G or T suffix (512M, 2G), or a fraction of physical "
       "memory (0.5, 5/8), then optionally /P (per rank, the default) or /H (per host)"},
      {"GASNET_SHM_BACKING", "memfd,nfs",
       "'nfs' is not one of: memfd, shm, file (separate them with commas)"},
      {"GASNET_SHM_BACKING", "", "list one or more of: memfd, shm, file"},
      {"GASNET_SHM_BACKING", " , ", "list one or more of: memfd, shm, file"},
      {"GASNET_BARRIER", "tree",
       "'tree' is not one of: auto, dissem, central (separate them with commas)"},
      {"GASNET_VERBOSEENV", "maybe", "use 1 or 0 (also yes/no, true/false, on/off)"},
      {"GASNET_BACKTRACE", "2", "use 1 or 0 (also yes/no, true/false, on/off)"},
      {"GASNET_FREEZE", "please", "use 1 or 0 (also yes/no, true/false, on/off)"},
      {"GASNET_FREEZE_ON_ERROR", "x", "use 1 or 0 (also yes/no, true/false, on/off)"},
      {"GASNET_BACKTRACE_TYPE", "lldb",
       "'lldb' is not one of: addr2line, gdb, execinfo (separate them with commas)"},
      {"GASNET_EXITTIMEOUT", "-1", "use a number of seconds, such as 2 or 0.5"},
      {"GASNET_EXITTIMEOUT", "soon", "use a number of seconds, such as 2 or 0.5"},
  };
  for (const auto &c : cases) {
    const Var *v = find(c.name);
    ASSERT_NE(v, nullptr) << c.name;
    auto problem = check_value(*v, c.value);
    ASSERT_TRUE(problem.has_value()) << c.name << "=" << c.value;
    EXPECT_EQ(*problem, c.message) << c.name << "=" << c.value;
  }
}

TEST(CheckValue, AcceptsWhatTheDefaultsAndDocsShow) {
  for (const auto &v : registry()) EXPECT_FALSE(check_value(v, v.default_value)) << v.name;
  const std::pair<const char *, const char *> good[] = {
      {"GASNET_PSHM_NODES", "1048576"}, {"GASNET_MAX_SEGSIZE", "5/8"},
      {"GASNET_MAX_SEGSIZE", "1T"},     {"GASNET_SHM_BACKING", "FILE, shm"},
      {"GASNET_BARRIER", "Central"},    {"GASNET_BACKTRACE_TYPE", "execinfo"},
      {"GASNET_TMPDIR", "any thing"},
  };
  for (const auto &[name, value] : good) EXPECT_FALSE(check_value(*find(name), value)) << name;
}

// Sets variables for one test and restores them after.
class Env {
 public:
  void set(const char *name, const char *value) {
    const char *old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name, value, 1);
  }
  ~Env() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        ::unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(FirstInvalid, NamesTheVariableAndTheValue) {
  Env env;
  env.set("GASNET_MAX_SEGSIZE", "2G");
  EXPECT_FALSE(first_invalid().has_value());
  env.set("GASNET_EXITTIMEOUT", "-1");
  EXPECT_EQ(first_invalid(),
            "GASNET_EXITTIMEOUT='-1' is not valid: use a number of seconds, such as 2 or 0.5");
}

TEST(UnknownVariables, WarnWithTheNearestName) {
  std::map<std::string, std::string> env = {
      {"GASNET_MAX_SEGSZE", "1G"},     // a typo of a variable gexx reads
      {"GASNET_CSPAWN_CMD", "x"},      // GASNet's, ignored quietly
      {"GASNET_SSH_OUT_DEGRE", "4"},   // a typo of an ignored GASNet variable
      {"GASNET_COMPLETELY_NEW", "1"},  // nothing near it
      {"GASNET_BACKTRACE", "1"},       // known
  };
  auto warnings = unknown_variable_warnings(env);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0],
            "GASNET_COMPLETELY_NEW is not a variable gexx knows; it is ignored; gasnetrun "
            "--help-env lists the variables gexx reads");
  EXPECT_EQ(warnings[1],
            "GASNET_MAX_SEGSZE is not a variable gexx knows; it is ignored (did you mean "
            "GASNET_MAX_SEGSIZE?); gasnetrun --help-env lists the variables gexx reads");
  EXPECT_EQ(warnings[2],
            "GASNET_SSH_OUT_DEGRE is not a variable gexx knows; it is ignored (did you mean "
            "GASNET_SSH_OUT_DEGREE? gexx ignores that one too); gasnetrun --help-env lists the "
            "variables gexx reads");
}

// What a client's build exports (UPC++'s configure, upcxx-run) is no typo.
TEST(UnknownVariables, ClientBuildVariablesAreQuiet) {
  std::map<std::string, std::string> env = {
      {"GASNET_PREFIX", "/opt/gasnet"}, {"GASNET_TYPE", "source"},
      {"GASNET_UNPACKED", "/tmp/gexx"}, {"GASNET_CONFIGURE_ARGS", "--enable-smp"},
      {"GASNET_CODEMODE", "debug"},     {"GASNET_THREADMODE", "seq"},
      {"GASNET_PREFX", "/opt/gasnet"},  // a typo is still one
      {"GASNET_TYPO_HERE", "1"},
  };
  auto warnings = unknown_variable_warnings(env);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].rfind("GASNET_PREFX is not a variable gexx knows", 0), 0u) << warnings[0];
  EXPECT_EQ(warnings[1].rfind("GASNET_TYPO_HERE is not a variable gexx knows", 0), 0u)
      << warnings[1];
  EXPECT_TRUE(is_client_build_name("GASNET_PREFIX"));
  EXPECT_TRUE(is_client_build_name("GASNET_CONFIGURE_ARGS"));
  EXPECT_FALSE(is_client_build_name("GASNET_PREFX"));
  EXPECT_FALSE(is_client_build_name("GASNET_MAX_SEGSIZE"));
}

TEST(UnknownVariables, NearestName) {
  EXPECT_EQ(nearest_name("GASNET_BACKTRCE"), "GASNET_BACKTRACE");
  EXPECT_EQ(nearest_name("GASNET_FREEZE_ON_ERR"), "GASNET_FREEZE_ON_ERROR");
  EXPECT_EQ(nearest_name("GASNET_VERBOSE_ENV"), "GASNET_VERBOSEENV");
  EXPECT_EQ(nearest_name("GASNET_XYZ"), "");
  EXPECT_TRUE(is_ignored_gasnet_name("GASNET_CSPAWN_CMD"));
  EXPECT_FALSE(is_ignored_gasnet_name("GASNET_SPAWNFN"));  // read by gasnetrun
  EXPECT_FALSE(is_ignored_gasnet_name("GASNET_BACKTRACE"));
}

TEST(InEffect, SaysWhereEachValueComesFrom) {
  std::map<std::string, std::string> env = {{"GASNET_BARRIER", "central"},
                                            {"GASNET_CSPAWN_CMD", "x"}};
  auto lines = describe_in_effect(env);
  ASSERT_EQ(lines.size(), registry().size() + 1);
  auto has = [&](const std::string &line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("GASNET_BARRIER=central (environment)"));
  EXPECT_TRUE(has("GASNET_MAX_SEGSIZE=0.5/H (default)"));
  EXPECT_TRUE(has("GASNET_TMPDIR unset"));
  EXPECT_EQ(lines.back(), "GASNET_CSPAWN_CMD=x (environment; a GASNet variable gexx does not use)");
}

TEST(Agreement, EqualValuesAgree) {
  std::map<std::string, std::string> a = {{"GASNET_BARRIER", "auto"}};
  std::map<std::string, std::string> b;  // unset means the default, auto
  EXPECT_EQ(agreement_key(a), agreement_key(b));
  EXPECT_FALSE(disagreement({agreement_key(a), agreement_key(b), agreement_key(a)}));
  EXPECT_FALSE(disagreement({}));
  // Variables that need not agree are left out.
  std::map<std::string, std::string> c = {{"GASNET_MAX_SEGSIZE", "1G"}};
  EXPECT_EQ(agreement_key(b), agreement_key(c));
}

TEST(Agreement, NamesTheVariableAndBothValues) {
  std::map<std::string, std::string> same, central = {{"GASNET_BARRIER", "central"}};
  auto problem = disagreement({agreement_key(same), agreement_key(same), agreement_key(central)});
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem,
            "GASNET_BARRIER must be the same on every rank, but rank 0 has 'auto' and rank 2 has "
            "'central'; set it once for the whole job");
  std::map<std::string, std::string> nodes = {{"GASNET_PSHM_NODES", "4"}};
  problem = disagreement({agreement_key(nodes), agreement_key(same)});
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem,
            "GASNET_PSHM_NODES must be the same on every rank, but rank 0 has '4' and rank 1 has "
            "'1'; set it once for the whole job");
}

// A knob group registered the way each conduit registers its own
// (transport/<conduit>/knobs.cpp): a static object in its own file.
GEXX_KNOB_GROUP_DEFINE(
    zz_unit_test,
    {
        {"GASNET_UNITTEST_RANGED", Kind::Int, "5",
         "A whole number from 2 to 9, declared only by this unit test.", false, 2, 9},
        {"GASNET_UNITTEST_BYTES", Kind::Bytes, "1K",
         "A byte count from 16 to 64K, declared only by this unit test.", false, 16, 64 << 10},
    });

TEST(Registry, GroupsRegisterStaticallyInAFixedOrder) {
  ASSERT_NE(find("GASNET_UNITTEST_RANGED"), nullptr);
  EXPECT_STREQ(group_of("GASNET_UNITTEST_RANGED"), "zz_unit_test");
  // Each conduit's variables come from its own folder.
  EXPECT_STREQ(group_of("GASNET_OFI_PROVIDER"), "ofi");
  EXPECT_STREQ(group_of("GASNET_NETWORKDEPTH_PP"), "ofi");
  EXPECT_STREQ(group_of("GASNET_SHM_BACKING"), "smp");
  EXPECT_STREQ(group_of("GASNET_VIS_AMPIPE"), "vis");
  EXPECT_STREQ(group_of("GASNET_PSHM_NODES"), "core");
  EXPECT_STREQ(group_of("GASNET_AD_PATH"), "atomics");
  EXPECT_EQ(group_of("GASNET_NO_SUCH_THING"), nullptr);
  // core first, then the groups by name, each in declared order.
  std::vector<std::string> order;
  for (const auto &v : registry()) {
    std::string g = group_of(v.name);
    if (order.empty() || order.back() != g) order.push_back(g);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"core", "atomics", "ofi", "smp", "udp", "vis",
                                             "zz_unit_test"}));
  EXPECT_STREQ(group_of("GASNET_AD_PATH"), "atomics");
  EXPECT_EQ(std::string(registry().front().name), "GASNET_PSHM_NODES");
}

TEST(Registry, EveryNameIsDeclaredOnce) {
  std::map<std::string, int> seen;
  for (const auto &v : registry()) EXPECT_EQ(++seen[v.name], 1) << v.name;
}

TEST(GetInt, EnforcesTheDeclaredRange) {
  Env env;
  EXPECT_EQ(get_int("GASNET_UNITTEST_RANGED"), 5);
  env.set("GASNET_UNITTEST_RANGED", "2");
  EXPECT_EQ(get_int("GASNET_UNITTEST_RANGED"), 2);
  env.set("GASNET_UNITTEST_RANGED", "9");
  EXPECT_EQ(get_int("GASNET_UNITTEST_RANGED"), 9);
  env.set("GASNET_UNITTEST_RANGED", "10");
  EXPECT_EXIT(get_int("GASNET_UNITTEST_RANGED"), testing::ExitedWithCode(1),
              "GASNET_UNITTEST_RANGED='10' is not valid: use a whole number from 2 to 9");
  env.set("GASNET_UNITTEST_RANGED", "1");
  EXPECT_EXIT(get_int("GASNET_UNITTEST_RANGED"), testing::ExitedWithCode(1),
              "GASNET_UNITTEST_RANGED='1' is not valid: use a whole number from 2 to 9");
  // A conduit's variable, with the range its own folder declares.
  env.set("GASNET_NETWORKDEPTH_PP", "0");
  EXPECT_EXIT(get_int("GASNET_NETWORKDEPTH_PP"), testing::ExitedWithCode(1),
              "GASNET_NETWORKDEPTH_PP='0' is not valid: use a whole number from 1 to 1048576");
  env.set("GASNET_INLINESEND_LIMIT", "-1");
  EXPECT_EQ(get_int("GASNET_INLINESEND_LIMIT"), -1);
  env.set("GASNET_AM_CREDITS_SLACK", "0");
  EXPECT_EXIT(get_int("GASNET_AM_CREDITS_SLACK"), testing::ExitedWithCode(1),
              "GASNET_AM_CREDITS_SLACK='0' is not valid: use a whole number from 1 to 1048576");
}

TEST(GetBytes, EnforcesTheDeclaredRange) {
  Env env;
  EXPECT_EQ(get_bytes("GASNET_UNITTEST_BYTES"), 1024u);
  env.set("GASNET_UNITTEST_BYTES", "64K");
  EXPECT_EQ(get_bytes("GASNET_UNITTEST_BYTES"), 64u << 10);
  env.set("GASNET_UNITTEST_BYTES", "8");
  EXPECT_EXIT(get_bytes("GASNET_UNITTEST_BYTES"), testing::ExitedWithCode(1),
              "GASNET_UNITTEST_BYTES='8' is not valid: use a number of bytes from 16 to 65536, "
              "with an optional K, M, G or T suffix");
  EXPECT_EQ(check_value(*find("GASNET_UNITTEST_BYTES"), "1M"),
            "use a number of bytes from 16 to 65536, with an optional K, M, G or T suffix");
  // Unbounded byte counts keep the plain message.
  EXPECT_EQ(check_value(*find("GASNET_PACKEDLONG_LIMIT"), "x"),
            "use a number of bytes with an optional K, M, G or T suffix (0, 4096, 64K)");
}

TEST(GetList, EnforcesTheDeclaredChoices) {
  Env env;
  env.set("GASNET_SHM_BACKING", "SHM, file");
  EXPECT_EQ(get_list("GASNET_SHM_BACKING"), (std::vector<std::string>{"shm", "file"}));
  env.set("GASNET_SHM_BACKING", "memfd,disk");
  EXPECT_EXIT(get_list("GASNET_SHM_BACKING"), testing::ExitedWithCode(1),
              "GASNET_SHM_BACKING='memfd,disk' is not valid: 'disk' is not one of: memfd, shm, "
              "file");
}
