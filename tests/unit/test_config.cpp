#include <gtest/gtest.h>

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
