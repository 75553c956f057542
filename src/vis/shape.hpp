// The shapes of the VIS calls (vector, indexed, strided) as lists of
// contiguous byte ranges ("runs"), walked in address-list order without
// building the list, and the checks every call makes on them: the two sides
// hold the same number of bytes, no count or size product overflows, and the
// destination does not overlap itself. Pure: no runtime, so the unit tests
// drive it directly (tests/unit/test_vis_shape.cpp).
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gexx::vis {

// One contiguous range.
struct Run {
  char *addr = nullptr;
  size_t len = 0;
};

// `count` runs of `len` bytes, the first at addr, each `stride` after the
// one before: a strided shape's innermost dimension (or the rest of it).
struct Row {
  char *addr = nullptr;
  size_t len = 0;
  size_t count = 0;
  ptrdiff_t stride = 0;
};

// Adds the run [addr, addr + len) to `r` when it continues the row: the
// same length, at the row's stride after its last run (any stride when the
// row has one run); false, `r` unchanged, otherwise.
inline bool extend_row(Row &r, char *addr, size_t len) {
  if (len != r.len) return false;
  ptrdiff_t step = addr - (r.addr + r.stride * static_cast<ptrdiff_t>(r.count - 1));
  if (r.count == 1)
    r.stride = step;
  else if (step != r.stride)
    return false;
  ++r.count;
  return true;
}

// A walk over the runs of one side of a transfer. Zero-length entries of
// vector and indexed lists yield nothing; a strided shape whose element size
// or any count is zero yields nothing. Leading strided dimensions whose
// stride equals the bytes below them are folded into one longer run.
class Runs {
 public:
  static Runs vector(size_t count, const gex_Memvec_t *list);
  static Runs indexed(size_t count, void *const *list, size_t len);
  // `strides` and `count` have `levels` entries; `elemsz` bytes per element.
  static Runs strided(void *base, const ptrdiff_t *strides, size_t elemsz, const size_t *count,
                      size_t levels);

  // The next run (false at the end).
  bool next(Run &r);
  // The next row: for a strided shape the rest of its innermost dimension's
  // runs in one; for a list its next entry and those after it of the same
  // length at the same spacing. Walks the same runs as next(); use one or
  // the other.
  bool next_row(Row &r);
  // Back to the first run.
  void rewind();
  // The number of runs the walk yields (after folding).
  uint64_t runs() const { return runs_; }

 private:
  enum class Kind : uint8_t { Vector, Indexed, Strided };
  Kind kind_ = Kind::Vector;
  // Vector and indexed.
  const gex_Memvec_t *vlist_ = nullptr;
  void *const *ilist_ = nullptr;
  size_t count_ = 0, len_ = 0, pos_ = 0;
  // Strided: folded run length, remaining dimensions, odometer.
  char *base_ = nullptr, *cur_ = nullptr;
  // The dimensions left after folding, with the odometer's position in
  // each: inline up to kInlineDims (no allocation per call), else on the heap.
  struct Dim {
    size_t count;
    ptrdiff_t stride;
    size_t idx;
  };
  static constexpr size_t kInlineDims = 8;
  size_t ndims_ = 0;
  Dim inline_dims_[kInlineDims];
  std::vector<Dim> heap_dims_;
  Dim *dims() { return ndims_ <= kInlineDims ? inline_dims_ : heap_dims_.data(); }
  bool done_ = true;
  uint64_t runs_ = 0;
};

// Matches the runs of two sides holding the same number of bytes: calls
// f(dst, src, n) for each maximal piece contiguous on both sides, in order.
template <typename F>
void pair_runs(Runs &dst, Runs &src, F &&f) {
  Run d, s;
  bool hd = dst.next(d), hs = src.next(s);
  while (hd && hs) {
    size_t n = d.len < s.len ? d.len : s.len;
    f(d.addr, s.addr, n);
    d.addr += n;
    d.len -= n;
    s.addr += n;
    s.len -= n;
    if (d.len == 0) hd = dst.next(d);
    if (s.len == 0) hs = src.next(s);
  }
}

// pair_runs by rows: where both sides have rows of runs of one length
// (strided shapes with the same element run on both sides), bulk(d, dstride,
// s, sstride, len, k) takes k pairs of runs at once; every other piece goes
// to piece(d, s, n) as pair_runs would give it. The pieces are the same as
// pair_runs', in the same order.
template <typename Bulk, typename Piece>
void pair_rows(Runs &dst, Runs &src, Bulk &&bulk, Piece &&piece) {
  struct Cursor {
    Runs &runs;
    Row row;
    size_t used = 0;  // bytes of the row's first run already paired
    bool has = false;
    void load() {
      has = runs.next_row(row);
      used = 0;
    }
    void skip(size_t k) {  // k whole runs
      row.addr += row.stride * static_cast<ptrdiff_t>(k);
      row.count -= k;
      used = 0;
      if (row.count == 0) load();
    }
  };
  Cursor d{dst, Row{}, 0, false}, s{src, Row{}, 0, false};
  d.load();
  s.load();
  while (d.has && s.has) {
    if (d.used == 0 && s.used == 0 && d.row.len == s.row.len) {
      size_t k = d.row.count < s.row.count ? d.row.count : s.row.count;
      bulk(d.row.addr, d.row.stride, s.row.addr, s.row.stride, d.row.len, k);
      d.skip(k);
      s.skip(k);
      continue;
    }
    size_t n = d.row.len - d.used < s.row.len - s.used ? d.row.len - d.used : s.row.len - s.used;
    piece(d.row.addr + d.used, s.row.addr + s.used, n);
    d.used += n;
    s.used += n;
    if (d.used == d.row.len) d.skip(1);
    if (s.used == s.row.len) s.skip(1);
  }
}

// Puts the dimensions of a strided transfer in the order of the remote
// side's strides, smallest first, and makes each remote stride of a
// dimension with more than one element positive (moving both bases to that
// dimension's other end). Both sides change together, so element k of one
// side still meets element k of the other; the remote side is then walked in
// increasing address order and its contiguous dimensions fold into long runs
// (a transposition toward a network peer costs one operation per remote run,
// not per element). `rs`, `ls` and `count` have `levels` entries the caller
// owns. strided_in_remote_order: nothing to do (the common case, checked on
// the caller's arrays before any copy).
bool strided_in_remote_order(const ptrdiff_t *rs, const size_t *count, size_t levels);
void strided_remote_order(char *&rbase, ptrdiff_t *rs, char *&lbase, ptrdiff_t *ls, size_t *count,
                          size_t levels);

// The checks. Each returns an empty string when the shape is good, else a
// sentence saying what is wrong (the caller makes it fatal, naming itself).

// One side of a vector or indexed call, from one walk of its list: the
// bytes it holds, the range they lie in ([lo, hi), when total > 0 and the
// range was asked for), and the length every entry has when they all have
// one (vector lists; 0 when they differ).
struct ListScan {
  uint64_t total = 0;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  size_t uniform = 0;
};
// Vector: also fails when an entry wraps past the end of the address space.
std::string vector_scan(size_t count, const gex_Memvec_t *list, const char *side, ListScan *out);
// Indexed: the range is walked for only when `range` is true (the remote
// side, and the destination for the overlap check).
std::string indexed_scan(size_t count, void *const *list, size_t len, const char *side, bool range,
                         ListScan *out);
// The destination list (scanned with its range) overlaps itself: found when
// its bytes cannot fit in the range they lie in.
std::string list_overlap(const ListScan &dst, size_t count);
// The range [lo, hi) a strided side's bytes lie in (the shape holds bytes).
std::string strided_extent(const void *base, const ptrdiff_t *strides, size_t elemsz,
                           const size_t *count, size_t levels, uintptr_t *lo, uintptr_t *hi);

// The fast forms the entry points run first (inline; true when the shape
// is good). When one says false, the string form above says why.
inline bool vector_scan_ok(size_t count, const gex_Memvec_t *list, ListScan *out) {
  ListScan r;
  const size_t first = count ? list[0].gex_len : 0;
  bool uniform = true, bad = false;
  for (size_t i = 0; i < count; ++i) {
    const size_t len = list[i].gex_len;
    const uintptr_t a = reinterpret_cast<uintptr_t>(list[i].gex_addr);
    uintptr_t end;
    uniform &= len == first;
    bad |= __builtin_add_overflow(r.total, static_cast<uint64_t>(len), &r.total);
    bad |= __builtin_add_overflow(a, len, &end);
    if (len) {
      r.lo = a < r.lo ? a : r.lo;
      r.hi = end > r.hi ? end : r.hi;
    }
  }
  r.uniform = uniform ? first : 0;
  *out = r;
  return !bad;
}
inline bool indexed_scan_ok(size_t count, void *const *list, size_t len, bool range,
                            ListScan *out) {
  ListScan r;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), static_cast<uint64_t>(len), &r.total))
    return false;
  r.uniform = len;
  if (range && r.total) {
    for (size_t i = 0; i < count; ++i) {
      const uintptr_t a = reinterpret_cast<uintptr_t>(list[i]);
      r.lo = a < r.lo ? a : r.lo;
      r.hi = a > r.hi ? a : r.hi;
    }
    if (__builtin_add_overflow(r.hi, len, &r.hi)) return false;
  }
  *out = r;
  return true;
}
inline bool list_overlap_ok(const ListScan &dst) {
  return dst.total == 0 || dst.hi - dst.lo >= dst.total;
}
// Strided: the bytes the shape holds, that its destination strides do not
// overlap (sufficient test: each |stride| clears the extent below it; an
// interleaved shape says false here and strided_overlap decides), and the
// range [lo, hi) the remote side's bytes lie in.
inline bool strided_ok(size_t elemsz, const size_t *count, const ptrdiff_t *dstrides,
                       const void *rbase, const ptrdiff_t *rstrides, size_t levels, uint64_t *total,
                       uintptr_t *lo, uintptr_t *hi) {
  constexpr size_t kInline = 8;
  if (levels > kInline) return false;
  uint64_t t = elemsz;
  bool bad = false;
  struct Dim {
    uint64_t stride;
    size_t count;
  } dims[kInline];
  size_t nd = 0;
  for (size_t i = 0; i < levels; ++i) {
    const size_t c = count[i];
    bad |= __builtin_mul_overflow(t, static_cast<uint64_t>(c), &t);
    if (c < 2) continue;
    const ptrdiff_t ds = dstrides[i];
    const uint64_t a = ds < 0 ? 0 - static_cast<uint64_t>(ds) : static_cast<uint64_t>(ds);
    // Insertion by |stride|.
    size_t j = nd++;
    for (; j > 0 && dims[j - 1].stride > a; --j) dims[j] = dims[j - 1];
    dims[j] = Dim{a, c};
  }
  // Empty, or a product that overflowed: the slow checks decide.
  if (t == 0 || bad) return false;
  // The counts' product fits in 64 bits, so the sum of |stride| x (count - 1)
  // stays below 2^127.
  __int128 l = static_cast<__int128>(reinterpret_cast<uintptr_t>(rbase));
  __int128 h = l + static_cast<__int128>(elemsz);
  for (size_t i = 0; i < levels; ++i) {
    if (count[i] < 2) continue;
    const __int128 reach = static_cast<__int128>(rstrides[i]) * static_cast<__int128>(count[i] - 1);
    if (reach < 0)
      l += reach;
    else
      h += reach;
  }
  uint64_t extent = elemsz;
  for (size_t q = 0; q < nd; ++q) {
    uint64_t reach;
    if (dims[q].stride < extent ||
        __builtin_mul_overflow(dims[q].stride, static_cast<uint64_t>(dims[q].count - 1), &reach) ||
        __builtin_add_overflow(reach, extent, &extent))
      return false;
  }
  if (l < 0 || h > static_cast<__int128>(UINTPTR_MAX)) return false;
  *total = t;
  *lo = static_cast<uintptr_t>(l);
  *hi = static_cast<uintptr_t>(h);
  return true;
}

// *total receives the bytes the shape holds.
std::string vector_total(size_t count, const gex_Memvec_t *list, const char *side, uint64_t *total);
std::string indexed_total(size_t count, size_t len, const char *side, uint64_t *total);
std::string strided_total(size_t elemsz, const size_t *count, size_t levels, uint64_t *total);
// The destination overlaps itself (two of its bytes are the same byte).
// Vector and indexed: found when the ranges cannot fit between the lowest and
// highest address they touch (overlaps that can fit go unseen). Strided: exact.
std::string vector_overlap(size_t count, const gex_Memvec_t *list);
std::string indexed_overlap(size_t count, void *const *list, size_t len);
std::string strided_overlap(const ptrdiff_t *strides, size_t elemsz, const size_t *count,
                            size_t levels);

}  // namespace gexx::vis
