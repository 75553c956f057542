// The exported table of include/gexx_inline_rma.h (rma/inline_table.hpp).
#include "rma/inline_table.hpp"

#include <sys/mman.h>

#include <cstring>
#include <mutex>

#include "util/copy.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"

extern "C" {
// Exported (cmake/exports.map: gexx_*): the client's inline forms read it.
gexx_rma_fast_t gexx_rma_fast = {{}, nullptr, nullptr, 0, GEXX_RMA_INLINE_ABI, 0, 0, 0, {}};

// ABI 1's object, for clients built against its header: its `peers` stays
// null, which sends every one of their puts and gets to the library.
struct gexx_rma_inline_v1 {
  void *peers;
  gex_TM_t job_tm;
  uint32_t npeers;
  uint32_t abi;
};
gexx_rma_inline_v1 gexx_rma_inline = {nullptr, nullptr, 0, 1};
}

namespace gexx::rma {

namespace {

std::mutex g_lock;                  // publishing against a mask change
gexx_rma_peer_t *g_rows = nullptr;  // what `peers` points at when enabled
uint32_t g_nrows = 0;

// The pointer the clients see: the rows, unless a put or get would then
// escape the trace or the statistics.
void refresh() {
  std::lock_guard<std::mutex> guard(g_lock);
  gexx_rma_peer_t *p = g_nrows == 0 || trace::active(trace::kPut | trace::kGet) ? nullptr : g_rows;
  __atomic_store_n(&gexx_rma_fast.peers, p, __ATOMIC_RELEASE);
}

// Room for n rows that end 64 bytes before the end of a page, as
// gexx_rma_fast's own words do (gexx_inline_rma.h says why). Pages of their
// own, never freed (the table lives as long as the process: a client's
// inline form may read it until exit).
gexx_rma_peer_t *place_rows(uint32_t n) {
  constexpr size_t kPage = GEXX_RMA_FAST_PAGE;
  size_t bytes = size_t{n} * sizeof(gexx_rma_peer_t) + 64;
  size_t len = (bytes + kPage - 1) / kPage * kPage;
  void *mem = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) util::fatal("cannot map %zu bytes for the inline RMA table", len);
  return reinterpret_cast<gexx_rma_peer_t *>(static_cast<char *>(mem) + len - bytes);
}

}  // namespace

void publish_inline_table(const transport::PeerSegment *segs, uint32_t n, gex_TM_t job_tm) {
  {
    std::lock_guard<std::mutex> guard(g_lock);
    __atomic_store_n(&gexx_rma_fast.peers, nullptr, __ATOMIC_RELEASE);
    if (n != g_nrows) {  // attach is once per job; keep any earlier rows mapped
      g_rows = place_rows(n);
      g_nrows = n;
    }
    std::memset(static_cast<void *>(g_rows), 0, size_t{n} * sizeof(gexx_rma_peer_t));
    for (uint32_t r = 0; r < n; ++r) {
      if (!segs[r].local || segs[r].size == 0) continue;  // not mapped here: size 0
      g_rows[r].owner_base = static_cast<uintptr_t>(segs[r].owner_base);
      g_rows[r].size = static_cast<uintptr_t>(segs[r].size);
      g_rows[r].local = segs[r].local;
    }
    gexx_rma_fast.job_tm = job_tm;
    gexx_rma_fast.npeers = n;
    gexx_rma_fast.abi = GEXX_RMA_INLINE_ABI;
    gexx_rma_fast.copy_isa = gexx_copy_isa_();
  }
  trace::add_active_listener(&refresh);
  refresh();
}

}  // namespace gexx::rma
