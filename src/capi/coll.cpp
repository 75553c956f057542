// Collective entry points: gex_Coll_BarrierNB and gex_Coll_BarrierBlocking, and GASNet-1's named
// split-phase barrier (capi/entry.hpp). Barriers run over the job team.
#include <gasnetex.h>

#include "capi/entry.hpp"
#include "core/events.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"

using gexx::core::Runtime;

namespace {

gexx::coll::Barrier &job_barrier(gex_TM_t tm, const char *api) {
  Runtime &rt = Runtime::get(api);
  if (!tm) gexx::util::fatal("%s: the team argument is invalid (null)", api);
  if (tm != rt.tm()) {
    gexx::util::fatal("%s: only the primordial team exists in this release", api);
  }
  return rt.barrier();
}

}  // namespace

namespace gexx::capi {

void barrier_notify(const char *api, int id, int flags) {
  Runtime::get(api).barrier().notify(id, flags);
}
int barrier_wait(const char *api, int id, int flags) {
  return Runtime::get(api).barrier().wait(id, flags);
}
int barrier_try(const char *api, int id, int flags) {
  return Runtime::get(api).barrier().try_finish(id, flags);
}
int barrier_result(const char *api, int *id) {
  return Runtime::get(api).barrier().last_result(id);
}

}  // namespace gexx::capi

extern "C" {

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags) {
  (void)flags;
  gex_Event_t event = gexx::core::events::for_barrier(job_barrier(tm, __func__).start_anonymous());
  if (gexx::trace::active(gexx::trace::kBarrier))
    gexx::trace::record(gexx::trace::Op::BarrierNB, -1, 0, 0, __func__);
  return event;
}

void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags) {
  gex_Event_Wait(gex_Coll_BarrierNB(tm, flags));
}

}  // extern "C"
