// The debug allocator (gasnett_debug_*): every block carries a header with
// its size and a guard word before the user bytes, and guard bytes after
// them, and sits on a list so the whole heap can be checked; statistics
// follow every call. Freed blocks wait, poisoned, in a short quarantine
// before going back to malloc, so a second free or a write after free is
// caught. One mutex guards the list, the quarantine and the counters.
#include "tools/tools.hpp"

#include <cstring>
#include <deque>
#include <mutex>

namespace {

constexpr uint64_t kLiveMagic = 0x6765787874616c76ull;  // "gexxtalv"
constexpr uint64_t kFreedMagic = 0x6765787874667265ull;
constexpr uint64_t kFrontGuard = 0xC0DEFEEDDEADBEEFull;
constexpr unsigned char kTailByte = 0xA5;
constexpr size_t kTailBytes = 16;
constexpr unsigned char kFreedByte = 0xDD;
constexpr size_t kQuarantineBlocks = 256;
constexpr size_t kQuarantineMaxSize = 64 << 10;  // larger blocks go back at once

struct Block {
  uint64_t magic;
  uint64_t size;
  uint64_t serial;  // allocation number, to tell blocks apart in messages
  Block *prev;
  Block *next;
  uint64_t front_guard;  // last: an underrun hits it first
};
static_assert(sizeof(Block) % 16 == 0, "user bytes keep malloc's alignment");
constexpr size_t kOverhead = sizeof(Block) + kTailBytes;

std::mutex g_lock;
Block *g_head = nullptr;
Block *g_cursor = nullptr;  // gasnett_debug_memcheck_one's next block
uint64_t g_serial = 0;
gasnett_heapstats_t g_stats;
std::deque<Block *> g_quarantine;

Block *block_of(void *ptr) {
  return reinterpret_cast<Block *>(static_cast<char *>(ptr) - sizeof(Block));
}
unsigned char *tail_of(Block *b) {
  return reinterpret_cast<unsigned char *>(b + 1) + b->size;
}

// Checks one block; the first fault found is fatal. Called with g_lock held.
void check(Block *b, const char *caller) {
  void *user = b + 1;
  if (b->magic == kFreedMagic)
    gasnett_fatalerror("%s: %p was already freed (block #%llu)", caller, user,
                       static_cast<unsigned long long>(b->serial));
  if (b->magic != kLiveMagic)
    gasnett_fatalerror(
        "%s: %p was not allocated by gasnett_debug_malloc (or its header was "
        "overwritten)",
        caller, user);
  if (b->front_guard != kFrontGuard)
    gasnett_fatalerror(
        "%s: heap underrun: the guard bytes before block #%llu at %p (%llu bytes) "
        "were overwritten",
        caller, static_cast<unsigned long long>(b->serial), user,
        static_cast<unsigned long long>(b->size));
  unsigned char *tail = tail_of(b);
  for (size_t i = 0; i < kTailBytes; ++i)
    if (tail[i] != kTailByte)
      gasnett_fatalerror(
          "%s: heap overrun: block #%llu at %p (%llu bytes) was written past its "
          "end (guard byte %zu after the block is 0x%02x)",
          caller, static_cast<unsigned long long>(b->serial), user,
          static_cast<unsigned long long>(b->size), i, tail[i]);
}

void *allocate(size_t sz, const char *caller) {
  if (sz > SIZE_MAX - kOverhead) gasnett_fatalerror("%s(%zu): the size is too large", caller, sz);
  Block *b = static_cast<Block *>(std::malloc(kOverhead + sz));
  if (!b) gasnett_fatalerror("%s(%zu): out of memory", caller, sz);
  b->magic = kLiveMagic;
  b->size = sz;
  b->front_guard = kFrontGuard;
  std::memset(tail_of(b), kTailByte, kTailBytes);
  std::lock_guard<std::mutex> guard(g_lock);
  b->serial = ++g_serial;
  b->prev = nullptr;
  b->next = g_head;
  if (g_head) g_head->prev = b;
  g_head = b;
  g_stats.allocated_bytes += sz;
  g_stats.allocated_objects++;
  g_stats.live_bytes += sz;
  g_stats.live_objects++;
  g_stats.overhead_bytes += kOverhead;
  if (g_stats.live_bytes > g_stats.live_bytes_max) g_stats.live_bytes_max = g_stats.live_bytes;
  if (g_stats.live_objects > g_stats.live_objects_max)
    g_stats.live_objects_max = g_stats.live_objects;
  return b + 1;
}

// A block leaving the quarantine must still hold its poison. Called with
// g_lock held.
void evict(Block *b) {
  unsigned char *user = reinterpret_cast<unsigned char *>(b + 1);
  for (uint64_t i = 0; i < b->size; ++i)
    if (user[i] != kFreedByte)
      gasnett_fatalerror(
          "gasnett_debug_free: block #%llu at %p (%llu bytes) was written after it "
          "was freed (byte %llu is 0x%02x)",
          static_cast<unsigned long long>(b->serial), static_cast<void *>(user),
          static_cast<unsigned long long>(b->size), static_cast<unsigned long long>(i), user[i]);
  std::free(b);
}

void release(void *ptr, const char *caller) {
  Block *b = block_of(ptr);
  std::lock_guard<std::mutex> guard(g_lock);
  check(b, caller);
  if (b->prev) b->prev->next = b->next;
  if (b->next) b->next->prev = b->prev;
  if (g_head == b) g_head = b->next;
  if (g_cursor == b) g_cursor = b->next;
  g_stats.freed_bytes += b->size;
  g_stats.freed_objects++;
  g_stats.live_bytes -= b->size;
  g_stats.live_objects--;
  g_stats.overhead_bytes -= kOverhead;
  b->magic = kFreedMagic;
  if (b->size > kQuarantineMaxSize) {
    std::free(b);
    return;
  }
  std::memset(ptr, kFreedByte, b->size);
  g_quarantine.push_back(b);
  if (g_quarantine.size() > kQuarantineBlocks) {
    evict(g_quarantine.front());
    g_quarantine.pop_front();
  }
}

}  // namespace

extern "C" {

void *gasnett_debug_malloc(size_t sz) {
  return allocate(sz, "gasnett_debug_malloc");
}

void *gasnett_debug_calloc(size_t n, size_t s) {
  if (s && n > SIZE_MAX / s) gasnett_fatalerror("gasnett_debug_calloc(%zu, %zu): too large", n, s);
  void *p = allocate(n * s, "gasnett_debug_calloc");
  std::memset(p, 0, n * s);
  return p;
}

void *gasnett_debug_realloc(void *ptr, size_t sz) {
  if (!ptr) return allocate(sz, "gasnett_debug_realloc");
  uint64_t old_size;
  {
    std::lock_guard<std::mutex> guard(g_lock);
    check(block_of(ptr), "gasnett_debug_realloc");
    old_size = block_of(ptr)->size;
  }
  void *p = allocate(sz, "gasnett_debug_realloc");
  std::memcpy(p, ptr, old_size < sz ? old_size : sz);
  release(ptr, "gasnett_debug_realloc");
  return p;
}

void gasnett_debug_free(void *ptr) {
  if (ptr) release(ptr, "gasnett_debug_free");
}

char *gasnett_debug_strdup(const char *s) {
  return gasnett_debug_strndup(s, std::strlen(s));
}

char *gasnett_debug_strndup(const char *s, size_t n) {
  size_t len = strnlen(s, n);
  char *p = static_cast<char *>(allocate(len + 1, "gasnett_debug_strndup"));
  std::memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

void gasnett_debug_memcheck(void *ptr) {
  if (!ptr) return;
  std::lock_guard<std::mutex> guard(g_lock);
  check(block_of(ptr), "gasnett_debug_memcheck");
}

void gasnett_debug_memcheck_one(void) {
  std::lock_guard<std::mutex> guard(g_lock);
  if (!g_cursor) g_cursor = g_head;
  if (!g_cursor) return;
  check(g_cursor, "gasnett_debug_memcheck_one");
  g_cursor = g_cursor->next;
}

void gasnett_debug_memcheck_all(void) {
  std::lock_guard<std::mutex> guard(g_lock);
  for (Block *b = g_head; b; b = b->next) check(b, "gasnett_debug_memcheck_all");
}

void gasnett_getheapstats(gasnett_heapstats_t *pstat) {
  std::lock_guard<std::mutex> guard(g_lock);
  *pstat = g_stats;
}

}  // extern "C"
