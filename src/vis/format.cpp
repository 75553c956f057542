// The gasnett_format_* text forms of VIS metadata (gasnet_vis.h).
#include <gasnet_vis.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace {

// Appends to a buffer the caller sized with the matching *_bufsz.
struct Out {
  char *p;
  void put(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsprintf(p, fmt, ap);
    va_end(ap);
    if (n > 0) p += n;
  }
};

constexpr size_t kNumber = 24;  // one formatted 64-bit number or pointer, and a separator

}  // namespace

extern "C" {

size_t gasnett_format_memveclist_bufsz(size_t count) {
  return 64 + count * (2 * kNumber + 4);
}

gasnett_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                     gex_Memvec_t const *list) {
  gasnett_memveclist_stats_t st{SIZE_MAX, 0, reinterpret_cast<void *>(UINTPTR_MAX), nullptr, 0};
  for (size_t i = 0; i < count; ++i) {
    size_t len = list[i].gex_len;
    if (!len) continue;
    char *a = static_cast<char *>(list[i].gex_addr);
    if (len < st._minsz) st._minsz = len;
    if (len > st._maxsz) st._maxsz = len;
    if (a < st._minaddr) st._minaddr = a;
    if (a + len - 1 > st._maxaddr) st._maxaddr = a + len - 1;
    st._totalsz += len;
  }
  Out o{buf};
  o.put("%zu entries, %" PRIuPTR " bytes: [", count, st._totalsz);
  for (size_t i = 0; i < count; ++i)
    o.put("%s(%p,%zu)", i ? " " : "", list[i].gex_addr, list[i].gex_len);
  o.put("]");
  return st;
}

size_t gasnett_format_addrlist_bufsz(size_t count) {
  return 64 + count * kNumber;
}

gasnett_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count, void *const *list,
                                                 size_t len) {
  gasnett_addrlist_stats_t st{reinterpret_cast<void *>(UINTPTR_MAX), nullptr};
  for (size_t i = 0; i < count; ++i) {
    char *a = static_cast<char *>(list[i]);
    if (a < st._minaddr) st._minaddr = a;
    if (a + len - 1 > st._maxaddr) st._maxaddr = a + len - 1;
  }
  Out o{buf};
  o.put("%zu entries of %zu bytes: [", count, len);
  for (size_t i = 0; i < count; ++i) o.put("%s%p", i ? " " : "", list[i]);
  o.put("]");
  return st;
}

size_t gasnett_format_strides_bufsz(size_t count) {
  return 4 + count * kNumber;
}

void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list) {
  Out o{buf};
  o.put("[");
  for (size_t i = 0; i < count; ++i) o.put("%s%td", i ? " " : "", list[i]);
  o.put("]");
}

size_t gasnett_format_putsgets_bufsz(size_t stridelevels) {
  return 160 + 3 * gasnett_format_strides_bufsz(stridelevels);
}

size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                               size_t stridelevels) {
  (void)pstats;
  (void)tm;
  size_t total = elemsz;
  for (size_t i = 0; i < stridelevels; ++i) total *= count[i];
  Out o{buf};
  o.put("rank %u, %zu bytes in %zu-byte elements: dst %p strides ", static_cast<unsigned>(rank),
        total, elemsz, dstaddr);
  gasnett_format_strides(o.p, stridelevels, dststrides);
  o.p += std::strlen(o.p);
  o.put(", src %p strides ", srcaddr);
  gasnett_format_strides(o.p, stridelevels, srcstrides);
  o.p += std::strlen(o.p);
  o.put(", count [");
  for (size_t i = 0; i < stridelevels; ++i) o.put("%s%zu", i ? " " : "", count[i]);
  o.put("]");
  return total;
}

}  // extern "C"
