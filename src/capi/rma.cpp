// GASNet-EX one-sided RMA entry points (and GASNet-1's memset).
//
// Toward a segment mapped here every transfer is a copy that is complete
// when the initiating call returns, so NB calls return GEX_EVENT_INVALID
// (the specification's value for an already-completed operation) and NBI
// operations leave nothing outstanding. Toward a segment the transport
// reaches (network peers), NB and NBI operations complete later
// (rma/remote.hpp; their events and NBI counters: core/events.hpp).
#include <gasnetex.h>

#include "capi/entry.hpp"
#include "core/objects.hpp"
#include "core/runtime.hpp"
#include "rma/blocking.hpp"
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

// Records an operation the transport carries, as put_blocking does a copy.
void record_remote(const char *api, Op op, gex_Rank_t rank, size_t nbytes, uint64_t start) {
  if (start) gexx::trace::record(op, rank, nbytes, start, api, [] { return std::string(); });
}
uint64_t trace_start(uint32_t category) {
  return gexx::trace::active(category) ? gexx::trace::now() : 0;
}

}  // namespace

namespace gexx::capi {

int put_blocking(Call c, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                 gex_Flags_t flags) {
  rma::put_blocking(c.api, c.op, job_rank(tm, rank, flags, c.api), dest, src, nbytes);
  return 0;
}

int put_nbi(Call c, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
            gex_Event_t *lc_opt, gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, c.api);
  check_nbi_lc(lc_opt, c.api);
  if (mapped(c.api, jr, dest, nbytes)) [[likely]] {
    rma::put_blocking(c.api, c.op, jr, dest, src, nbytes);
    return 0;
  }
  uint64_t start = trace_start(trace::kPut);
  rma::remote_put_nbi(jr, dest, src, nbytes, lc_opt);
  record_remote(c.api, c.op, jr, nbytes, start);
  return 0;
}

gex_Event_t put_nb(Call c, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, c.api);
  check_nb_lc(lc_opt, c.api);
  if (mapped(c.api, jr, dest, nbytes)) [[likely]] {
    rma::put_blocking(c.api, c.op, jr, dest, src, nbytes);
    if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER) *lc_opt = GEX_EVENT_INVALID;
    return GEX_EVENT_INVALID;
  }
  uint64_t start = trace_start(trace::kPut);
  gex_Event_t e = rma::remote_put_nb(jr, dest, src, nbytes, lc_opt);
  record_remote(c.api, c.op, jr, nbytes, start);
  return e;
}

int get_blocking(Call c, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                 gex_Flags_t flags) {
  rma::get_blocking(c.api, c.op, dest, job_rank(tm, rank, flags, c.api), src, nbytes);
  return 0;
}

int get_nbi(Call c, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
            gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, c.api);
  if (mapped(c.api, jr, src, nbytes)) [[likely]] {
    rma::get_blocking(c.api, c.op, dest, jr, src, nbytes);
    return 0;
  }
  uint64_t start = trace_start(trace::kGet);
  rma::remote_get_nbi(dest, jr, src, nbytes);
  record_remote(c.api, c.op, jr, nbytes, start);
  return 0;
}

gex_Event_t get_nb(Call c, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t flags) {
  gex_Rank_t jr = job_rank(tm, rank, flags, c.api);
  if (mapped(c.api, jr, src, nbytes)) [[likely]] {
    rma::get_blocking(c.api, c.op, dest, jr, src, nbytes);
    return GEX_EVENT_INVALID;
  }
  uint64_t start = trace_start(trace::kGet);
  gex_Event_t e = rma::remote_get_nb(dest, jr, src, nbytes);
  record_remote(c.api, c.op, jr, nbytes, start);
  return e;
}

void put_value(Call c, gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
               size_t nbytes, gex_Flags_t flags) {
  rma::put_value(c.api, c.op, job_rank(tm, rank, flags, c.api), dest, value, nbytes);
}

gex_RMA_Value_t get_value(Call c, gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags) {
  return rma::get_value(c.api, c.op, job_rank(tm, rank, flags, c.api), src, nbytes);
}

void memset(Call c, gex_TM_t tm, gex_Rank_t rank, void *dest, int value, size_t nbytes) {
  rma::memset_blocking(c.api, c.op, job_rank(tm, rank, 0, c.api), dest, value, nbytes);
}

}  // namespace gexx::capi

extern "C" {

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                        gex_Flags_t flags) {
  return gexx::capi::put_blocking({__func__, Op::Put}, tm, rank, dest, src, nbytes, flags);
}

int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags) {
  return gexx::capi::put_nbi({__func__, Op::PutNBI}, tm, rank, dest, src, nbytes, lc_opt, flags);
}

gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t flags) {
  return gexx::capi::put_nb({__func__, Op::PutNB}, tm, rank, dest, src, nbytes, lc_opt, flags);
}

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                        gex_Flags_t flags) {
  return gexx::capi::get_blocking({__func__, Op::Get}, tm, dest, rank, src, nbytes, flags);
}

int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t flags) {
  return gexx::capi::get_nbi({__func__, Op::GetNBI}, tm, dest, rank, src, nbytes, flags);
}

gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags) {
  return gexx::capi::get_nb({__func__, Op::GetNB}, tm, dest, rank, src, nbytes, flags);
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                                       gex_Flags_t flags) {
  return gexx::capi::get_value({__func__, Op::Get}, tm, rank, src, nbytes, flags);
}

int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t flags) {
  gexx::capi::put_value({__func__, Op::Put}, tm, rank, dest, value, nbytes, flags);
  return 0;
}

int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags) {
  gexx::capi::put_value({__func__, Op::PutNBI}, tm, rank, dest, value, nbytes, flags);
  return 0;
}

gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags) {
  gexx::capi::put_value({__func__, Op::PutNB}, tm, rank, dest, value, nbytes, flags);
  return GEX_EVENT_INVALID;
}

}  // extern "C"
