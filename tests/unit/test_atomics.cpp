// The operation kernels of remote atomics (atomics/kernels.hpp): every type
// x operation, the value fetched and the word left behind, against values
// written out here; the compare-and-swap loops under contention.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "atomics/kernels.hpp"

using gexx::atomics::apply;
using gexx::atomics::fetches;
using gexx::atomics::next_value;

namespace {

struct Case {
  gex_OP_t op;
  double old, a, b, after;  // the word before and after; operands
};

// Values exact in every type (small integers and halves are exact in float).
template <typename T>
void run_cases(const std::vector<Case> &cases) {
  for (const Case &c : cases) {
    T word = static_cast<T>(c.old);
    T got = apply<T>(&word, c.op, static_cast<T>(c.a), static_cast<T>(c.b));
    SCOPED_TRACE(gexx::atomics::op_name(c.op));
    EXPECT_EQ(got, static_cast<T>(c.old)) << "every kernel returns the prior value";
    EXPECT_EQ(word, static_cast<T>(c.after));
    EXPECT_EQ(next_value<T>(c.op, static_cast<T>(c.old), static_cast<T>(c.a), static_cast<T>(c.b)),
              static_cast<T>(c.after));
  }
}

const std::vector<Case> kCommon = {
    {GEX_OP_SET, 12, 5, 0, 5},     {GEX_OP_GET, 12, 0, 0, 12},   {GEX_OP_SWAP, 12, 7, 0, 7},
    {GEX_OP_CAS, 12, 12, 30, 30},  {GEX_OP_CAS, 12, 11, 30, 12}, {GEX_OP_FCAS, 12, 12, 30, 30},
    {GEX_OP_FCAS, 12, 13, 30, 12}, {GEX_OP_ADD, 12, 5, 0, 17},   {GEX_OP_FADD, 12, 5, 0, 17},
    {GEX_OP_SUB, 12, 5, 0, 7},     {GEX_OP_FSUB, 12, 5, 0, 7},   {GEX_OP_MULT, 12, 3, 0, 36},
    {GEX_OP_FMULT, 12, 3, 0, 36},  {GEX_OP_MIN, 12, 5, 0, 5},    {GEX_OP_MIN, 12, 20, 0, 12},
    {GEX_OP_FMIN, 12, 5, 0, 5},    {GEX_OP_FMIN, 12, 20, 0, 12}, {GEX_OP_MAX, 12, 5, 0, 12},
    {GEX_OP_MAX, 12, 20, 0, 20},   {GEX_OP_FMAX, 12, 5, 0, 12},  {GEX_OP_FMAX, 12, 20, 0, 20},
    {GEX_OP_INC, 12, 0, 0, 13},    {GEX_OP_FINC, 12, 0, 0, 13},  {GEX_OP_DEC, 12, 0, 0, 11},
    {GEX_OP_FDEC, 12, 0, 0, 11},
};
const std::vector<Case> kBitwise = {
    {GEX_OP_AND, 12, 5, 0, 4},  {GEX_OP_FAND, 12, 5, 0, 4}, {GEX_OP_OR, 12, 5, 0, 13},
    {GEX_OP_FOR, 12, 5, 0, 13}, {GEX_OP_XOR, 12, 5, 0, 9},  {GEX_OP_FXOR, 12, 5, 0, 9},
};
const std::vector<Case> kFloating = {
    {GEX_OP_ADD, 12.5, 5.25, 0, 17.75},   {GEX_OP_SUB, 12.5, 5.25, 0, 7.25},
    {GEX_OP_MULT, 12.5, 5.25, 0, 65.625}, {GEX_OP_FMULT, -2.5, 4, 0, -10},
    {GEX_OP_MIN, 12.5, -5.25, 0, -5.25},  {GEX_OP_MAX, -12.5, -5.25, 0, -5.25},
    {GEX_OP_FMIN, 0.5, 0.25, 0, 0.25},    {GEX_OP_FMAX, 0.5, 0.25, 0, 0.5},
    {GEX_OP_INC, 0.5, 0, 0, 1.5},         {GEX_OP_CAS, 0.5, 0.5, 2.5, 2.5},
};

TEST(AtomicKernels, EveryIntegerTypeAndOperation) {
  run_cases<int32_t>(kCommon);
  run_cases<int32_t>(kBitwise);
  run_cases<uint32_t>(kCommon);
  run_cases<uint32_t>(kBitwise);
  run_cases<int64_t>(kCommon);
  run_cases<int64_t>(kBitwise);
  run_cases<uint64_t>(kCommon);
  run_cases<uint64_t>(kBitwise);
}

TEST(AtomicKernels, EveryFloatingTypeAndOperation) {
  run_cases<float>(kCommon);
  run_cases<float>(kFloating);
  run_cases<double>(kCommon);
  run_cases<double>(kFloating);
}

TEST(AtomicKernels, IntegerArithmeticWraps) {
  int32_t w = INT32_MAX;
  EXPECT_EQ(apply<int32_t>(&w, GEX_OP_FINC, 0, 0), INT32_MAX);
  EXPECT_EQ(w, INT32_MIN);
  uint32_t u = 0;
  EXPECT_EQ(apply<uint32_t>(&u, GEX_OP_FDEC, 0, 0), 0u);
  EXPECT_EQ(u, UINT32_MAX);
  int64_t m = INT64_MAX / 2 + 1;
  apply<int64_t>(&m, GEX_OP_MULT, 2, 0);
  EXPECT_EQ(m, INT64_MIN);
  int64_t neg = -7;
  apply<int64_t>(&neg, GEX_OP_MIN, -9, 0);
  EXPECT_EQ(neg, -9) << "signed MIN compares as signed";
  uint64_t big = 1;
  apply<uint64_t>(&big, GEX_OP_MAX, UINT64_MAX, 0);
  EXPECT_EQ(big, UINT64_MAX) << "unsigned MAX compares as unsigned";
}

TEST(AtomicKernels, FloatingMinMaxKeepTheWordWhenTheOperandLoses) {
  double d = -0.0;
  EXPECT_TRUE(std::signbit(apply<double>(&d, GEX_OP_FMIN, 0.0, 0)));
  EXPECT_TRUE(std::signbit(d)) << "+0 does not beat -0 (they compare equal)";
  float f = 1.0f;
  apply<float>(&f, GEX_OP_MAX, std::nanf(""), 0);
  EXPECT_EQ(f, 1.0f) << "a NaN operand compares false and is not stored";
}

TEST(AtomicKernels, WhichOperationsFetch) {
  for (gex_OP_t op :
       {GEX_OP_GET, GEX_OP_SWAP, GEX_OP_FCAS, GEX_OP_FAND, GEX_OP_FOR, GEX_OP_FXOR, GEX_OP_FADD,
        GEX_OP_FSUB, GEX_OP_FMULT, GEX_OP_FMIN, GEX_OP_FMAX, GEX_OP_FINC, GEX_OP_FDEC})
    EXPECT_TRUE(fetches(op)) << gexx::atomics::op_name(op);
  for (gex_OP_t op : {GEX_OP_SET, GEX_OP_CAS, GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR, GEX_OP_ADD,
                      GEX_OP_SUB, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX, GEX_OP_INC, GEX_OP_DEC})
    EXPECT_FALSE(fetches(op)) << gexx::atomics::op_name(op);
}

TEST(AtomicKernels, BitwiseOperationsAreForIntegersOnly) {
  using gexx::atomics::ops_of;
  using gexx::atomics::Type;
  for (gex_OP_t op : {GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR, GEX_OP_FAND, GEX_OP_FOR, GEX_OP_FXOR}) {
    EXPECT_TRUE(ops_of(Type::kU32) & op);
    EXPECT_TRUE(ops_of(Type::kI64) & op);
    EXPECT_FALSE(ops_of(Type::kFlt) & op);
    EXPECT_FALSE(ops_of(Type::kDbl) & op);
  }
  EXPECT_TRUE(ops_of(Type::kDbl) & GEX_OP_FMULT);
}

TEST(AtomicKernels, Names) {
  EXPECT_STREQ(gexx::atomics::op_name(GEX_OP_FADD), "GEX_OP_FADD");
  EXPECT_STREQ(gexx::atomics::op_name(GEX_OP_CAS), "GEX_OP_CAS");
  EXPECT_STREQ(gexx::atomics::op_name(GEX_OP_ADD | GEX_OP_SUB), "an unknown operation");
  EXPECT_STREQ(gexx::atomics::type_name(GEX_DT_DBL), "GEX_DT_DBL");
  EXPECT_STREQ(gexx::atomics::type_name(GEX_DT_USER), "GEX_DT_USER");
}

// The compare-and-swap loops (FP add, integer MULT/MAX) lose no update
// when several threads hit one word.
TEST(AtomicKernels, LoopsAreAtomicUnderContention) {
  constexpr int kThreads = 4, kIters = 20000;
  double sum = 0;
  uint64_t product = 1;  // 15 doublings per thread: 2^60 in all
  int64_t maximum = INT64_MIN;
  float fmax = -1.0f;
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        apply<double>(&sum, GEX_OP_FADD, 1.0, 0);
        if (i < 15) apply<uint64_t>(&product, GEX_OP_MULT, 2, 0);
        apply<int64_t>(&maximum, GEX_OP_MAX, int64_t(i) * kThreads + t, 0);
        apply<float>(&fmax, GEX_OP_FMAX, float(i % 1000) + float(t) / 8, 0);
      }
    });
  }
  for (auto &th : pool) th.join();
  EXPECT_EQ(sum, double(kThreads) * kIters);
  EXPECT_EQ(product, uint64_t(1) << (15 * kThreads));
  EXPECT_EQ(maximum, int64_t(kIters - 1) * kThreads + kThreads - 1);
  EXPECT_EQ(fmax, 999.0f + float(kThreads - 1) / 8);
}

}  // namespace
