#include "coll/host_area.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "util/log.hpp"

namespace gexx::coll::host {

namespace {

// Teams that may hold a table entry at once on one host (a team with no
// area still holds one, so that its later members find the same answer).
constexpr uint32_t kEntries = 1024;
// All team areas together take about this much memory (two areas at least, eight at most).
constexpr size_t kBudget = size_t{4} << 20;
constexpr uint32_t kMinAreas = 2, kMaxAreas = 8;
// Areas up to this size in all, on hosts of up to kPopulateRanks ranks,
// are mapped in at attach (below); on larger hosts every rank mapping the
// whole area would add to start-up more than the first collectives save.
// (A host of 4 ranks has 16 MiB and some: chunk_for.)
constexpr size_t kPopulateMax = size_t{20} << 20;
constexpr uint32_t kPopulateRanks = 16;

struct Entry {
  uint64_t id;    // 0: free (team ids are never 0)
  uint32_t refs;  // members on this host that acquired it
  int32_t area;   // -1: none (every area was taken when the team came)
};
struct alignas(64) Header {
  std::atomic<uint32_t> lock;
  Entry entries[kEntries];
};

uint32_t areas_for(uint32_t ranks) {
  size_t n = kBudget / TeamArea::bytes(ranks);
  return static_cast<uint32_t>(std::clamp<size_t>(n, kMinAreas, kMaxAreas));
}

struct Mapping {
  Header *hdr = nullptr;
  char *areas = nullptr;
  uint32_t ranks = 0, nareas = 0;
  std::vector<uint8_t> shares;
} g;

class Lock {
 public:
  Lock() {
    while (g.hdr->lock.exchange(1, std::memory_order_acquire) != 0) sched_yield();
  }
  ~Lock() { g.hdr->lock.store(0, std::memory_order_release); }
};

}  // namespace

namespace {
bool more_than_cores(uint32_t ranks) {
  static const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 && ranks > static_cast<unsigned long>(cores);
}
}  // namespace

size_t chunk_for(uint32_t ranks) {
  if (ranks > 8) return kChunk;
  if (ranks <= 4) return 16 * kChunk;
  return more_than_cores(ranks) ? 8 * kChunk : 4 * kChunk;
}

bool oversubscribed() {
  return more_than_cores(g.ranks);
}

size_t area_size(uint32_t ranks) {
  return sizeof(Header) + areas_for(ranks) * TeamArea::bytes(ranks);
}

namespace {
// Maps every page of [p, p + n) into this process now: a slot's buffers
// are otherwise faulted in (allocated by the first process, mapped by each)
// by the first collectives that use them, and a 1 MiB broadcast that meets
// fresh slots pays hundreds of faults on every rank. Contents are left as
// they are (another rank may be using the area already).
void populate(char *p, size_t n) {
  const long page = sysconf(_SC_PAGESIZE);
  char *lo = reinterpret_cast<char *>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(page - 1));
  if (madvise(lo, n + static_cast<size_t>(p - lo), MADV_POPULATE_WRITE) == 0) return;
  for (size_t off = 0; off < n; off += static_cast<size_t>(page))
    reinterpret_cast<std::atomic<char> *>(p + off)->fetch_add(0, std::memory_order_relaxed);
}
}  // namespace

void attach(void *area, uint32_t ranks, std::vector<uint8_t> shares) {
  g.shares = std::move(shares);
  g.hdr = static_cast<Header *>(area);
  g.areas = static_cast<char *>(area) + sizeof(Header);
  g.ranks = ranks;
  g.nareas = areas_for(ranks);
  if (area && ranks <= kPopulateRanks && area_size(ranks) <= kPopulateMax)
    populate(static_cast<char *>(area), area_size(ranks));
}

bool shares(uint32_t r) {
  return r < g.shares.size() && g.shares[r];
}
uint32_t ranks() {
  return g.ranks;
}

TeamArea acquire(uint64_t id) {
  if (!g.hdr) return {};
  Lock lock;
  Entry *free_entry = nullptr;
  for (Entry &e : g.hdr->entries) {
    if (e.id == id) {
      ++e.refs;
      return e.area < 0 ? TeamArea{}
                        : TeamArea(g.areas + e.area * TeamArea::bytes(g.ranks), g.ranks);
    }
    if (!free_entry && e.id == 0) free_entry = &e;
  }
  if (!free_entry)
    util::fatal(
        "collectives: more than %u teams with collectives are alive on this host; destroy teams "
        "no longer needed (gex_TM_Destroy)",
        kEntries);
  std::vector<bool> used(g.nareas, false);
  for (const Entry &e : g.hdr->entries)
    if (e.id != 0 && e.area >= 0) used[e.area] = true;
  int32_t area = -1;
  for (uint32_t a = 0; a < g.nareas && area < 0; ++a)
    if (!used[a]) area = static_cast<int32_t>(a);
  free_entry->id = id;
  free_entry->refs = 1;
  free_entry->area = area;
  if (area < 0) return {};
  TeamArea t(g.areas + area * TeamArea::bytes(g.ranks), g.ranks);
  // The controls of the area's last team: back to zero for a fresh sequence.
  std::memset(static_cast<void *>(&t.control(0, 0)), 0, sizeof(Control) * kSlots * g.ranks);
  return t;
}

void release(uint64_t id) {
  if (!g.hdr) return;
  Lock lock;
  for (Entry &e : g.hdr->entries) {
    if (e.id == id) {
      if (--e.refs == 0) e.id = 0;
      return;
    }
  }
}

}  // namespace gexx::coll::host
