// The entry layer's own interface: each gex_* entry point of capi/ is a
// thin wrapper over one of these, which take the caller's name (for errors
// and the trace) and the operation it records. The GASNet-1 layer
// (legacy/) calls these and the gex_* entry points, and nothing below
// capi/, so a legacy call behaves exactly as its EX counterpart (a legacy
// NB put is as asynchronous as gex_RMA_PutNB). The few GASNet-1 services
// with no EX entry point (memset, named barriers, legacy handler tables,
// wait modes) are here too.
#pragma once

#include <gasnet.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "rma/blocking.hpp"
#include "util/trace.hpp"

namespace gexx::capi {

// Who calls: the entry point's name and the operation the trace shows.
struct Call {
  const char *api;
  trace::Op op;
};

// ---- system (capi/system.cpp) ----
bool initialized();
namespace detail {
extern std::atomic<gex_TM_t> g_job_tm;  // set once gexx is initialised
gex_TM_t job_tm_slow(const char *api);
}  // namespace detail
// The primordial team; fatal naming `api` before init. Inline: every
// GASNet-1 call names its node through it.
inline gex_TM_t job_tm(const char *api) {
  if (gex_TM_t tm = detail::g_job_tm.load(std::memory_order_acquire)) [[likely]]
    return tm;
  return detail::job_tm_slow(api);
}
// gex_Segment_Attach as `api`.
gex_Segment_t attach(const char *api, gex_TM_t tm, uintptr_t length);
uintptr_t max_local_segment(const char *api);
uintptr_t max_global_segment(const char *api);
// The host and neighbourhood (supernode) indices of job rank `rank`.
void rank_location(const char *api, gex_Rank_t rank, gex_Rank_t *host, gex_Rank_t *nbrhd);
[[noreturn]] void exit_job(int exitcode);
// Progress: one poll (fatal inside a handler, naming `api`), one step of a
// polite spin, and the wait mode (GASNET_WAIT_*).
void poll(const char *api);
void relax(uint32_t &spins);
void set_wait_mode(int mode);

// ---- rma (capi/rma.cpp): the GASNet-1 forms of the gex_RMA_* calls ----
// A node is a job rank (the job team maps ranks to themselves). `c` names
// the GASNet-1 call in errors and the trace.
// The blocking forms are inline: a same-host 8-byte put or get is a range
// check and a copy, with no call between gasnet_put and the copy.
inline void put_blocking(const Call &c, gex_Rank_t node, void *dest, const void *src,
                         size_t nbytes) {
  rma::put_blocking(c.api, c.op, node, dest, src, nbytes);
}
void put_nbi(const Call &c, gex_Rank_t node, void *dest, const void *src, size_t nbytes,
             gex_Event_t *lc_opt);
gex_Event_t put_nb(const Call &c, gex_Rank_t node, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt);
inline void get_blocking(const Call &c, void *dest, gex_Rank_t node, void *src, size_t nbytes) {
  rma::get_blocking(c.api, c.op, dest, node, src, nbytes);
}
void get_nbi(const Call &c, void *dest, gex_Rank_t node, void *src, size_t nbytes);
gex_Event_t get_nb(const Call &c, void *dest, gex_Rank_t node, void *src, size_t nbytes);
void put_value(const Call &c, gex_Rank_t node, void *dest, gex_RMA_Value_t value, size_t nbytes);
gex_RMA_Value_t get_value(const Call &c, gex_Rank_t node, void *src, size_t nbytes);
// GASNet-1's memset (EX has none): complete when it returns.
void memset(const Call &c, gex_Rank_t node, void *dest, int value, size_t nbytes);

// ---- events (capi/event.cpp) ----
void begin_region(const char *api);
gex_Event_t end_region(const char *api);

// ---- active messages (capi/am.cpp) ----
enum class AmForm : uint8_t { Short = 0, Medium = 1, Long = 2 };
// GASNet-1 handler tables (index 0: gexx picks one and writes it back).
void register_legacy_handlers(const char *api, gasnet_handlerentry_t *table, int numentries);
int am_request(const char *api, AmForm form, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
               const void *src, size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
               unsigned nargs, const gex_AM_Arg_t *args);
int am_reply(const char *api, AmForm form, gex_Token_t token, gex_AM_Index_t handler,
             const void *src, size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
             unsigned nargs, const gex_AM_Arg_t *args);
// Fatal naming `api` when numargs exceeds gex_AM_MaxArgs().
void check_numargs(const char *api, unsigned numargs);
// The job rank that sent the AM of a live handler token.
gex_Rank_t token_source(const char *api, gex_Token_t token);

// ---- collectives (capi/coll.cpp): GASNet-1's named split-phase barrier ----
void barrier_notify(const char *api, int id, int flags);
int barrier_wait(const char *api, int id, int flags);
int barrier_try(const char *api, int id, int flags);
int barrier_result(const char *api, int *id);

}  // namespace gexx::capi
