// The copy loops of VIS calls toward or from a peer whose segment this
// process maps (smp, and same-host peers of a network conduit). The caller
// has checked the shape and bounds-checked the remote side once, as one
// range (vis/shape.hpp: ListScan, strided_extent); `delta` is what turns a
// remote address into this process's address of the same byte. Then a call
// is a tight loop of copies straight from the client's lists or strides:
// no translation, no call per piece, pieces of 1 to 64 bytes moved with
// loads and stores of a size known to the compiler. Pure: no runtime, so
// the unit tests drive the loops directly (tests/unit/test_vis_shape.cpp).
//
// Ordering: a put's stores must be ordered before any later store of the
// caller (util/copy.hpp). Pieces of 1 to 64 bytes are plain loads and
// stores, ordered as they are; so are longer ones up to
// GEXX_COPY_INLINE_MAX (gexx_copy.h); a put's piece moved with memmove is
// followed by a store fence.
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/copy.hpp"
#include "vis/shape.hpp"

namespace gexx::vis::local {

// N bytes (a power of two up to 64) as loads of them all, then the stores:
// safe when the two ranges overlap (a put to self), and plain stores (no
// memmove call, whose string moves may be reordered; util/copy.hpp). Up to
// 8 bytes one integer; above, 16-byte vectors held in named values (GCC
// spills an array of them to the stack).
using V16 = long long __attribute__((vector_size(16), aligned(1), may_alias));
inline V16 load16(const char *s) {
  return *reinterpret_cast<const V16 *>(s);
}
inline void store16(char *d, V16 v) {
  *reinterpret_cast<V16 *>(d) = v;
}
template <size_t N>
inline void move_fixed(char *d, const char *s) {
  if constexpr (N <= 8) {
    util::detail::move_one<std::conditional_t<
        N == 1, uint8_t,
        std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>>(d,
                                                                                               s);
  } else if constexpr (N == 16) {
    store16(d, load16(s));
  } else if constexpr (N == 32) {
    V16 a = load16(s), b = load16(s + 16);
    store16(d, a);
    store16(d + 16, b);
  } else {
    static_assert(N == 64);
    V16 a = load16(s), b = load16(s + 16), c = load16(s + 32), e = load16(s + 48);
    store16(d, a);
    store16(d + 16, b);
    store16(d + 32, c);
    store16(d + 48, e);
  }
}

// Calls f(std::integral_constant<size_t, N>) with N = n for the lengths
// moved inline (1 to 64, powers of two), else N = 0 (the length is not
// known at compile time).
template <typename F>
inline auto by_size(size_t n, F &&f) {
  switch (n) {
    case 1:
      return f(std::integral_constant<size_t, 1>{});
    case 2:
      return f(std::integral_constant<size_t, 2>{});
    case 4:
      return f(std::integral_constant<size_t, 4>{});
    case 8:
      return f(std::integral_constant<size_t, 8>{});
    case 16:
      return f(std::integral_constant<size_t, 16>{});
    case 32:
      return f(std::integral_constant<size_t, 32>{});
    case 64:
      return f(std::integral_constant<size_t, 64>{});
    default:
      return f(std::integral_constant<size_t, 0>{});
  }
}

// Moves one piece of length n, N being n when known at compile time.
// Other lengths take the same-host copy of gexx_copy.h: ordinary stores up
// to GEXX_COPY_INLINE_MAX bytes, else (or when the ranges overlap) memmove,
// which a put follows with a store fence (only then: a fence after a loop
// of ordinary stores cost a 512-byte put half its time).
template <bool kPut, size_t N>
inline void move_piece(char *d, const char *s, size_t n) {
  if constexpr (N != 0)
    move_fixed<N>(d, s);
  else if constexpr (kPut)
    gexx_copy_put_(d, s, n);
  else
    gexx_copy_get_(d, s, n);
}

// Many pieces of one length n: the copy loop chosen once (N == 0, n above
// the inline sizes), each piece then a check that it may go forward and a
// call; otherwise move_piece.
template <bool kPut, size_t N>
struct PieceMover {
  explicit PieceMover(size_t n) : loop(N == 0 ? gexx_copy_loop_for_(n) : nullptr) {}
  [[gnu::always_inline]] void operator()(char *d, const char *s, size_t n) const {
    if constexpr (N == 0) {
      if (loop && reinterpret_cast<uintptr_t>(d) - reinterpret_cast<uintptr_t>(s) >= n) {
        loop(d, s, n);
        return;
      }
    }
    move_piece<kPut, N>(d, s, n);
  }
  gexx_copy_loop_t_ loop;
};

// One piece of a put or get.
template <bool kPut>
inline void move_one_piece(char *d, const char *s, size_t n) {
  by_size(n, [&](auto k) { move_piece<kPut, decltype(k)::value>(d, s, n); });
}

// Which side is remote: a put writes the remote side (the destination), a
// get reads it (the source).
template <bool kPut>
inline char *dst_addr(void *a, ptrdiff_t delta) {
  return static_cast<char *>(a) + (kPut ? delta : 0);
}
template <bool kPut>
inline const char *src_addr(void *a, ptrdiff_t delta) {
  return static_cast<const char *>(a) + (kPut ? 0 : delta);
}

// Pairs two lists of ranges holding the same number of bytes piece by
// piece, each piece contiguous on both sides. Entry(i) of each side gives
// (address, length); zero-length entries are skipped.
template <bool kPut, typename DE, typename SE>
void pair_lists(ptrdiff_t delta, size_t dc, DE &&dentry, size_t sc, SE &&sentry) {
  size_t i = 0, j = 0, dl = 0, sl = 0;
  char *dp = nullptr;
  const char *sp = nullptr;
  for (;;) {
    while (dl == 0) {
      if (i == dc) break;
      auto e = dentry(i++);
      dp = dst_addr<kPut>(e.first, delta);
      dl = e.second;
    }
    if (dl == 0) break;
    while (sl == 0) {
      if (j == sc) break;
      auto e = sentry(j++);
      sp = src_addr<kPut>(e.first, delta);
      sl = e.second;
    }
    if (sl == 0) break;
    size_t n = dl < sl ? dl : sl;
    move_piece<kPut, 0>(dp, sp, n);
    dp += n;
    sp += n;
    dl -= n;
    sl -= n;
  }
}

// The loops over lists of pieces of one length N (0: n bytes, memmove),
// with every value they use in registers (a store through char * could
// alias anything the compiler would otherwise reload each time around).
template <bool kPut, size_t N>
void vector_loop(ptrdiff_t delta, size_t c, const gex_Memvec_t *dl, const gex_Memvec_t *sl,
                 size_t n) {
  for (size_t i = 0; i < c; ++i)
    move_piece<kPut, N>(dst_addr<kPut>(dl[i].gex_addr, delta),
                        src_addr<kPut>(sl[i].gex_addr, delta), n);
}
template <bool kPut, size_t N>
void indexed_loop(ptrdiff_t delta, size_t c, void *const *dl, void *const *sl, size_t n) {
  for (size_t i = 0; i < c; ++i)
    move_piece<kPut, N>(dst_addr<kPut>(dl[i], delta), src_addr<kPut>(sl[i], delta), n);
}

// Vector lists. `uniform`: the length every entry of both lists has when
// the two lists have the same count and one length throughout (0: not so).
template <bool kPut>
void vectors(ptrdiff_t delta, size_t dc, const gex_Memvec_t *dl, size_t sc, const gex_Memvec_t *sl,
             size_t uniform) {
  if (uniform != 0 && dc == sc) {
    by_size(uniform,
            [=](auto k) { vector_loop<kPut, decltype(k)::value>(delta, dc, dl, sl, uniform); });
    return;
  }
  pair_lists<kPut>(
      delta, dc,
      [dl](size_t i) { return std::pair<void *, size_t>(dl[i].gex_addr, dl[i].gex_len); }, sc,
      [sl](size_t i) { return std::pair<void *, size_t>(sl[i].gex_addr, sl[i].gex_len); });
}

// Indexed lists (`dlen` bytes at each destination entry, `slen` at each
// source entry; the two sides hold the same number of bytes).
template <bool kPut>
void indexed(ptrdiff_t delta, size_t dc, void *const *dl, size_t dlen, size_t sc, void *const *sl,
             size_t slen) {
  if (dlen == 0 || slen == 0) return;
  if (dlen == slen) {
    by_size(dlen, [=](auto k) { indexed_loop<kPut, decltype(k)::value>(delta, dc, dl, sl, dlen); });
    return;
  }
  pair_lists<kPut>(
      delta, dc, [dl, dlen](size_t i) { return std::pair<void *, size_t>(dl[i], dlen); }, sc,
      [sl, slen](size_t i) { return std::pair<void *, size_t>(sl[i], slen); });
}

// A mapped peer's segment: [base, base + size) in the owner's addresses is
// at base + delta here.
struct Window {
  uintptr_t base;
  uint64_t size;
  ptrdiff_t delta;
  bool holds(const void *a, size_t n) const {
    uint64_t off = reinterpret_cast<uintptr_t>(a) - base;  // wraps when below
    return off <= size && n <= size - off;
  }
};

// Where a one-pass loop stopped: `at` is the count when it went through.
struct Pass {
  size_t at;
  bool out_of_segment;  // else the lengths of entry `at` are not the pass's
};

#if GEXX_COPY_X86_ && defined(__GNUC__)
using Vec32 = char __attribute__((vector_size(32)));
using Vec64 = char __attribute__((vector_size(64)));

// One piece of GEXX_COPY_VEC16_MAX < n <= GEXX_COPY_INLINE_MAX bytes in
// vectors of V (gexx_copy.h's loop, inline here, so that a loop of them in
// a function compiled for V's extension is a leaf), forward: not for a
// destination inside its own source range. No fence: ordinary stores
// (util/copy.hpp).
template <typename V>
[[gnu::always_inline]] inline void vector_piece(char *d, const char *s, size_t n) {
  GEXX_COPY_VEC_BODY_(V, sizeof(V), d, s, n);
}
#endif

// Where a pass over lists stopped: `at` (the count when it went through),
// why (0: through, or at a piece its mover declined; 1: the lengths of
// entry `at` are not the pass's; 2: its remote range is outside the
// segment), and the range the destination pieces moved lie in.
struct PassStop {
  size_t at;
  int why;
  uintptr_t lo, hi;
};
// The pass from entry i: each pair of entries of length n has its remote
// range checked against the segment and is moved (move(d, s): false when
// it leaves the piece to another loop), and the destination's range grows.
template <bool kPut, typename Addr, typename Len, typename Move>
[[gnu::always_inline]] inline PassStop pass_loop(Window w, size_t i, size_t c, Addr addr,
                                                 Len lens_are, size_t n, uintptr_t lo, uintptr_t hi,
                                                 Move move) {
  for (; i < c; ++i) {
    if (!lens_are(i, n)) return PassStop{i, 1, lo, hi};
    void *da = addr(i, true), *sa = addr(i, false);
    const uint64_t off = reinterpret_cast<uintptr_t>(kPut ? da : sa) - w.base;
    if (!(off <= w.size && n <= w.size - off)) return PassStop{i, 2, lo, hi};
    if (!move(dst_addr<kPut>(da, w.delta), src_addr<kPut>(sa, w.delta)))
      return PassStop{i, 0, lo, hi};
    const uintptr_t a = reinterpret_cast<uintptr_t>(da);
    lo = a < lo ? a : lo;
    hi = a + n > hi ? a + n : hi;
  }
  return PassStop{c, 0, lo, hi};
}

#if GEXX_COPY_X86_ && defined(__GNUC__)
// Pieces the vector loops move, inline; a piece inside its own source
// range is declined (the caller's loop gives it to memmove).
template <typename V>
struct VectorMover {
  size_t n;
  [[gnu::always_inline]] bool operator()(char *d, const char *s) const {
    if (reinterpret_cast<uintptr_t>(d) - reinterpret_cast<uintptr_t>(s) < n) [[unlikely]]
      return false;
    vector_piece<V>(d, s, n);
    return true;
  }
};
// The pass with those copies: a leaf (no call per piece, nothing spilled
// on the way), which the store buffer, full of the previous pieces'
// stores, rewards (TwoLoops below says more).
template <bool kPut, typename Addr, typename Len>
[[gnu::noinline, gnu::target("avx512f")]] PassStop vector_pass_avx512(Window w, size_t c, Addr addr,
                                                                      Len lens_are, size_t n,
                                                                      uintptr_t lo, uintptr_t hi) {
  return pass_loop<kPut>(w, 0, c, addr, lens_are, n, lo, hi, VectorMover<Vec64>{n});
}
template <bool kPut, typename Addr, typename Len>
[[gnu::noinline, gnu::target("avx2")]] PassStop vector_pass_avx2(Window w, size_t c, Addr addr,
                                                                 Len lens_are, size_t n,
                                                                 uintptr_t lo, uintptr_t hi) {
  return pass_loop<kPut>(w, 0, c, addr, lens_are, n, lo, hi, VectorMover<Vec32>{n});
}
#endif

// Lists of the same count in one pass (pass_loop), pieces of length N when
// known at compile time; the destination's scan joins dscan for the
// overlap check the caller makes after. Stops at a pair of another length
// or a remote range outside the segment, before moving it.
template <bool kPut, size_t N, typename Addr, typename Len>
Pass list_pass(Window w, size_t c, Addr addr, Len lens_are, size_t n, ListScan &dscan) {
  PassStop p{0, 0, dscan.lo, dscan.hi};
#if GEXX_COPY_X86_ && defined(__GNUC__)
  if constexpr (N == 0) {
    if (n > GEXX_COPY_VEC16_MAX && n <= GEXX_COPY_INLINE_MAX && __builtin_cpu_supports("avx2"))
      p = __builtin_cpu_supports("avx512f")
              ? vector_pass_avx512<kPut>(w, c, addr, lens_are, n, p.lo, p.hi)
              : vector_pass_avx2<kPut>(w, c, addr, lens_are, n, p.lo, p.hi);
  }
#endif
  if (p.why == 0 && p.at < c) {  // the rest, or a piece the vector loop declined onward
    const PieceMover<kPut, N> move(n);
    p = pass_loop<kPut>(w, p.at, c, addr, lens_are, n, p.lo, p.hi,
                        [&move, n](char *d, const char *s) {
                          move(d, s, n);
                          return true;
                        });
  }
  const Pass r{p.at, p.why == 2};
  uint64_t t;
  if (__builtin_mul_overflow(static_cast<uint64_t>(r.at), static_cast<uint64_t>(n), &t) ||
      __builtin_add_overflow(dscan.total, t, &dscan.total))
    dscan.total = UINT64_MAX;  // more bytes than any range holds: an overlap
  dscan.lo = p.lo;
  dscan.hi = p.hi;
  return r;
}

template <bool kPut>
Pass vector_pass(Window w, size_t c, const gex_Memvec_t *dl, const gex_Memvec_t *sl, size_t n,
                 ListScan &dscan) {
  return by_size(n, [&](auto k) {
    return list_pass<kPut, decltype(k)::value>(
        w, c, [dl, sl](size_t i, bool d) { return d ? dl[i].gex_addr : sl[i].gex_addr; },
        [dl, sl](size_t i, size_t len) { return dl[i].gex_len == len && sl[i].gex_len == len; }, n,
        dscan);
  });
}

template <bool kPut>
Pass indexed_pass(Window w, size_t c, void *const *dl, void *const *sl, size_t n, ListScan &dscan) {
  return by_size(n, [&](auto k) {
    return list_pass<kPut, decltype(k)::value>(
        w, c, [dl, sl](size_t i, bool d) { return d ? dl[i] : sl[i]; },
        [](size_t, size_t) { return true; }, n, dscan);
  });
}

// c1 rows of c0 pieces of n bytes (N when known), the pieces d0/s0 apart
// within a row and the rows d1/s1 apart.
template <bool kPut, size_t N>
[[gnu::always_inline]] inline void two_loops(const PieceMover<kPut, N> &move, char *d,
                                             const char *s, size_t n, size_t c0, ptrdiff_t d0,
                                             ptrdiff_t s0, size_t c1, ptrdiff_t d1, ptrdiff_t s1) {
  for (size_t j = 0; j < c1; ++j, d += d1, s += s1) {
    char *dp = d;
    const char *sp = s;
    for (size_t i = 0; i < c0; ++i, dp += d0, sp += s0) move(dp, sp, n);
  }
}

// A strided transfer as nested loops over both sides at once: dimensions
// of one element dropped, leading dimensions contiguous on both sides
// folded into the piece length, and a dimension that continues the one
// below it on both sides (stride = the lower stride times its count)
// merged into it. testvisperf's shapes, and most halos, become one loop.
class StridedPlan {
 public:
  struct Dim {
    size_t count;
    ptrdiff_t dstride, sstride;
  };
  [[gnu::always_inline]] StridedPlan(char *dbase, const ptrdiff_t *dstrides, char *sbase,
                                     const ptrdiff_t *sstrides, size_t elemsz, const size_t *count,
                                     size_t levels)
      : dbase_(dbase), sbase_(sbase), len_(elemsz) {
    for (size_t i = 0; i < levels; ++i)
      if (count[i] == 0) len_ = 0;
    if (len_ == 0) return;
    if (levels > kInline) heap_.reset(new Dim[levels]);
    Dim *dm = dims();
    for (size_t i = 0; i < levels; ++i) {
      if (count[i] == 1) continue;
      ptrdiff_t ds = dstrides[i], ss = sstrides[i];
      if (ndims_ == 0 && ds == static_cast<ptrdiff_t>(len_) && ss == ds) {
        len_ *= count[i];  // contiguous on both sides: a longer piece
        continue;
      }
      if (ndims_ > 0) {
        Dim &b = dm[ndims_ - 1];
        ptrdiff_t n = static_cast<ptrdiff_t>(b.count);
        if (ds == b.dstride * n && ss == b.sstride * n) {
          b.count *= count[i];  // continues the dimension below it
          continue;
        }
      }
      dm[ndims_++] = Dim{count[i], ds, ss};
    }
  }
  // The bytes of one piece (0: the shape is empty) and the loops around it.
  size_t len() const { return len_; }
  size_t ndims() const { return ndims_; }
  const Dim &dim(size_t i) const { return dims()[i]; }

  // Copies every piece; the remote side (the destination of a put, the
  // source of a get) is displaced by `delta`.
  template <bool kPut>
  void copy(ptrdiff_t delta) const {
    if (len_ == 0) return;
    char *d = dbase_ + (kPut ? delta : 0);
    const char *s = sbase_ + (kPut ? 0 : delta);
    if (ndims_ == 0) return move_one_piece<kPut>(d, s, len_);
    by_size(len_, [&](auto k) { run<kPut, decltype(k)::value>(d, s); });
  }

 private:
  template <bool kPut, size_t N>
  void run(char *d, const char *s) const {
    const size_t n = len_;
    const Dim *dm = dims();
    if (ndims_ == 0) {
      move_piece<kPut, N>(d, s, n);
      return;
    }
    const PieceMover<kPut, N> move(n);  // the copy loop chosen once for every piece
    const size_t c0 = dm[0].count, c1 = ndims_ > 1 ? dm[1].count : 1;
    const ptrdiff_t d0 = dm[0].dstride, s0 = dm[0].sstride;
    const ptrdiff_t d1 = ndims_ > 1 ? dm[1].dstride : 0, s1 = ndims_ > 1 ? dm[1].sstride : 0;
    if (ndims_ <= 2) return two_loops(move, d, s, n, c0, d0, s0, c1, d1, s1);
    // Three or more: the lowest two as loops, an odometer above them.
    size_t idx_inline[kInline];
    std::vector<size_t> idx_heap(ndims_ > kInline ? ndims_ : 0);
    size_t *idx = ndims_ > kInline ? idx_heap.data() : idx_inline;
    for (size_t k = 2; k < ndims_; ++k) idx[k] = 0;
    for (;;) {
      two_loops(move, d, s, n, c0, d0, s0, c1, d1, s1);
      size_t k = 2;
      for (; k < ndims_; ++k) {
        d += dm[k].dstride;
        s += dm[k].sstride;
        if (++idx[k] < dm[k].count) break;
        d -= dm[k].dstride * static_cast<ptrdiff_t>(dm[k].count);
        s -= dm[k].sstride * static_cast<ptrdiff_t>(dm[k].count);
        idx[k] = 0;
      }
      if (k == ndims_) return;
    }
  }

  static constexpr size_t kInline = 8;
  const Dim *dims() const { return heap_ ? heap_.get() : inline_; }
  Dim *dims() { return heap_ ? heap_.get() : inline_; }
  char *dbase_;
  const char *sbase_;
  size_t len_;
  size_t ndims_ = 0;
  Dim inline_[kInline];
  std::unique_ptr<Dim[]> heap_;
};

// The copy loops of a TwoLoops shape: c1 rows of c0 pieces of n bytes, each
// a function of its own whose values all live in registers, with no call
// per piece where the pieces are of a length moved inline or by the vector
// loops. Why: a call toward a mapped peer is bound by the store buffer
// draining the previous copies' stores, and each store of its own (a
// register saved, a value spilled, a call's return address) waits for a
// free entry (perf: over half of the entry point's samples sat on one
// spill of the shape, and a 4 x 512-byte two-level put took 40 ns against
// the inline forms' 25).
template <bool kPut>
[[gnu::noinline]] void rows(char *d, const char *s, size_t n, size_t c0, ptrdiff_t d0, ptrdiff_t s0,
                            size_t c1, ptrdiff_t d1, ptrdiff_t s1) {
  by_size(n, [&](auto k) {
    const PieceMover<kPut, decltype(k)::value> move(n);
    two_loops(move, d, s, n, c0, d0, s0, c1, d1, s1);
  });
}

using RowFn = void (*)(char *, const char *, size_t, size_t, ptrdiff_t, ptrdiff_t);

// A row of c0 pieces of n bytes, n a power of two up to 64 (loads, then
// stores: a piece may overlap its source).
[[gnu::noinline, gnu::flatten]] inline void row_fixed(char *d, const char *s, size_t n, size_t c0,
                                                      ptrdiff_t d0, ptrdiff_t s0) {
  by_size(n, [&](auto k) {
    constexpr size_t N = decltype(k)::value;
    if constexpr (N != 0)
      for (size_t i = 0; i < c0; ++i, d += d0, s += s0) move_fixed<N>(d, s);
  });
}

#if GEXX_COPY_X86_ && defined(__GNUC__)
// A row of c0 pieces of GEXX_COPY_VEC16_MAX < n <= GEXX_COPY_INLINE_MAX
// bytes in vectors of V, no destination byte inside its own source range
// (the caller checks).
template <typename V>
[[gnu::always_inline]] inline void vector_row(char *d, const char *s, size_t n, size_t c0,
                                              ptrdiff_t d0, ptrdiff_t s0) {
  for (size_t i = 0; i < c0; ++i, d += d0, s += s0) vector_piece<V>(d, s, n);
}
[[gnu::noinline, gnu::target("avx2")]] inline void row_avx2(char *d, const char *s, size_t n,
                                                            size_t c0, ptrdiff_t d0, ptrdiff_t s0) {
  vector_row<Vec32>(d, s, n, c0, d0, s0);
}
[[gnu::noinline, gnu::target("avx512f")]] inline void row_avx512(char *d, const char *s, size_t n,
                                                                 size_t c0, ptrdiff_t d0,
                                                                 ptrdiff_t s0) {
  vector_row<Vec64>(d, s, n, c0, d0, s0);
}
#endif

// The strided shapes most calls make: at most two loops once contiguous
// levels fold and continuing levels merge (as StridedPlan), every |stride|
// and the piece under 2^40 bytes and every count under 2^20, so that no
// sum or product below can overflow and the checks are plain arithmetic
// (the entry points' path toward a mapped peer; src/capi/vis.cpp).
struct TwoLoops {
  size_t n = 0, c0 = 1, c1 = 1;  // piece bytes; pieces per row, rows
  ptrdiff_t d0 = 0, s0 = 0, d1 = 0, s1 = 0;

  // False when the shape is not such (or is empty): nothing is decided.
  [[gnu::always_inline]] bool build(size_t elemsz, const size_t *count, const ptrdiff_t *dstrides,
                                    const ptrdiff_t *sstrides, size_t levels) {
    constexpr uint64_t kBytes = uint64_t{1} << 40, kCount = uint64_t{1} << 20;
    *this = TwoLoops{};
    n = elemsz;
    if (n - 1 >= kBytes - 1) return false;  // 0 or too long
    int loops = 0;
    for (size_t i = 0; i < levels; ++i) {
      const size_t c = count[i];
      if (c == 1) continue;
      const ptrdiff_t ds = dstrides[i], ss = sstrides[i];
      if (c - 1 >= kCount - 1 || uint64_t(ds) + kBytes >= 2 * kBytes ||
          uint64_t(ss) + kBytes >= 2 * kBytes)
        return false;  // 0 (empty), or too large for plain arithmetic
      if (loops == 0 && ds == ptrdiff_t(n) && ss == ds) {
        n *= c;  // contiguous on both sides: a longer piece
        if (n >= kBytes) return false;
      } else if (loops == 1 && ds == d0 * ptrdiff_t(c0) && ss == s0 * ptrdiff_t(c0)) {
        c0 *= c;  // continues the row
        if (c0 >= kCount) return false;
      } else if (loops == 2 && ds == d1 * ptrdiff_t(c1) && ss == s1 * ptrdiff_t(c1)) {
        c1 *= c;
        if (c1 >= kCount) return false;
      } else if (loops == 0) {
        c0 = c, d0 = ds, s0 = ss, loops = 1;
      } else if (loops == 1) {
        c1 = c, d1 = ds, s1 = ss, loops = 2;
      } else {
        return false;
      }
    }
    return true;
  }

  // The bytes one side reaches from `base` with strides st0 (within a row)
  // and st1 (between rows): [*lo, *lo + return value).
  uintptr_t reach(const void *base, ptrdiff_t st0, ptrdiff_t st1, uintptr_t *lo) const {
    const ptrdiff_t r0 = st0 * ptrdiff_t(c0 - 1), r1 = st1 * ptrdiff_t(c1 - 1);
    *lo = reinterpret_cast<uintptr_t>(base) + uintptr_t((r0 < 0 ? r0 : 0) + (r1 < 0 ? r1 : 0));
    return n + uintptr_t(r0 < 0 ? -r0 : r0) + uintptr_t(r1 < 0 ? -r1 : r1);
  }

  // Whether the remote side (a put's destination, a get's source), based at
  // `base`, lies in the window.
  template <bool kPut>
  bool remote_in(const Window &w, const void *base) const {
    uintptr_t lo;
    const uintptr_t size = reach(base, kPut ? d0 : s0, kPut ? d1 : s1, &lo);
    return w.holds(reinterpret_cast<const void *>(lo), size);
  }

  // No two destination bytes the same byte, by the sufficient test (false:
  // the exact one decides).
  bool dest_disjoint() const {
    const ptrdiff_t a0 = d0 < 0 ? -d0 : d0, a1 = d1 < 0 ? -d1 : d1;
    const ptrdiff_t len = ptrdiff_t(n);
    if (c0 == 1) return true;  // one piece (c0 is the first loop)
    if (c1 == 1) return a0 >= len;
    const bool in0 = a0 <= a1;
    const ptrdiff_t ai = in0 ? a0 : a1, ao = in0 ? a1 : a0;
    const ptrdiff_t ci = ptrdiff_t(in0 ? c0 : c1);
    return ai >= len && ao >= ai * (ci - 1) + len;
  }

  template <bool kPut>
  [[gnu::always_inline]] void copy(char *d, const char *s) const {
    if (c0 == 1 && c1 == 1) return move_one_piece<kPut>(d, s, n);
    const RowFn row = row_for(d, s);
    if (!row) return rows<kPut>(d, s, n, c0, d0, s0, c1, d1, s1);
    for (size_t j = 1; j < c1; ++j, d += d1, s += s1) row(d, s, n, c0, d0, s0);
    row(d, s, n, c0, d0, s0);
  }

  // The leaf that copies one row of this shape's pieces, or null (the
  // general loops): pieces of 1 to 64 bytes (a power of two), or above
  // GEXX_COPY_VEC16_MAX up to GEXX_COPY_INLINE_MAX with the CPU's vectors
  // when no piece can overlap its source.
  RowFn row_for(const char *d, const char *s) const {
    if (n <= 64 && (n & (n - 1)) == 0) return row_fixed;
#if GEXX_COPY_X86_ && defined(__GNUC__)
    if (n > GEXX_COPY_VEC16_MAX && n <= GEXX_COPY_INLINE_MAX && spans_apart(d, s)) {
      if (__builtin_cpu_supports("avx512f")) return row_avx512;
      if (__builtin_cpu_supports("avx2")) return row_avx2;
    }
#endif
    return nullptr;
  }

  // Whether the shape's destination bytes (from d) and source bytes (from
  // s, in this process's addresses) lie in ranges apart: then no piece's
  // destination is inside its source.
  bool spans_apart(const char *d, const char *s) const {
    uintptr_t dlo, slo;
    const uintptr_t dsize = reach(d, d0, d1, &dlo), ssize = reach(s, s0, s1, &slo);
    return dlo + dsize <= slo || slo + ssize <= dlo;
  }
};

}  // namespace gexx::vis::local
