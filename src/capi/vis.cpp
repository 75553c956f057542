// GASNet-EX VIS entry points (gasnet_vis.h): the shape checks every call
// makes (fatal, naming the call), then the transfer (vis/vis.hpp).
#include <gasnet_vis.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cinttypes>
#include <string>
#include <vector>

#include "core/objects.hpp"
#include "core/runtime.hpp"
#include "util/copy.hpp"
#include "util/log.hpp"
#include "vis/local.hpp"
#include "vis/shape.hpp"
#include "vis/vis.hpp"

using gexx::vis::Runs;
using gexx::vis::Sync;
namespace local = gexx::vis::local;

namespace {

[[gnu::always_inline]] inline gex_Rank_t job_rank(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags,
                                                  const char *api) {
  if (!tm) [[unlikely]]
    gexx::util::fatal("%s: the team argument is invalid (null)", api);
  return tm->team.job_rank(api, rank, flags);
}

void check(const char *api, const std::string &why) {
  if (!why.empty()) [[unlikely]]
    gexx::util::fatal("%s: %s", api, why.c_str());
}

void check_totals(const char *api, uint64_t dst, uint64_t src) {
  if (dst != src) [[unlikely]] {
    gexx::util::fatal("%s: the destination holds %" PRIu64 " bytes but the source %" PRIu64
                      " (the two sides must hold the same number)",
                      api, dst, src);
  }
}

void check_list(const char *api, size_t count, const void *list, const char *side) {
  if (count && !list) [[unlikely]]
    gexx::util::fatal("%s: the %s list is null with a count of %zu", api, side, count);
}

// A call whose two sides are one range each toward a mapped peer: a put or
// get of `n` bytes (the RMA calls' copy). False for a network peer.
template <bool kPut>
[[gnu::always_inline]] inline bool one_range(const char *api, gex_Rank_t jr, void *dst, void *src,
                                             size_t n) {
  char *p = gexx::core::Runtime::get(api).locate(api, jr, kPut ? dst : src, n);
  if (!p) return false;
  if (kPut) {
    local::move_one_piece<true>(p, static_cast<const char *>(src), n);
    gexx::vis::local_put_done(api, jr);
  } else {
    local::move_one_piece<false>(static_cast<char *>(dst), p, n);
  }
  return true;
}

// ---- One or two pieces ----
// A call whose two sides are one piece each, or two pieces each of one
// length, toward a mapped peer, named by a rank of a team whose ranks are
// job ranks, with no peer completion armed: checked and moved here, with
// no call for pieces of 1 to 64 bytes (a power of two) and one per piece
// for other lengths (testvisperf's one- and two-piece cells cost what this
// costs: about half the general path's instructions). Anything else, a
// range outside the segment or an overlapping destination included, takes
// the general path, which makes every check again and reports.

// `rank`'s segment when this process maps it and the call may take this
// path, else null.
[[gnu::always_inline]] inline const gexx::transport::PeerSegment *few_segment(gex_TM_t tm,
                                                                              gex_Rank_t rank,
                                                                              gex_Flags_t flags) {
  if (!tm || (flags & GEX_FLAG_RANK_IS_JOBRANK) || gexx::vis::t_pc_armed) [[unlikely]]
    return nullptr;
  const gexx::core::Team &t = tm->team;
  gexx::core::Runtime *rt = gexx::core::detail::g_runtime;
  if (rank >= t.size() || t.shape() != gexx::core::Team::Shape::Identity || !rt) [[unlikely]]
    return nullptr;
  const gexx::transport::PeerSegment *ps = rt->peer_segment(rank);
  return ps && ps->local ? ps : nullptr;
}

inline local::Window window_of(const gexx::transport::PeerSegment &ps) {
  return local::Window{static_cast<uintptr_t>(ps.owner_base), ps.size,
                       ps.local - reinterpret_cast<char *>(ps.owner_base)};
}

// This process's address of [addr, addr + n) in the segment, or null.
[[gnu::always_inline]] inline char *few_at(const gexx::transport::PeerSegment *ps, const void *addr,
                                           size_t n) {
  const local::Window w = window_of(*ps);
  return w.holds(addr, n) ? static_cast<char *>(const_cast<void *>(addr)) + w.delta : nullptr;
}

template <bool kPut>
[[gnu::noinline]] void few_copy(char *d, const char *s, size_t n) {
  local::move_piece<kPut, 0>(d, s, n);
}

template <bool kPut>
[[gnu::always_inline]] inline void few_move(char *d, const char *s, size_t n) {
  local::by_size(n, [&](auto k) {
    constexpr size_t N = decltype(k)::value;
    if constexpr (N != 0)
      local::move_fixed<N>(d, s);
    else
      few_copy<kPut>(d, s, n);
  });
}

// True when the call was kPieces (1 or 2) pieces of n bytes, dst[i] and
// src[i], and is done.
template <bool kPut, size_t kPieces>
[[gnu::always_inline]] inline bool few(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags,
                                       void *const *dst, void *const *src, size_t n) {
  if (n == 0) return false;
  const gexx::transport::PeerSegment *ps = few_segment(tm, rank, flags);
  if (!ps) [[unlikely]]
    return false;
  void *const *remote = kPut ? dst : src;
  char *p[kPieces];
  for (size_t i = 0; i < kPieces; ++i) {
    p[i] = few_at(ps, remote[i], n);
    if (!p[i]) [[unlikely]]
      return false;
  }
  if constexpr (kPieces == 2) {
    const uintptr_t d0 = reinterpret_cast<uintptr_t>(dst[0]),
                    d1 = reinterpret_cast<uintptr_t>(dst[1]);
    if ((d0 < d1 ? d1 - d0 : d0 - d1) < n) [[unlikely]]
      return false;
  }
  for (size_t i = 0; i < kPieces; ++i)
    few_move<kPut>(kPut ? p[i] : static_cast<char *>(dst[i]),
                   kPut ? static_cast<const char *>(src[i]) : p[i], n);
  return true;
}

// A strided call toward a mapped peer on the few-piece path's terms
// (few_segment) whose shape is at most two loops once folded and merged
// (local::TwoLoops: testvisperf's shapes and most halos): the checks on
// the loops (the remote range inside the segment, the destination by the
// sufficient test), then the copy. False (nothing copied) for anything
// else: an empty or larger shape, an interleaved destination, a range
// outside the segment; the general path decides those.
template <bool kPut>
[[gnu::always_inline]] inline bool strided_fast(gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                                                const ptrdiff_t *dststrides, void *srcaddr,
                                                const ptrdiff_t *srcstrides, size_t elemsz,
                                                const size_t *count, size_t levels,
                                                gex_Flags_t flags) {
  if (levels && (!count || !dststrides || !srcstrides)) return false;
  local::TwoLoops shape;
  if (!shape.build(elemsz, count, dststrides, srcstrides, levels)) return false;
  const gexx::transport::PeerSegment *ps = few_segment(tm, rank, flags);
  if (!ps) return false;
  const local::Window w = window_of(*ps);
  if (!shape.remote_in<kPut>(w, kPut ? dstaddr : srcaddr) || !shape.dest_disjoint()) return false;
  shape.copy<kPut>(local::dst_addr<kPut>(dstaddr, w.delta),
                   local::src_addr<kPut>(srcaddr, w.delta));
  return true;
}

// Whether, in one pass, entry i of both lists is at d0 + i * ds and
// s0 + i * ss (and ok(i): of the row's length, where lists carry lengths).
template <typename Addr, typename Ok>
[[gnu::always_inline]] inline bool evenly_spaced(size_t k, Addr addr, Ok ok, ptrdiff_t *ds,
                                                 ptrdiff_t *ss) {
  const uintptr_t d0 = reinterpret_cast<uintptr_t>(addr(0, true));
  const uintptr_t s0 = reinterpret_cast<uintptr_t>(addr(0, false));
  const uintptr_t dstep = reinterpret_cast<uintptr_t>(addr(1, true)) - d0;
  const uintptr_t sstep = reinterpret_cast<uintptr_t>(addr(1, false)) - s0;
  uintptr_t d = d0, s = s0, bad = 0;
  for (size_t i = 0; i < k; ++i, d += dstep, s += sstep) {
    bad |= (reinterpret_cast<uintptr_t>(addr(i, true)) ^ d) |
           (reinterpret_cast<uintptr_t>(addr(i, false)) ^ s) | !ok(i);
    if (bad) return false;
  }
  *ds = static_cast<ptrdiff_t>(dstep);
  *ss = static_cast<ptrdiff_t>(sstep);
  return true;
}
#if defined(__x86_64__) && defined(__GNUC__)
// evenly_spaced for CPUs with AVX-512: one compare checks four list entries
// (address and length, 16 bytes each) or eight pointers of a list against
// the steps. The scan is all the row path adds to a list call's copies
// (testvisperf's lists of 512-byte pieces: 0.55 ns an entry the scalar way,
// a tenth of a contiguous 8-piece call's time).
static_assert(sizeof(gex_Memvec_t) == 16 && offsetof(gex_Memvec_t, gex_addr) == 0 &&
              offsetof(gex_Memvec_t, gex_len) == 8);
// What a block of four list entries holds when they step evenly from
// (base, len): lane 2j is entry j's address base + j * step, lane 2j + 1 its
// length (broadcasts and masked adds: building it from eight scalars took
// longer than an 8-entry scan itself).
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512i list_lanes(uint64_t base,
                                                                         uint64_t step,
                                                                         uint64_t len) {
  const __m512i b = _mm512_set1_epi64(static_cast<long long>(base));
  const __m512i s = _mm512_set1_epi64(static_cast<long long>(step));
  __m512i v = _mm512_mask_add_epi64(b, 0xCC, b, s);               // entries 1 and 3: + step
  v = _mm512_mask_add_epi64(v, 0xF0, v, _mm512_add_epi64(s, s));  // entries 2 and 3: + 2 step
  return _mm512_mask_mov_epi64(v, 0xAA, _mm512_set1_epi64(static_cast<long long>(len)));
}
// Eight pointers that step evenly: lane j is base + j * step.
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512i pointer_lanes(uint64_t base,
                                                                            uint64_t step) {
  const __m512i s = _mm512_set1_epi64(static_cast<long long>(step));
  const __m512i s2 = _mm512_add_epi64(s, s);
  __m512i v = _mm512_set1_epi64(static_cast<long long>(base));
  v = _mm512_mask_add_epi64(v, 0xAA, v, s);
  v = _mm512_mask_add_epi64(v, 0xCC, v, s2);
  return _mm512_mask_add_epi64(v, 0xF0, v, _mm512_add_epi64(s2, s2));
}
// The first `blocks` 64-byte blocks of both lists equal de and se, which
// step by dinc and sinc from one block to the next.
[[gnu::target("avx512f"), gnu::always_inline]] inline bool blocks_step(size_t blocks,
                                                                       const void *dl,
                                                                       const void *sl, __m512i de,
                                                                       __m512i se, __m512i dinc,
                                                                       __m512i sinc) {
  const char *d = static_cast<const char *>(dl), *s = static_cast<const char *>(sl);
  for (size_t b = 0; b < blocks; ++b, d += 64, s += 64) {
    const __m512i dv = _mm512_loadu_si512(d), sv = _mm512_loadu_si512(s);
    if (_mm512_cmpneq_epi64_mask(dv, de) | _mm512_cmpneq_epi64_mask(sv, se)) return false;
    de = _mm512_add_epi64(de, dinc);
    se = _mm512_add_epi64(se, sinc);
  }
  return true;
}
[[gnu::target("avx512f"), gnu::noinline]] bool vector_steps_avx512(size_t k, const gex_Memvec_t *dl,
                                                                   const gex_Memvec_t *sl,
                                                                   ptrdiff_t st[2]) {
  const uint64_t n = dl[0].gex_len;
  const uint64_t d0 = reinterpret_cast<uintptr_t>(dl[0].gex_addr);
  const uint64_t s0 = reinterpret_cast<uintptr_t>(sl[0].gex_addr);
  const uint64_t ds = reinterpret_cast<uintptr_t>(dl[1].gex_addr) - d0;
  const uint64_t ss = reinterpret_cast<uintptr_t>(sl[1].gex_addr) - s0;
  const __m512i de = list_lanes(d0, ds, n), se = list_lanes(s0, ss, n);
  const __m512i dinc =
      _mm512_maskz_mov_epi64(0x55, _mm512_set1_epi64(static_cast<long long>(4 * ds)));
  const __m512i sinc =
      _mm512_maskz_mov_epi64(0x55, _mm512_set1_epi64(static_cast<long long>(4 * ss)));
  if (!blocks_step(k / 4, dl, sl, de, se, dinc, sinc)) return false;
  for (size_t i = k / 4 * 4; i < k; ++i)
    if (reinterpret_cast<uintptr_t>(dl[i].gex_addr) != d0 + i * ds ||
        reinterpret_cast<uintptr_t>(sl[i].gex_addr) != s0 + i * ss || dl[i].gex_len != n ||
        sl[i].gex_len != n)
      return false;
  st[0] = static_cast<ptrdiff_t>(ds);
  st[1] = static_cast<ptrdiff_t>(ss);
  return true;
}
[[gnu::target("avx512f"), gnu::noinline]] bool indexed_steps_avx512(size_t k, void *const *dl,
                                                                    void *const *sl,
                                                                    ptrdiff_t st[2]) {
  const uint64_t d0 = reinterpret_cast<uintptr_t>(dl[0]), s0 = reinterpret_cast<uintptr_t>(sl[0]);
  const uint64_t ds = reinterpret_cast<uintptr_t>(dl[1]) - d0;
  const uint64_t ss = reinterpret_cast<uintptr_t>(sl[1]) - s0;
  const __m512i de = pointer_lanes(d0, ds), se = pointer_lanes(s0, ss);
  const __m512i dinc = _mm512_set1_epi64(static_cast<long long>(8 * ds));
  const __m512i sinc = _mm512_set1_epi64(static_cast<long long>(8 * ss));
  if (!blocks_step(k / 8, dl, sl, de, se, dinc, sinc)) return false;
  for (size_t i = k / 8 * 8; i < k; ++i)
    if (reinterpret_cast<uintptr_t>(dl[i]) != d0 + i * ds ||
        reinterpret_cast<uintptr_t>(sl[i]) != s0 + i * ss)
      return false;
  st[0] = static_cast<ptrdiff_t>(ds);
  st[1] = static_cast<ptrdiff_t>(ss);
  return true;
}
#endif

// Lists of k > 2 pieces of one length whose addresses step evenly on both
// sides (testvisperf's, a halo's rows listed one by one) are a strided
// row: strided_fast's checks and leaf loops, and one copy when the pieces
// are contiguous on both sides. False (nothing copied) for other lists.
// Whether k list pairs of one length (dl[0]'s) step evenly; st: the steps.
inline bool vector_steps(size_t k, const gex_Memvec_t *dl, const gex_Memvec_t *sl,
                         ptrdiff_t st[2]) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f")) return vector_steps_avx512(k, dl, sl, st);
#endif
  const size_t n = dl[0].gex_len;
  return evenly_spaced(
      k, [dl, sl](size_t i, bool d) { return d ? dl[i].gex_addr : sl[i].gex_addr; },
      [dl, sl, n](size_t i) { return dl[i].gex_len == n && sl[i].gex_len == n; }, &st[0], &st[1]);
}
inline bool indexed_steps(size_t k, void *const *dl, void *const *sl, ptrdiff_t st[2]) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f")) return indexed_steps_avx512(k, dl, sl, st);
#endif
  return evenly_spaced(
      k, [dl, sl](size_t i, bool d) { return d ? dl[i] : sl[i]; }, [](size_t) { return true; },
      &st[0], &st[1]);
}
template <bool kPut>
[[gnu::noinline]] bool vector_as_row(gex_TM_t tm, gex_Rank_t rank, size_t k, const gex_Memvec_t *dl,
                                     const gex_Memvec_t *sl, gex_Flags_t flags) {
  ptrdiff_t st[2];
  if (!vector_steps(k, dl, sl, st)) return false;
  const size_t cnt[1] = {k};
  return strided_fast<kPut>(tm, rank, dl[0].gex_addr, &st[0], sl[0].gex_addr, &st[1], dl[0].gex_len,
                            cnt, 1, flags);
}
template <bool kPut>
[[gnu::noinline]] bool indexed_as_row(gex_TM_t tm, gex_Rank_t rank, size_t k, void *const *dl,
                                      void *const *sl, size_t n, gex_Flags_t flags) {
  ptrdiff_t st[2];
  if (!indexed_steps(k, dl, sl, st)) return false;
  const size_t cnt[1] = {k};
  return strided_fast<kPut>(tm, rank, dl[0], &st[0], sl[0], &st[1], n, cnt, 1, flags);
}

template <bool kPut>
[[gnu::always_inline]] inline bool vector_few(gex_TM_t tm, gex_Rank_t rank, size_t dc,
                                              const gex_Memvec_t *dl, size_t sc,
                                              const gex_Memvec_t *sl, gex_Flags_t flags) {
  if (dc != sc || !dl || !sl) return false;
  const size_t n = dl[0].gex_len;
  if (dc == 1) {
    void *d[1] = {dl[0].gex_addr}, *s[1] = {sl[0].gex_addr};
    return sl[0].gex_len == n && few<kPut, 1>(tm, rank, flags, d, s, n);
  }
  if (dc > 2) return vector_as_row<kPut>(tm, rank, dc, dl, sl, flags);
  if (dc != 2 || sl[0].gex_len != n || dl[1].gex_len != n || sl[1].gex_len != n) return false;
  void *d[2] = {dl[0].gex_addr, dl[1].gex_addr}, *s[2] = {sl[0].gex_addr, sl[1].gex_addr};
  return few<kPut, 2>(tm, rank, flags, d, s, n);
}

template <bool kPut>
[[gnu::always_inline]] inline bool indexed_few(gex_TM_t tm, gex_Rank_t rank, size_t dc,
                                               void *const *dl, size_t dlen, size_t sc,
                                               void *const *sl, size_t slen, gex_Flags_t flags) {
  if (dc != sc || !dl || !sl || dlen != slen) return false;
  if (dc == 1) return few<kPut, 1>(tm, rank, flags, dl, sl, dlen);
  if (dc > 2) return indexed_as_row<kPut>(tm, rank, dc, dl, sl, dlen, flags);
  return dc == 2 && few<kPut, 2>(tm, rank, flags, dl, sl, dlen);
}

// rank's segment when this process maps it (else null: a network peer, or
// segments not attached, which the general path reports).
inline const gexx::transport::PeerSegment *mapped_segment(const char *api, gex_Rank_t jr) {
  const gexx::transport::PeerSegment *ps = gexx::core::Runtime::get(api).peer_segment(jr);
  return ps && ps->local ? ps : nullptr;
}

// A piece the one-pass loop found outside the peer's segment: fatal.
[[noreturn]] void out_of_segment(const char *api, gex_Rank_t jr, void *addr, size_t n) {
  gexx::core::Runtime::get(api).translate(api, jr, addr, n);
  gexx::util::fatal("%s: a piece of %zu bytes at %p is outside rank %u's segment", api, n, addr,
                    static_cast<unsigned>(jr));
}

// Any vector call: the lists scanned whole first, then the copy (a mapped
// peer) or the network path.
template <bool kPut>
[[gnu::noinline]] gex_Event_t vector_general(const char *api, Sync sync, gex_Rank_t jr,
                                             size_t dstcount, const gex_Memvec_t *dstlist,
                                             size_t srccount, const gex_Memvec_t *srclist,
                                             gex_Flags_t flags) {
  // One walk of each list: totals, ranges, and whether every entry has one length.
  gexx::vis::ListScan ds, ss;
  if (!gexx::vis::vector_scan_ok(dstcount, dstlist, &ds)) [[unlikely]]
    check(api, gexx::vis::vector_scan(dstcount, dstlist, "destination", &ds));
  if (!gexx::vis::vector_scan_ok(srccount, srclist, &ss)) [[unlikely]]
    check(api, gexx::vis::vector_scan(srccount, srclist, "source", &ss));
  check_totals(api, ds.total, ss.total);
  if (!gexx::vis::list_overlap_ok(ds)) [[unlikely]]
    check(api, gexx::vis::list_overlap(ds, dstcount));
  const gexx::vis::ListScan &remote = kPut ? ds : ss;
  ptrdiff_t delta = 0;
  if (ds.total == 0) {
    if (kPut) gexx::vis::local_put_done(api, jr);
    return GEX_EVENT_INVALID;
  }
  if (gexx::vis::mapped(api, jr, remote.lo, remote.hi, &delta)) {
    size_t uniform = ds.uniform == ss.uniform ? ds.uniform : 0;
    local::vectors<kPut>(delta, dstcount, dstlist, srccount, srclist, uniform);
    if (kPut) gexx::vis::local_put_done(api, jr);
    return GEX_EVENT_INVALID;
  }
  Runs d = Runs::vector(dstcount, dstlist), s = Runs::vector(srccount, srclist);
  gexx::vis::Call c{api, sync, flags};
  return kPut ? gexx::vis::put(c, jr, d, s, ds.total) : gexx::vis::get(c, d, jr, s, ds.total);
}

// The end of a one-pass list call toward a mapped peer: the destination
// list's overlap check (over the range gathered in the pass), then a put's
// completion.
template <bool kPut>
gex_Event_t mapped_done(const char *api, gex_Rank_t jr, const gexx::vis::ListScan &ds,
                        size_t count) {
  if (!gexx::vis::list_overlap_ok(ds)) [[unlikely]]
    check(api, gexx::vis::list_overlap(ds, count));
  if (kPut) gexx::vis::local_put_done(api, jr);
  return GEX_EVENT_INVALID;
}

// Vector lists of one count toward a mapped peer whose first entries have
// one length: one pass over both lists while the pairs keep that length
// (checking each remote piece against the segment and gathering the
// destination's range for the overlap check), the rest (pairs of other
// lengths) scanned, then copied.
template <bool kPut>
[[gnu::noinline]] gex_Event_t vector_mapped(const char *api, gex_Rank_t jr,
                                            const gexx::transport::PeerSegment &ps, size_t count,
                                            const gex_Memvec_t *dl, const gex_Memvec_t *sl) {
  const local::Window w = window_of(ps);
  gexx::vis::ListScan ds;
  const size_t n = dl[0].gex_len;
  local::Pass p = local::vector_pass<kPut>(w, count, dl, sl, n, ds);
  if (p.at < count) [[unlikely]] {
    const size_t k = p.at;
    if (p.out_of_segment) out_of_segment(api, jr, kPut ? dl[k].gex_addr : sl[k].gex_addr, n);
    gexx::vis::ListScan rd, rs;
    if (!gexx::vis::vector_scan_ok(count - k, dl + k, &rd))
      check(api, gexx::vis::vector_scan(count - k, dl + k, "destination", &rd));
    if (!gexx::vis::vector_scan_ok(count - k, sl + k, &rs))
      check(api, gexx::vis::vector_scan(count - k, sl + k, "source", &rs));
    check_totals(api, ds.total + rd.total, ds.total + rs.total);
    if (rd.total) {
      const gexx::vis::ListScan &remote = kPut ? rd : rs;
      if (!w.holds(reinterpret_cast<void *>(remote.lo), remote.hi - remote.lo))
        out_of_segment(api, jr, reinterpret_cast<void *>(remote.lo), remote.hi - remote.lo);
      ds.lo = std::min(ds.lo, rd.lo);
      ds.hi = std::max(ds.hi, rd.hi);
      ds.total += rd.total;
      local::vectors<kPut>(w.delta, count - k, dl + k, count - k, sl + k,
                           rd.uniform == rs.uniform ? rd.uniform : 0);
    }
  }
  return mapped_done<kPut>(api, jr, ds, count);
}

template <bool kPut>
gex_Event_t strided(const char *api, Sync sync, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                    const ptrdiff_t *dststrides, void *srcaddr, const ptrdiff_t *srcstrides,
                    size_t elemsz, const size_t *count, size_t levels, gex_Flags_t flags);

// A list of k pieces of n bytes toward a network peer whose addresses step
// evenly on both sides (st: the destination's step, then the source's) is
// a one-level strided shape: the network path packs it as one run instead
// of walking the lists entry by entry (a contiguous list of 1024 8-byte
// pieces: 12 us a call as lists, one record as a row). A destination step
// shorter than the piece (pieces overlapping) stays a list, whose checks
// name it so.
inline bool apart(ptrdiff_t step, size_t n) {
  return (step < 0 ? 0 - static_cast<size_t>(step) : static_cast<size_t>(step)) >= n;
}
template <bool kPut>
gex_Event_t as_strided(const char *api, Sync sync, gex_TM_t tm, gex_Rank_t rank, size_t k, void *d0,
                       const ptrdiff_t st[2], void *s0, size_t n, gex_Flags_t flags) {
  const size_t cnt[1] = {k};
  return strided<kPut>(api, sync, tm, rank, d0, &st[0], s0, &st[1], n, cnt, 1, flags);
}

template <bool kPut>
[[gnu::noinline]] gex_Event_t vector(const char *api, Sync sync, gex_TM_t tm, gex_Rank_t rank,
                                     size_t dstcount, const gex_Memvec_t *dstlist, size_t srccount,
                                     const gex_Memvec_t *srclist, gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  check_list(api, dstcount, dstlist, "destination");
  check_list(api, srccount, srclist, "source");
  if (dstcount == srccount && dstcount != 0 && dstlist[0].gex_len != 0) {
    if (dstcount == 1) {
      if (dstlist[0].gex_len == srclist[0].gex_len &&
          one_range<kPut>(api, jr, dstlist[0].gex_addr, srclist[0].gex_addr, dstlist[0].gex_len))
        return GEX_EVENT_INVALID;
    } else if (const gexx::transport::PeerSegment *ps = mapped_segment(api, jr)) {
      return vector_mapped<kPut>(api, jr, *ps, dstcount, dstlist, srclist);
    } else if (dstcount > 2) {
      const size_t n = dstlist[0].gex_len;
      ptrdiff_t st[2];
      if (vector_steps(dstcount, dstlist, srclist, st) && apart(st[0], n))
        return as_strided<kPut>(api, sync, tm, rank, dstcount, dstlist[0].gex_addr, st,
                                srclist[0].gex_addr, n, flags);
    }
  }
  return vector_general<kPut>(api, sync, jr, dstcount, dstlist, srccount, srclist, flags);
}

// Any indexed call: totals, ranges, then the copy or the network path.
template <bool kPut>
[[gnu::noinline]] gex_Event_t indexed_general(const char *api, Sync sync, gex_Rank_t jr,
                                              size_t dstcount, void *const *dstlist, size_t dstlen,
                                              size_t srccount, void *const *srclist, size_t srclen,
                                              gex_Flags_t flags) {
  // Totals first (no walk): a list may be null when its side holds nothing.
  gexx::vis::ListScan ds, ss;
  if (!gexx::vis::indexed_scan_ok(dstcount, nullptr, dstlen, false, &ds)) [[unlikely]]
    check(api, gexx::vis::indexed_scan(dstcount, nullptr, dstlen, "destination", false, &ds));
  if (!gexx::vis::indexed_scan_ok(srccount, nullptr, srclen, false, &ss)) [[unlikely]]
    check(api, gexx::vis::indexed_scan(srccount, nullptr, srclen, "source", false, &ss));
  check_totals(api, ds.total, ss.total);
  if (ds.total == 0) {
    if (kPut) gexx::vis::local_put_done(api, jr);
    return GEX_EVENT_INVALID;
  }
  check_list(api, dstcount, dstlist, "destination");
  check_list(api, srccount, srclist, "source");
  // The ranges: the destination's (overlap; the remote side of a put) and a
  // get's source.
  if (!gexx::vis::indexed_scan_ok(dstcount, dstlist, dstlen, true, &ds)) [[unlikely]]
    check(api, gexx::vis::indexed_scan(dstcount, dstlist, dstlen, "destination", true, &ds));
  if (!gexx::vis::list_overlap_ok(ds)) [[unlikely]]
    check(api, gexx::vis::list_overlap(ds, dstcount));
  if (!kPut && !gexx::vis::indexed_scan_ok(srccount, srclist, srclen, true, &ss)) [[unlikely]]
    check(api, gexx::vis::indexed_scan(srccount, srclist, srclen, "source", true, &ss));
  const gexx::vis::ListScan &remote = kPut ? ds : ss;
  ptrdiff_t delta = 0;
  if (gexx::vis::mapped(api, jr, remote.lo, remote.hi, &delta)) {
    local::indexed<kPut>(delta, dstcount, dstlist, dstlen, srccount, srclist, srclen);
    if (kPut) gexx::vis::local_put_done(api, jr);
    return GEX_EVENT_INVALID;
  }
  Runs d = Runs::indexed(dstcount, dstlist, dstlen), s = Runs::indexed(srccount, srclist, srclen);
  gexx::vis::Call c{api, sync, flags};
  return kPut ? gexx::vis::put(c, jr, d, s, ds.total) : gexx::vis::get(c, d, jr, s, ds.total);
}

// Indexed lists of one count and length toward a mapped peer: one pass.
template <bool kPut>
[[gnu::noinline]] gex_Event_t indexed_mapped(const char *api, gex_Rank_t jr,
                                             const gexx::transport::PeerSegment &ps, size_t count,
                                             void *const *dl, void *const *sl, size_t n) {
  gexx::vis::ListScan ds;
  if (!gexx::vis::indexed_scan_ok(count, nullptr, n, false, &ds)) [[unlikely]]
    check(api, gexx::vis::indexed_scan(count, nullptr, n, "destination", false, &ds));
  ds = gexx::vis::ListScan{};
  local::Pass p = local::indexed_pass<kPut>(window_of(ps), count, dl, sl, n, ds);
  if (p.at < count) [[unlikely]]
    out_of_segment(api, jr, kPut ? dl[p.at] : sl[p.at], n);
  return mapped_done<kPut>(api, jr, ds, count);
}

template <bool kPut>
[[gnu::noinline]] gex_Event_t indexed(const char *api, Sync sync, gex_TM_t tm, gex_Rank_t rank,
                                      size_t dstcount, void *const *dstlist, size_t dstlen,
                                      size_t srccount, void *const *srclist, size_t srclen,
                                      gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  if (dstcount == srccount && dstlen == srclen && dstlen != 0 && dstcount != 0) {
    check_list(api, dstcount, dstlist, "destination");
    check_list(api, srccount, srclist, "source");
    if (dstcount == 1) {
      if (one_range<kPut>(api, jr, dstlist[0], srclist[0], dstlen)) return GEX_EVENT_INVALID;
    } else if (const gexx::transport::PeerSegment *ps = mapped_segment(api, jr)) {
      return indexed_mapped<kPut>(api, jr, *ps, dstcount, dstlist, srclist, dstlen);
    } else if (dstcount > 2) {
      ptrdiff_t st[2];
      if (indexed_steps(dstcount, dstlist, srclist, st) && apart(st[0], dstlen))
        return as_strided<kPut>(api, sync, tm, rank, dstcount, dstlist[0], st, srclist[0], dstlen,
                                flags);
    }
  }
  return indexed_general<kPut>(api, sync, jr, dstcount, dstlist, dstlen, srccount, srclist, srclen,
                               flags);
}

// A strided call off the fast path: the full checks (when the fast ones
// declined: an empty shape, an interleaved destination, or a fault), then
// the copy toward a mapped peer or the network path.
template <bool kPut>
[[gnu::noinline]] gex_Event_t strided_rest(const char *api, Sync sync, gex_Rank_t jr, void *dstaddr,
                                           const ptrdiff_t *dststrides, void *srcaddr,
                                           const ptrdiff_t *srcstrides, size_t elemsz,
                                           const size_t *count, size_t levels, gex_Flags_t flags,
                                           bool checked, uint64_t total, uintptr_t lo,
                                           uintptr_t hi) {
  void *rbase = kPut ? dstaddr : srcaddr;
  const ptrdiff_t *rstrides = kPut ? dststrides : srcstrides;
  if (!checked) {
    check(api, gexx::vis::strided_total(elemsz, count, levels, &total));
    if (total == 0) {
      if (kPut) gexx::vis::local_put_done(api, jr);
      return GEX_EVENT_INVALID;
    }
    check(api, gexx::vis::strided_overlap(dststrides, elemsz, count, levels));
    check(api, gexx::vis::strided_extent(rbase, rstrides, elemsz, count, levels, &lo, &hi));
  }
  ptrdiff_t delta = 0;
  if (gexx::vis::mapped(api, jr, lo, hi, &delta)) {
    local::StridedPlan plan(static_cast<char *>(dstaddr), dststrides, static_cast<char *>(srcaddr),
                            srcstrides, elemsz, count, levels);
    plan.copy<kPut>(delta);
    if (kPut) gexx::vis::local_put_done(api, jr);
    return GEX_EVENT_INVALID;
  }
  gexx::vis::Call c{api, sync, flags};
  if (gexx::vis::strided_in_remote_order(rstrides, count, levels)) {
    Runs d = Runs::strided(dstaddr, dststrides, elemsz, count, levels);
    Runs s = Runs::strided(srcaddr, srcstrides, elemsz, count, levels);
    return kPut ? gexx::vis::put(c, jr, d, s, total) : gexx::vis::get(c, d, jr, s, total);
  }
  // Walk the remote side in increasing address order (vis/shape.hpp), on
  // copies of the caller's arrays.
  std::vector<ptrdiff_t> ds(dststrides, dststrides + levels), ss(srcstrides, srcstrides + levels);
  std::vector<size_t> n(count, count + levels);
  char *db = static_cast<char *>(dstaddr), *sb = static_cast<char *>(srcaddr);
  if (kPut)
    gexx::vis::strided_remote_order(db, ds.data(), sb, ss.data(), n.data(), levels);
  else
    gexx::vis::strided_remote_order(sb, ss.data(), db, ds.data(), n.data(), levels);
  Runs d = Runs::strided(db, ds.data(), elemsz, n.data(), levels);
  Runs s = Runs::strided(sb, ss.data(), elemsz, n.data(), levels);
  return kPut ? gexx::vis::put(c, jr, d, s, total) : gexx::vis::get(c, d, jr, s, total);
}

template <bool kPut>
[[gnu::noinline]] gex_Event_t strided(const char *api, Sync sync, gex_TM_t tm, gex_Rank_t rank,
                                      void *dstaddr, const ptrdiff_t *dststrides, void *srcaddr,
                                      const ptrdiff_t *srcstrides, size_t elemsz,
                                      const size_t *count, size_t levels, gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  if (levels && (!count || !dststrides || !srcstrides)) [[unlikely]] {
    gexx::util::fatal("%s: stridelevels is %zu but count or a stride array is null", api, levels);
  }
  uint64_t total = 0;
  uintptr_t lo = 0, hi = 0;
  bool ok = gexx::vis::strided_ok(elemsz, count, dststrides, kPut ? dstaddr : srcaddr,
                                  kPut ? dststrides : srcstrides, levels, &total, &lo, &hi);
  ptrdiff_t delta = 0;
  if (ok && gexx::vis::mapped(api, jr, lo, hi, &delta)) [[likely]] {
    local::StridedPlan plan(static_cast<char *>(dstaddr), dststrides, static_cast<char *>(srcaddr),
                            srcstrides, elemsz, count, levels);
    plan.copy<kPut>(delta);
    if (kPut) gexx::vis::local_put_done(api, jr);
    return GEX_EVENT_INVALID;
  }
  return strided_rest<kPut>(api, sync, jr, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                            levels, flags, ok, total, lo, hi);
}

}  // namespace

extern "C" {

void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags) {
  gexx::vis::set_peer_completion(__func__, handler, source_addr, nbytes, flags);
}

// ---- Vector ----
int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                              gex_Memvec_t const dstlist[], size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags) {
  if (vector_few<true>(tm, dstrank, dstcount, dstlist, srccount, srclist, flags)) return 0;
  vector<true>(__func__, Sync::Blocking, tm, dstrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}
gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags) {
  if (vector_few<true>(tm, dstrank, dstcount, dstlist, srccount, srclist, flags))
    return GEX_EVENT_INVALID;
  return vector<true>(__func__, Sync::NB, tm, dstrank, dstcount, dstlist, srccount, srclist, flags);
}
int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                         gex_Memvec_t const dstlist[], size_t srccount,
                         gex_Memvec_t const srclist[], gex_Flags_t flags) {
  if (vector_few<true>(tm, dstrank, dstcount, dstlist, srccount, srclist, flags)) return 0;
  vector<true>(__func__, Sync::NBI, tm, dstrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}
int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                              gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                              gex_Flags_t flags) {
  if (vector_few<false>(tm, srcrank, dstcount, dstlist, srccount, srclist, flags)) return 0;
  vector<false>(__func__, Sync::Blocking, tm, srcrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}
gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                                gex_Flags_t flags) {
  if (vector_few<false>(tm, srcrank, dstcount, dstlist, srccount, srclist, flags))
    return GEX_EVENT_INVALID;
  return vector<false>(__func__, Sync::NB, tm, srcrank, dstcount, dstlist, srccount, srclist,
                       flags);
}
int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                         gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                         gex_Flags_t flags) {
  if (vector_few<false>(tm, srcrank, dstcount, dstlist, srccount, srclist, flags)) return 0;
  vector<false>(__func__, Sync::NBI, tm, srcrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}

// ---- Indexed ----
int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags) {
  if (indexed_few<true>(tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
    return 0;
  indexed<true>(__func__, Sync::Blocking, tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist,
                srclen, flags);
  return 0;
}
gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags) {
  if (indexed_few<true>(tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
    return GEX_EVENT_INVALID;
  return indexed<true>(__func__, Sync::NB, tm, dstrank, dstcount, dstlist, dstlen, srccount,
                       srclist, srclen, flags);
}
int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount, void *const dstlist[],
                          size_t dstlen, size_t srccount, void *const srclist[], size_t srclen,
                          gex_Flags_t flags) {
  if (indexed_few<true>(tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
    return 0;
  indexed<true>(__func__, Sync::NBI, tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist,
                srclen, flags);
  return 0;
}
int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                               gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                               size_t srclen, gex_Flags_t flags) {
  if (indexed_few<false>(tm, srcrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
    return 0;
  indexed<false>(__func__, Sync::Blocking, tm, srcrank, dstcount, dstlist, dstlen, srccount,
                 srclist, srclen, flags);
  return 0;
}
gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                                 size_t srclen, gex_Flags_t flags) {
  if (indexed_few<false>(tm, srcrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
    return GEX_EVENT_INVALID;
  return indexed<false>(__func__, Sync::NB, tm, srcrank, dstcount, dstlist, dstlen, srccount,
                        srclist, srclen, flags);
}
int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                          gex_Rank_t srcrank, size_t srccount, void *const srclist[], size_t srclen,
                          gex_Flags_t flags) {
  if (indexed_few<false>(tm, srcrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
    return 0;
  indexed<false>(__func__, Sync::NBI, tm, srcrank, dstcount, dstlist, dstlen, srccount, srclist,
                 srclen, flags);
  return 0;
}

// ---- Strided ----
int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                               size_t stridelevels, gex_Flags_t flags) {
  if (strided_fast<true>(tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                         stridelevels, flags))
    return 0;
  strided<true>(__func__, Sync::Blocking, tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides,
                elemsz, count, stridelevels, flags);
  return 0;
}
gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                                 size_t stridelevels, gex_Flags_t flags) {
  if (strided_fast<true>(tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                         stridelevels, flags))
    return GEX_EVENT_INVALID;
  return strided<true>(__func__, Sync::NB, tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides,
                       elemsz, count, stridelevels, flags);
}
int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                          const ptrdiff_t dststrides[], void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags) {
  if (strided_fast<true>(tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                         stridelevels, flags))
    return 0;
  strided<true>(__func__, Sync::NBI, tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz,
                count, stridelevels, flags);
  return 0;
}
int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                               gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                               size_t elemsz, const size_t count[], size_t stridelevels,
                               gex_Flags_t flags) {
  if (strided_fast<false>(tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                          stridelevels, flags))
    return 0;
  strided<false>(__func__, Sync::Blocking, tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides,
                 elemsz, count, stridelevels, flags);
  return 0;
}
gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[], size_t stridelevels,
                                 gex_Flags_t flags) {
  if (strided_fast<false>(tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                          stridelevels, flags))
    return GEX_EVENT_INVALID;
  return strided<false>(__func__, Sync::NB, tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides,
                        elemsz, count, stridelevels, flags);
}
int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                          gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags) {
  if (strided_fast<false>(tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                          stridelevels, flags))
    return 0;
  strided<false>(__func__, Sync::NBI, tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz,
                 count, stridelevels, flags);
  return 0;
}

}  // extern "C"
