// RMA toward peers whose segment this process does not map: the transport
// carries it (the ofi conduit's network peers). Completion is counted in
// transport::RmaCompletion objects: on the stack for blocking calls, in an
// event for NB calls, per thread for NBI (or per access region): core/events.hpp.
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>

#include "transport/transport.hpp"

namespace gexx::core {
class HandlerTable;
}

namespace gexx::rma {

// The internal AM handlers of small NB/NBI operations toward network peers
// (Capabilities::am_rma_max), registered when the runtime starts.
void register_handlers(core::HandlerTable &handlers);

void remote_put(uint32_t rank, void *dest, const void *src, size_t nbytes);
void remote_get(void *dest, uint32_t rank, const void *src, size_t nbytes);
void remote_memset(uint32_t rank, void *dest, int value, size_t nbytes);

// NB: the event of the operation (GEX_EVENT_INVALID when it has completed);
// for a put, *lc_opt as gex_RMA_PutNB sets it.
gex_Event_t remote_put_nb(uint32_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt);
gex_Event_t remote_get_nb(void *dest, uint32_t rank, const void *src, size_t nbytes);
// NBI: counted in this thread's NBI counters (core/events.hpp).
void remote_put_nbi(uint32_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt);
void remote_get_nbi(void *dest, uint32_t rank, const void *src, size_t nbytes);

}  // namespace gexx::rma
