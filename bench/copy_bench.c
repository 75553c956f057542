/* copy_bench: the copy a same-host put or get makes, on its own.
 *
 * A put or get toward a mapped peer is one copy from a fixed source to a
 * fixed destination (GASNet's testsmall repeats the same one), so both stay
 * in the cache and the copy's own instructions and fences are the cost. For
 * each size this times, per copy (median of 7 passes):
 *   memcpy          the C library's, what GASNet's inline put/get calls
 *   memmove         the C library's
 *   memmove+sfence  what gexx's put did before (util/copy.hpp)
 *   vec16           overlapping 16-byte SSE2 loads and stores, inline
 *                   (x86-64's baseline: what the public header can use)
 *   vec16+sfence
 *   vec32           the same with 32-byte AVX2 vectors (when the CPU has it)
 *   rep movsb       a fast-string copy (unordered stores: needs the fence)
 *   gexx put        include/gexx_copy.h's put copy, what gexx uses
 *
 *   copy_bench [iters]    (default 2000000 copies per pass)
 * Prints ns per copy; never fails on speed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "../include/gexx_copy.h"

typedef void (*copy_fn)(void *, const void *, size_t);

static void c_memcpy(void *d, const void *s, size_t n) {
  memcpy(d, s, n);
}
static void c_memmove(void *d, const void *s, size_t n) {
  memmove(d, s, n);
}
static void c_memmove_fence(void *d, const void *s, size_t n) {
  memmove(d, s, n);
  __builtin_ia32_sfence();
}
static void c_vec16(void *d, const void *s, size_t n) {
  gexx_copy_fwd16_(d, s, n);
}
static void c_put(void *d, const void *s, size_t n) {
  gexx_copy_put_(d, s, n);
}
static void c_vec16_fence(void *d, const void *s, size_t n) {
  gexx_copy_fwd16_(d, s, n);
  __builtin_ia32_sfence();
}

static void c_vec32(void *d, const void *s, size_t n) {
  if (n <= 64)
    gexx_copy_fwd16_(d, s, n);
  else
    gexx_copy_avx2_(d, s, n);
}

static void c_movsb(void *d, const void *s, size_t n) {
  __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
  __builtin_ia32_sfence();
}

#define NPASS 41

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The copy is called through a volatile pointer so that the loop is the
 * same for every method (the call costs the same for each; memcpy and
 * memmove are calls anyway). */
static double time_one(copy_fn volatile *fp, char *dst, const char *src, size_t n, long iters) {
  double t[NPASS];
  for (int p = 0; p < NPASS; ++p) {
    copy_fn f = *fp;
    double t0 = now();
    for (long i = 0; i < iters; ++i) {
      f(dst, src, n);
      __asm__ volatile("" : : : "memory");
    }
    t[p] = (now() - t0) / iters;
  }
  qsort(t, NPASS, sizeof t[0], cmp);
  return t[0];
}

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 20000;
  static const char *names[] = {"memcpy",       "memmove", "memmove+sfence",   "vec16",
                                "vec16+sfence", "vec32",   "rep movsb+sfence", "gexx put"};
  copy_fn fns[] = {c_memcpy,      c_memmove, c_memmove_fence, c_vec16,
                   c_vec16_fence, c_vec32,   c_movsb,         c_put};
  int nf = sizeof fns / sizeof fns[0];
  int have_avx2 = __builtin_cpu_supports("avx2");
  static const size_t sizes[] = {9, 16, 24, 40, 64, 100, 128, 256, 512, 1024, 2048, 4096, 8192};
  static char src[1 << 16] __attribute__((aligned(4096))),
      dst[1 << 16] __attribute__((aligned(4096)));
  for (int i = 0; i < 1 << 16; ++i) src[i] = (char)i, dst[i] = 0;
  /* Every method must copy right. */
  for (int f = 0; f < nf; ++f) {
    if (f == 5 && !have_avx2) continue;
    for (size_t n = 1; n <= 2100; ++n) {
      memset(dst, 0, n + 64);
      fns[f](dst + 3, src + 5, n);
      if (memcmp(dst + 3, src + 5, n) != 0 || dst[2] != 0 || dst[3 + n] != 0) {
        printf("copy_bench: %s copies %zu bytes wrong\n", names[f], n);
        return 1;
      }
    }
  }
  printf("%-6s", "bytes");
  for (int f = 0; f < nf; ++f) printf(" %17s", names[f]);
  printf("   (ns per copy, fastest of 41 passes of %ld)\n", iters);
  copy_fn volatile fp;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    printf("%-6zu", sizes[k]);
    for (int f = 0; f < nf; ++f) {
      if (f == 5 && !have_avx2) {
        printf(" %17s", "-");
        continue;
      }
      fp = fns[f];
      printf(" %17.2f", time_one(&fp, dst, src, sizes[k], iters));
    }
    printf("\n");
  }
  return 0;
}
