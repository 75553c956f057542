// The table behind the client-inlined same-host put and get
// (include/gexx_inline_rma.h): one row per job rank with the peer's segment
// as this process maps it. The library fills it at attach and empties it
// (the exported pointer becomes null) while puts or gets are traced or
// counted, so the library sees every operation then.
#pragma once

#include <gasnetex.h>

#include <cstdint>

#include "transport/transport.hpp"

namespace gexx::rma {

// Fills the table from the runtime's per-rank segments (`n` of them, by job
// rank) and publishes it; `job_tm` is the primordial team.
void publish_inline_table(const transport::PeerSegment *segs, uint32_t n, gex_TM_t job_tm);

}  // namespace gexx::rma
