// The collectives' part of the host area: shared memory every rank of a
// shared-memory neighbourhood maps (transport::Transport::host_area), where
// a team whose members all share that memory runs its collectives without
// AMs (engine.cpp's host-phase operations).
//
// Layout: a header (a spin lock and a table of the teams that have an area),
// then kTeamAreas team areas. A team area has kSlots slots, one per
// collective in flight (collective #seq uses slot seq % kSlots); a slot has,
// for each of the host's ranks (by team rank), one control line and a data
// region of two chunk_for(ranks) bytes, which a collective cuts into buffers
// of up to kOpChunk (a writer fills some while readers copy out of others);
// a stream of up to kInline bytes goes in the control line instead.
//
// Each member writes only its own control line and buffers; the others read
// them. Control values are stamps, (seq << 32) | chunk, compared modulo
// 2^64, so a slot's values only grow and a later collective in a slot never
// looks like an earlier one.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gexx::coll::host {

constexpr uint32_t kSlots = 4;
// The smallest chunk (the largest element a host-phase reduction takes).
constexpr size_t kChunk = 16 * 1024;
// The largest piece a collective moves through one buffer.
constexpr size_t kOpChunk = 64 * 1024;
// The area chunk of a host of `ranks` ranks (each member's region is two):
// up to 4 ranks 256 KiB, so a member has 512 KiB of a 1 MiB payload in
// flight, in 8 buffers of 64 KiB (with 2 such buffers a 2-rank 1 MiB
// reduce-to-all ran at 6.5 GB/s, with 8 at 12.6: a writer reusing a buffer
// its reader has just read waits on that core's cache); 5 to 8 ranks 64 KiB,
// or 128 KiB when they are more than the host's cores (each handoff there
// waits for the scheduler to run every reader: half as many); 16 KiB above
// 8 ranks. Every rank of a host computes the same (from the count and the
// host's online cores).
size_t chunk_for(uint32_t ranks);

// A collective whose stream is at most kInline bytes posts it in the
// control line itself (`small`), not in a data buffer: a reader's one miss
// on the line brings the call, the stamp and the data together (a 2-rank
// 8-byte reduce-to-one took two cache-line transfers per call otherwise).
constexpr size_t kInline = 32;

struct alignas(64) Control {
  std::atomic<uint64_t> posted;     // stamp: the chunks before it are in my buffers
  std::atomic<uint64_t> consumed;   // stamp: I have read the chunks before it
  std::atomic<uint64_t> finished;   // seq + 1 of the last collective done here in this slot
  std::atomic<uint64_t> sig;        // what I called (kind, root, size): checked by the others
  alignas(32) char small[kInline];  // a stream of up to kInline bytes
};
static_assert(sizeof(Control) == 64, "one cache line per member and slot");

inline uint64_t stamp(uint32_t seq, uint64_t chunk) {
  return uint64_t{seq} << 32 | chunk;
}
inline bool reached(uint64_t value, uint64_t goal) {
  return static_cast<int64_t>(value - goal) >= 0;
}

// One team's area: `ranks` is the host's rank count (every team area is
// laid out for the largest team a host can have).
class TeamArea {
 public:
  TeamArea() = default;
  TeamArea(char *base, uint32_t ranks) : base_(base), ranks_(ranks), chunk_(chunk_for(ranks)) {}
  explicit operator bool() const { return base_ != nullptr; }
  Control &control(uint32_t slot, uint32_t member) const {
    return reinterpret_cast<Control *>(base_)[slot * ranks_ + member];
  }
  char *data(uint32_t slot, uint32_t member, uint64_t chunk) const {
    size_t controls = sizeof(Control) * kSlots * ranks_;
    return base_ + controls + ((size_t{slot} * ranks_ + member) * 2 + (chunk & 1)) * chunk_;
  }
  size_t chunk() const { return chunk_; }
  static size_t bytes(uint32_t ranks) {
    return (sizeof(Control) + 2 * chunk_for(ranks)) * kSlots * ranks;
  }

 private:
  char *base_ = nullptr;
  uint32_t ranks_ = 0;
  size_t chunk_ = kChunk;
};

// Bytes of the host area the collectives need for a host of `ranks` ranks.
size_t area_size(uint32_t ranks);
// This process's mapping of that part (zeroed at creation; nothing to lay
// out), and by job rank whether that rank maps the same area. Before any
// collective.
void attach(void *area, uint32_t ranks, std::vector<uint8_t> shares);
// Whether job rank `r` maps this process's area (false before attach).
bool shares(uint32_t r);
uint32_t ranks();
// This host has more ranks than cores (every rank finds the same).
bool oversubscribed();
// The area of team `id`, taken on first use by the first of its members on
// this host and shared by the others (they find it by id); an empty one when
// every team area is taken (the team then uses the AM algorithms: every
// member of a host finds the same answer, as the table remembers it).
TeamArea acquire(uint64_t id);
// A member leaves (gex_TM_Destroy of a team this process acquired): the last
// one frees the area.
void release(uint64_t id);

}  // namespace gexx::coll::host
