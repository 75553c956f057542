// Collective entry points: gex_Coll_BarrierNB and gex_Coll_BarrierBlocking (the job team's on
// the job barrier, any other team's on the collective engine), broadcast and the reductions on
// any team (coll/engine.hpp), and GASNet-1's named split-phase barrier (capi/entry.hpp).
#include <gasnet_coll.h>
#include <gasnetex.h>

#include "capi/entry.hpp"
#include "coll/engine.hpp"
#include "core/events.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"

using gexx::core::Runtime;

namespace {

gex_TM_t checked(gex_TM_t tm, const char *api) {
  (void)Runtime::get(api);
  if (!tm) gexx::util::fatal("%s: the team argument is invalid (null)", api);
  return tm;
}

gexx::coll::Reduction reduction(gex_DT_t dt, size_t dt_sz, gex_OP_t op, gex_Coll_ReduceFn_t fn,
                                const void *cdata) {
  gexx::coll::Reduction red;
  red.dt = dt;
  red.dt_size = dt_sz;
  red.op = op;
  red.fn = fn;
  red.cdata = cdata;
  return red;
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
  Runtime &rt = Runtime::get(__func__);
  checked(tm, __func__);
  gex_Event_t event;
  if (tm == rt.tm()) {
    event = gexx::core::events::for_barrier(rt.barrier().start_anonymous());
  } else {
    event = gexx::coll::event(gexx::coll::barrier(__func__, tm->team));
  }
  if (gexx::trace::active(gexx::trace::kBarrier))
    gexx::trace::record(gexx::trace::Op::BarrierNB, -1, 0, 0, __func__);
  return event;
}

void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags) {
  gex_Event_Wait(gex_Coll_BarrierNB(tm, flags));
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags) {
  (void)flags;
  checked(tm, __func__);
  return gexx::coll::event(gexx::coll::broadcast(__func__, tm->team, root, dst, src, nbytes));
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t fn, void *cdata, gex_Flags_t flags) {
  (void)flags;
  checked(tm, __func__);
  return gexx::coll::event(gexx::coll::reduce(__func__, tm->team, false, root, dst, src,
                                              reduction(dt, dt_sz, op, fn, cdata), dt_cnt));
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t fn,
                                   void *cdata, gex_Flags_t flags) {
  (void)flags;
  checked(tm, __func__);
  return gexx::coll::event(gexx::coll::reduce(__func__, tm->team, true, 0, dst, src,
                                              reduction(dt, dt_sz, op, fn, cdata), dt_cnt));
}

}  // extern "C"
