/* gexx_inline_rma.h: same-host put and get compiled into the client.
 *
 * Included by gasnetex.h after every RMA declaration; not for direct use.
 *
 * A put or get toward a rank whose segment this process maps (a rank of the
 * same host, or the caller itself) is a copy. The forms below make that copy
 * in the client's own code: one load of the peer's row of an exported table
 * (gexx_rma_fast, filled by the library when the segment is attached), a
 * bounds check, and the copy, moved as one typed load and store when the
 * size is 1, 2, 4 or 8 bytes (the common case of a size known at compile
 * time, which then compiles to two instructions). Every other case calls the
 * library's function of the same name, which does the full checks and
 * reports errors: a peer reached through the network, a range outside the
 * peer's segment, a team other than the primordial one, any flag, an
 * lc_opt other than GEX_EVENT_NOW/DEFER (NB, NBI) or an event's address
 * (NB), tracing or statistics of puts or gets (the library then empties the
 * table, so the library sees every operation), and calls made before attach.
 *
 * Building with GASNET_DEBUG, GASNET_TRACE or GASNET_STATS defined, or with
 * GEXX_NO_INLINE_RMA, leaves every RMA call a library call.
 *
 * The ABI this depends on (docs/performance.md, "The inline RMA ABI") is
 * gexx_rma_fast_t and gexx_rma_peer_t below, versioned by
 * GEXX_RMA_INLINE_ABI; a library with another version leaves the table
 * empty, so an old client keeps working through the library calls. */
#ifndef GEXX_INLINE_RMA_H
#define GEXX_INLINE_RMA_H

#define GEXX_RMA_INLINE_ABI 2

/* One row per job rank. A range [addr, addr + n) of rank r's segment is
 * mapped here when addr - owner_base < size and n <= size - (addr -
 * owner_base); it is then at local + (addr - owner_base). Ranks whose
 * segment is not mapped here have size 0. */
typedef struct gexx_rma_peer_s {
  uintptr_t owner_base; /* the segment's address in its owner */
  uintptr_t size;       /* its length; 0 when not mapped here */
  char *local;          /* where this process loads and stores it */
  uintptr_t reserved;
} gexx_rma_peer_t;

/* What every inline put and get reads, in the last 64 bytes of a page of
 * its own (the object is one aligned page; the client's linker copies it
 * into the client). A load waits for an earlier store to an address with
 * the same low 12 bits, and the copy a put has just made most often went to
 * the start of a page: with these words at page offset 0x0a0 (where a
 * small client's linker had put ABI 1's object) a 512-byte put to the start
 * of a page took 5.3 ns, with them out of its way 4.7. The library places
 * the rows so that they too end 64 bytes before the end of a page. */
#define GEXX_RMA_FAST_PAGE 4096
typedef struct gexx_rma_fast_s {
  char gexx_room_[GEXX_RMA_FAST_PAGE - 64]; /* unused */
  /* Null before attach, and while puts or gets are traced or counted. Read
   * with a relaxed atomic load: the library changes it while threads run. */
  gexx_rma_peer_t *peers;
  gex_TM_t job_tm;   /* the primordial team: its ranks are job ranks */
  uint32_t npeers;   /* rows in peers (the job's size) */
  uint32_t abi;      /* GEXX_RMA_INLINE_ABI of the library */
  uint32_t copy_isa; /* gexx_copy_isa_() as the library found it */
  /* Non-zero while waits and tests (the S category) are traced or counted:
   * the inline gex_Event_Test and gex_Event_Wait below then call the
   * library. Relaxed atomic loads. */
  uint32_t sync_traced;
  /* Threads with a VIS peer completion armed (gasnet_vis.h's inline forms
   * take the library's path while it is not 0). Relaxed atomic loads. */
  int32_t vis_pc_armed;
  uint32_t gexx_reserved_[7];
} __attribute__((aligned(GEXX_RMA_FAST_PAGE))) gexx_rma_fast_t;

#ifdef __cplusplus
extern "C" {
#endif
extern gexx_rma_fast_t gexx_rma_fast;
#ifdef __cplusplus
}
#endif

#if !defined(GEXX_NO_INLINE_RMA) && !defined(GASNET_DEBUG) && !defined(GASNET_TRACE) && \
    !defined(GASNET_STATS) && defined(__GNUC__)
#define GEXX_INLINE_RMA 1
#else
#define GEXX_INLINE_RMA 0
#endif

#if GEXX_INLINE_RMA

#include <gexx_copy.h>

/* Where [addr, addr + n) of job rank `rank` is in this process, or null. */
static inline __attribute__((always_inline)) char *gexx_rma_here_(gex_Rank_t rank, const void *addr,
                                                                  size_t n) {
  const gexx_rma_peer_t *t = __atomic_load_n(&gexx_rma_fast.peers, __ATOMIC_RELAXED);
  if (__builtin_expect(t == 0 || rank >= gexx_rma_fast.npeers, 0)) return 0;
  {
    const gexx_rma_peer_t *p = &t[rank];
    uintptr_t off = (uintptr_t)addr - p->owner_base;
    if (__builtin_expect(off < p->size && n <= p->size - off, 1)) return p->local + off;
  }
  return 0;
}

/* The same for a rank of team `tm` with `flags`: only the primordial team
 * without flags is handled here. */
static inline __attribute__((always_inline)) char *gexx_rma_here_tm_(gex_TM_t tm, gex_Rank_t rank,
                                                                     const void *addr, size_t n,
                                                                     gex_Flags_t flags) {
  if (__builtin_expect(flags != 0 || tm != gexx_rma_fast.job_tm, 0)) return 0;
  return gexx_rma_here_(rank, addr, n);
}

/* Sizes 1, 2, 4 and 8 as one load and one store (ordered before later
 * stores on x86); returns 0, copying nothing, for any other size. */
static inline __attribute__((always_inline)) int gexx_rma_move_small_(void *dst, const void *src,
                                                                      size_t n) {
  switch (n) {
    case 1: {
      uint8_t v;
      memcpy(&v, src, 1);
      memcpy(dst, &v, 1);
      return 1;
    }
    case 2: {
      uint16_t v;
      memcpy(&v, src, 2);
      memcpy(dst, &v, 2);
      return 1;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, src, 4);
      memcpy(dst, &v, 4);
      return 1;
    }
    case 8: {
      uint64_t v;
      memcpy(&v, src, 8);
      memcpy(dst, &v, 8);
      return 1;
    }
    default:
      return 0;
  }
}

/* A put's copy: ordinary stores up to GEXX_COPY_INLINE_MAX bytes (no
 * fence needed: a later put of a flag is never seen before this data),
 * memmove and a store fence beyond (include/gexx_copy.h; the library's
 * util/copy.hpp makes the same copy). Sizes 1, 2, 4 and 8 known at compile
 * time are one load and one store. */
static inline __attribute__((always_inline)) void gexx_rma_put_copy_(void *dst, const void *src,
                                                                     size_t n) {
  if (__builtin_constant_p(n) && gexx_rma_move_small_(dst, src, n)) return;
  gexx_copy_(dst, src, n, 1, gexx_rma_fast.copy_isa);
}

static inline __attribute__((always_inline)) void gexx_rma_get_copy_(void *dst, const void *src,
                                                                     size_t n) {
  if (__builtin_constant_p(n) && gexx_rma_move_small_(dst, src, n)) return;
  gexx_copy_(dst, src, n, 0, gexx_rma_fast.copy_isa);
}

/* The low-order n bytes of a value, n one of 1, 2, 4, 8 (the caller checks). */
static inline __attribute__((always_inline)) void gexx_rma_store_value_(void *dst, uintptr_t v,
                                                                        size_t n) {
  switch (n) {
    case 1: {
      uint8_t x = (uint8_t)v;
      memcpy(dst, &x, 1);
      return;
    }
    case 2: {
      uint16_t x = (uint16_t)v;
      memcpy(dst, &x, 2);
      return;
    }
    case 4: {
      uint32_t x = (uint32_t)v;
      memcpy(dst, &x, 4);
      return;
    }
    default: {
      uint64_t x = (uint64_t)v;
      memcpy(dst, &x, 8);
      return;
    }
  }
}

static inline __attribute__((always_inline)) uintptr_t gexx_rma_load_value_(const void *src,
                                                                            size_t n) {
  switch (n) {
    case 1: {
      uint8_t x;
      memcpy(&x, src, 1);
      return x;
    }
    case 2: {
      uint16_t x;
      memcpy(&x, src, 2);
      return x;
    }
    case 4: {
      uint32_t x;
      memcpy(&x, src, 4);
      return x;
    }
    default: {
      uint64_t x;
      memcpy(&x, src, 8);
      return (uintptr_t)x;
    }
  }
}

#define GEXX_RMA_VALUE_SIZE_(n) ((n) == 1 || (n) == 2 || (n) == 4 || (n) == 8)

/* The forms are statement expressions rather than functions so that the
 * library call a form falls back to is made from the caller's own line: a
 * backtrace of an error it reports (GASNET_BACKTRACE) shows the client's
 * function and line, not this header. Each argument is evaluated once.
 * (gex_RMA_PutBlocking)(...) and &gex_RMA_PutBlocking still reach the
 * library's functions. */

/* ---- GASNet-EX ---- */

#define GEXX_RMA_PUT_(name, fast_lc, tm, rank, dest, src, nbytes, lc_opt, flags, lib_args, \
                      done_value, type)                                                    \
  __extension__({                                                                          \
    gex_TM_t gexx_tm_ = (tm);                                                              \
    gex_Rank_t gexx_rk_ = (rank);                                                          \
    void *gexx_d_ = (dest);                                                                \
    const void *gexx_s_ = (src);                                                           \
    size_t gexx_n_ = (nbytes);                                                             \
    gex_Event_t *gexx_lc_ = (lc_opt);                                                      \
    gex_Flags_t gexx_f_ = (flags);                                                         \
    char *gexx_p_ =                                                                        \
        (fast_lc) ? gexx_rma_here_tm_(gexx_tm_, gexx_rk_, gexx_d_, gexx_n_, gexx_f_) : 0;  \
    type gexx_r_;                                                                          \
    (void)gexx_lc_;                                                                        \
    if (__builtin_expect(gexx_p_ != 0, 1)) {                                               \
      gexx_rma_put_copy_(gexx_p_, gexx_s_, gexx_n_);                                       \
      gexx_r_ = (done_value);                                                              \
    } else {                                                                               \
      gexx_r_ = (name)lib_args;                                                            \
    }                                                                                      \
    gexx_r_;                                                                               \
  })

#define gex_RMA_PutBlocking(tm, rank, dest, src, nbytes, flags)                            \
  GEXX_RMA_PUT_(gex_RMA_PutBlocking, 1, tm, rank, dest, src, nbytes, GEX_EVENT_NOW, flags, \
                (gexx_tm_, gexx_rk_, gexx_d_, gexx_s_, gexx_n_, gexx_f_), 0, int)
#define gex_RMA_PutNBI(tm, rank, dest, src, nbytes, lc_opt, flags)                                 \
  GEXX_RMA_PUT_(                                                                                   \
      gex_RMA_PutNBI,                                                                              \
      gexx_lc_ == GEX_EVENT_NOW || gexx_lc_ == GEX_EVENT_DEFER || gexx_lc_ == GEX_EVENT_GROUP, tm, \
      rank, dest, src, nbytes, lc_opt, flags,                                                      \
      (gexx_tm_, gexx_rk_, gexx_d_, gexx_s_, gexx_n_, gexx_lc_, gexx_f_), 0, int)
#define gex_RMA_PutNB(tm, rank, dest, src, nbytes, lc_opt, flags)                                  \
  GEXX_RMA_PUT_(gex_RMA_PutNB, gexx_lc_ == GEX_EVENT_NOW || gexx_lc_ == GEX_EVENT_DEFER, tm, rank, \
                dest, src, nbytes, lc_opt, flags,                                                  \
                (gexx_tm_, gexx_rk_, gexx_d_, gexx_s_, gexx_n_, gexx_lc_, gexx_f_),                \
                GEX_EVENT_INVALID, gex_Event_t)

#define GEXX_RMA_GET_(name, tm, dest, rank, src, nbytes, flags, done_value, type)           \
  __extension__({                                                                           \
    gex_TM_t gexx_tm_ = (tm);                                                               \
    void *gexx_d_ = (dest);                                                                 \
    gex_Rank_t gexx_rk_ = (rank);                                                           \
    void *gexx_s_ = (src);                                                                  \
    size_t gexx_n_ = (nbytes);                                                              \
    gex_Flags_t gexx_f_ = (flags);                                                          \
    const char *gexx_p_ = gexx_rma_here_tm_(gexx_tm_, gexx_rk_, gexx_s_, gexx_n_, gexx_f_); \
    type gexx_r_;                                                                           \
    if (__builtin_expect(gexx_p_ != 0, 1)) {                                                \
      gexx_rma_get_copy_(gexx_d_, gexx_p_, gexx_n_);                                        \
      gexx_r_ = (done_value);                                                               \
    } else {                                                                                \
      gexx_r_ = (name)(gexx_tm_, gexx_d_, gexx_rk_, gexx_s_, gexx_n_, gexx_f_);             \
    }                                                                                       \
    gexx_r_;                                                                                \
  })

#define gex_RMA_GetBlocking(tm, dest, rank, src, nbytes, flags) \
  GEXX_RMA_GET_(gex_RMA_GetBlocking, tm, dest, rank, src, nbytes, flags, 0, int)
#define gex_RMA_GetNBI(tm, dest, rank, src, nbytes, flags) \
  GEXX_RMA_GET_(gex_RMA_GetNBI, tm, dest, rank, src, nbytes, flags, 0, int)
#define gex_RMA_GetNB(tm, dest, rank, src, nbytes, flags) \
  GEXX_RMA_GET_(gex_RMA_GetNB, tm, dest, rank, src, nbytes, flags, GEX_EVENT_INVALID, gex_Event_t)

#define gex_RMA_GetBlockingVal(tm, rank, src, nbytes, flags)                                     \
  __extension__({                                                                                \
    gex_TM_t gexx_tm_ = (tm);                                                                    \
    gex_Rank_t gexx_rk_ = (rank);                                                                \
    void *gexx_s_ = (src);                                                                       \
    size_t gexx_n_ = (nbytes);                                                                   \
    gex_Flags_t gexx_f_ = (flags);                                                               \
    const char *gexx_p_ = GEXX_RMA_VALUE_SIZE_(gexx_n_)                                          \
                              ? gexx_rma_here_tm_(gexx_tm_, gexx_rk_, gexx_s_, gexx_n_, gexx_f_) \
                              : 0;                                                               \
    __builtin_expect(gexx_p_ != 0, 1)                                                            \
        ? gexx_rma_load_value_(gexx_p_, gexx_n_)                                                 \
        : (gex_RMA_GetBlockingVal)(gexx_tm_, gexx_rk_, gexx_s_, gexx_n_, gexx_f_);               \
  })

#define GEXX_RMA_PUTVAL_(name, tm, rank, dest, value, nbytes, flags, done_value, type)     \
  __extension__({                                                                          \
    gex_TM_t gexx_tm_ = (tm);                                                              \
    gex_Rank_t gexx_rk_ = (rank);                                                          \
    void *gexx_d_ = (dest);                                                                \
    gex_RMA_Value_t gexx_v_ = (value);                                                     \
    size_t gexx_n_ = (nbytes);                                                             \
    gex_Flags_t gexx_f_ = (flags);                                                         \
    char *gexx_p_ = GEXX_RMA_VALUE_SIZE_(gexx_n_)                                          \
                        ? gexx_rma_here_tm_(gexx_tm_, gexx_rk_, gexx_d_, gexx_n_, gexx_f_) \
                        : 0;                                                               \
    type gexx_r_;                                                                          \
    if (__builtin_expect(gexx_p_ != 0, 1)) {                                               \
      gexx_rma_store_value_(gexx_p_, gexx_v_, gexx_n_);                                    \
      gexx_r_ = (done_value);                                                              \
    } else {                                                                               \
      gexx_r_ = (name)(gexx_tm_, gexx_rk_, gexx_d_, gexx_v_, gexx_n_, gexx_f_);            \
    }                                                                                      \
    gexx_r_;                                                                               \
  })

#define gex_RMA_PutBlockingVal(tm, rank, dest, value, nbytes, flags) \
  GEXX_RMA_PUTVAL_(gex_RMA_PutBlockingVal, tm, rank, dest, value, nbytes, flags, 0, int)
#define gex_RMA_PutNBIVal(tm, rank, dest, value, nbytes, flags) \
  GEXX_RMA_PUTVAL_(gex_RMA_PutNBIVal, tm, rank, dest, value, nbytes, flags, 0, int)
#define gex_RMA_PutNBVal(tm, rank, dest, value, nbytes, flags)                                \
  GEXX_RMA_PUTVAL_(gex_RMA_PutNBVal, tm, rank, dest, value, nbytes, flags, GEX_EVENT_INVALID, \
                   gex_Event_t)

/* ---- GASNet-1: a node is a job rank ---- */

#define GEXX_G1_PUT_(name, node, dest, src, nbytes)             \
  __extension__({                                               \
    gasnet_node_t gexx_rk_ = (node);                            \
    void *gexx_d_ = (dest);                                     \
    void *gexx_s_ = (void *)(src);                              \
    size_t gexx_n_ = (nbytes);                                  \
    char *gexx_p_ = gexx_rma_here_(gexx_rk_, gexx_d_, gexx_n_); \
    if (__builtin_expect(gexx_p_ != 0, 1))                      \
      gexx_rma_put_copy_(gexx_p_, gexx_s_, gexx_n_);            \
    else                                                        \
      (name)(gexx_rk_, gexx_d_, gexx_s_, gexx_n_);              \
    (void)0;                                                    \
  })
#define GEXX_G1_GET_(name, dest, node, src, nbytes)                   \
  __extension__({                                                     \
    void *gexx_d_ = (dest);                                           \
    gasnet_node_t gexx_rk_ = (node);                                  \
    void *gexx_s_ = (src);                                            \
    size_t gexx_n_ = (nbytes);                                        \
    const char *gexx_p_ = gexx_rma_here_(gexx_rk_, gexx_s_, gexx_n_); \
    if (__builtin_expect(gexx_p_ != 0, 1))                            \
      gexx_rma_get_copy_(gexx_d_, gexx_p_, gexx_n_);                  \
    else                                                              \
      (name)(gexx_d_, gexx_rk_, gexx_s_, gexx_n_);                    \
    (void)0;                                                          \
  })

#define gasnet_put(node, dest, src, nbytes) GEXX_G1_PUT_(gasnet_put, node, dest, src, nbytes)
#define gasnet_put_bulk(node, dest, src, nbytes) \
  GEXX_G1_PUT_(gasnet_put_bulk, node, dest, src, nbytes)
#define gasnet_get(dest, node, src, nbytes) GEXX_G1_GET_(gasnet_get, dest, node, src, nbytes)
#define gasnet_get_bulk(dest, node, src, nbytes) \
  GEXX_G1_GET_(gasnet_get_bulk, dest, node, src, nbytes)

#define gasnet_put_val(node, dest, value, nbytes)                                       \
  __extension__({                                                                       \
    gasnet_node_t gexx_rk_ = (node);                                                    \
    void *gexx_d_ = (dest);                                                             \
    gasnet_register_value_t gexx_v_ = (value);                                          \
    size_t gexx_n_ = (nbytes);                                                          \
    char *gexx_p_ =                                                                     \
        GEXX_RMA_VALUE_SIZE_(gexx_n_) ? gexx_rma_here_(gexx_rk_, gexx_d_, gexx_n_) : 0; \
    if (__builtin_expect(gexx_p_ != 0, 1))                                              \
      gexx_rma_store_value_(gexx_p_, gexx_v_, gexx_n_);                                 \
    else                                                                                \
      (gasnet_put_val)(gexx_rk_, gexx_d_, gexx_v_, gexx_n_);                            \
    (void)0;                                                                            \
  })
#define gasnet_get_val(node, src, nbytes)                                               \
  __extension__({                                                                       \
    gasnet_node_t gexx_rk_ = (node);                                                    \
    void *gexx_s_ = (src);                                                              \
    size_t gexx_n_ = (nbytes);                                                          \
    const char *gexx_p_ =                                                               \
        GEXX_RMA_VALUE_SIZE_(gexx_n_) ? gexx_rma_here_(gexx_rk_, gexx_s_, gexx_n_) : 0; \
    __builtin_expect(gexx_p_ != 0, 1)                                                   \
        ? (gasnet_register_value_t)gexx_rma_load_value_(gexx_p_, gexx_n_)               \
        : (gasnet_get_val)(gexx_rk_, gexx_s_, gexx_n_);                                 \
  })

/* ---- events ----
 * A test or a wait of GEX_EVENT_INVALID (an operation complete at
 * initiation: a same-host atomic, put or get) returns in the client's own
 * code unless syncs are traced or counted; any other event is the library's
 * call. The functions' addresses (the names without a parenthesis) are the
 * library's. */
static inline __attribute__((always_inline)) int gexx_Event_Test_(gex_Event_t event) {
  if (event == GEX_EVENT_INVALID && !__atomic_load_n(&gexx_rma_fast.sync_traced, __ATOMIC_RELAXED))
    return 0;
  return (gex_Event_Test)(event);
}
static inline __attribute__((always_inline)) void gexx_Event_Wait_(gex_Event_t event) {
  if (event != GEX_EVENT_INVALID || __atomic_load_n(&gexx_rma_fast.sync_traced, __ATOMIC_RELAXED))
    (gex_Event_Wait)(event);
}
#define gex_Event_Test(event) gexx_Event_Test_(event)
#define gex_Event_Wait(event) gexx_Event_Wait_(event)

#endif /* GEXX_INLINE_RMA */
#endif /* GEXX_INLINE_RMA_H */
