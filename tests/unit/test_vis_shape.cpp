// VIS shapes (src/vis/shape.hpp): runs, folding, pairing and the checks.
#include <gtest/gtest.h>

#include <gasnet_vis.h>

#include <cstring>
#include <thread>
#include <tuple>
#include <vector>

#include "vis/local.hpp"
#include "vis/shape.hpp"
#include "vis/vis.hpp"

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

// pair_rows yields exactly pair_runs' pieces, in order, whether a pair of
// rows goes in bulk or piece by piece; rows are the strided shapes' innermost
// dimensions.
TEST(VisShape, RowsPairLikeRuns) {
  static char a[4096], b[4096];
  struct Shape {
    ptrdiff_t st[3];
    size_t cnt[3];
    size_t elem;
  };
  // (destination, source) pairs of equal totals: same element (bulk rows),
  // different elements (pieces), folds on one side, odometer carries.
  const Shape shapes[][2] = {
      {{{16, 160, 0}, {5, 3, 1}, 8}, {{8, 40, 0}, {5, 3, 1}, 8}},
      {{{24, 96, 0}, {4, 2, 1}, 8}, {{8, 64, 0}, {8, 1, 1}, 8}},
      {{{12, 48, 480}, {4, 2, 3}, 4}, {{8, 64, 0}, {6, 2, 1}, 8}},
      {{{40, 0, 0}, {7, 1, 1}, 40}, {{64, 0, 0}, {5, 1, 1}, 56}},
      {{{8, 64, 0}, {8, 3, 1}, 8}, {{8, 64, 0}, {8, 3, 1}, 8}},  // folds to one run
  };
  for (const auto &pr : shapes) {
    auto make = [&](const Shape &sh, char *base) {
      return Runs::strided(base, sh.st, sh.elem, sh.cnt, 3);
    };
    std::vector<std::tuple<ptrdiff_t, ptrdiff_t, size_t>> want, got;
    Runs d1 = make(pr[0], a), s1 = make(pr[1], b);
    pair_runs(d1, s1, [&](char *x, char *y, size_t n) { want.emplace_back(x - a, y - b, n); });
    Runs d2 = make(pr[0], a), s2 = make(pr[1], b);
    gexx::vis::pair_rows(
        d2, s2,
        [&](char *x, ptrdiff_t xs, char *y, ptrdiff_t ys, size_t n, size_t k) {
          for (size_t i = 0; i < k; ++i) got.emplace_back(x - a + i * xs, y - b + i * ys, n);
        },
        [&](char *x, char *y, size_t n) { got.emplace_back(x - a, y - b, n); });
    EXPECT_EQ(got, want);
    EXPECT_FALSE(want.empty());
  }
}

// Lists: evenly spaced entries of one length come as one row (bulk pairs),
// breaks in length, spacing or zero-length entries end it; the pieces are
// still pair_runs' own.
TEST(VisShape, ListRowsPairLikeRuns) {
  static char a[4096], b[4096];
  gex_Memvec_t dv[] = {{a + 0, 8},    {a + 16, 8},  {a + 32, 8},  {a + 48, 8}, {a, 0},
                       {a + 64, 8},   {a + 200, 8}, {a + 100, 8}, {a + 0, 8},  {a + 300, 16},
                       {a + 320, 16}, {a + 340, 4}, {a + 344, 4}};
  void *il[] = {b + 800, b + 792, b + 784, b + 776, b + 768, b + 760, b + 752,
                b + 744, b + 700, b + 600, b + 500, b + 400, b + 300, b + 200};
  // 13 vector entries hold 8*9 + 16*2 + 4*2 = 112 bytes; 14 indexed of 8 = 112.
  std::vector<std::tuple<ptrdiff_t, ptrdiff_t, size_t>> want, got;
  Runs d1 = Runs::vector(13, dv), s1 = Runs::indexed(14, il, 8);
  pair_runs(d1, s1, [&](char *x, char *y, size_t n) { want.emplace_back(x - a, y - b, n); });
  Runs d2 = Runs::vector(13, dv), s2 = Runs::indexed(14, il, 8);
  size_t bulk_pairs = 0;
  gexx::vis::pair_rows(
      d2, s2,
      [&](char *x, ptrdiff_t xs, char *y, ptrdiff_t ys, size_t n, size_t k) {
        bulk_pairs += k;
        for (size_t i = 0; i < k; ++i) got.emplace_back(x - a + i * xs, y - b + i * ys, n);
      },
      [&](char *x, char *y, size_t n) { got.emplace_back(x - a, y - b, n); });
  EXPECT_EQ(got, want);
  EXPECT_GE(bulk_pairs, 4u);  // the first four entries pair with the first four indexed ones
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

// ---- The copy loops toward a mapped peer (src/vis/local.hpp) ----

namespace local = gexx::vis::local;

namespace {

// A reference strided copy: element by element, every index in order.
void strided_reference(char *d, const ptrdiff_t *ds, const char *s, const ptrdiff_t *ss,
                       size_t elemsz, const size_t *count, size_t levels) {
  size_t total = 1;
  for (size_t i = 0; i < levels; ++i) total *= count[i];
  for (size_t e = 0; e < total; ++e) {
    ptrdiff_t od = 0, os = 0;
    size_t k = e;
    for (size_t i = 0; i < levels; ++i) {
      ptrdiff_t idx = static_cast<ptrdiff_t>(k % count[i]);
      k /= count[i];
      od += idx * ds[i];
      os += idx * ss[i];
    }
    std::memcpy(d + od, s + os, elemsz);
  }
}

void fill(std::vector<char> &v, int seed) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<char>(i * 31 + seed * 7 + 1);
}

}  // namespace

// Folding and merging: testvisperf's 2-level shape (stride[1] = count[0] x
// stride[0]) is one loop; contiguous on both sides is one piece; a side
// contiguous alone keeps its loop.
TEST(VisLocal, StridedPlanFoldsAndMerges) {
  char d[1], s[1];
  ptrdiff_t st[] = {32, 96};
  size_t cnt[] = {3, 4};
  local::StridedPlan p(d, st, s, st, 8, cnt, 2);
  EXPECT_EQ(p.len(), 8u);
  ASSERT_EQ(p.ndims(), 1u);
  EXPECT_EQ(p.dim(0).count, 12u);
  ptrdiff_t c[] = {8, 24};
  local::StridedPlan q(d, c, s, c, 8, cnt, 2);
  EXPECT_EQ(q.len(), 96u);
  EXPECT_EQ(q.ndims(), 0u);
  local::StridedPlan r(d, c, s, st, 8, cnt, 2);  // source strided, destination contiguous
  EXPECT_EQ(r.len(), 8u);
  ASSERT_EQ(r.ndims(), 1u);
  EXPECT_EQ(r.dim(0).count, 12u);
  EXPECT_EQ(r.dim(0).dstride, 8);
  EXPECT_EQ(r.dim(0).sstride, 32);
  size_t one[] = {1, 1};
  local::StridedPlan o(d, st, s, c, 8, one, 2);
  EXPECT_EQ(o.len(), 8u);
  EXPECT_EQ(o.ndims(), 0u);
  size_t none[] = {3, 0};
  local::StridedPlan z(d, st, s, st, 8, none, 2);
  EXPECT_EQ(z.len(), 0u);
}

// Every element size the loops specialise (and others), 1 to 4 levels,
// transposed and negative strides: the same bytes as the reference, and the
// bytes between the elements untouched.
TEST(VisLocal, StridedCopyMatchesReference) {
  const size_t sizes[] = {1, 2, 3, 4, 8, 12, 16, 24, 32, 64, 100, 512};
  for (size_t elemsz : sizes) {
    for (int shape = 0; shape < 5; ++shape) {
      size_t cnt[4] = {3, 2, 4, 2};
      ptrdiff_t e = static_cast<ptrdiff_t>(elemsz);
      ptrdiff_t ds[4], ss[4];
      size_t levels = 1 + static_cast<size_t>(shape % 4);
      // Source: padded rows; destination: dense, transposed for shape 4.
      ss[0] = 2 * e;
      for (size_t i = 1; i < 4; ++i) ss[i] = ss[i - 1] * static_cast<ptrdiff_t>(cnt[i - 1]) + e;
      ds[0] = e;
      for (size_t i = 1; i < 4; ++i) ds[i] = ds[i - 1] * static_cast<ptrdiff_t>(cnt[i - 1]);
      if (shape == 4) {
        levels = 2;
        ds[0] = e * static_cast<ptrdiff_t>(cnt[1]);
        ds[1] = e;
      }
      size_t span = static_cast<size_t>(ss[3] * 3 + e * 4);
      std::vector<char> src(span), got(span, 'x'), want(span, 'x');
      fill(src, static_cast<int>(elemsz) + shape);
      // A negative destination stride at shape 3: base at the far end.
      char *gbase = got.data(), *wbase = want.data();
      if (shape == 3) {
        ptrdiff_t last = ds[0] * static_cast<ptrdiff_t>(cnt[0] - 1);
        gbase += last;
        wbase += last;
        ds[0] = -ds[0];
      }
      strided_reference(wbase, ds, src.data(), ss, elemsz, cnt, levels);
      local::StridedPlan p(gbase, ds, src.data(), ss, elemsz, cnt, levels);
      p.copy<true>(0);
      EXPECT_EQ(got, want) << "elemsz " << elemsz << " shape " << shape;
      // A get: the source is the displaced side.
      std::vector<char> got2(span, 'x');
      char *g2 = got2.data() + (gbase - got.data());
      ptrdiff_t delta = 4096;
      local::StridedPlan g(g2, ds, src.data() - delta, ss, elemsz, cnt, levels);
      g.copy<false>(delta);
      EXPECT_EQ(got2, want) << "get: elemsz " << elemsz << " shape " << shape;
    }
  }
}

// The entry points' two-loop shapes: folds and merges as StridedPlan does,
// declines three loops, empty shapes and magnitudes past plain arithmetic;
// the remote range, the destination test and the copies (the vector rows
// for pieces above 128 bytes, an overlapping put to oneself by memmove).
TEST(VisLocal, TwoLoopsBuildsChecksAndCopies) {
  local::TwoLoops t;
  ptrdiff_t st[] = {32, 96, 1000};
  size_t cnt[] = {3, 4, 2};
  ASSERT_TRUE(t.build(8, cnt, st, st, 2));  // testvisperf's: one row of 12
  EXPECT_EQ(t.n, 8u);
  EXPECT_EQ(t.c0, 12u);
  EXPECT_EQ(t.c1, 1u);
  ASSERT_TRUE(t.build(8, cnt, st, st, 3));  // and a second loop
  EXPECT_EQ(t.c0, 12u);
  EXPECT_EQ(t.c1, 2u);
  EXPECT_EQ(t.d1, 1000);
  ptrdiff_t c[] = {8, 24, 96};
  ASSERT_TRUE(t.build(8, cnt, c, c, 3));  // contiguous: one piece
  EXPECT_EQ(t.n, 192u);
  EXPECT_EQ(t.c0, 1u);
  ptrdiff_t three[] = {32, 100, 1000};
  EXPECT_FALSE(t.build(8, cnt, three, three, 3));  // three loops
  size_t none[] = {3, 0};
  EXPECT_FALSE(t.build(8, none, st, st, 2));
  EXPECT_FALSE(t.build(0, cnt, st, st, 2));
  ptrdiff_t huge[] = {ptrdiff_t{1} << 41};
  EXPECT_FALSE(t.build(8, cnt, huge, st, 1));
  size_t many[] = {size_t{1} << 21};
  EXPECT_FALSE(t.build(8, many, st, st, 1));

  // Remote range: 2 rows of 3 pieces of 8 bytes, pieces -16 apart, rows 100.
  ptrdiff_t neg[] = {-16, 100};
  size_t c23[] = {3, 2};
  ASSERT_TRUE(t.build(8, c23, neg, neg, 2));
  alignas(8) static char seg[1024];
  const local::Window w{reinterpret_cast<uintptr_t>(seg), sizeof seg, 0};
  EXPECT_TRUE(t.remote_in<true>(w, seg + 32));   // [0, 140)
  EXPECT_FALSE(t.remote_in<true>(w, seg + 31));  // one byte below
  EXPECT_FALSE(t.remote_in<true>(w, seg + 32 + sizeof seg - 140 + 1));
  EXPECT_TRUE(t.dest_disjoint());
  ptrdiff_t tight[] = {8, 20};  // rows 20 apart, a row spans 24: overlap
  ASSERT_TRUE(t.build(8, c23, tight, tight, 2));
  EXPECT_FALSE(t.dest_disjoint());
  ptrdiff_t same[] = {4};
  size_t two[] = {2};
  ASSERT_TRUE(t.build(8, two, same, same, 1));
  EXPECT_FALSE(t.dest_disjoint());

  // Copies: every length the loops move differently, rows of 3 pieces, 2
  // rows; the bytes between untouched.
  for (size_t n : {8, 64, 100, 129, 512, 700, 3000}) {
    const ptrdiff_t e = static_cast<ptrdiff_t>(n);
    ptrdiff_t ds[] = {e + 5, 3 * (e + 5) + 7}, ss[] = {2 * e, -7 * e};
    size_t k[] = {3, 2};
    ASSERT_TRUE(t.build(n, k, ds, ss, 2));
    const size_t span = static_cast<size_t>(14 * e + 64);
    std::vector<char> src(span), got(span, 'x'), want(span, 'x');
    fill(src, static_cast<int>(n));
    const char *sb = src.data() + 7 * e;  // the rows go down on the source
    strided_reference(want.data(), ds, sb, ss, n, k, 2);
    EXPECT_TRUE(t.spans_apart(got.data(), sb));
    t.copy<true>(got.data(), sb);
    EXPECT_EQ(got, want) << "n " << n;
  }
  // A put to oneself whose pieces overlap their sources (destination 8
  // bytes above): not apart, and each piece moved as memmove would.
  for (size_t n : {200, 512}) {
    ptrdiff_t st2[] = {static_cast<ptrdiff_t>(2 * n)};
    size_t k[] = {2};
    ASSERT_TRUE(t.build(n, k, st2, st2, 1));
    std::vector<char> buf(4 * n + 16), want;
    fill(buf, 3);
    want = buf;
    for (size_t i = 0; i < 2; ++i)
      std::memmove(want.data() + 8 + 2 * n * i, want.data() + 2 * n * i, n);
    EXPECT_FALSE(t.spans_apart(buf.data() + 8, buf.data()));
    t.copy<true>(buf.data() + 8, buf.data());
    EXPECT_EQ(buf, want) << "n " << n;
  }
}

// One pass over vector lists: pieces of each specialised length move, the
// remote side displaced by the window's delta; the destination's range is
// gathered; a pair of another length stops the pass there, and so does a
// remote piece outside the window, before it moves.
TEST(VisLocal, VectorPassMovesChecksAndStops) {
  for (size_t n : {1, 2, 4, 8, 16, 32, 64, 24, 200}) {
    std::vector<char> src(16 * n), seg(64 * n, 'x');
    fill(src, static_cast<int>(n));
    // The "remote" segment lives at owner address 1 << 20 here.
    const uintptr_t owner = uintptr_t{1} << 20;
    local::Window w{owner, seg.size(), seg.data() - reinterpret_cast<char *>(owner)};
    gex_Memvec_t dl[4], sl[4];
    for (size_t i = 0; i < 4; ++i) {
      dl[i] = {reinterpret_cast<void *>(owner + (3 - i) * 2 * n), n};  // reversed, gaps of n
      sl[i] = {src.data() + i * n, n};
    }
    gexx::vis::ListScan ds;
    local::Pass p = local::vector_pass<true>(w, 4, dl, sl, n, ds);
    EXPECT_EQ(p.at, 4u);
    EXPECT_EQ(ds.total, 4 * n);
    EXPECT_EQ(ds.lo, owner);
    EXPECT_EQ(ds.hi, owner + 7 * n);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(std::memcmp(seg.data() + (3 - i) * 2 * n, src.data() + i * n, n), 0);
      EXPECT_EQ(seg[(3 - i) * 2 * n + n], 'x');  // the gaps stay
    }
    // A length change at entry 2: entries 0 and 1 move, the pass says 2.
    std::vector<char> seg2(64 * n, 'y');
    local::Window w2{owner, seg2.size(), seg2.data() - reinterpret_cast<char *>(owner)};
    sl[2].gex_len = n + 1;
    gexx::vis::ListScan ds2;
    p = local::vector_pass<true>(w2, 4, dl, sl, n, ds2);
    EXPECT_EQ(p.at, 2u);
    EXPECT_FALSE(p.out_of_segment);
    EXPECT_EQ(ds2.total, 2 * n);
    EXPECT_EQ(seg2[1 * 2 * n], 'y');  // entry 2's destination untouched
    sl[2].gex_len = n;
    // Entry 3 outside the segment: stops there, nothing of it written.
    dl[3].gex_addr = reinterpret_cast<void *>(owner + seg.size() - n + 1);
    gexx::vis::ListScan ds3;
    p = local::vector_pass<true>(w, 4, dl, sl, n, ds3);
    EXPECT_EQ(p.at, 3u);
    EXPECT_TRUE(p.out_of_segment);
  }
}

// Indexed lists and the pairing of lists of different lengths (the general
// walk): the same bytes as a byte-by-byte reference.
TEST(VisLocal, IndexedPassAndUnevenPairing) {
  std::vector<char> src(256), dst(256, 'x');
  fill(src, 5);
  const uintptr_t owner = uintptr_t{1} << 24;
  local::Window w{owner, dst.size(), dst.data() - reinterpret_cast<char *>(owner)};
  void *dl[3] = {reinterpret_cast<void *>(owner + 100), reinterpret_cast<void *>(owner),
                 reinterpret_cast<void *>(owner + 50)};
  void *sl[3] = {src.data(), src.data() + 10, src.data() + 20};
  gexx::vis::ListScan ds;
  local::Pass p = local::indexed_pass<true>(w, 3, dl, sl, 10, ds);
  EXPECT_EQ(p.at, 3u);
  EXPECT_EQ(ds.lo, owner);
  EXPECT_EQ(ds.hi, owner + 110);
  EXPECT_EQ(std::memcmp(dst.data() + 100, src.data(), 10), 0);
  EXPECT_EQ(std::memcmp(dst.data(), src.data() + 10, 10), 0);
  EXPECT_EQ(std::memcmp(dst.data() + 50, src.data() + 20, 10), 0);
  EXPECT_EQ(dst[60], 'x');
  // Vector lists cut differently on the two sides: 5+7+4 against 3+9+4.
  std::vector<char> out(64, 'z'), want(64, 'z');
  gex_Memvec_t dv[] = {
      {out.data(), 5}, {out.data() + 20, 7}, {out.data() + 40, 0}, {out.data() + 50, 4}};
  gex_Memvec_t sv[] = {{src.data() + 100, 3}, {src.data() + 120, 9}, {src.data() + 140, 4}};
  std::vector<char> flat;
  for (const auto &m : sv)
    flat.insert(flat.end(), static_cast<char *>(m.gex_addr),
                static_cast<char *>(m.gex_addr) + m.gex_len);
  std::memcpy(want.data(), flat.data(), 5);
  std::memcpy(want.data() + 20, flat.data() + 5, 7);
  std::memcpy(want.data() + 50, flat.data() + 12, 4);
  local::vectors<false>(0, 4, dv, 3, sv, 0);
  EXPECT_EQ(out, want);
}

// gasnet_vis.h's inline forms run only while no thread has a peer completion
// armed (gexx_rma_fast.vis_pc_armed); a thread that exits with one armed must take
// itself out of that count, or every later call takes the library's path.
TEST(VisPeerCompletion, ThreadExitingArmedLeavesTheCount) {
  // The count the inline forms read (gexx_rma_fast's), checked against ABI
  // 1's word, which the library keeps equal for clients built against it.
  auto armed = [] {
    EXPECT_EQ(gexx_rma_fast.vis_pc_armed, gexx_vis_pc_armed);
    return gexx_rma_fast.vis_pc_armed;
  };
  ASSERT_EQ(armed(), 0);
  std::thread([&armed] {
    gexx::vis::set_pc_armed(true);
    EXPECT_EQ(armed(), 1);
  }).join();
  EXPECT_EQ(armed(), 0);
  std::thread([] {
    gexx::vis::set_pc_armed(true);
    gexx::vis::set_pc_armed(false);  // disarmed by a put: the exit takes nothing more
    gexx::vis::set_pc_armed(true);
    gexx::vis::set_pc_armed(false);
  }).join();
  EXPECT_EQ(armed(), 0);
  gexx::vis::set_pc_armed(true);
  EXPECT_EQ(armed(), 1);
  gexx::vis::set_pc_armed(false);
  EXPECT_EQ(armed(), 0);
}
