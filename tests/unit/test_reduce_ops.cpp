// The reduction kernels of the EX collectives: every built-in type x
// operation against a reference, the client's functions (GEX_OP_USER and
// the operand order of GEX_OP_USER_NC), and the argument checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "coll/reduce_ops.hpp"

using gexx::coll::Reduction;

namespace {

const gex_OP_t kOps[] = {GEX_OP_AND,  GEX_OP_OR,  GEX_OP_XOR, GEX_OP_ADD,
                         GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX};

bool bitwise(gex_OP_t op) {
  return op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR;
}

// The built-in reduction `op` on elements of `dt` (T), checked.
template <typename T>
Reduction builtin(gex_DT_t dt, gex_OP_t op) {
  Reduction r;
  r.dt = dt;
  r.dt_size = sizeof(T);
  r.op = op;
  r.check("test");
  return r;
}

template <typename T>
T reference(gex_OP_t op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case GEX_OP_AND:
        return a & b;
      case GEX_OP_OR:
        return a | b;
      case GEX_OP_XOR:
        return a ^ b;
      case GEX_OP_ADD:
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case GEX_OP_MULT:
        return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      default:
        break;
    }
  } else {
    if (op == GEX_OP_ADD) return a + b;
    if (op == GEX_OP_MULT) return a * b;
  }
  if (op == GEX_OP_MIN) return a < b ? a : b;
  return a > b ? a : b;
}

template <typename T>
void check_type(gex_DT_t dt, std::vector<T> in, std::vector<T> inout) {
  for (gex_OP_t op : kOps) {
    if (!std::is_integral_v<T> && bitwise(op)) continue;
    Reduction r = builtin<T>(dt, op);
    std::vector<T> out = inout;
    // Misaligned buffers: the kernels must not assume alignment.
    std::vector<char> a(in.size() * sizeof(T) + 1), b(out.size() * sizeof(T) + 1);
    std::memcpy(a.data() + 1, in.data(), in.size() * sizeof(T));
    std::memcpy(b.data() + 1, out.data(), out.size() * sizeof(T));
    r.apply(a.data() + 1, b.data() + 1, in.size());
    std::memcpy(out.data(), b.data() + 1, out.size() * sizeof(T));
    for (size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ(out[i], reference(op, in[i], inout[i]))
          << gexx::coll::dt_name(dt) << " " << gexx::coll::op_name(op) << " element " << i;
    }
    // The one-pass form into a third (misaligned) buffer: b is left as it was.
    std::vector<char> c(out.size() * sizeof(T) + 3, 0x5A);
    std::memcpy(b.data() + 1, inout.data(), inout.size() * sizeof(T));
    r.combine3(a.data() + 1, b.data() + 1, c.data() + 3, in.size());
    std::memcpy(out.data(), c.data() + 3, out.size() * sizeof(T));
    for (size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ(out[i], reference(op, in[i], inout[i]))
          << "combine3 " << gexx::coll::dt_name(dt) << " " << gexx::coll::op_name(op) << " element "
          << i;
    }
    EXPECT_EQ(std::memcmp(b.data() + 1, inout.data(), inout.size() * sizeof(T)), 0);
  }
}

}  // namespace

TEST(ReduceOps, EveryBuiltinTypeAndOperation) {
  check_type<int32_t>(GEX_DT_I32, {-5, 7, INT32_MAX, 0, -1}, {3, -7, 1, 12, INT32_MIN});
  check_type<uint32_t>(GEX_DT_U32, {5, 7, UINT32_MAX, 0, 1}, {3, 0xF0F0, 1, 12, 0x80000000u});
  check_type<int64_t>(GEX_DT_I64, {-5, 7, INT64_MAX, 0, 1ll << 40}, {3, -7, 1, 12, -(1ll << 41)});
  check_type<uint64_t>(GEX_DT_U64, {5, 7, UINT64_MAX, 0, 1ull << 63}, {3, 77, 1, 12, 9});
  check_type<float>(GEX_DT_FLT, {-1.5f, 2.25f, 1e30f, 0.0f}, {4.0f, -2.25f, 3.0f, -0.5f});
  check_type<double>(GEX_DT_DBL, {-1.5, 2.25, 1e300, 0.0}, {4.0, -2.25, 3.0, -0.5});
}

TEST(ReduceOps, Sizes) {
  EXPECT_EQ(gexx::coll::dt_size(GEX_DT_I32), 4u);
  EXPECT_EQ(gexx::coll::dt_size(GEX_DT_U64), 8u);
  EXPECT_EQ(gexx::coll::dt_size(GEX_DT_FLT), 4u);
  EXPECT_EQ(gexx::coll::dt_size(GEX_DT_DBL), 8u);
  EXPECT_EQ(gexx::coll::dt_size(GEX_DT_USER), 0u);
}

namespace {
// arg2 = arg2 . arg1 on fixed-width strings, as GASNet's testreduce does.
void concat(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  size_t w = reinterpret_cast<uintptr_t>(cdata);
  for (size_t i = 0; i < count; ++i) {
    char *y = static_cast<char *>(arg2_and_out) + i * w;
    std::string s = std::string(y) + (static_cast<const char *>(arg1) + i * w);
    std::strncpy(y, s.c_str(), w - 1);
  }
}
// GEX_OP_USER_NC with concat on 8-byte strings.
Reduction concat_nc() {
  Reduction r;
  r.dt = GEX_DT_USER;
  r.dt_size = 8;
  r.op = GEX_OP_USER_NC;
  r.fn = concat;
  r.cdata = reinterpret_cast<const void *>(uintptr_t{8});
  return r;
}
}  // namespace

TEST(ReduceOps, UserFunctionsOnUserTypes) {
  Reduction r = concat_nc();
  r.check("test");
  EXPECT_FALSE(r.commutative());
  char lower[2][8] = {"a", "x"}, upper[2][8] = {"b", "y"};
  // The engine passes the lower ranks' value first: upper becomes upper . lower.
  r.apply(lower, upper, 2);
  EXPECT_STREQ(upper[0], "ba");
  EXPECT_STREQ(upper[1], "yx");
  r.op = GEX_OP_USER;
  EXPECT_TRUE(r.commutative());
  r.apply(lower, upper, 1);
  EXPECT_STREQ(upper[0], "baa");
  // The one-pass form with a client function: out = b, then fn(in, out).
  char out[2][8] = {"", ""};
  r.combine3(lower, upper, out, 2);
  EXPECT_STREQ(out[0], "baaa");
  EXPECT_STREQ(out[1], "yxx");
  EXPECT_STREQ(upper[0], "baa");
}

TEST(ReduceOpsDeathTest, BadArgumentsStopNamingTheCallAndValue) {
  Reduction r;
  r.dt = GEX_DT_FLT;
  r.dt_size = 4;
  r.op = GEX_OP_XOR;
  EXPECT_DEATH(r.check("gex_Coll_ReduceToAllNB"),
               "gex_Coll_ReduceToAllNB: GEX_OP_XOR is a bitwise operation and GEX_DT_FLT");
  r.op = GEX_OP_FADD;
  EXPECT_DEATH(r.check("gex_Coll_ReduceToOneNB"),
               "gex_Coll_ReduceToOneNB: 0x8000 is not a reduction");
  r.op = GEX_OP_ADD;
  r.dt = 1u << 12;
  EXPECT_DEATH(r.check("gex_Coll_ReduceToOneNB"), "unknown data type \\(gex_DT_t 0x1000\\)");
  r.dt = GEX_DT_I64;
  EXPECT_DEATH(r.check("gex_Coll_ReduceToOneNB"),
               "GEX_DT_I64 elements are 8 bytes, the call says 4");
  r.dt = GEX_DT_USER;
  r.op = GEX_OP_USER;
  EXPECT_DEATH(r.check("gex_Coll_ReduceToOneNB"), "GEX_OP_USER needs a gex_Coll_ReduceFn_t");
}

namespace {
// combine_all against the pairwise fold from the right, for n inputs of
// `count` elements (more than one of its blocks, not a multiple of one),
// misaligned, and with `out` being the first input.
template <typename T>
void check_all(gex_DT_t dt) {
  const size_t count = 700;
  for (gex_OP_t op : kOps) {
    if (!std::is_integral_v<T> && bitwise(op)) continue;
    Reduction r = builtin<T>(dt, op);
    for (size_t n = 1; n <= 9; ++n) {
      std::vector<std::vector<char>> in(n, std::vector<char>(count * sizeof(T) + 1));
      std::vector<std::vector<T>> val(n, std::vector<T>(count));
      std::vector<const char *> ptr(n);
      for (size_t j = 0; j < n; ++j) {
        for (size_t i = 0; i < count; ++i)
          val[j][i] = static_cast<T>((i * 7 + j * 13) % 11) + static_cast<T>(j % 3);
        std::memcpy(in[j].data() + 1, val[j].data(), count * sizeof(T));
        ptr[j] = in[j].data() + 1;
      }
      std::vector<T> want = val[n - 1];
      for (size_t j = n - 1; j-- > 0;)
        for (size_t i = 0; i < count; ++i) want[i] = reference(op, val[j][i], want[i]);
      std::vector<char> out(count * sizeof(T) + 3);
      r.combine_all(ptr.data(), n, out.data() + 3, count);
      std::vector<T> got(count);
      std::memcpy(got.data(), out.data() + 3, count * sizeof(T));
      for (size_t i = 0; i < count; ++i)
        ASSERT_EQ(got[i], want[i]) << gexx::coll::dt_name(dt) << " " << gexx::coll::op_name(op)
                                   << " n " << n << " element " << i;
      // In place over the first input.
      r.combine_all(ptr.data(), n, in[0].data() + 1, count);
      std::memcpy(got.data(), in[0].data() + 1, count * sizeof(T));
      for (size_t i = 0; i < count; ++i)
        ASSERT_EQ(got[i], want[i]) << "in place, " << gexx::coll::dt_name(dt) << " "
                                   << gexx::coll::op_name(op) << " n " << n << " element " << i;
    }
  }
}
}  // namespace

TEST(ReduceOps, CombineAllInOnePass) {
  check_all<int32_t>(GEX_DT_I32);
  check_all<uint32_t>(GEX_DT_U32);
  check_all<int64_t>(GEX_DT_I64);
  check_all<uint64_t>(GEX_DT_U64);
  check_all<float>(GEX_DT_FLT);
  check_all<double>(GEX_DT_DBL);
}

TEST(ReduceOps, CombineAllWithAClientFunctionKeepsRankOrder) {
  Reduction r = concat_nc();
  char v[4][8] = {"a", "b", "c", "d"};
  const char *in[4] = {v[0], v[1], v[2], v[3]};
  char out[8] = "";
  r.combine_all(in, 4, out, 1);
  EXPECT_STREQ(out, "dcba");  // each fold: upper . lower, as the engine's pairwise order gives
}

// Which reductions the tree may fold as children's chunks arrive
// (coll/engine.cpp): integer built-ins only, whose result has the same bits
// in any order; floating-point sums and client functions keep rank order.
TEST(ReduceOps, OnlyIntegerBuiltinsAreOrderFree) {
  for (gex_OP_t op : kOps) {
    EXPECT_TRUE(builtin<int32_t>(GEX_DT_I32, op).order_free());
    EXPECT_TRUE(builtin<uint64_t>(GEX_DT_U64, op).order_free());
  }
  EXPECT_FALSE(builtin<double>(GEX_DT_DBL, GEX_OP_ADD).order_free());
  EXPECT_FALSE(builtin<float>(GEX_DT_FLT, GEX_OP_MULT).order_free());
  Reduction user;
  user.dt = GEX_DT_I64;
  user.dt_size = 8;
  user.op = GEX_OP_USER;
  EXPECT_FALSE(user.order_free());
  user.op = GEX_OP_USER_NC;
  EXPECT_FALSE(user.order_free());
}
