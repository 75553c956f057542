/* gexx_copy.h: the copy of a same-host put or get, inline.
 *
 * Included by gexx_inline_rma.h (the client's inline put and get) and by the
 * library's util/copy.hpp, so both make the same copy; not for direct use.
 *
 * Ordering: GASNet's blocking put is complete when it returns, so a client
 * may put data, then put a flag, and a peer that sees the flag must see the
 * data. On x86 ordinary stores become visible in program order, whatever
 * their width; fast-string (rep movsb) and non-temporal stores do not, and
 * the C library's memmove uses both for some sizes. So a put up to
 * GEXX_COPY_INLINE_MAX bytes is made here from ordinary loads and stores
 * (16-byte vectors, x86-64's baseline, through GCC's generic vectors, up to
 * GEXX_COPY_VEC16_LIMIT; above GEXX_COPY_VEC16_MAX a call to a 64-byte
 * AVX-512 loop when the CPU has AVX-512F, else to a 32-byte AVX2 loop when
 * it has AVX2) and needs no fence; a longer one, or one whose ranges
 * overlap, is memmove followed by a store fence (bench/copy_bench.c and
 * UPC++'s put_flood measure the choices).
 *
 * gexx_copy_fwd16_, gexx_copy_avx2_ and gexx_copy_avx512_ copy forward: above
 * 64 bytes they are wrong when dst lies inside (src, src + n); gexx_copy_
 * gives those to memmove. */
#ifndef GEXX_COPY_H
#define GEXX_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Above this a put is memmove and a store fence (the C library's bulk
 * paths win there and the fence is paid once per many lines). Without AVX2
 * the limit is GEXX_COPY_VEC16_LIMIT: 16-byte stores take twice the time of
 * the C library's wider ones. (A 4 KiB put in the AVX-512 loop rather than
 * memmove and a fence: 115 against 89 GB/s in put_flood, GASNet-EX 92.) */
#define GEXX_COPY_INLINE_MAX 8192
#define GEXX_COPY_VEC16_LIMIT 2048
/* Above this (and up to GEXX_COPY_INLINE_MAX) the copy is a call to the
 * 32-byte AVX2 loop below when the CPU has AVX2: a core stores one vector a
 * cycle, whatever its width, so 16-byte stores take twice as long. */
#define GEXX_COPY_VEC16_MAX 128

typedef char gexx_v16_ __attribute__((vector_size(16)));

#if defined(__x86_64__) || defined(__i386__)
#define GEXX_COPY_X86_ 1
/* Keeps the compiler from turning a copy loop back into a memcpy call. */
#define GEXX_OPAQUE4_(a, b, c, e) __asm__("" : "+x"(a), "+x"(b), "+x"(c), "+x"(e))
#else
#define GEXX_COPY_X86_ 0
#define GEXX_OPAQUE4_(a, b, c, e) __asm__("" : : : "memory")
#endif

#define GEXX_LD16_(p)                    \
  __extension__({                        \
    gexx_v16_ gexx_v_;                   \
    __builtin_memcpy(&gexx_v_, (p), 16); \
    gexx_v_;                             \
  })
#define GEXX_ST16_(p, v)                 \
  do {                                   \
    gexx_v16_ gexx_w_ = (v);             \
    __builtin_memcpy((p), &gexx_w_, 16); \
  } while (0)

/* n bytes from s to d, forward, in ordinary loads and stores of up to 16
 * bytes. Up to 64 bytes every load comes before every store. */
static inline __attribute__((always_inline)) void gexx_copy_fwd16_(void *dst, const void *src,
                                                                   size_t n) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
  if (n < 16) {
    if (n >= 8) {
      uint64_t a, b;
      __builtin_memcpy(&a, s, 8);
      __builtin_memcpy(&b, s + n - 8, 8);
      __builtin_memcpy(d, &a, 8);
      __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
      uint32_t a, b;
      __builtin_memcpy(&a, s, 4);
      __builtin_memcpy(&b, s + n - 4, 4);
      __builtin_memcpy(d, &a, 4);
      __builtin_memcpy(d + n - 4, &b, 4);
    } else if (n >= 2) {
      uint16_t a, b;
      __builtin_memcpy(&a, s, 2);
      __builtin_memcpy(&b, s + n - 2, 2);
      __builtin_memcpy(d, &a, 2);
      __builtin_memcpy(d + n - 2, &b, 2);
    } else if (n) {
      *d = *s;
    }
    return;
  }
  if (n <= 32) {
    gexx_v16_ a = GEXX_LD16_(s), b = GEXX_LD16_(s + n - 16);
    GEXX_ST16_(d, a);
    GEXX_ST16_(d + n - 16, b);
    return;
  }
  if (n <= 64) {
    gexx_v16_ a = GEXX_LD16_(s), b = GEXX_LD16_(s + 16);
    gexx_v16_ c = GEXX_LD16_(s + n - 32), e = GEXX_LD16_(s + n - 16);
    GEXX_ST16_(d, a);
    GEXX_ST16_(d + 16, b);
    GEXX_ST16_(d + n - 32, c);
    GEXX_ST16_(d + n - 16, e);
    return;
  }
  {
    /* The last 64 bytes first (they may overlap the loop's last block),
     * then 64-byte blocks from the start, then the tail. */
    gexx_v16_ t0 = GEXX_LD16_(s + n - 64), t1 = GEXX_LD16_(s + n - 48);
    gexx_v16_ t2 = GEXX_LD16_(s + n - 32), t3 = GEXX_LD16_(s + n - 16);
    size_t i;
    for (i = 0; i + 64 < n; i += 64) {
      gexx_v16_ a = GEXX_LD16_(s + i), b = GEXX_LD16_(s + i + 16);
      gexx_v16_ c = GEXX_LD16_(s + i + 32), e = GEXX_LD16_(s + i + 48);
      GEXX_OPAQUE4_(a, b, c, e);
      GEXX_ST16_(d + i, a);
      GEXX_ST16_(d + i + 16, b);
      GEXX_ST16_(d + i + 32, c);
      GEXX_ST16_(d + i + 48, e);
    }
    GEXX_ST16_(d + n - 64, t0);
    GEXX_ST16_(d + n - 48, t1);
    GEXX_ST16_(d + n - 32, t2);
    GEXX_ST16_(d + n - 16, t3);
  }
}

#if GEXX_COPY_X86_ && defined(__GNUC__)
/* The same, n > 2 * W, in W-byte vectors of type vtype (char *d, const
 * char *s). Up to 4 * W bytes: the first and the last 2 * W, every load
 * before every store. Longer: the last 4 * W bytes are loaded first (the
 * loop's last block may overlap them), then blocks of 4 * W from the start.
 * (testvisperf's one-piece 512-byte vector get, 2 ranks, 128 runs over 64
 * stack placements, medians: blocks of 2 * W 33k MiB/s, 4 * W 47k,
 * GASNet-EX 42k; the runs at the slower of the two speeds this VM shows
 * 28k, 38k and 36k. A tight loop of copies alone had the two bodies level:
 * fewer instructions a byte count while the other rank runs.)
 * Also the body of the library's leaf copy loops (src/vis/local.hpp). */
#define GEXX_COPY_VEC_BODY_(vtype, W, d, s, n)                                    \
  do {                                                                            \
    vtype gexx_t0_, gexx_t1_, gexx_t2_, gexx_t3_;                                 \
    size_t gexx_i_;                                                               \
    if ((n) <= 4 * (W)) {                                                         \
      __builtin_memcpy(&gexx_t0_, (s), W);                                        \
      __builtin_memcpy(&gexx_t1_, (s) + (W), W);                                  \
      __builtin_memcpy(&gexx_t2_, (s) + (n)-2 * (W), W);                          \
      __builtin_memcpy(&gexx_t3_, (s) + (n) - (W), W);                            \
      __builtin_memcpy((d), &gexx_t0_, W);                                        \
      __builtin_memcpy((d) + (W), &gexx_t1_, W);                                  \
    } else {                                                                      \
      __builtin_memcpy(&gexx_t0_, (s) + (n)-4 * (W), W);                          \
      __builtin_memcpy(&gexx_t1_, (s) + (n)-3 * (W), W);                          \
      __builtin_memcpy(&gexx_t2_, (s) + (n)-2 * (W), W);                          \
      __builtin_memcpy(&gexx_t3_, (s) + (n) - (W), W);                            \
      for (gexx_i_ = 0; gexx_i_ + 4 * (W) < (n); gexx_i_ += 4 * (W)) {            \
        vtype gexx_a_, gexx_b_, gexx_c_, gexx_e_;                                 \
        __builtin_memcpy(&gexx_a_, (s) + gexx_i_, W);                             \
        __builtin_memcpy(&gexx_b_, (s) + gexx_i_ + (W), W);                       \
        __builtin_memcpy(&gexx_c_, (s) + gexx_i_ + 2 * (W), W);                   \
        __builtin_memcpy(&gexx_e_, (s) + gexx_i_ + 3 * (W), W);                   \
        __asm__("" : "+v"(gexx_a_), "+v"(gexx_b_), "+v"(gexx_c_), "+v"(gexx_e_)); \
        __builtin_memcpy((d) + gexx_i_, &gexx_a_, W);                             \
        __builtin_memcpy((d) + gexx_i_ + (W), &gexx_b_, W);                       \
        __builtin_memcpy((d) + gexx_i_ + 2 * (W), &gexx_c_, W);                   \
        __builtin_memcpy((d) + gexx_i_ + 3 * (W), &gexx_e_, W);                   \
      }                                                                           \
      __builtin_memcpy((d) + (n)-4 * (W), &gexx_t0_, W);                          \
      __builtin_memcpy((d) + (n)-3 * (W), &gexx_t1_, W);                          \
    }                                                                             \
    __builtin_memcpy((d) + (n)-2 * (W), &gexx_t2_, W);                            \
    __builtin_memcpy((d) + (n) - (W), &gexx_t3_, W);                              \
  } while (0)
/* That copy in vectors of CPU extension `isa`, called only when the CPU
 * has it (a call, since a client built for x86-64's baseline cannot inline
 * that code; one per translation unit that uses it). */
#define GEXX_COPY_VEC_LOOP_(name, isa, W)                                                     \
  typedef char name##v_ __attribute__((vector_size(W)));                                      \
  static __attribute__((target(isa), noinline, unused)) void name(void *dst, const void *src, \
                                                                  size_t n) {                 \
    GEXX_COPY_VEC_BODY_(name##v_, W, (char *)dst, (const char *)src, n);                      \
  }
/* 32-byte AVX2 vectors (n > 64); 64-byte AVX-512 ones (n > 128): half the
 * stores (the C library's memmove uses these there too, and was 15% faster
 * than the AVX2 loop on 512-byte puts). */
GEXX_COPY_VEC_LOOP_(gexx_copy_avx2_, "avx2", 32)
GEXX_COPY_VEC_LOOP_(gexx_copy_avx512_, "avx512f", 64)
#undef GEXX_COPY_VEC_LOOP_
#define GEXX_COPY_HAVE_AVX2_() __builtin_cpu_supports("avx2")
#define GEXX_COPY_HAVE_AVX512_() __builtin_cpu_supports("avx512f")
#else
#define gexx_copy_avx2_ gexx_copy_fwd16_
#define gexx_copy_avx512_ gexx_copy_fwd16_
#define GEXX_COPY_HAVE_AVX2_() 0
#define GEXX_COPY_HAVE_AVX512_() 0
#endif

/* Orders every store before it before every store after it. */
static inline __attribute__((always_inline)) void gexx_copy_store_fence_(void) {
#if GEXX_COPY_X86_
  __builtin_ia32_sfence();
#endif
}

/* memmove, then a store fence when fenced: out of line (memmove is a call
 * anyway at these sizes), which also keeps GCC from bounds-checking it
 * against the client's buffers along paths it cannot rule out. */
#if defined(__GNUC__) && !defined(__clang__)
#define GEXX_COPY_NOCLONE_ __attribute__((noclone))
#else
#define GEXX_COPY_NOCLONE_
#endif
static __attribute__((noinline, unused)) GEXX_COPY_NOCLONE_ void gexx_copy_memmove_(void *dst,
                                                                                    const void *src,
                                                                                    size_t n,
                                                                                    int fenced) {
  memmove(dst, src, n);
  if (fenced) gexx_copy_store_fence_();
}

/* The widest copy loop this CPU runs: GEXX_COPY_ISA_AVX512_, _AVX2_ or
 * _BASE_ (16-byte vectors only). The client's inline RMA reads the
 * library's answer from gexx_rma_fast (gexx_inline_rma.h) instead of
 * testing the CPU on every call: libgcc's CPU-model word lives wherever the
 * client's linker put it, and a load from an address whose low 12 bits
 * match a store the previous copy just made waits for that store (on this
 * VM's EPYC a 512-byte put to the start of a page took 5.3 ns with the
 * header's words at page offset 0x0a0-0x0dc, 4.7 with them elsewhere). */
#define GEXX_COPY_ISA_BASE_ 0u
#define GEXX_COPY_ISA_AVX2_ 1u
#define GEXX_COPY_ISA_AVX512_ 2u
static inline __attribute__((always_inline)) unsigned gexx_copy_isa_(void) {
  return GEXX_COPY_HAVE_AVX512_() ? GEXX_COPY_ISA_AVX512_
         : GEXX_COPY_HAVE_AVX2_() ? GEXX_COPY_ISA_AVX2_
                                  : GEXX_COPY_ISA_BASE_;
}

/* A copy in ordinary stores when it can be one (fenced == 0), else memmove,
 * then a fence when fenced; `isa` is gexx_copy_isa_()'s answer. */
static inline __attribute__((always_inline)) void gexx_copy_(void *dst, const void *src, size_t n,
                                                             int fenced, unsigned isa) {
  if (n <= 64) {
    gexx_copy_fwd16_(dst, src, n);
  } else if (__builtin_expect(
                 n <= GEXX_COPY_INLINE_MAX && (uintptr_t)dst - (uintptr_t)src >= (uintptr_t)n, 1) &&
             (n <= GEXX_COPY_VEC16_LIMIT || isa >= GEXX_COPY_ISA_AVX2_)) {
    /* dst is not inside [src, src + n): a forward copy is right. */
    if (n > GEXX_COPY_VEC16_MAX && isa >= GEXX_COPY_ISA_AVX512_)
      gexx_copy_avx512_(dst, src, n);
    else if (n > GEXX_COPY_VEC16_MAX && isa >= GEXX_COPY_ISA_AVX2_)
      gexx_copy_avx2_(dst, src, n);
    else
      gexx_copy_fwd16_(dst, src, n);
  } else {
    gexx_copy_memmove_(dst, src, n, fenced);
  }
}

/* For many pieces of one length n: the forward loop that gexx_copy_ would
 * call for each (so a caller decides once), or null when gexx_copy_ must
 * decide per piece (n up to GEXX_COPY_VEC16_MAX: inline copies; longer than
 * GEXX_COPY_INLINE_MAX, or no AVX2: memmove and a fence). The caller still
 * gives gexx_copy_ every piece whose dst lies inside (src, src + n). */
typedef void (*gexx_copy_loop_t_)(void *, const void *, size_t);
static inline __attribute__((always_inline)) gexx_copy_loop_t_ gexx_copy_loop_for_(size_t n) {
  if (n <= GEXX_COPY_VEC16_MAX || n > GEXX_COPY_INLINE_MAX) return 0;
  if (GEXX_COPY_HAVE_AVX512_()) return gexx_copy_avx512_;
  if (GEXX_COPY_HAVE_AVX2_()) return gexx_copy_avx2_;
  return 0;
}

/* A put's copy: its stores become visible before any later store. */
static inline __attribute__((always_inline)) void gexx_copy_put_(void *dst, const void *src,
                                                                 size_t n) {
  gexx_copy_(dst, src, n, 1, gexx_copy_isa_());
}

/* A get's copy (loads are never reordered with later loads on x86). */
static inline __attribute__((always_inline)) void gexx_copy_get_(void *dst, const void *src,
                                                                 size_t n) {
  gexx_copy_(dst, src, n, 0, gexx_copy_isa_());
}

#endif /* GEXX_COPY_H */
