// RMA toward peers whose segment this process does not map: the transport
// carries it (the ofi conduit's network peers). Completion is counted in
// transport::RmaCompletion objects: on the stack for blocking calls, in an
// event for NB calls, per thread for NBI (or per access region).
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>

#include "transport/transport.hpp"

namespace gexx::rma {

// Polls until every operation counted in `c` has completed.
void wait(transport::RmaCompletion &c);

void remote_put(uint32_t rank, void *dest, const void *src, size_t nbytes);
void remote_get(void *dest, uint32_t rank, const void *src, size_t nbytes);
void remote_memset(uint32_t rank, void *dest, int value, size_t nbytes);

// NB: the event of the operation (GEX_EVENT_INVALID when it has completed);
// for a put, *lc_opt as gex_RMA_PutNB sets it.
gex_Event_t remote_put_nb(uint32_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt);
gex_Event_t remote_get_nb(void *dest, uint32_t rank, const void *src, size_t nbytes);
// NBI: counted in this thread's NBI state (or its access region).
void remote_put_nbi(uint32_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt);
void remote_get_nbi(void *dest, uint32_t rank, const void *src, size_t nbytes);

// This thread's NBI operations of the categories in `ec` (GEX_EC_PUT,
// GEX_EC_GET, GEX_EC_ALL ...): all complete?
bool nbi_done(gex_EC_t ec);
// Access regions: operations initiated inside one complete with the event
// end_region returns.
void begin_region(const char *api);
gex_Event_t end_region(const char *api);

}  // namespace gexx::rma
