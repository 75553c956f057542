// GASNet-EX one-sided RMA entry points (and GASNet-1's memset).
//
// Toward a segment mapped here every transfer is a copy that is complete
// when the initiating call returns, so NB calls return GEX_EVENT_INVALID
// (the specification's value for an already-completed operation) and NBI
// operations leave nothing outstanding. Toward a segment the transport
// reaches (network peers), NB and NBI operations complete later
// (rma/remote.hpp; their events and NBI counters: core/events.hpp).
#include <gasnetex.h>

#include <cstring>

#include "capi/entry.hpp"
#include "core/objects.hpp"
#include "core/runtime.hpp"
#include "rma/blocking.hpp"
#include "util/copy.hpp"
#include "rma/remote.hpp"
#include "util/log.hpp"

using gexx::capi::Call;
using gexx::trace::Op;

namespace {

// The job rank that `rank` of team `tm` names (GEX_FLAG_RANK_IS_JOBRANK:
// `rank` is one already).
inline gex_Rank_t job_rank(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags, const char *api) {
  if (!tm) [[unlikely]]
    gexx::util::fatal("%s: the team argument is invalid (null)", api);
  return tm->team.job_rank(api, rank, flags);
}

// Local completion of an NB put: `lc_opt` is NOW, DEFER or an event to set.
void check_nb_lc(gex_Event_t *lc_opt, const char *api) {
  if (lc_opt == GEX_EVENT_GROUP) {
    gexx::util::fatal(
        "%s: GEX_EVENT_GROUP is for NBI puts; pass GEX_EVENT_NOW, GEX_EVENT_DEFER "
        "or the address of a gex_Event_t",
        api);
  }
  if (!lc_opt) gexx::util::fatal("%s: lc_opt is null", api);
}

// Local completion of an NBI put: `lc_opt` is NOW, DEFER or GROUP.
void check_nbi_lc(gex_Event_t *lc_opt, const char *api) {
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP) {
    gexx::util::fatal("%s: lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or GEX_EVENT_GROUP", api);
  }
}

// Whether [addr, addr + nbytes) of rank's segment is mapped here (a copy)
// rather than reached through the transport.
bool mapped(const char *api, gex_Rank_t rank, const void *addr, size_t nbytes) {
  return nbytes == 0 || gexx::core::Runtime::get(api).locate(api, rank, addr, nbytes) != nullptr;
}

// The put as a copy when rank's segment is mapped here (true: done, and
// traced as c.op), else false: the transport carries it. One segment lookup
// on the untraced path: this is the whole cost of a small NB/NBI put here.
inline bool put_here(const Call &c, gex_Rank_t rank, void *dest, const void *src, size_t nbytes) {
  if (gexx::trace::active(gexx::trace::kPut)) [[unlikely]] {
    if (!mapped(c.api, rank, dest, nbytes)) return false;
    gexx::rma::traced_put(c.api, c.op, rank, dest, src, nbytes);
    return true;
  }
  if (nbytes == 0) return true;
  char *p = gexx::core::Runtime::get(c.api).locate(c.api, rank, dest, nbytes);
  if (!p) [[unlikely]]
    return false;
  gexx::util::put_copy(p, src, nbytes);
  return true;
}

inline bool get_here(const Call &c, void *dest, gex_Rank_t rank, const void *src, size_t nbytes) {
  if (gexx::trace::active(gexx::trace::kGet)) [[unlikely]] {
    if (!mapped(c.api, rank, src, nbytes)) return false;
    gexx::rma::traced_get(c.api, c.op, dest, rank, src, nbytes);
    return true;
  }
  if (nbytes == 0) return true;
  const char *p = gexx::core::Runtime::get(c.api).locate(c.api, rank, src, nbytes);
  if (!p) [[unlikely]]
    return false;
  gexx::util::get_copy(dest, p, nbytes);
  return true;
}

// Records an operation the transport carries, as put_blocking does a copy.
void record_remote(const char *api, Op op, gex_Rank_t rank, size_t nbytes, uint64_t start) {
  if (start) gexx::trace::record(op, rank, nbytes, start, api, [] { return std::string(); });
}
uint64_t trace_start(uint32_t category) {
  return gexx::trace::active(category) ? gexx::trace::now() : 0;
}

}  // namespace

// The forms, once a rank is a job rank; inlined into each entry point.
namespace {

using gexx::capi::Call;

// `lc_opt` is checked by the caller (the GASNet-1 forms pass constants).
[[gnu::always_inline]] inline int put_nbi_at(const Call &c, gex_Rank_t jr, void *dest,
                                             const void *src, size_t nbytes, gex_Event_t *lc_opt) {
  if (put_here(c, jr, dest, src, nbytes)) [[likely]]
    return 0;
  uint64_t start = trace_start(gexx::trace::kPut);
  gexx::rma::remote_put_nbi(jr, dest, src, nbytes, lc_opt);
  record_remote(c.api, c.op, jr, nbytes, start);
  return 0;
}

[[gnu::always_inline]] inline gex_Event_t put_nb_at(const Call &c, gex_Rank_t jr, void *dest,
                                                    const void *src, size_t nbytes,
                                                    gex_Event_t *lc_opt) {
  if (put_here(c, jr, dest, src, nbytes)) [[likely]] {
    if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER) *lc_opt = GEX_EVENT_INVALID;
    return GEX_EVENT_INVALID;
  }
  uint64_t start = trace_start(gexx::trace::kPut);
  gex_Event_t e = gexx::rma::remote_put_nb(jr, dest, src, nbytes, lc_opt);
  record_remote(c.api, c.op, jr, nbytes, start);
  return e;
}

[[gnu::always_inline]] inline int get_nbi_at(const Call &c, void *dest, gex_Rank_t jr, void *src,
                                             size_t nbytes) {
  if (get_here(c, dest, jr, src, nbytes)) [[likely]]
    return 0;
  uint64_t start = trace_start(gexx::trace::kGet);
  gexx::rma::remote_get_nbi(dest, jr, src, nbytes);
  record_remote(c.api, c.op, jr, nbytes, start);
  return 0;
}

[[gnu::always_inline]] inline gex_Event_t get_nb_at(const Call &c, void *dest, gex_Rank_t jr,
                                                    void *src, size_t nbytes) {
  if (get_here(c, dest, jr, src, nbytes)) [[likely]]
    return GEX_EVENT_INVALID;
  uint64_t start = trace_start(gexx::trace::kGet);
  gex_Event_t e = gexx::rma::remote_get_nb(dest, jr, src, nbytes);
  record_remote(c.api, c.op, jr, nbytes, start);
  return e;
}

}  // namespace

// GASNet-1's forms: a node is a job rank (the job team maps them to themselves).
namespace gexx::capi {

void put_nbi(const Call &c, gex_Rank_t node, void *dest, const void *src, size_t nbytes,
             gex_Event_t *lc_opt) {
  put_nbi_at(c, node, dest, src, nbytes, lc_opt);
}
gex_Event_t put_nb(const Call &c, gex_Rank_t node, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt) {
  return put_nb_at(c, node, dest, src, nbytes, lc_opt);
}
void get_nbi(const Call &c, void *dest, gex_Rank_t node, void *src, size_t nbytes) {
  get_nbi_at(c, dest, node, src, nbytes);
}
gex_Event_t get_nb(const Call &c, void *dest, gex_Rank_t node, void *src, size_t nbytes) {
  return get_nb_at(c, dest, node, src, nbytes);
}
void put_value(const Call &c, gex_Rank_t node, void *dest, gex_RMA_Value_t value, size_t nbytes) {
  rma::put_value(c.api, c.op, node, dest, value, nbytes);
}
gex_RMA_Value_t get_value(const Call &c, gex_Rank_t node, void *src, size_t nbytes) {
  return rma::get_value(c.api, c.op, node, src, nbytes);
}
void memset(const Call &c, gex_Rank_t node, void *dest, int value, size_t nbytes) {
  rma::memset_blocking(c.api, c.op, node, dest, value, nbytes);
}

}  // namespace gexx::capi

extern "C" {

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                        gex_Flags_t flags) {
  gexx::rma::put_blocking(__func__, Op::Put, job_rank(tm, rank, flags, __func__), dest, src,
                          nbytes);
  return 0;
}

int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags) {
  static constexpr Call c{"gex_RMA_PutNBI", Op::PutNBI};
  gex_Rank_t jr = job_rank(tm, rank, flags, c.api);
  check_nbi_lc(lc_opt, c.api);
  return put_nbi_at(c, jr, dest, src, nbytes, lc_opt);
}

gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t flags) {
  static constexpr Call c{"gex_RMA_PutNB", Op::PutNB};
  gex_Rank_t jr = job_rank(tm, rank, flags, c.api);
  check_nb_lc(lc_opt, c.api);
  return put_nb_at(c, jr, dest, src, nbytes, lc_opt);
}

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                        gex_Flags_t flags) {
  gexx::rma::get_blocking(__func__, Op::Get, dest, job_rank(tm, rank, flags, __func__), src,
                          nbytes);
  return 0;
}

int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t flags) {
  static constexpr Call c{"gex_RMA_GetNBI", Op::GetNBI};
  return get_nbi_at(c, dest, job_rank(tm, rank, flags, c.api), src, nbytes);
}

gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags) {
  static constexpr Call c{"gex_RMA_GetNB", Op::GetNB};
  return get_nb_at(c, dest, job_rank(tm, rank, flags, c.api), src, nbytes);
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                                       gex_Flags_t flags) {
  return gexx::rma::get_value(__func__, Op::Get, job_rank(tm, rank, flags, __func__), src, nbytes);
}

int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t flags) {
  gexx::rma::put_value(__func__, Op::Put, job_rank(tm, rank, flags, __func__), dest, value, nbytes);
  return 0;
}

int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags) {
  gexx::rma::put_value(__func__, Op::PutNBI, job_rank(tm, rank, flags, __func__), dest, value,
                       nbytes);
  return 0;
}

gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags) {
  gexx::rma::put_value(__func__, Op::PutNB, job_rank(tm, rank, flags, __func__), dest, value,
                       nbytes);
  return GEX_EVENT_INVALID;
}

}  // extern "C"
