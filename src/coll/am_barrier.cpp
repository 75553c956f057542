#include "coll/am_barrier.hpp"

#include <gasnetex.h>

#include "core/am.hpp"
#include "core/handlers.hpp"
#include "core/objects.hpp"
#include "util/log.hpp"

namespace gexx::coll {

namespace {
// The job's AM barrier, for its handler (handlers carry no context).
AmBarrier *g_job_barrier = nullptr;

void barrier_handler(gex_Token_t token, gex_AM_Arg_t gen, gex_AM_Arg_t round, gex_AM_Arg_t id,
                     gex_AM_Arg_t flags) {
  AmBarrier::Message m;
  m.gen = static_cast<uint32_t>(gen);
  m.round = static_cast<uint32_t>(round);
  m.value = {id, static_cast<uint32_t>(flags)};
  g_job_barrier->receive(token->src, m);
}
}  // namespace

AmBarrier::AmBarrier(uint32_t rank, uint32_t ranks, Send send)
    : send_(std::move(send)),
      rank_(rank),
      ranks_(ranks),
      rounds_(dissemination_rounds(ranks)),
      slots_(std::make_unique<Slot[]>(2 * static_cast<size_t>(rounds_))) {}

std::unique_ptr<AmBarrier> AmBarrier::over_am(core::am::Engine &engine,
                                              core::HandlerTable &handlers, uint32_t rank,
                                              uint32_t ranks) {
  auto send = [&engine](uint32_t peer, const Message &m) {
    gex_AM_Arg_t args[4] = {static_cast<gex_AM_Arg_t>(m.gen), static_cast<gex_AM_Arg_t>(m.round),
                            m.value.id, static_cast<gex_AM_Arg_t>(m.value.flags)};
    core::am::Message am =
        core::am::internal_message("the job barrier (an AM to a round's partner)", core::am::kShort,
                                   core::kBarrierHandler, 4, args);
    am.flags = GEX_FLAG_IMMEDIATE;
    return engine.internal_request(peer, am) == 0;
  };
  auto barrier = std::make_unique<AmBarrier>(rank, ranks, send);
  g_job_barrier = barrier.get();
  handlers.register_internal(core::kBarrierHandler, reinterpret_cast<gex_AM_Fn_t>(&barrier_handler),
                             GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 4, "barrier");
  return barrier;
}

uint32_t AmBarrier::partner(uint32_t round, int direction) const {
  uint64_t step = (1ull << round) % ranks_;
  return static_cast<uint32_t>((rank_ + (direction > 0 ? step : ranks_ - step)) % ranks_);
}

uint64_t AmBarrier::arrive(BarrierValue v) {
  std::lock_guard<std::mutex> guard(mutex_);
  ++gen_;
  acc_ = v;
  round_ = 0;
  sent_ = false;
  advance();
  return gen_;
}

bool AmBarrier::done(uint64_t gen) {
  if (completed(gen)) return true;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) advance();
  return completed(gen);
}

void AmBarrier::advance() {
  uint64_t completed = completed_.load(std::memory_order_relaxed);
  if (completed == gen_) return;
  uint32_t gen = static_cast<uint32_t>(gen_);
  while (round_ < rounds_) {
    if (!sent_) {
      if (!send_(partner(round_, +1), {gen, round_, acc_})) return;
      sent_ = true;
    }
    Slot &s = slot(gen, round_);
    if (s.gen.load(std::memory_order_acquire) != gen) return;
    acc_ = combine(acc_, unpack(s.value.load(std::memory_order_relaxed)));
    ++round_;
    sent_ = false;
  }
  result_ = acc_;
  completed_.store(gen_, std::memory_order_release);
}

void AmBarrier::receive(uint32_t src, const Message &m) {
  if (m.round >= rounds_ || src != partner(m.round, -1)) {
    util::fatal(
        "job barrier: rank %u sent a round-%u value to rank %u, which has %u round(s) and "
        "hears from another rank in that one",
        src, m.round, rank_, rounds_);
  }
  Slot &s = slot(m.gen, m.round);
  s.value.store(pack(m.value), std::memory_order_relaxed);
  s.gen.store(m.gen, std::memory_order_release);
}

}  // namespace gexx::coll
