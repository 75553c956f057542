/* check.h: the failure report every multi-process test program shares.
 * A failed CHECK prints "FAIL: rank R: <why>" and ends the whole job with
 * status 1; check_rank must be set once the rank is known. CHECK may be used
 * from several threads at once (the count is atomic). */
#ifndef GEXX_TESTS_CHECK_H
#define GEXX_TESTS_CHECK_H

#include <gasnet.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static unsigned check_rank;
static long check_count;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    __atomic_fetch_add(&check_count, 1, __ATOMIC_RELAXED); \
    if (!(cond)) {                                         \
      printf("FAIL: rank %u: ", check_rank);               \
      printf(__VA_ARGS__);                                 \
      printf("\n");                                        \
      fflush(stdout);                                      \
      gasnet_exit(1);                                      \
    }                                                      \
  } while (0)

/* A reproducible byte pattern: fill a buffer from a seed, find the first
 * byte that differs from it ((size_t)-1 when none does). */
static inline unsigned char pattern_byte(uint64_t seed, size_t i) {
  uint64_t x = (seed + i) * 0x9E3779B97F4A7C15ull;
  return (unsigned char)(x >> 56);
}
static inline void fill(unsigned char *p, size_t len, uint64_t seed) {
  for (size_t i = 0; i < len; ++i) p[i] = pattern_byte(seed, i);
}
static inline size_t first_bad(const unsigned char *p, size_t len, uint64_t seed) {
  for (size_t i = 0; i < len; ++i)
    if (p[i] != pattern_byte(seed, i)) return i;
  return (size_t)-1;
}

#endif
