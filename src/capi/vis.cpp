// GASNet-EX VIS entry points (gasnet_vis.h): the shape checks every call
// makes (fatal, naming the call), then the transfer (vis/vis.hpp).
#include <gasnet_vis.h>

#include <cinttypes>
#include <string>
#include <vector>

#include "core/objects.hpp"
#include "util/log.hpp"
#include "vis/shape.hpp"
#include "vis/vis.hpp"

using gexx::vis::Runs;
using gexx::vis::Sync;

namespace {

gex_Rank_t job_rank(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags, const char *api) {
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

gex_Event_t vector(const char *api, Sync sync, bool put, gex_TM_t tm, gex_Rank_t rank,
                   size_t dstcount, const gex_Memvec_t *dstlist, size_t srccount,
                   const gex_Memvec_t *srclist, gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  check_list(api, dstcount, dstlist, "destination");
  check_list(api, srccount, srclist, "source");
  uint64_t dt = 0, st = 0;
  check(api, gexx::vis::vector_total(dstcount, dstlist, "destination", &dt));
  check(api, gexx::vis::vector_total(srccount, srclist, "source", &st));
  check_totals(api, dt, st);
  check(api, gexx::vis::vector_overlap(dstcount, dstlist));
  Runs d = Runs::vector(dstcount, dstlist), s = Runs::vector(srccount, srclist);
  gexx::vis::Call c{api, sync, flags};
  return put ? gexx::vis::put(c, jr, d, s, dt) : gexx::vis::get(c, d, jr, s, dt);
}

gex_Event_t indexed(const char *api, Sync sync, bool put, gex_TM_t tm, gex_Rank_t rank,
                    size_t dstcount, void *const *dstlist, size_t dstlen, size_t srccount,
                    void *const *srclist, size_t srclen, gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  uint64_t dt = 0, st = 0;
  check(api, gexx::vis::indexed_total(dstcount, dstlen, "destination", &dt));
  check(api, gexx::vis::indexed_total(srccount, srclen, "source", &st));
  check_totals(api, dt, st);
  if (dt) {
    check_list(api, dstcount, dstlist, "destination");
    check_list(api, srccount, srclist, "source");
  }
  check(api, gexx::vis::indexed_overlap(dstcount, dstlist, dstlen));
  Runs d = Runs::indexed(dstcount, dstlist, dstlen), s = Runs::indexed(srccount, srclist, srclen);
  gexx::vis::Call c{api, sync, flags};
  return put ? gexx::vis::put(c, jr, d, s, dt) : gexx::vis::get(c, d, jr, s, dt);
}

gex_Event_t strided(const char *api, Sync sync, bool put, gex_TM_t tm, gex_Rank_t rank,
                    void *dstaddr, const ptrdiff_t *dststrides, void *srcaddr,
                    const ptrdiff_t *srcstrides, size_t elemsz, const size_t *count, size_t levels,
                    gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  if (levels && (!count || !dststrides || !srcstrides)) [[unlikely]] {
    gexx::util::fatal("%s: stridelevels is %zu but count or a stride array is null", api, levels);
  }
  uint64_t total = 0;
  check(api, gexx::vis::strided_total(elemsz, count, levels, &total));
  check(api, gexx::vis::strided_overlap(dststrides, elemsz, count, levels));
  if (gexx::vis::strided_in_remote_order(put ? dststrides : srcstrides, count, levels)) {
    Runs d = Runs::strided(dstaddr, dststrides, elemsz, count, levels);
    Runs s = Runs::strided(srcaddr, srcstrides, elemsz, count, levels);
    gexx::vis::Call c{api, sync, flags};
    return put ? gexx::vis::put(c, jr, d, s, total) : gexx::vis::get(c, d, jr, s, total);
  }
  // Walk the remote side in increasing address order (vis/shape.hpp), on
  // copies of the caller's arrays.
  std::vector<ptrdiff_t> ds(dststrides, dststrides + levels), ss(srcstrides, srcstrides + levels);
  std::vector<size_t> n(count, count + levels);
  char *db = static_cast<char *>(dstaddr), *sb = static_cast<char *>(srcaddr);
  if (put)
    gexx::vis::strided_remote_order(db, ds.data(), sb, ss.data(), n.data(), levels);
  else
    gexx::vis::strided_remote_order(sb, ss.data(), db, ds.data(), n.data(), levels);
  Runs d = Runs::strided(db, ds.data(), elemsz, n.data(), levels);
  Runs s = Runs::strided(sb, ss.data(), elemsz, n.data(), levels);
  gexx::vis::Call c{api, sync, flags};
  return put ? gexx::vis::put(c, jr, d, s, total) : gexx::vis::get(c, d, jr, s, total);
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
  vector(__func__, Sync::Blocking, true, tm, dstrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}
gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags) {
  return vector(__func__, Sync::NB, true, tm, dstrank, dstcount, dstlist, srccount, srclist, flags);
}
int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                         gex_Memvec_t const dstlist[], size_t srccount,
                         gex_Memvec_t const srclist[], gex_Flags_t flags) {
  vector(__func__, Sync::NBI, true, tm, dstrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}
int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                              gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                              gex_Flags_t flags) {
  vector(__func__, Sync::Blocking, false, tm, srcrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}
gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                                gex_Flags_t flags) {
  return vector(__func__, Sync::NB, false, tm, srcrank, dstcount, dstlist, srccount, srclist,
                flags);
}
int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                         gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                         gex_Flags_t flags) {
  vector(__func__, Sync::NBI, false, tm, srcrank, dstcount, dstlist, srccount, srclist, flags);
  return 0;
}

// ---- Indexed ----
int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags) {
  indexed(__func__, Sync::Blocking, true, tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist,
          srclen, flags);
  return 0;
}
gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags) {
  return indexed(__func__, Sync::NB, true, tm, dstrank, dstcount, dstlist, dstlen, srccount,
                 srclist, srclen, flags);
}
int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount, void *const dstlist[],
                          size_t dstlen, size_t srccount, void *const srclist[], size_t srclen,
                          gex_Flags_t flags) {
  indexed(__func__, Sync::NBI, true, tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist,
          srclen, flags);
  return 0;
}
int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                               gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                               size_t srclen, gex_Flags_t flags) {
  indexed(__func__, Sync::Blocking, false, tm, srcrank, dstcount, dstlist, dstlen, srccount,
          srclist, srclen, flags);
  return 0;
}
gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                                 size_t srclen, gex_Flags_t flags) {
  return indexed(__func__, Sync::NB, false, tm, srcrank, dstcount, dstlist, dstlen, srccount,
                 srclist, srclen, flags);
}
int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                          gex_Rank_t srcrank, size_t srccount, void *const srclist[], size_t srclen,
                          gex_Flags_t flags) {
  indexed(__func__, Sync::NBI, false, tm, srcrank, dstcount, dstlist, dstlen, srccount, srclist,
          srclen, flags);
  return 0;
}

// ---- Strided ----
int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                               size_t stridelevels, gex_Flags_t flags) {
  strided(__func__, Sync::Blocking, true, tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides,
          elemsz, count, stridelevels, flags);
  return 0;
}
gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                                 size_t stridelevels, gex_Flags_t flags) {
  return strided(__func__, Sync::NB, true, tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides,
                 elemsz, count, stridelevels, flags);
}
int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                          const ptrdiff_t dststrides[], void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags) {
  strided(__func__, Sync::NBI, true, tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz,
          count, stridelevels, flags);
  return 0;
}
int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                               gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                               size_t elemsz, const size_t count[], size_t stridelevels,
                               gex_Flags_t flags) {
  strided(__func__, Sync::Blocking, false, tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides,
          elemsz, count, stridelevels, flags);
  return 0;
}
gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[], size_t stridelevels,
                                 gex_Flags_t flags) {
  return strided(__func__, Sync::NB, false, tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides,
                 elemsz, count, stridelevels, flags);
}
int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                          gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags) {
  strided(__func__, Sync::NBI, false, tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz,
          count, stridelevels, flags);
  return 0;
}

}  // extern "C"
