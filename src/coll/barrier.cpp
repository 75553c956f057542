#include "coll/barrier.hpp"

#include <gasnet.h>

#include "core/progress.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"
#include "util/trace.hpp"

namespace gexx::coll {

namespace {
// A barrier phase, as the trace and the statistics show it; `result` < 0: none.
void record(trace::Op op, const char *api, int id, int flags, uint64_t start, int result) {
  trace::record(op, -1, 0, start, api, [&] {
    std::string detail = util::format("id=%d flags=%d", id, flags);
    if (result >= 0) {
      detail += result == GASNET_OK              ? " result=ok"
                : result == GASNET_ERR_NOT_READY ? " result=not_ready"
                                                 : " result=mismatch";
    }
    return detail;
  });
}
}  // namespace

void Barrier::notify(int id, int flags) {
  if (notified_) {
    util::fatal(
        "gasnet_barrier_notify called twice without a gasnet_barrier_wait or a successful "
        "gasnet_barrier_try in between");
  }
  // An unnamed barrier (every rank passes UNNAMED) matches like an anonymous one.
  if (flags & GASNET_BARRIERFLAG_UNNAMED) flags |= GASNET_BARRIERFLAG_ANONYMOUS;
  mine_ = {id, static_cast<uint32_t>(flags) &
                   (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH)};
  generation_ = arrive(mine_);
  notified_ = true;
  if (trace::active(trace::kBarrier))
    record(trace::Op::BarrierNotify, "gasnet_barrier_notify", id, flags, 0, -1);
}

int Barrier::finish(int id, int flags) {
  notified_ = false;
  BarrierValue all = algo_->result();
  last_ = all;
  if (all.flags & GASNET_BARRIERFLAG_MISMATCH) return GASNET_ERR_BARRIER_MISMATCH;
  // The wait's value must agree with this rank's notify and with the job's.
  bool named_wait = !(flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED));
  if (named_wait && !(mine_.flags & GASNET_BARRIERFLAG_ANONYMOUS) && id != mine_.id)
    return GASNET_ERR_BARRIER_MISMATCH;
  if (named_wait && !(all.flags & GASNET_BARRIERFLAG_ANONYMOUS) && id != all.id)
    return GASNET_ERR_BARRIER_MISMATCH;
  if (flags & GASNET_BARRIERFLAG_MISMATCH) return GASNET_ERR_BARRIER_MISMATCH;
  return GASNET_OK;
}

int Barrier::wait(int id, int flags) {
  if (!notified_)
    util::fatal("gasnet_barrier_wait called without a matching gasnet_barrier_notify");
  uint64_t start = trace::active(trace::kBarrier) ? trace::now() : 0;
  core::poll();  // a progress point even when complete (finish_anonymous)
  core::wait_until([&] { return algo_->done(generation_); });
  int result = finish(id, flags);
  if (start) record(trace::Op::BarrierWait, "gasnet_barrier_wait", id, flags, start, result);
  return result;
}

int Barrier::try_finish(int id, int flags) {
  if (!notified_) util::fatal("gasnet_barrier_try called without a matching gasnet_barrier_notify");
  core::poll();
  int result = algo_->done(generation_) ? finish(id, flags) : GASNET_ERR_NOT_READY;
  if (trace::active(trace::kBarrier))
    record(trace::Op::BarrierTry, "gasnet_barrier_try", id, flags, 0, result);
  return result;
}

int Barrier::last_result(int *id) const {
  if (notified_) {
    util::fatal(
        "gasnet_barrier_result called between gasnet_barrier_notify and the "
        "gasnet_barrier_wait (or successful gasnet_barrier_try) that completes it");
  }
  if (last_.flags & GASNET_BARRIERFLAG_ANONYMOUS) return GASNET_BARRIERFLAG_ANONYMOUS;
  if (id) *id = last_.id;
  return 0;
}

uint64_t Barrier::start_anonymous() {
  if (notified_) {
    util::fatal(
        "gex_Coll_BarrierNB called while a gasnet_barrier_notify is still waiting for its "
        "gasnet_barrier_wait");
  }
  return arrive({0, GASNET_BARRIERFLAG_ANONYMOUS});
}

uint64_t Barrier::arrive(BarrierValue v) {
  // A rank arrives once per generation: an earlier non-blocking barrier of
  // this rank must complete before the next one starts.
  core::wait_until([&] { return algo_->done(last_arrival_); });
  last_arrival_ = algo_->arrive(v);
  return last_arrival_;
}

void Barrier::finish_anonymous(uint64_t generation) {
  // A progress point even when the barrier is complete already: AMs that
  // arrived before it run before it returns (testvis counts its VIS peer
  // completions right after a barrier, as GASNet's barrier wait polls).
  core::poll();
  core::wait_until([&] { return algo_->done(generation); });
}

}  // namespace gexx::coll
