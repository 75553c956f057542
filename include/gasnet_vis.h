/* gasnet_vis.h: non-contiguous transfers (vector, indexed, strided).
 *
 * Vector: lists of (address, length) ranges (gex_Memvec_t, in gasnetex.h);
 * the two sides may cut the bytes differently but hold the same total.
 * Indexed: lists of addresses, each naming a range of one common length per
 * side. Strided: a base address, an element size in bytes, and for each of
 * `stridelevels` dimensions a count and a stride in bytes per side (strides
 * may be negative, zero on the source, and in any order; the destination must
 * not overlap itself). Every call moves the bytes in list order, so the k-th
 * source byte lands on the k-th destination byte.
 *
 * Puts: the destination is on `dstrank`, the source here; gets the reverse.
 * The remote side must lie in the peer's segment. Blocking forms are
 * complete on return; NB forms return an event (GEX_EVENT_INVALID when
 * already complete); NBI forms count in the thread's NBI puts or gets (and
 * its access region). A put's source may be reused when the call returns.
 * GEX_FLAG_ENABLE_LEAF_LC is accepted (the local-completion leaf is always
 * complete already). See docs/vis.md for how each peer is reached and the
 * GASNET_VIS_* knobs.
 */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H
#define _GASNET_VIS_H

#include <gasnetex.h>

GEXX_BEGIN_EXTERNC

/* ---- Peer completion ---------------------------------------------------
 * gex_VIS_SetPeerCompletionHandler arms the calling thread's next VIS put:
 * once its data is in place at the target, the target runs client handler
 * `handler` (registered as a Medium reply handler with no arguments) with a
 * copy of the `nbytes` bytes at `source_addr` (at most
 * GEX_VIS_MAX_PEERCOMPLETION; copied here, so they may be reused at once).
 * An index outside the client range or a larger payload is fatal. */
#define GEX_VIS_MAX_PEERCOMPLETION 127
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                             size_t nbytes, gex_Flags_t flags);

/* ---- Vector ---- */
extern int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                     gex_Memvec_t const dstlist[], size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);
extern gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                       gex_Memvec_t const dstlist[], size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                     gex_Rank_t srcrank, size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);
extern gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                       gex_Rank_t srcrank, size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                                gex_Flags_t flags);

/* ---- Indexed ---- */
extern int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);
extern gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                        void *const dstlist[], size_t dstlen, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                      size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);
extern gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                        size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                                 size_t srclen, gex_Flags_t flags);

/* ---- Strided ---- */
extern int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                      const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels, gex_Flags_t flags);
extern gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                        const ptrdiff_t dststrides[], void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                                 size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                      gex_Rank_t srcrank, void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels, gex_Flags_t flags);
extern gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                        gex_Rank_t srcrank, void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[], size_t stridelevels,
                                 gex_Flags_t flags);

/* ---- GASNet-1 forms (gasnet_memvec_t: gexx_legacy.h) ----
 * A node is a job rank. Strided: count[0] is the bytes of one contiguous
 * element, count[1..stridelevels] the counts, strides unsigned, in bytes. */
extern void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                             gasnet_memvec_t const dstlist[], size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                             gasnet_node_t srcnode, size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           gasnet_memvec_t const dstlist[], size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                           gasnet_node_t srcnode, size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                 gasnet_memvec_t const dstlist[], size_t srccount,
                                 gasnet_memvec_t const srclist[]);
extern void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                 gasnet_node_t srcnode, size_t srccount,
                                 gasnet_memvec_t const srclist[]);

extern void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                             size_t dstlen, size_t srccount, void *const srclist[], size_t srclen);
extern void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                             gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           void *const dstlist[], size_t dstlen, size_t srccount,
                                           void *const srclist[], size_t srclen);
extern gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                           gasnet_node_t srcnode, size_t srccount,
                                           void *const srclist[], size_t srclen);
extern void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, size_t srccount, void *const srclist[],
                                 size_t srclen);
extern void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                                 size_t srclen);

extern void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                           const size_t dststrides[], void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                           gasnet_node_t srcnode, void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);
extern void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);

/* ---- Text forms of VIS metadata (GASNet's tools names them), for error
 * messages: each *_bufsz gives the bytes the matching formatter writes at
 * most, terminating NUL included. */
typedef struct {
  size_t _minsz; /* of the non-empty entries */
  size_t _maxsz;
  void *_minaddr; /* lowest byte touched */
  void *_maxaddr; /* highest byte touched */
  uintptr_t _totalsz;
} gasnett_memveclist_stats_t;
typedef struct {
  void *_minaddr;
  void *_maxaddr;
} gasnett_addrlist_stats_t;
extern size_t gasnett_format_memveclist_bufsz(size_t count);
extern gasnett_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                            gex_Memvec_t const *list);
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern gasnett_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count, void *const *list,
                                                        size_t len);
extern size_t gasnett_format_strides_bufsz(size_t count);
extern void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
/* `pstats` is unused (pass NULL); returns the bytes the transfer moves. */
extern size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                                      void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels);

/* ---- Inline forms ----
 * These calls toward a peer whose segment this process maps, on the job's
 * team without flags, while no thread has a peer completion armed, are
 * checked and copied right here, as the inline gex_RMA_* forms copy
 * (gexx_inline_rma.h, under the same conditions: not with GASNET_DEBUG,
 * GASNET_TRACE or GASNET_STATS, nor while puts or gets are traced or counted
 * at run time):
 *   vector and indexed calls of up to GEXX_VIS_INLINE_PIECES pieces on each
 *   side, all of one length;
 *   strided calls whose levels, past those contiguous on both sides (which
 *   fold into one piece), are one row of up to GEXX_VIS_STRIDED_INLINE_PIECES
 *   evenly spaced pieces (one count above 1, or levels that continue
 *   each other on both sides): longer rows are faster in the library's
 *   loops, which move pieces of a size known there and make no call per
 *   piece (16 pieces of 8 bytes: 15 ns against 39 here).
 * The checks are the library's: every remote piece inside the segment, and
 * the destination pieces spanning at least their total bytes (else the
 * library looks at them closer). Anything else, every misuse included, is
 * the library's call, made before anything is copied here, which checks and
 * reports. Define GEXX_VIS_NO_INLINE before the include to always call the
 * library; (gex_VIS_VectorPutNBI)(...) and &gex_VIS_VectorPutNBI are always
 * the library's. */
extern int gexx_vis_pc_armed; /* ABI 1's word; the forms below read gexx_rma_fast's */

#if GEXX_INLINE_RMA && !defined(GEXX_VIS_NO_INLINE)

#define GEXX_VIS_INLINE_PIECES 16
#define GEXX_VIS_STRIDED_INLINE_PIECES 4
/* More pieces than this, of more bytes in all than the next: the library's
 * leaf loops, which make no call per piece, unless the pieces go to the
 * AVX2 helpers below, which make none either (in the others each piece
 * above 128 bytes is a call: testvisperf's 8 pieces of 512 bytes 45-73 GB/s
 * so, 67-85 through the library, GASNet-EX 58-87). */
#define GEXX_VIS_LONG_INLINE_PIECES 4
#define GEXX_VIS_LONG_INLINE_BYTES 2048

/* The row of team rank `rank` when a call may be made here, or null. */
static inline __attribute__((always_inline)) const gexx_rma_peer_t *gexx_vis_row_(
    gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags) {
  const gexx_rma_peer_t *t = __atomic_load_n(&gexx_rma_fast.peers, __ATOMIC_RELAXED);
  if (__builtin_expect(t == 0 || flags != 0 || tm != gexx_rma_fast.job_tm ||
                           rank >= gexx_rma_fast.npeers ||
                           __atomic_load_n(&gexx_rma_fast.vis_pc_armed, __ATOMIC_RELAXED) != 0,
                       0))
    return 0;
  return t[rank].size ? &t[rank] : 0;
}

/* Whether [addr, addr + n) lies in the row's segment. */
static inline __attribute__((always_inline)) int gexx_vis_in_(const gexx_rma_peer_t *p,
                                                              const void *addr, size_t n) {
  uintptr_t off = (uintptr_t)addr - p->owner_base;
  return off < p->size && n <= p->size - off;
}

/* k pieces of n bytes: dst(i) and src(i), the remote side's on the row's
 * peer, each moved by copy(put, d, s, n). 1 when checked and copied, 0
 * (nothing copied) for the library. */
#define GEXX_VIS_PIECES_(put, p, k, n, dst, src, copy)                                          \
  __extension__({                                                                               \
    size_t gexx_pi_;                                                                            \
    uintptr_t gexx_lo_ = UINTPTR_MAX, gexx_hi_ = 0;                                             \
    int gexx_ok_ = 1;                                                                           \
    for (gexx_pi_ = 0; gexx_pi_ < (k) && gexx_ok_; ++gexx_pi_) {                                \
      uintptr_t gexx_d_ = (uintptr_t)(dst(gexx_pi_));                                           \
      gexx_ok_ = gexx_vis_in_((p), (put) ? (dst(gexx_pi_)) : (src(gexx_pi_)), (n));             \
      gexx_lo_ = gexx_d_ < gexx_lo_ ? gexx_d_ : gexx_lo_;                                       \
      gexx_hi_ = gexx_d_ + (n) > gexx_hi_ ? gexx_d_ + (n) : gexx_hi_;                           \
    }                                                                                           \
    if (gexx_ok_ && gexx_hi_ - gexx_lo_ >= (k) * (n)) {                                         \
      for (gexx_pi_ = 0; gexx_pi_ < (k); ++gexx_pi_) {                                          \
        if (put)                                                                                \
          copy(1, (p)->local + ((uintptr_t)(dst(gexx_pi_)) - (p)->owner_base),                  \
               (const char *)(src(gexx_pi_)), (n));                                             \
        else                                                                                    \
          copy(0, (char *)(dst(gexx_pi_)),                                                      \
               (const char *)(p)->local + ((uintptr_t)(src(gexx_pi_)) - (p)->owner_base), (n)); \
      }                                                                                         \
    } else {                                                                                    \
      gexx_ok_ = 0;                                                                             \
    }                                                                                           \
    gexx_ok_;                                                                                   \
  })
/* A piece's copy: gexx_inline_rma.h's, which decides per piece (inline
 * stores up to 64 bytes, else a call to the widest copy loop, or memmove). */
#define GEXX_VIS_COPY_ANY_(put, d, s, n) \
  ((put) ? gexx_rma_put_copy_((d), (s), (n)) : gexx_rma_get_copy_((d), (s), (n)))

/* The pieces of a call of more than one, out of line: one function per
 * shape and direction in each translation unit that uses it, rather than
 * the loops at every call site (GASNet's testvis took 11.7 s to compile with
 * them inline, 2.9 s so, GASNet-EX 4.7). A direct call, no lookup. */
#define GEXX_VIS_VD_(i) (dl[i].gex_addr)
#define GEXX_VIS_VS_(i) (sl[i].gex_addr)
#define GEXX_VIS_ID_(i) (dl[i])
#define GEXX_VIS_IS_(i) (sl[i])
#define GEXX_VIS_SD_(i) ((char *)((uintptr_t)da + (uintptr_t)(i) * (uintptr_t)ds))
#define GEXX_VIS_SS_(i) ((char *)((uintptr_t)sa + (uintptr_t)(i) * (uintptr_t)ss))
#define GEXX_VIS_VPARAMS_ \
  (const gexx_rma_peer_t *p, size_t k, size_t n, const gex_Memvec_t *dl, const gex_Memvec_t *sl)
#define GEXX_VIS_IPARAMS_ \
  (const gexx_rma_peer_t *p, size_t k, size_t n, void *const *dl, void *const *sl)
#define GEXX_VIS_SPARAMS_ \
  (const gexx_rma_peer_t *p, size_t k, size_t n, void *da, ptrdiff_t ds, void *sa, ptrdiff_t ss)
/* A shape's put and get helpers, named by `name` from the shape and the
 * direction, their body GEXX_VIS_PIECES_ with the piece copy `copy`, under
 * `attrs`; then all six. */
#define GEXX_VIS_PAIR_(name, attrs, copy, shape, params, D, S) \
  static attrs int name(shape, put) params {                   \
    return GEXX_VIS_PIECES_(1, p, k, n, D, S, copy);           \
  }                                                            \
  static attrs int name(shape, get) params {                   \
    return GEXX_VIS_PIECES_(0, p, k, n, D, S, copy);           \
  }
#define GEXX_VIS_HELPERS_(name, attrs, copy)                                          \
  GEXX_VIS_PAIR_(name, attrs, copy, v, GEXX_VIS_VPARAMS_, GEXX_VIS_VD_, GEXX_VIS_VS_) \
  GEXX_VIS_PAIR_(name, attrs, copy, i, GEXX_VIS_IPARAMS_, GEXX_VIS_ID_, GEXX_VIS_IS_) \
  GEXX_VIS_PAIR_(name, attrs, copy, s, GEXX_VIS_SPARAMS_, GEXX_VIS_SD_, GEXX_VIS_SS_)
/* gexx_vis_vput_, gexx_vis_vget_, ... gexx_vis_sget_: any CPU, any length. */
#define GEXX_VIS_NAME_ANY_(shape, dir) gexx_vis_##shape##dir##_
GEXX_VIS_HELPERS_(GEXX_VIS_NAME_ANY_, __attribute__((noinline, unused)), GEXX_VIS_COPY_ANY_)
#if GEXX_COPY_X86_ && defined(__GNUC__)
/* gexx_vis_vput_avx2_, ...: pieces of GEXX_COPY_VEC16_MAX < n <=
 * GEXX_COPY_INLINE_MAX bytes on a CPU whose widest copy is AVX2's
 * (GEXX_VIS_WIDE_ says when): the 32-byte vector copy inline in a leaf
 * compiled for AVX2, no call per piece (testvisperf's indexed put of four
 * 512-byte pieces, one rank, alternated runs: 39-69k MiB/s so, 23-29k with
 * a call per piece when this VM ran slow, GASNet-EX 31-36k). A piece whose
 * destination starts inside its own source is memmove's, as in gexx_copy_. */
typedef char gexx_vis_v32_ __attribute__((vector_size(32)));
#define GEXX_VIS_COPY_AVX2_(put, d, s, n)                              \
  do {                                                                 \
    char *gexx_cd_ = (d);                                              \
    const char *gexx_cs_ = (s);                                        \
    if ((uintptr_t)gexx_cd_ - (uintptr_t)gexx_cs_ >= (n))              \
      GEXX_COPY_VEC_BODY_(gexx_vis_v32_, 32, gexx_cd_, gexx_cs_, (n)); \
    else                                                               \
      gexx_copy_memmove_(gexx_cd_, gexx_cs_, (n), (put));              \
  } while (0)
#define GEXX_VIS_NAME_AVX2_(shape, dir) gexx_vis_##shape##dir##_avx2_
GEXX_VIS_HELPERS_(GEXX_VIS_NAME_AVX2_, __attribute__((target("avx2"), noinline, unused)),
                  GEXX_VIS_COPY_AVX2_)
#undef GEXX_VIS_COPY_AVX2_
/* Whether pieces of n bytes go to the AVX2 helpers. */
#define GEXX_VIS_WIDE_(n)                                      \
  ((n) > GEXX_COPY_VEC16_MAX && (n) <= GEXX_COPY_INLINE_MAX && \
   __builtin_expect(gexx_rma_fast.copy_isa == GEXX_COPY_ISA_AVX2_, 1))
#else
#define GEXX_VIS_WIDE_(n) 0
#define GEXX_VIS_NAME_AVX2_(shape, dir) GEXX_VIS_NAME_ANY_(shape, dir)
#endif
/* The helper for pieces of n bytes, called with `args` (in parentheses). */
#define GEXX_VIS_CALL_(shape, dir, n, args) \
  (GEXX_VIS_WIDE_(n) ? GEXX_VIS_NAME_AVX2_(shape, dir) args : GEXX_VIS_NAME_ANY_(shape, dir) args)
#undef GEXX_VIS_HELPERS_
#undef GEXX_VIS_PAIR_
#undef GEXX_VIS_VPARAMS_
#undef GEXX_VIS_IPARAMS_
#undef GEXX_VIS_SPARAMS_
#undef GEXX_VIS_VD_
#undef GEXX_VIS_VS_
#undef GEXX_VIS_ID_
#undef GEXX_VIS_IS_
#undef GEXX_VIS_SD_
#undef GEXX_VIS_SS_

/* A one-piece call's copy: up to 64 bytes inline (a few loads and
 * stores); longer ones a call: to the AVX2 copy loop itself on a CPU whose
 * widest loop it is, up to GEXX_COPY_INLINE_MAX (a call to these, which
 * jumped to that loop, left testvisperf's one 512-byte piece at 19-25k
 * MiB/s at most of the stack placements tried, GASNet-EX 26-32k; the
 * loop's call at 30-36k), else to these (vis_calls, one 512-byte piece:
 * 8-19 ns a call so, 15-24 with the copy at the call site, where the
 * caller's values spill around it; and testvis compiles in 5.5 s, not
 * 6.5-7.5). */
static __attribute__((noinline, unused)) void gexx_vis_put1_long_(void *d, const void *s,
                                                                  size_t n) {
  gexx_rma_put_copy_(d, s, n);
}
static __attribute__((noinline, unused)) void gexx_vis_get1_long_(void *d, const void *s,
                                                                  size_t n) {
  gexx_rma_get_copy_(d, s, n);
}
/* One piece of n bytes each side (a list of one entry on both, or a
 * strided call that folds into one): the inline put or get's translation
 * (gexx_inline_rma.h) and the copy above, with no loop around it (in a
 * large caller, testvisperf's main, the lists' loop kept values that
 * spilled to the stack, and those stores waited behind the previous call's
 * copy). 1 when copied, 0 (nothing copied) for the library. */
static inline __attribute__((always_inline)) int gexx_vis_one_(int put, gex_TM_t tm,
                                                               gex_Rank_t rank, void *d,
                                                               const void *s, size_t n,
                                                               gex_Flags_t flags) {
  char *r;
  if (n == 0 || __atomic_load_n(&gexx_rma_fast.vis_pc_armed, __ATOMIC_RELAXED) != 0) return 0;
  r = gexx_rma_here_tm_(tm, rank, put ? d : s, n, flags);
  if (!r) return 0;
  if (n <= 64)
    gexx_copy_fwd16_(put ? r : d, put ? s : r, n);
  else if (n <= GEXX_COPY_INLINE_MAX && gexx_rma_fast.copy_isa == GEXX_COPY_ISA_AVX2_ &&
           (uintptr_t)(put ? r : d) - (uintptr_t)(put ? s : r) >= n)
    /* Forward (dst not inside (src, src + n)); written as this test, not
     * GEXX_VIS_WIDE_'s (which adds n > 128): testvisperf's one 512-byte
     * piece, 32 stack placements, median 35.8k MiB/s this way, 27.0k
     * with the extra test. */
    gexx_copy_avx2_(put ? r : d, put ? s : r, n);
  else if (put)
    gexx_vis_put1_long_(r, s, n);
  else
    gexx_vis_get1_long_(d, r, n);
  return 1;
}

static inline __attribute__((always_inline)) int gexx_vis_vector_(int put, gex_TM_t tm,
                                                                  gex_Rank_t rank, size_t dc,
                                                                  const gex_Memvec_t *dl, size_t sc,
                                                                  const gex_Memvec_t *sl,
                                                                  gex_Flags_t flags) {
  const gexx_rma_peer_t *p;
  size_t n, i;
  if (dc == 1 && sc == 1 && dl && sl)
    return dl[0].gex_len == sl[0].gex_len &&
           gexx_vis_one_(put, tm, rank, dl[0].gex_addr, sl[0].gex_addr, dl[0].gex_len, flags);
  if (dc != sc || dc == 0 || dc > GEXX_VIS_INLINE_PIECES || !dl || !sl) return 0;
  n = dl[0].gex_len;
  if (n == 0) return 0;
  for (i = 0; i < dc; ++i)
    if (dl[i].gex_len != n || sl[i].gex_len != n) return 0;
  if (dc > GEXX_VIS_LONG_INLINE_PIECES && dc * n > GEXX_VIS_LONG_INLINE_BYTES && !GEXX_VIS_WIDE_(n))
    return 0;
  p = gexx_vis_row_(tm, rank, flags);
  if (!p) return 0;
  return put ? GEXX_VIS_CALL_(v, put, n, (p, dc, n, dl, sl))
             : GEXX_VIS_CALL_(v, get, n, (p, dc, n, dl, sl));
}

static inline __attribute__((always_inline)) int gexx_vis_indexed_(int put, gex_TM_t tm,
                                                                   gex_Rank_t rank, size_t dc,
                                                                   void *const *dl, size_t dlen,
                                                                   size_t sc, void *const *sl,
                                                                   size_t slen, gex_Flags_t flags) {
  const gexx_rma_peer_t *p;
  /* One piece first, as the vector form (fewer tests before its copy). */
  if (dc == 1 && sc == 1)
    return dl && sl && dlen == slen && gexx_vis_one_(put, tm, rank, dl[0], sl[0], dlen, flags);
  if (dc != sc || dc == 0 || dc > GEXX_VIS_INLINE_PIECES || !dl || !sl || dlen != slen || dlen == 0)
    return 0;
  if (dc > GEXX_VIS_LONG_INLINE_PIECES && dc * dlen > GEXX_VIS_LONG_INLINE_BYTES &&
      !GEXX_VIS_WIDE_(dlen))
    return 0;
  p = gexx_vis_row_(tm, rank, flags);
  if (!p) return 0;
  return put ? GEXX_VIS_CALL_(i, put, dlen, (p, dc, dlen, dl, sl))
             : GEXX_VIS_CALL_(i, get, dlen, (p, dc, dlen, dl, sl));
}

/* Strided: levels contiguous on both sides (each stride the size of the
 * block below it) fold into one piece; past them, one level of more than
 * one element and the levels that continue it on both sides (each stride
 * that level's times the blocks below), up to GEXX_VIS_STRIDED_INLINE_PIECES
 * evenly spaced blocks; every other count 1. */
static inline __attribute__((always_inline)) int gexx_vis_strided_(
    int put, gex_TM_t tm, gex_Rank_t rank, void *da, const ptrdiff_t *dstrides, void *sa,
    const ptrdiff_t *sstrides, size_t elemsz, const size_t *count, size_t levels,
    gex_Flags_t flags) {
  const gexx_rma_peer_t *p;
  size_t i, k = 1, len = elemsz, folded;
  ptrdiff_t ds = 0, ss = 0;
  if (elemsz == 0 || (levels && (!count || !dstrides || !sstrides))) return 0;
  for (i = 0; i < levels; ++i) {
    if (count[i] == 1) continue;
    if (count[i] == 0) return 0;
    /* Products checked for overflow rather than compared with quotients
     * (no division per level; vischeck's soverflow wraps a product). */
    if (k == 1 && dstrides[i] == (ptrdiff_t)len && sstrides[i] == (ptrdiff_t)len &&
        !__builtin_mul_overflow(len, count[i], &folded) && folded <= (size_t)PTRDIFF_MAX) {
      len = folded;
      continue;
    }
    /* k <= GEXX_VIS_STRIDED_INLINE_PIECES here, so the product cannot overflow. */
    if (count[i] > GEXX_VIS_STRIDED_INLINE_PIECES || count[i] * k > GEXX_VIS_STRIDED_INLINE_PIECES)
      return 0;
    if (k == 1) {
      ds = dstrides[i];
      ss = sstrides[i];
    } else if ((size_t)dstrides[i] != (size_t)ds * k || (size_t)sstrides[i] != (size_t)ss * k) {
      return 0; /* a level that does not continue the one below it */
    }
    k *= count[i];
  }
  if (k == 1) return gexx_vis_one_(put, tm, rank, da, sa, len, flags);
  p = gexx_vis_row_(tm, rank, flags);
  if (!p) return 0;
  return put ? GEXX_VIS_CALL_(s, put, len, (p, k, len, da, ds, sa, ss))
             : GEXX_VIS_CALL_(s, get, len, (p, k, len, da, ds, sa, ss));
}

/* The form's inline attempt (try_), else the library's call from the
 * caller's line (lib, lib_args). */
#define GEXX_VIS_FORM_(try_, lib, lib_args, done_value, type) \
  __extension__({                                             \
    type gexx_vret_;                                          \
    if (__builtin_expect((try_) != 0, 1))                     \
      gexx_vret_ = (done_value);                              \
    else                                                      \
      gexx_vret_ = (lib)lib_args;                             \
    gexx_vret_;                                               \
  })

/* One body per shape, with the arguments in put order (rank second); the
 * library's call puts them back in the form's order: `order` is
 * GEXX_VIS_TO_ (puts) or GEXX_VIS_FROM2_/FROM3_ (gets: the rank after the
 * destination side's two or three arguments). */
#define GEXX_VIS_TO_(...) (__VA_ARGS__)
#define GEXX_VIS_FROM2_(t, r, a, b, ...) (t, a, b, r, __VA_ARGS__)
#define GEXX_VIS_FROM3_(t, r, a, b, c, ...) (t, a, b, c, r, __VA_ARGS__)

#define GEXX_VIS_V_(put, order, lib, done_value, type, tm, rank, dc, dl, sc, sl, flags)       \
  __extension__({                                                                             \
    gex_TM_t gexx_vt_ = (tm);                                                                 \
    gex_Rank_t gexx_vr_ = (rank);                                                             \
    size_t gexx_vdc_ = (dc), gexx_vsc_ = (sc);                                                \
    const gex_Memvec_t *gexx_vdl_ = (dl), *gexx_vsl_ = (sl);                                  \
    gex_Flags_t gexx_vf_ = (flags);                                                           \
    GEXX_VIS_FORM_(                                                                           \
        gexx_vis_vector_(put, gexx_vt_, gexx_vr_, gexx_vdc_, gexx_vdl_, gexx_vsc_, gexx_vsl_, \
                         gexx_vf_),                                                           \
        lib, order(gexx_vt_, gexx_vr_, gexx_vdc_, gexx_vdl_, gexx_vsc_, gexx_vsl_, gexx_vf_), \
        done_value, type);                                                                    \
  })
#define GEXX_VIS_I_(put, order, lib, done_value, type, tm, rank, dc, dl, dlen, sc, sl, slen,   \
                    flags)                                                                     \
  __extension__({                                                                              \
    gex_TM_t gexx_vt_ = (tm);                                                                  \
    gex_Rank_t gexx_vr_ = (rank);                                                              \
    size_t gexx_vdc_ = (dc), gexx_vsc_ = (sc), gexx_vdn_ = (dlen), gexx_vsn_ = (slen);         \
    void *const *gexx_vdl_ = (dl);                                                             \
    void *const *gexx_vsl_ = (sl);                                                             \
    gex_Flags_t gexx_vf_ = (flags);                                                            \
    GEXX_VIS_FORM_(gexx_vis_indexed_(put, gexx_vt_, gexx_vr_, gexx_vdc_, gexx_vdl_, gexx_vdn_, \
                                     gexx_vsc_, gexx_vsl_, gexx_vsn_, gexx_vf_),               \
                   lib,                                                                        \
                   order(gexx_vt_, gexx_vr_, gexx_vdc_, gexx_vdl_, gexx_vdn_, gexx_vsc_,       \
                         gexx_vsl_, gexx_vsn_, gexx_vf_),                                      \
                   done_value, type);                                                          \
  })
#define GEXX_VIS_S_(put, order, lib, done_value, type, tm, rank, da, ds, sa, ss, esz, cnt, lv,     \
                    flags)                                                                         \
  __extension__({                                                                                  \
    gex_TM_t gexx_vt_ = (tm);                                                                      \
    gex_Rank_t gexx_vr_ = (rank);                                                                  \
    void *gexx_vda_ = (da), *gexx_vsa_ = (sa);                                                     \
    const ptrdiff_t *gexx_vds_ = (ds), *gexx_vss_ = (ss);                                          \
    size_t gexx_vn_ = (esz), gexx_vlv_ = (lv);                                                     \
    const size_t *gexx_vc_ = (cnt);                                                                \
    gex_Flags_t gexx_vf_ = (flags);                                                                \
    GEXX_VIS_FORM_(gexx_vis_strided_(put, gexx_vt_, gexx_vr_, gexx_vda_, gexx_vds_, gexx_vsa_,     \
                                     gexx_vss_, gexx_vn_, gexx_vc_, gexx_vlv_, gexx_vf_),          \
                   lib,                                                                            \
                   order(gexx_vt_, gexx_vr_, gexx_vda_, gexx_vds_, gexx_vsa_, gexx_vss_, gexx_vn_, \
                         gexx_vc_, gexx_vlv_, gexx_vf_),                                           \
                   done_value, type);                                                              \
  })

/* Each form's arguments, in its own order, to its shape's body. */
#define GEXX_VIS_VPUT_(lib, dv, ty, tm, rank, dc, dl, sc, sl, f) \
  GEXX_VIS_V_(1, GEXX_VIS_TO_, lib, dv, ty, tm, rank, dc, dl, sc, sl, f)
#define GEXX_VIS_VGET_(lib, dv, ty, tm, dc, dl, rank, sc, sl, f) \
  GEXX_VIS_V_(0, GEXX_VIS_FROM2_, lib, dv, ty, tm, rank, dc, dl, sc, sl, f)
#define GEXX_VIS_IPUT_(lib, dv, ty, tm, rank, dc, dl, dn, sc, sl, sn, f) \
  GEXX_VIS_I_(1, GEXX_VIS_TO_, lib, dv, ty, tm, rank, dc, dl, dn, sc, sl, sn, f)
#define GEXX_VIS_IGET_(lib, dv, ty, tm, dc, dl, dn, rank, sc, sl, sn, f) \
  GEXX_VIS_I_(0, GEXX_VIS_FROM3_, lib, dv, ty, tm, rank, dc, dl, dn, sc, sl, sn, f)
#define GEXX_VIS_SPUT_(lib, dv, ty, tm, rank, da, ds, sa, ss, esz, cnt, lv, f) \
  GEXX_VIS_S_(1, GEXX_VIS_TO_, lib, dv, ty, tm, rank, da, ds, sa, ss, esz, cnt, lv, f)
#define GEXX_VIS_SGET_(lib, dv, ty, tm, da, ds, rank, sa, ss, esz, cnt, lv, f) \
  GEXX_VIS_S_(0, GEXX_VIS_FROM2_, lib, dv, ty, tm, rank, da, ds, sa, ss, esz, cnt, lv, f)

#define gex_VIS_VectorPutBlocking(...) \
  GEXX_VIS_VPUT_(gex_VIS_VectorPutBlocking, 0, int, __VA_ARGS__)
#define gex_VIS_VectorPutNB(...) \
  GEXX_VIS_VPUT_(gex_VIS_VectorPutNB, GEX_EVENT_INVALID, gex_Event_t, __VA_ARGS__)
#define gex_VIS_VectorPutNBI(...) GEXX_VIS_VPUT_(gex_VIS_VectorPutNBI, 0, int, __VA_ARGS__)
#define gex_VIS_VectorGetBlocking(...) \
  GEXX_VIS_VGET_(gex_VIS_VectorGetBlocking, 0, int, __VA_ARGS__)
#define gex_VIS_VectorGetNB(...) \
  GEXX_VIS_VGET_(gex_VIS_VectorGetNB, GEX_EVENT_INVALID, gex_Event_t, __VA_ARGS__)
#define gex_VIS_VectorGetNBI(...) GEXX_VIS_VGET_(gex_VIS_VectorGetNBI, 0, int, __VA_ARGS__)
#define gex_VIS_IndexedPutBlocking(...) \
  GEXX_VIS_IPUT_(gex_VIS_IndexedPutBlocking, 0, int, __VA_ARGS__)
#define gex_VIS_IndexedPutNB(...) \
  GEXX_VIS_IPUT_(gex_VIS_IndexedPutNB, GEX_EVENT_INVALID, gex_Event_t, __VA_ARGS__)
#define gex_VIS_IndexedPutNBI(...) GEXX_VIS_IPUT_(gex_VIS_IndexedPutNBI, 0, int, __VA_ARGS__)
#define gex_VIS_IndexedGetBlocking(...) \
  GEXX_VIS_IGET_(gex_VIS_IndexedGetBlocking, 0, int, __VA_ARGS__)
#define gex_VIS_IndexedGetNB(...) \
  GEXX_VIS_IGET_(gex_VIS_IndexedGetNB, GEX_EVENT_INVALID, gex_Event_t, __VA_ARGS__)
#define gex_VIS_IndexedGetNBI(...) GEXX_VIS_IGET_(gex_VIS_IndexedGetNBI, 0, int, __VA_ARGS__)
#define gex_VIS_StridedPutBlocking(...) \
  GEXX_VIS_SPUT_(gex_VIS_StridedPutBlocking, 0, int, __VA_ARGS__)
#define gex_VIS_StridedPutNB(...) \
  GEXX_VIS_SPUT_(gex_VIS_StridedPutNB, GEX_EVENT_INVALID, gex_Event_t, __VA_ARGS__)
#define gex_VIS_StridedPutNBI(...) GEXX_VIS_SPUT_(gex_VIS_StridedPutNBI, 0, int, __VA_ARGS__)
#define gex_VIS_StridedGetBlocking(...) \
  GEXX_VIS_SGET_(gex_VIS_StridedGetBlocking, 0, int, __VA_ARGS__)
#define gex_VIS_StridedGetNB(...) \
  GEXX_VIS_SGET_(gex_VIS_StridedGetNB, GEX_EVENT_INVALID, gex_Event_t, __VA_ARGS__)
#define gex_VIS_StridedGetNBI(...) GEXX_VIS_SGET_(gex_VIS_StridedGetNBI, 0, int, __VA_ARGS__)

#endif /* GEXX_INLINE_RMA && !GEXX_VIS_NO_INLINE */

GEXX_END_EXTERNC

#endif /* GASNET_VIS_H */
