// GASNet-EX one-sided RMA, NBI and event entry points.
//
// Toward a segment mapped here every transfer is a copy that is complete
// when the initiating call returns, so NB calls return GEX_EVENT_INVALID
// (the specification's value for an already-completed operation) and NBI
// operations leave nothing outstanding. Toward a segment the transport
// reaches (network peers), NB and NBI operations complete later
// (rma/remote.hpp).
#include <gasnetex.h>

#include "core/objects.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "rma/blocking.hpp"
#include "rma/remote.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"
#include "util/trace.hpp"

using gexx::trace::Op;

namespace {

void check_tm(gex_TM_t tm, const char *api) {
  if (!tm) gexx::util::fatal("%s: the team argument is invalid (null)", api);
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

// Local completion of an NBI put: `lc_opt` is NOW, DEFER or GROUP.
void check_nbi_lc(gex_Event_t *lc_opt, const char *api) {
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP) {
    gexx::util::fatal("%s: lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or GEX_EVENT_GROUP", api);
  }
}

bool complete(gex_Event_t e, const char *api) {
  if (e == GEX_EVENT_INVALID) return true;
  if (e == GEX_EVENT_NO_OP) gexx::util::fatal("%s was passed GEX_EVENT_NO_OP", api);
  return e->test();
}

void retire(gex_Event_t &e) {
  if (e != GEX_EVENT_INVALID) delete e;
  e = GEX_EVENT_INVALID;
}

int test_one(gex_Event_t &event, const char *api) {
  if (!complete(event, api)) return GASNET_ERR_NOT_READY;
  retire(event);
  return 0;
}

void wait_one(gex_Event_t &event) {
  if (event == GEX_EVENT_NO_OP) gexx::util::fatal("gex_Event_Wait was passed GEX_EVENT_NO_OP");
  if (event == GEX_EVENT_INVALID) return;
  event->wait();
  retire(event);
}

int test_some(gex_Event_t *pevent, size_t numevents, const char *api) {
  bool any_valid = false, any_done = false;
  for (size_t i = 0; i < numevents; ++i) {
    if (pevent[i] == GEX_EVENT_INVALID) continue;
    any_valid = true;
    if (complete(pevent[i], api)) {
      retire(pevent[i]);
      any_done = true;
    }
  }
  return (any_done || !any_valid) ? 0 : GASNET_ERR_NOT_READY;
}

int test_all(gex_Event_t *pevent, size_t numevents, const char *api) {
  bool all = true;
  for (size_t i = 0; i < numevents; ++i) {
    if (pevent[i] == GEX_EVENT_INVALID) continue;
    if (complete(pevent[i], api))
      retire(pevent[i]);
    else
      all = false;
  }
  return all ? 0 : GASNET_ERR_NOT_READY;
}

// Polls until `test` returns 0.
template <typename Test>
void wait_for(Test &&test) {
  uint32_t spins = 0;
  while (test() != 0) {
    gexx::core::poll();
    gexx::core::relax(spins);
  }
}

// A wait or a test, recorded when S is traced or counted; `events` 0: NBI.
std::string events_field(size_t events) {
  return events ? gexx::util::format("events=%zu", events) : std::string();
}

template <typename Wait>
void sync_wait(const char *api, size_t events, Wait &&wait) {
  if (!gexx::trace::active(gexx::trace::kSync)) return wait();
  uint64_t start = gexx::trace::now();
  wait();
  gexx::trace::record(Op::SyncWait, -1, 0, start, api, [&] { return events_field(events); });
}

template <typename Test>
int sync_test(const char *api, size_t events, Test &&test) {
  if (!gexx::trace::active(gexx::trace::kSync)) return test();
  int result = test();
  gexx::trace::record(Op::SyncTry, -1, 0, 0, api, [&] {
    std::string detail = events_field(events);
    detail += detail.empty() ? "result=" : " result=";
    return detail + (result == 0 ? "done" : "not_ready");
  });
  return result;
}

}  // namespace

extern "C" {

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                        gex_Flags_t) {
  check_tm(tm, __func__);
  gexx::rma::put_blocking(__func__, Op::Put, rank, dest, src, nbytes);
  return 0;
}

int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t) {
  check_tm(tm, __func__);
  check_nbi_lc(lc_opt, __func__);
  if (mapped(__func__, rank, dest, nbytes)) [[likely]] {
    gexx::rma::put_blocking(__func__, Op::PutNBI, rank, dest, src, nbytes);
    return 0;
  }
  uint64_t start = trace_start(gexx::trace::kPut);
  gexx::rma::remote_put_nbi(rank, dest, src, nbytes, lc_opt);
  record_remote(__func__, Op::PutNBI, rank, nbytes, start);
  return 0;
}

gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t) {
  check_tm(tm, __func__);
  check_nb_lc(lc_opt, __func__);
  if (mapped(__func__, rank, dest, nbytes)) [[likely]] {
    gexx::rma::put_blocking(__func__, Op::PutNB, rank, dest, src, nbytes);
    if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER) *lc_opt = GEX_EVENT_INVALID;
    return GEX_EVENT_INVALID;
  }
  uint64_t start = trace_start(gexx::trace::kPut);
  gex_Event_t e = gexx::rma::remote_put_nb(rank, dest, src, nbytes, lc_opt);
  record_remote(__func__, Op::PutNB, rank, nbytes, start);
  return e;
}

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                        gex_Flags_t) {
  check_tm(tm, __func__);
  gexx::rma::get_blocking(__func__, Op::Get, dest, rank, src, nbytes);
  return 0;
}

int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t) {
  check_tm(tm, __func__);
  if (mapped(__func__, rank, src, nbytes)) [[likely]] {
    gexx::rma::get_blocking(__func__, Op::GetNBI, dest, rank, src, nbytes);
    return 0;
  }
  uint64_t start = trace_start(gexx::trace::kGet);
  gexx::rma::remote_get_nbi(dest, rank, src, nbytes);
  record_remote(__func__, Op::GetNBI, rank, nbytes, start);
  return 0;
}

gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t) {
  check_tm(tm, __func__);
  if (mapped(__func__, rank, src, nbytes)) [[likely]] {
    gexx::rma::get_blocking(__func__, Op::GetNB, dest, rank, src, nbytes);
    return GEX_EVENT_INVALID;
  }
  uint64_t start = trace_start(gexx::trace::kGet);
  gex_Event_t e = gexx::rma::remote_get_nb(dest, rank, src, nbytes);
  record_remote(__func__, Op::GetNB, rank, nbytes, start);
  return e;
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                                       gex_Flags_t) {
  check_tm(tm, __func__);
  return gexx::rma::get_value(__func__, Op::Get, rank, src, nbytes);
}

int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t) {
  check_tm(tm, __func__);
  gexx::rma::put_value(__func__, Op::Put, rank, dest, value, nbytes);
  return 0;
}

int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t) {
  check_tm(tm, __func__);
  gexx::rma::put_value(__func__, Op::PutNBI, rank, dest, value, nbytes);
  return 0;
}

gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t) {
  check_tm(tm, __func__);
  gexx::rma::put_value(__func__, Op::PutNB, rank, dest, value, nbytes);
  return GEX_EVENT_INVALID;
}

void gex_NBI_BeginAccessRegion(gex_Flags_t) {
  gexx::rma::begin_region(__func__);
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t) {
  return gexx::rma::end_region(__func__);
}

int gex_NBI_Test(gex_EC_t ec, gex_Flags_t) {
  return sync_test(__func__, 0, [ec] {
    if (gexx::rma::nbi_done(ec)) return 0;
    gexx::core::poll();
    return gexx::rma::nbi_done(ec) ? 0 : GASNET_ERR_NOT_READY;
  });
}

void gex_NBI_Wait(gex_EC_t ec, gex_Flags_t) {
  sync_wait(__func__, 0, [ec] {
    gexx::core::poll();
    gexx::core::wait_until([ec] { return gexx::rma::nbi_done(ec); });
  });
}

int gex_Event_Test(gex_Event_t event) {
  return sync_test(__func__, 1, [&] { return test_one(event, "gex_Event_Test"); });
}

void gex_Event_Wait(gex_Event_t event) {
  sync_wait(__func__, 1, [&] { wait_one(event); });
}

int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  return sync_test(__func__, numevents,
                   [&] { return test_some(pevent, numevents, "gex_Event_TestSome"); });
}

void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  sync_wait(__func__, numevents,
            [&] { wait_for([&] { return test_some(pevent, numevents, "gex_Event_WaitSome"); }); });
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  return sync_test(__func__, numevents,
                   [&] { return test_all(pevent, numevents, "gex_Event_TestAll"); });
}

void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  sync_wait(__func__, numevents,
            [&] { wait_for([&] { return test_all(pevent, numevents, "gex_Event_WaitAll"); }); });
}

gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category) {
  if (root == GEX_EVENT_NO_OP) gexx::util::fatal("gex_Event_QueryLeaf was passed GEX_EVENT_NO_OP");
  if (event_category != GEX_EC_LC && event_category != GEX_EC_GET && event_category != GEX_EC_PUT &&
      event_category != GEX_EC_AM && event_category != GEX_EC_RMW) {
    gexx::util::fatal("gex_Event_QueryLeaf: event_category %u is not a single GEX_EC_* value",
                      event_category);
  }
  // No operation here has a leaf that completes after its initiation.
  return GEX_EVENT_INVALID;
}

}  // extern "C"
