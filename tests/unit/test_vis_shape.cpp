// VIS shapes (src/vis/shape.hpp): runs, folding, pairing and the checks.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "vis/shape.hpp"

using gexx::vis::pair_runs;
using gexx::vis::Run;
using gexx::vis::Runs;

namespace {

std::vector<std::pair<ptrdiff_t, size_t>> walk(Runs &r, const char *base) {
  std::vector<std::pair<ptrdiff_t, size_t>> out;
  Run x;
  while (r.next(x)) out.push_back({x.addr - base, x.len});
  return out;
}

using V = std::vector<std::pair<ptrdiff_t, size_t>>;

}  // namespace

TEST(VisShape, VectorSkipsEmptyEntries) {
  char b[64];
  gex_Memvec_t v[] = {{b + 10, 3}, {b, 0}, {b + 2, 5}};
  Runs r = Runs::vector(3, v);
  EXPECT_EQ(r.runs(), 2u);
  EXPECT_EQ(walk(r, b), (V{{10, 3}, {2, 5}}));
  r.rewind();
  EXPECT_EQ(walk(r, b), (V{{10, 3}, {2, 5}}));
}

TEST(VisShape, IndexedZeroLengthIsEmpty) {
  char b[8];
  void *l[] = {b, b + 1};
  Runs r = Runs::indexed(2, l, 0);
  EXPECT_EQ(r.runs(), 0u);
  EXPECT_TRUE(walk(r, b).empty());
}

TEST(VisShape, StridedOdometerLowestDimensionFirst) {
  char b[256];
  ptrdiff_t st[] = {10, 100};
  size_t cnt[] = {3, 2};
  Runs r = Runs::strided(b, st, 4, cnt, 2);
  EXPECT_EQ(r.runs(), 6u);
  EXPECT_EQ(walk(r, b), (V{{0, 4}, {10, 4}, {20, 4}, {100, 4}, {110, 4}, {120, 4}}));
}

TEST(VisShape, StridedFoldsContiguousDimensionsAndDropsSingletons) {
  char b[256];
  ptrdiff_t st[] = {4, 999, 16, 64};
  size_t cnt[] = {4, 1, 2, 2};
  Runs r = Runs::strided(b, st, 4, cnt, 4);
  // 4 x 4 bytes fold to 16; the count-1 dimension vanishes; 16-stride folds to 32.
  EXPECT_EQ(walk(r, b), (V{{0, 32}, {64, 32}}));
}

TEST(VisShape, StridedNegativeStridesAndEmptyShapes) {
  char b[256];
  ptrdiff_t st[] = {-8};
  size_t cnt[] = {3};
  Runs r = Runs::strided(b + 100, st, 2, cnt, 1);
  EXPECT_EQ(walk(r, b), (V{{100, 2}, {92, 2}, {84, 2}}));
  size_t zero[] = {0};
  Runs e = Runs::strided(b, st, 2, zero, 1);
  EXPECT_TRUE(walk(e, b).empty());
  Runs z = Runs::strided(b, st, 0, cnt, 1);
  EXPECT_TRUE(walk(z, b).empty());
  Runs contiguous = Runs::strided(b, nullptr, 5, nullptr, 0);
  EXPECT_EQ(walk(contiguous, b), (V{{0, 5}}));
}

TEST(VisShape, PairingCutsAtBothSidesBoundaries) {
  char d[32], s[32];
  for (int i = 0; i < 32; ++i) s[i] = static_cast<char>(i);
  std::memset(d, -1, sizeof d);
  gex_Memvec_t dv[] = {{d + 20, 5}, {d, 0}, {d + 2, 3}};
  gex_Memvec_t sv[] = {{s + 1, 2}, {s + 10, 6}};
  Runs dr = Runs::vector(3, dv), sr = Runs::vector(2, sv);
  std::vector<size_t> pieces;
  pair_runs(dr, sr, [&](char *a, char *b, size_t n) {
    std::memcpy(a, b, n);
    pieces.push_back(n);
  });
  EXPECT_EQ(pieces, (std::vector<size_t>{2, 3, 3}));
  const char want20[] = {1, 2, 10, 11, 12};
  const char want2[] = {13, 14, 15};
  EXPECT_EQ(std::memcmp(d + 20, want20, 5), 0);
  EXPECT_EQ(std::memcmp(d + 2, want2, 3), 0);
  EXPECT_EQ(d[0], -1);  // untouched
  EXPECT_EQ(d[25], -1);
}

TEST(VisShape, Totals) {
  uint64_t t = 0;
  size_t cnt[] = {3, 4};
  EXPECT_EQ(gexx::vis::strided_total(5, cnt, 2, &t), "");
  EXPECT_EQ(t, 60u);
  size_t huge[] = {SIZE_MAX / 2, 4};
  EXPECT_NE(gexx::vis::strided_total(8, huge, 2, &t), "");
  EXPECT_NE(gexx::vis::indexed_total(SIZE_MAX / 2, 4, "destination", &t), "");
  gex_Memvec_t v[] = {{nullptr, SIZE_MAX}, {nullptr, 2}};
  EXPECT_NE(gexx::vis::vector_total(2, v, "source", &t), "");
}

TEST(VisShape, StridedOverlap) {
  size_t cnt2[] = {2};
  ptrdiff_t zero[] = {0};
  EXPECT_NE(gexx::vis::strided_overlap(zero, 4, cnt2, 1), "");
  ptrdiff_t tight[] = {3};
  EXPECT_NE(gexx::vis::strided_overlap(tight, 4, cnt2, 1), "");
  ptrdiff_t neg[] = {-4};
  EXPECT_EQ(gexx::vis::strided_overlap(neg, 4, cnt2, 1), "");
  // Interleaved but disjoint: offsets 0,2,4 and 3,5,7 of 1-byte elements.
  ptrdiff_t inter[] = {2, 3};
  size_t cnt32[] = {3, 2};
  EXPECT_EQ(gexx::vis::strided_overlap(inter, 1, cnt32, 2), "");
  // The same with 2-byte elements collides (2..3 and 3..4).
  EXPECT_NE(gexx::vis::strided_overlap(inter, 2, cnt32, 2), "");
  // A count of one makes a zero stride harmless.
  size_t one[] = {1};
  EXPECT_EQ(gexx::vis::strided_overlap(zero, 4, one, 1), "");
}

TEST(VisShape, ListOverlap) {
  char b[64];
  gex_Memvec_t ok[] = {{b, 4}, {b + 4, 4}};
  EXPECT_EQ(gexx::vis::vector_overlap(2, ok), "");
  gex_Memvec_t bad[] = {{b, 4}, {b + 2, 4}};
  EXPECT_NE(gexx::vis::vector_overlap(2, bad), "");
  void *dup[] = {b, b};
  EXPECT_NE(gexx::vis::indexed_overlap(2, dup, 8), "");
  void *fine[] = {b + 8, b};
  EXPECT_EQ(gexx::vis::indexed_overlap(2, fine, 8), "");
}

// Reordering by the remote side's strides keeps the pairing of elements: a
// 3-D transposition with a flipped dimension moves the same bytes to the same
// places as the walk in the caller's order, and the remote side then folds
// into runs walked in increasing address order.
TEST(VisShape, RemoteOrderKeepsPairingAndFoldsRemoteRuns) {
  const size_t e = 2, c0 = 3, c1 = 4, c2 = 5;
  std::vector<char> src(e * c0 * c1 * c2 * 2), a(src.size(), 0), b(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + 1);
  // Remote (destination): dims given in the order (2, 0, 1) of a dense box,
  // dim 1 flipped. Local (source): dense in the caller's order.
  const ptrdiff_t d0 = e, d1 = e * c0, d2 = e * c0 * c1;
  size_t cnt[] = {c2, c0, c1};
  ptrdiff_t rs[] = {d2, d0, -d1};
  ptrdiff_t ls[] = {static_cast<ptrdiff_t>(e), static_cast<ptrdiff_t>(e * c2),
                    static_cast<ptrdiff_t>(e * c2 * c0)};
  char *rbase = a.data() + d1 * (c1 - 1), *lbase = src.data();
  EXPECT_FALSE(gexx::vis::strided_in_remote_order(rs, cnt, 3));
  {
    Runs dr = Runs::strided(rbase, rs, e, cnt, 3), sr = Runs::strided(lbase, ls, e, cnt, 3);
    pair_runs(dr, sr, [](char *x, char *y, size_t n) { std::memcpy(x, y, n); });
  }
  char *rb = a.data() + d1 * (c1 - 1) - a.data() + b.data(), *lb = lbase;
  ptrdiff_t rs2[] = {d2, d0, -d1}, ls2[] = {ls[0], ls[1], ls[2]};
  size_t cnt2[] = {c2, c0, c1};
  gexx::vis::strided_remote_order(rb, rs2, lb, ls2, cnt2, 3);
  EXPECT_TRUE(gexx::vis::strided_in_remote_order(rs2, cnt2, 3));
  EXPECT_EQ(rb, b.data());
  EXPECT_EQ(rs2[0], d0);
  EXPECT_EQ(rs2[1], d1);
  EXPECT_EQ(rs2[2], d2);
  Runs dr = Runs::strided(rb, rs2, e, cnt2, 3), sr = Runs::strided(lb, ls2, e, cnt2, 3);
  EXPECT_EQ(dr.runs(), 1u);  // the whole remote box is one run now
  pair_runs(dr, sr, [](char *x, char *y, size_t n) { std::memcpy(x, y, n); });
  EXPECT_EQ(a, b);
  EXPECT_NE(a, std::vector<char>(a.size(), 0));
}

// each_run yields the runs next() yields, in the same order, for strided
// shapes of 0 to 10 dimensions (beyond the inline odometer's 8), vectors
// with empty entries and indexed lists.
TEST(VisShape, EachRunMatchesNext) {
  static char b[1 << 16];
  auto both = [&](Runs &r) {
    V a, e;
    gexx::vis::Run x;
    while (r.next(x)) a.push_back({x.addr - b, x.len});
    r.each_run([&](char *p, size_t n) { e.push_back({p - b, n}); });
    EXPECT_EQ(a, e);
    EXPECT_EQ(a.size(), r.runs());
  };
  for (size_t levels = 0; levels <= 10; ++levels) {
    ptrdiff_t st[10];
    size_t cnt[10];
    ptrdiff_t s = 3;
    for (size_t i = 0; i < levels; ++i) {
      cnt[i] = 1 + (i * 7 + levels) % 3;
      st[i] = (i % 3 == 1) ? -s : s;
      s = s * static_cast<ptrdiff_t>(cnt[i]) + 1;
    }
    Runs r = Runs::strided(b + 30000, st, 2, cnt, levels);
    both(r);
  }
  gex_Memvec_t v[] = {{b + 10, 3}, {b, 0}, {b + 2, 5}};
  Runs rv = Runs::vector(3, v);
  both(rv);
  void *l[] = {b + 9, b + 1, b + 40};
  Runs ri = Runs::indexed(3, l, 4);
  both(ri);
}
