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
  std::vector<size_t> dcount_;
  std::vector<ptrdiff_t> dstride_;
  std::vector<size_t> idx_;
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

// The checks. Each returns an empty string when the shape is good, else a
// sentence saying what is wrong (the caller makes it fatal, naming itself).
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
