// Atomic domains (gex_AD_t): what a domain is, how one is created, and the
// three ways each operation is initiated (NB, NBI, blocking).
//
// Paths, chosen per domain at creation (the same on every member):
// * cpu: every member's segment is mapped here: CPU atomics on that memory,
//   complete before the call returns.
// * native: some member is a network peer and the transport performs every
//   operation of the set itself (libfabric atomics): every operation goes
//   through the transport, even toward this rank, since the network's
//   atomics need not be atomic with respect to the CPU's.
// * am: otherwise. Mapped targets get CPU atomics, the others an active
//   message whose handler performs the same CPU atomic at the target and
//   replies with the prior value: both end in atomics::apply on the word,
//   so they are atomic with respect to each other.
// GASNET_AD_PATH=am sends every operation, even to this rank, as an AM (a
// test knob: it exercises the AM path on smp); =cpu-am never uses native
// atomics (the am path above).
#pragma once

#include <gasnet_ratomic.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "atomics/kernels.hpp"
#include "core/burst.hpp"
#include "core/events.hpp"
#include "core/objects.hpp"
#include "core/runtime.hpp"

struct gexx_ad_s {
  // What an operation toward a mapped target reads, first: the head the
  // public header's inline operations read too (gasnet_ratomic.h). `key` is
  // kLiveDomain ^ dt while the domain lives (one compare checks both), and
  // `direct` has one entry per team rank and `by_job` one per job rank (the
  // same table on the job's team; none on the paths that never use the CPU);
  // owned here.
  gexx_ad_head head{};
  gex_TM_t tm = nullptr;
  gex_DT_t dt = 0;
  gex_Flags_t flags = 0;
  void *cdata = nullptr;
  gexx::atomics::Type type = gexx::atomics::Type::kI32;
  // How operations reach targets not mapped here (a mapped target is a CPU
  // atomic unless the path is native or GASNET_AD_PATH=am).
  enum class Path : uint8_t { kCpu, kAm, kAllAm, kNative } path = Path::kCpu;
  uint32_t live = 0;  // kLiveDomain until destroyed: catches a stale handle
};

namespace gexx::atomics {

constexpr uint32_t kLiveDomain = GEXX_AD_LIVE;

// The internal AM handlers of the AM path, registered when the runtime
// starts (before any poll): a member may send its first request as soon as
// its own gex_AD_Create returns, before the target has created its domain
// (gex_AD_Create does not wait for the other members; the requests name no
// domain, only the word, the type and the operation).
void register_handlers(core::HandlerTable &handlers);

// gex_AD_Create / gex_AD_Destroy (collective over the domain's team).
void create(const char *api, gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
            gex_Flags_t flags);
void destroy(const char *api, gex_AD_t ad);
// The domain handle, checked (fatal, naming api, when null or destroyed).
gex_AD_t checked(const char *api, gex_AD_t ad);

// Misuse of an operation: each stops the job naming the call, the value and
// the rule it breaks.
[[noreturn]] void bad_domain(const char *api, gex_AD_t ad, gex_DT_t called_for);
[[noreturn]] void bad_op(const char *api, gex_AD_t ad, gex_OP_t op);
[[noreturn]] void misaligned(const char *api, const void *addr, size_t size);
[[noreturn]] void no_result(const char *api, gex_OP_t op);
[[noreturn]] void not_my_rank(const char *api, gex_Rank_t jr, gex_Flags_t flags);

// The active-message path, or the transport's for a native domain. `done` counts the operation
// until its reply has written the prior value to `result` (when not null). Returns 0, or 1 when
// GEX_FLAG_IMMEDIATE was given and nothing was sent (then `done` is as it was).
// `deferrable` (NB and NBI calls that continue a burst, core/burst.hpp: the
// caller learns of completion only by polling): a network transport may
// hold the request to send it with others toward the same rank, until this
// rank's next poll at the latest.
int send(const char *api, const gex_AD_t ad, gex_Rank_t jr, void *addr, gex_OP_t op, uint64_t a,
         uint64_t b, void *result, transport::RmaCompletion &done, gex_Flags_t flags,
         bool deferrable);

template <typename T>
inline uint64_t to_bits(T v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

// What every form does first: check the domain, the operation, the target
// and the result pointer, and find the target. Returns where this process
// can perform the operation itself (its CPU reaches the word), or null when
// it goes as an AM; `jr` is the target's job rank.
template <typename T>
[[gnu::always_inline]] inline T *prepare(const char *api, gex_AD_t ad, T *result_p, gex_Rank_t rank,
                                         void *addr, gex_OP_t op, gex_Flags_t flags,
                                         gex_Rank_t &jr) {
  if (!ad || ad->live != kLiveDomain || ad->dt != TypeOf<T>::dt) [[unlikely]]
    bad_domain(api, ad, TypeOf<T>::dt);
  if (!(op & ad->head.ops) || (op & (op - 1))) [[unlikely]]
    bad_op(api, ad, op);
  if (reinterpret_cast<uintptr_t>(addr) & (sizeof(T) - 1)) [[unlikely]]
    misaligned(api, addr, sizeof(T));
  if (!result_p && fetches(op)) [[unlikely]]
    no_result(api, op);
  jr = ad->tm->team.job_rank(api, rank, flags);
  core::Runtime &rt = core::Runtime::get(api);
  if ((flags & GEX_FLAG_AD_MY_RANK) && jr != rt.rank()) [[unlikely]]
    not_my_rank(api, jr, flags);
  char *p = rt.locate(api, jr, addr, sizeof(T));  // fatal outside the target's segment
  using Path = gexx_ad_s::Path;
  return ad->path == Path::kAllAm || ad->path == Path::kNative ? nullptr : reinterpret_cast<T *>(p);
}

template <typename T>
[[gnu::always_inline]] inline void here(T *p, T *result_p, gex_OP_t op, T a, T b) {
  T old = apply(p, op, a, b);
  if (fetches(op)) *result_p = old;
}

// The common case, checked with a handful of compares: a live domain of this
// type, one operation of its set, a team rank (a job rank under
// GEX_FLAG_RANK_IS_JOBRANK, as UPC++ calls) whose segment this process maps,
// an aligned word inside it, a result pointer where one is needed, and not
// GEX_FLAG_AD_MY_RANK (which asks for a check). Returns the
// word, or null: then the general path (prepare) decides, and names any
// misuse.
template <typename T>
[[gnu::always_inline]] inline T *direct(gex_AD_t ad, T *result_p, gex_Rank_t rank, void *addr,
                                        gex_OP_t op, gex_Flags_t flags) {
  if (!ad || ad->head.key != (kLiveDomain ^ TypeOf<T>::dt)) [[unlikely]]
    return nullptr;
  const gexx_ad_head &h = ad->head;
  const gexx_ad_direct *table = h.direct;
  gex_Rank_t n = h.direct_size;
  if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
    table = h.by_job;
    n = h.by_job_size;
  }
  if (!(op & h.ops) || (op & (op - 1)) || rank >= n || (flags & GEX_FLAG_AD_MY_RANK) ||
      (reinterpret_cast<uintptr_t>(addr) & (sizeof(T) - 1)) || (!result_p && fetches(op)))
      [[unlikely]]
    return nullptr;
  const gexx_ad_direct &d = table[rank];
  uint64_t off = reinterpret_cast<uint64_t>(addr) - d.base;  // wraps if below
  if (off > d.limit || !d.local) [[unlikely]]
    return nullptr;
  return reinterpret_cast<T *>(d.local + off);
}

// The three ways an operation is initiated, and what each returns.
enum class Form { kNB, kNBI, kBlocking };
template <Form F>
using Returns = std::conditional_t<F == Form::kNB, gex_Event_t, int>;

// Everything but the inline case: checks naming any misuse, a mapped target
// the fast check turned down (a job rank, GEX_FLAG_AD_MY_RANK), and the
// network (an AM, or the transport's atomics).
template <Form F, typename T>
[[gnu::noinline]] Returns<F> op_general(const char *api, gex_AD_t ad, T *result_p, gex_Rank_t rank,
                                        void *addr, gex_OP_t op, T a, T b, gex_Flags_t flags) {
  gex_Rank_t jr;
  if (T *p = prepare(api, ad, result_p, rank, addr, op, flags, jr)) {
    here(p, result_p, op, a, b);
    return Returns<F>{};  // GEX_EVENT_INVALID, or 0
  }
  if constexpr (F == Form::kNB) {
    const core::burst::Scope call(jr);
    auto done = std::make_unique<transport::RmaCompletion>();
    if (send(api, ad, jr, addr, op, to_bits(a), to_bits(b), result_p, *done, flags, call.burst))
      return GEX_EVENT_NO_OP;
    return core::events::for_rma(std::move(done));
  } else if constexpr (F == Form::kNBI) {
    const core::burst::Scope call(jr);
    return send(api, ad, jr, addr, op, to_bits(a), to_bits(b), result_p,
                core::events::nbi_get_counter(), flags, call.burst);
  } else {
    transport::RmaCompletion done;
    if (send(api, ad, jr, addr, op, to_bits(a), to_bits(b), result_p, done, flags, false)) return 1;
    core::events::wait(done);
    return 0;
  }
}

// gex_AD_Op{NB,NBI,Blocking}_T: a mapped word in a few compares, else the
// general path.
template <Form F, typename T>
[[gnu::always_inline]] inline Returns<F> op(const char *api, gex_AD_t ad, T *result_p,
                                            gex_Rank_t rank, void *addr, gex_OP_t op, T a, T b,
                                            gex_Flags_t flags) {
  if (T *p = direct(ad, result_p, rank, addr, op, flags)) [[likely]] {
    here(p, result_p, op, a, b);
    return Returns<F>{};
  }
  return op_general<F>(api, ad, result_p, rank, addr, op, a, b, flags);
}

}  // namespace gexx::atomics
