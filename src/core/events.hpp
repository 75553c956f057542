// Events and NBI accounting, in one room: the event objects behind
// gex_Event_t (RMA operations a transport carries, access regions, the
// EX barrier), each thread's NBI counters and access region, and the
// test/wait rules the gex_Event_* and gex_NBI_* entry points apply.
//
// An operation that completes inside its initiating call has no event
// (GEX_EVENT_INVALID, the specification's value for a completed operation).
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/objects.hpp"
#include "transport/transport.hpp"

namespace gexx::core::events {

// Polls until every operation counted in `c` has completed.
void wait(transport::RmaCompletion &c);

// The event of RMA operations counted in `c`; GEX_EVENT_INVALID (and `c`
// freed) when they have completed already.
gex_Event_t for_rma(std::unique_ptr<transport::RmaCompletion> c);

// The event of the job barrier's anonymous generation `generation`.
gex_Event_t for_barrier(uint64_t generation);

// This thread's NBI counters: operations started by the gex_RMA_*NBI calls
// add to them (to the access region's while one is open).
transport::RmaCompletion &nbi_put_counter();
transport::RmaCompletion &nbi_get_counter();
// This thread's NBI operations of the categories in `ec` (GEX_EC_PUT,
// GEX_EC_GET, GEX_EC_ALL ...): all complete?
bool nbi_done(gex_EC_t ec);
// Access regions: operations initiated inside one complete with the event
// end_region returns. Regions do not nest (fatal, naming `api`).
void begin_region(const char *api);
gex_Event_t end_region(const char *api);

// The gex_Event_* rules. `api` names the caller in errors (GEX_EVENT_NO_OP
// is not an event). A completed event is freed and set to
// GEX_EVENT_INVALID. Tests return 0 or GASNET_ERR_NOT_READY; waits poll.
int test_one(gex_Event_t &event, const char *api);
void wait_one(gex_Event_t &event, const char *api);
int test_some(gex_Event_t *pevent, size_t numevents, const char *api);
int test_all(gex_Event_t *pevent, size_t numevents, const char *api);
void wait_some(gex_Event_t *pevent, size_t numevents, const char *api);
void wait_all(gex_Event_t *pevent, size_t numevents, const char *api);
// gex_Event_QueryLeaf: no operation here has a leaf that completes after
// its initiation, so every leaf is GEX_EVENT_INVALID.
gex_Event_t query_leaf(gex_Event_t root, gex_EC_t category, const char *api);

}  // namespace gexx::core::events
