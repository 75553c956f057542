// The exported table of include/gexx_inline_rma.h (rma/inline_table.hpp).
#include "rma/inline_table.hpp"

#include <mutex>
#include <vector>

#include "util/trace.hpp"

extern "C" {
// Exported (cmake/exports.map: gexx_*): the client's inline forms read it.
gexx_rma_inline_t gexx_rma_inline = {nullptr, nullptr, 0, GEXX_RMA_INLINE_ABI};
}

namespace gexx::rma {

namespace {

std::mutex g_lock;                    // publishing against a mask change
std::vector<gexx_rma_peer_t> g_rows;  // what `peers` points at when enabled

// The pointer the clients see: the rows, unless a put or get would then
// escape the trace or the statistics.
void refresh() {
  std::lock_guard<std::mutex> guard(g_lock);
  gexx_rma_peer_t *p =
      g_rows.empty() || trace::active(trace::kPut | trace::kGet) ? nullptr : g_rows.data();
  __atomic_store_n(&gexx_rma_inline.peers, p, __ATOMIC_RELEASE);
}

}  // namespace

void publish_inline_table(const transport::PeerSegment *segs, uint32_t n, gex_TM_t job_tm) {
  {
    std::lock_guard<std::mutex> guard(g_lock);
    __atomic_store_n(&gexx_rma_inline.peers, nullptr, __ATOMIC_RELEASE);
    g_rows.assign(n, gexx_rma_peer_t{});
    for (uint32_t r = 0; r < n; ++r) {
      if (!segs[r].local || segs[r].size == 0) continue;  // not mapped here: size 0
      g_rows[r].owner_base = static_cast<uintptr_t>(segs[r].owner_base);
      g_rows[r].size = static_cast<uintptr_t>(segs[r].size);
      g_rows[r].local = segs[r].local;
    }
    gexx_rma_inline.job_tm = job_tm;
    gexx_rma_inline.npeers = n;
    gexx_rma_inline.abi = GEXX_RMA_INLINE_ABI;
  }
  trace::add_active_listener(&refresh);
  refresh();
}

}  // namespace gexx::rma
