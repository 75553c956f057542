#include "vis/shape.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <utility>

#include "util/strings.hpp"

namespace gexx::vis {

Runs Runs::vector(size_t count, const gex_Memvec_t *list) {
  Runs r;
  r.kind_ = Kind::Vector;
  r.vlist_ = list;
  r.count_ = count;
  for (size_t i = 0; i < count; ++i) r.runs_ += list[i].gex_len != 0;
  return r;
}

Runs Runs::indexed(size_t count, void *const *list, size_t len) {
  Runs r;
  r.kind_ = Kind::Indexed;
  r.ilist_ = list;
  r.count_ = len ? count : 0;
  r.len_ = len;
  r.runs_ = r.count_;
  return r;
}

Runs Runs::strided(void *base, const ptrdiff_t *strides, size_t elemsz, const size_t *count,
                   size_t levels) {
  Runs r;
  r.kind_ = Kind::Strided;
  r.base_ = static_cast<char *>(base);
  for (size_t i = 0; i < levels; ++i)
    if (count[i] == 0) return r;
  if (elemsz == 0) return r;
  // Fold leading dimensions that continue the run below them; drop
  // dimensions of one element (they move nothing).
  size_t run = elemsz;
  size_t d = 0;
  for (; d < levels; ++d) {
    if (count[d] == 1) continue;
    if (strides[d] != static_cast<ptrdiff_t>(run)) break;
    run *= count[d];
  }
  r.len_ = run;
  r.runs_ = 1;
  size_t left = 0;
  for (size_t e = d; e < levels; ++e)
    if (count[e] != 1) ++left;
  r.ndims_ = left;
  if (left > kInlineDims) r.heap_dims_.resize(left);
  Dim *dims = r.dims();
  size_t k = 0;
  for (; d < levels; ++d) {
    if (count[d] == 1) continue;
    dims[k++] = Dim{count[d], strides[d], 0};
    r.runs_ *= count[d];
  }
  r.done_ = false;
  r.cur_ = r.base_;
  return r;
}

void Runs::rewind() {
  pos_ = 0;
  if (kind_ == Kind::Strided && runs_ != 0) {
    Dim *dims = this->dims();
    for (size_t i = 0; i < ndims_; ++i) dims[i].idx = 0;
    cur_ = base_;
    done_ = false;
  }
}

bool Runs::next(Run &r) {
  switch (kind_) {
    case Kind::Vector:
      while (pos_ < count_) {
        const gex_Memvec_t &m = vlist_[pos_++];
        if (m.gex_len) {
          r.addr = static_cast<char *>(m.gex_addr);
          r.len = m.gex_len;
          return true;
        }
      }
      return false;
    case Kind::Indexed:
      if (pos_ >= count_) return false;
      r.addr = static_cast<char *>(ilist_[pos_++]);
      r.len = len_;
      return true;
    case Kind::Strided:
      if (done_) return false;
      r.addr = cur_;
      r.len = len_;
      // Advance the odometer, lowest dimension first.
      for (size_t i = 0;; ++i) {
        if (i == ndims_) {
          done_ = true;
          break;
        }
        Dim &dim = dims()[i];
        cur_ += dim.stride;
        if (++dim.idx < dim.count) break;
        cur_ -= dim.stride * static_cast<ptrdiff_t>(dim.count);
        dim.idx = 0;
      }
      return true;
  }
  return false;
}

bool Runs::next_row(Row &r) {
  if (kind_ == Kind::Vector || kind_ == Kind::Indexed) {
    // A list: its next entry, with the entries after it that continue it
    // evenly (same length, same spacing) in one row.
    Run first;
    if (!next(first)) return false;
    r = Row{first.addr, first.len, 1, 0};
    auto entry = [&](size_t i, Run &e) {
      if (kind_ == Kind::Vector) {
        e.addr = static_cast<char *>(vlist_[i].gex_addr);
        e.len = vlist_[i].gex_len;
      } else {
        e.addr = static_cast<char *>(ilist_[i]);
        e.len = len_;
      }
    };
    Run e;
    while (pos_ < count_) {
      entry(pos_, e);
      if (!extend_row(r, e.addr, e.len)) break;
      ++pos_;
    }
    return true;
  }
  if (ndims_ == 0) {
    Run one;
    if (!next(one)) return false;
    r = Row{one.addr, one.len, 1, 0};
    return true;
  }
  if (done_) return false;
  Dim *d = dims();
  r = Row{cur_, len_, d[0].count - d[0].idx, d[0].stride};
  // Past the row: the lowest dimension wraps, the next ones advance.
  cur_ -= d[0].stride * static_cast<ptrdiff_t>(d[0].idx);
  d[0].idx = 0;
  for (size_t i = 1;; ++i) {
    if (i == ndims_) {
      done_ = true;
      break;
    }
    cur_ += d[i].stride;
    if (++d[i].idx < d[i].count) break;
    cur_ -= d[i].stride * static_cast<ptrdiff_t>(d[i].count);
    d[i].idx = 0;
  }
  return true;
}

bool strided_in_remote_order(const ptrdiff_t *rs, const size_t *count, size_t levels) {
  ptrdiff_t prev = 0;
  for (size_t i = 0; i < levels; ++i) {
    if (count[i] < 2) continue;
    if (rs[i] < prev) return false;  // negative, or below the one before
    prev = rs[i];
  }
  return true;
}

void strided_remote_order(char *&rbase, ptrdiff_t *rs, char *&lbase, ptrdiff_t *ls, size_t *count,
                          size_t levels) {
  for (size_t i = 0; i < levels; ++i) {
    if (count[i] < 2 || rs[i] >= 0) continue;
    ptrdiff_t last = static_cast<ptrdiff_t>(count[i] - 1);
    rbase += rs[i] * last;
    lbase += ls[i] * last;
    rs[i] = -rs[i];
    ls[i] = -ls[i];
  }
  // Insertion sort by remote stride (stable; levels are few). Dimensions of
  // one element move nothing and go last.
  auto key = [&](size_t i) { return count[i] < 2 ? PTRDIFF_MAX : rs[i]; };
  for (size_t i = 1; i < levels; ++i) {
    for (size_t j = i; j > 0 && key(j) < key(j - 1); --j) {
      std::swap(rs[j], rs[j - 1]);
      std::swap(ls[j], ls[j - 1]);
      std::swap(count[j], count[j - 1]);
    }
  }
}

std::string vector_scan(size_t count, const gex_Memvec_t *list, const char *side, ListScan *out) {
  ListScan r;
  const size_t first = count ? list[0].gex_len : 0;
  bool uniform = true;
  for (size_t i = 0; i < count; ++i) {
    const size_t len = list[i].gex_len;
    uniform = uniform && len == first;
    if (__builtin_add_overflow(r.total, static_cast<uint64_t>(len), &r.total)) {
      return util::format("the lengths of the %s list overflow a 64-bit byte count (entry %zu)",
                          side, i);
    }
    if (!len) continue;
    uintptr_t a = reinterpret_cast<uintptr_t>(list[i].gex_addr), end;
    if (__builtin_add_overflow(a, len, &end)) {
      return util::format("%s list entry %zu (%p, %zu bytes) wraps past the end of memory", side, i,
                          list[i].gex_addr, len);
    }
    r.lo = std::min(r.lo, a);
    r.hi = std::max(r.hi, end);
  }
  r.uniform = uniform ? first : 0;
  *out = r;
  return {};
}

std::string indexed_scan(size_t count, void *const *list, size_t len, const char *side, bool range,
                         ListScan *out) {
  ListScan r;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), static_cast<uint64_t>(len), &r.total)) {
    return util::format("the %s list's count (%zu) times its length (%zu) overflows", side, count,
                        len);
  }
  r.uniform = len;
  if (range && r.total) {
    for (size_t i = 0; i < count; ++i) {
      uintptr_t a = reinterpret_cast<uintptr_t>(list[i]);
      r.lo = std::min(r.lo, a);
      r.hi = std::max(r.hi, a);
    }
    if (__builtin_add_overflow(r.hi, len, &r.hi)) {
      return util::format("a %s list entry of %zu bytes wraps past the end of memory", side, len);
    }
  }
  *out = r;
  return {};
}

std::string list_overlap(const ListScan &dst, size_t count) {
  if (dst.total != 0 && dst.hi - dst.lo < dst.total) {
    return util::format(
        "the destination list's %zu entries hold %" PRIu64
        " bytes but span only %zu: they overlap (a destination byte would be written twice)",
        count, dst.total, static_cast<size_t>(dst.hi - dst.lo));
  }
  return {};
}

std::string strided_extent(const void *base, const ptrdiff_t *strides, size_t elemsz,
                           const size_t *count, size_t levels, uintptr_t *lo, uintptr_t *hi) {
  __int128 l = static_cast<__int128>(reinterpret_cast<uintptr_t>(base));
  __int128 h = l + static_cast<__int128>(elemsz);
  for (size_t i = 0; i < levels; ++i) {
    if (count[i] < 2) continue;
    // |stride| < 2^63 and count - 1 < 2^64: the product fits in 128 bits,
    // and a sum of at most a few such stays far from overflow for any
    // plausible number of levels; an absurd one is caught below.
    __int128 reach = static_cast<__int128>(strides[i]) * static_cast<__int128>(count[i] - 1);
    if (reach < 0)
      l += reach;
    else
      h += reach;
  }
  const __int128 top = static_cast<__int128>(UINTPTR_MAX);
  if (l < 0 || h > top) {
    return util::format(
        "the strides and counts from base %p reach outside the address space (a count or "
        "stride is wrong)",
        base);
  }
  *lo = static_cast<uintptr_t>(l);
  *hi = static_cast<uintptr_t>(h);
  return {};
}

std::string vector_total(size_t count, const gex_Memvec_t *list, const char *side,
                         uint64_t *total) {
  ListScan r;
  std::string why = vector_scan(count, list, side, &r);
  if (why.empty()) *total = r.total;
  return why;
}

std::string indexed_total(size_t count, size_t len, const char *side, uint64_t *total) {
  ListScan r;
  std::string why = indexed_scan(count, nullptr, len, side, false, &r);
  if (why.empty()) *total = r.total;
  return why;
}

std::string strided_total(size_t elemsz, const size_t *count, size_t levels, uint64_t *total) {
  uint64_t t = elemsz;
  bool empty = elemsz == 0;
  for (size_t i = 0; i < levels; ++i) empty = empty || count[i] == 0;
  if (empty) {
    *total = 0;
    return {};
  }
  for (size_t i = 0; i < levels; ++i) {
    if (__builtin_mul_overflow(t, static_cast<uint64_t>(count[i]), &t)) {
      return util::format(
          "the element size (%zu) times the counts overflows a 64-bit byte count (at count[%zu] = "
          "%zu)",
          elemsz, i, count[i]);
    }
  }
  *total = t;
  return {};
}

std::string vector_overlap(size_t count, const gex_Memvec_t *list) {
  ListScan r;
  std::string why = vector_scan(count, list, "destination", &r);
  return why.empty() ? list_overlap(r, count) : why;
}

std::string indexed_overlap(size_t count, void *const *list, size_t len) {
  ListScan r;
  std::string why = indexed_scan(count, list, len, "destination", true, &r);
  return why.empty() ? list_overlap(r, count) : why;
}

std::string strided_overlap(const ptrdiff_t *strides, size_t elemsz, const size_t *count,
                            size_t levels) {
  if (elemsz == 0) return {};
  for (size_t i = 0; i < levels; ++i)
    if (count[i] == 0) return {};
  // Dimensions that move something, by increasing |stride|.
  struct Dim {
    uint64_t stride;
    size_t count;
    size_t level;
  };
  // Inline for the usual few levels: this runs on every strided put.
  constexpr size_t kInline = 8;
  Dim inline_dims[kInline];
  std::vector<Dim> heap_dims(levels > kInline ? levels : 0);
  Dim *dims = levels > kInline ? heap_dims.data() : inline_dims;
  size_t ndims = 0;
  for (size_t i = 0; i < levels; ++i) {
    if (count[i] < 2) continue;
    uint64_t s =
        strides[i] < 0 ? 0 - static_cast<uint64_t>(strides[i]) : static_cast<uint64_t>(strides[i]);
    if (s == 0) {
      return util::format(
          "destination stride[%zu] is 0 with count[%zu] = %zu: the destination overlaps itself", i,
          i, count[i]);
    }
    dims[ndims++] = Dim{s, count[i], i};
  }
  std::sort(dims, dims + ndims, [](const Dim &a, const Dim &b) { return a.stride < b.stride; });
  // Nested: each stride clears everything below it. Sufficient, not necessary.
  uint64_t extent = elemsz;
  bool nested = true;
  for (size_t q = 0; q < ndims; ++q) {
    const Dim &d = dims[q];
    if (d.stride < extent) {
      nested = false;
      break;
    }
    extent = d.stride * (d.count - 1) + extent;
  }
  if (nested) return {};
  // Interleaved shapes: list every element's offset and look for two closer
  // than an element.
  std::vector<int64_t> offs{0};
  for (size_t q = 0; q < ndims; ++q) {
    const Dim &d = dims[q];
    size_t n = offs.size();
    int64_t s = strides[d.level];
    for (size_t k = 1; k < d.count; ++k)
      for (size_t j = 0; j < n; ++j) offs.push_back(offs[j] + s * static_cast<int64_t>(k));
  }
  std::sort(offs.begin(), offs.end());
  for (size_t j = 1; j < offs.size(); ++j) {
    if (static_cast<uint64_t>(offs[j] - offs[j - 1]) < elemsz) {
      return util::format("the destination strides place two %zu-byte elements %" PRId64
                          " bytes apart: the destination overlaps itself",
                          elemsz, offs[j] - offs[j - 1]);
    }
  }
  return {};
}

}  // namespace gexx::vis
