/* vischeck: the VIS calls (gasnet_vis.h) against a byte-by-byte model.
 *
 *   vischeck [rounds]     (default 200 random shapes per kind)
 *   vischeck overlap|overlap2|outside2|overflow|soverflow|pcindex
 *                         (a misuse that must stop the job)
 *   vischeck gathered     (one strided put and get of 1000 separate pieces: gathered_round)
 *
 * Rank r works on its right neighbour's segment. Before each transfer the
 * whole remote area and the whole local buffer get known patterns; after it
 * both are read back entirely and compared with the model, so bytes that
 * must not change are checked too. Shapes: strided in 1 to 3 dimensions
 * (negative, foldable and overlapping source strides, zero counts), vectors
 * of mixed lengths with zero-length entries cut differently on each side,
 * indexed lists (duplicate remote addresses on get), rows of evenly spaced
 * pieces spread over levels that continue each other; every form: EX
 * blocking, NB, NBI, and GASNet-1 blocking, _nb and _nbi. Then peer
 * completion: each rank arms a handler with a payload before one-piece puts
 * of each kind (the forms gasnet_vis.h copies inline when nothing is
 * armed), and the target's handler checks the payload and that the piece
 * is in place when it runs; every armed put must run it exactly once, and
 * the unarmed puts between them never. And a burst of NBI gets of 16 to 48
 * KiB of separate pieces each, synced once. Each rank prints
 * "vischeck rank R of N: PASS (K checks)" or "FAIL: ..." and exits 1.
 */
#include <gasnet.h>
#include <gasnet_vis.h>

#include "check.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AREA 16384
/* Pieces near and past the largest Medium (what one message packs), in a
 * region of the peer's segment after the two areas. */
#define BIG (256u << 10)

static gasnet_node_t me, n, peer;
static gex_TM_t tm;
static unsigned char *remote;                  /* peer's segment (its address) */
static unsigned char local[AREA], image[AREA]; /* local buffer, remote read back */
static unsigned char model_l[AREA], model_r[AREA];
static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(uint64_t lo, uint64_t hi) { /* in [lo, hi] */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return lo + rng % (hi - lo + 1);
}

/* Fresh patterns on both sides, the models equal to them. */
static void reset(uint64_t seed) {
  fill(local, AREA, seed);
  fill(image, AREA, seed + 7777);
  gex_RMA_PutBlocking(tm, peer, remote, image, AREA, 0);
  memcpy(model_l, local, AREA);
  memcpy(model_r, image, AREA);
}

static void verify(const char *what) {
  gex_RMA_GetBlocking(tm, image, peer, remote, AREA, 0);
  for (size_t i = 0; i < AREA; ++i)
    CHECK(image[i] == model_r[i], "%s: remote byte %zu is %u, expected %u", what, i, image[i],
          model_r[i]);
  for (size_t i = 0; i < AREA; ++i)
    CHECK(local[i] == model_l[i], "%s: local byte %zu is %u, expected %u", what, i, local[i],
          model_l[i]);
}

/* Byte offsets of a shape, in transfer order. */
static size_t offs_d[AREA], offs_s[AREA];

static size_t strided_offsets(size_t *out, long base, const ptrdiff_t *st, size_t elemsz,
                              const size_t *cnt, size_t levels) {
  size_t k = 0, idx[3] = {0, 0, 0};
  for (size_t i = 0; i < levels; ++i)
    if (cnt[i] == 0) return 0;
  if (!elemsz) return 0;
  for (;;) {
    long e = base;
    for (size_t i = 0; i < levels; ++i) e += (long)idx[i] * st[i];
    for (size_t b = 0; b < elemsz; ++b) out[k++] = (size_t)(e + (long)b);
    size_t i = 0;
    for (; i < levels; ++i) {
      if (++idx[i] < cnt[i]) break;
      idx[i] = 0;
    }
    if (i == levels) return k;
  }
}

/* Model of a put (remote <- local) or a get (local <- remote). */
static void model(int put, size_t nbytes) {
  unsigned char *dm = put ? model_r : model_l;
  const unsigned char *sm = put ? local : image; /* image: remote before the get */
  for (size_t k = 0; k < nbytes; ++k) dm[offs_d[k]] = sm[offs_s[k]];
}

/* A random strided shape within AREA: base offset, strides, bounding box. */
static void rand_strides(ptrdiff_t *st, long *base, size_t elemsz, const size_t *cnt, size_t levels,
                         int nested) {
  long extent = (long)elemsz, lo = 0, hi = (long)elemsz;
  /* Nested strides grow in the order `ord`: half the time a permutation of
     the dimensions (a transposition: the side's contiguous dimension is not
     the first). */
  size_t ord[3] = {0, 1, 2};
  if (nested && rnd(0, 1))
    for (size_t i = levels; i > 1; --i) {
      size_t j = rnd(0, i - 1), t = ord[i - 1];
      ord[i - 1] = ord[j];
      ord[j] = t;
    }
  for (size_t q = 0; q < levels; ++q) {
    size_t i = ord[q];
    long s = nested ? extent + (long)rnd(0, 5) : (long)rnd(0, 3 * elemsz);
    if (nested && rnd(0, 3) == 0 && q == 0) s = extent; /* foldable */
    if (rnd(0, 3) == 0) s = -s;
    st[i] = s;
    long span = s * (long)(cnt[i] ? cnt[i] - 1 : 0);
    if (span < 0)
      lo += span;
    else
      hi += span;
    extent = hi - lo;
  }
  CHECK(extent < AREA, "shape too large");
  *base = -lo + (long)rnd(0, AREA - 1 - (uint64_t)extent);
}

static void sync_nbi(int put) {
  gex_NBI_Wait(put ? GEX_EC_PUT : GEX_EC_GET, 0);
}

static void strided_round(int put, int form) {
  size_t levels = rnd(1, 3), elemsz = rnd(0, 20) == 0 ? 0 : rnd(1, 9);
  size_t cnt[3];
  for (size_t i = 0; i < levels; ++i) cnt[i] = rnd(0, 30) == 0 ? 0 : rnd(1, 6);
  ptrdiff_t rs[3], ls[3];
  long rbase, lbase;
  /* The destination's strides nest (no overlap); the source's may overlap. */
  rand_strides(rs, &rbase, elemsz, cnt, levels, put);
  rand_strides(ls, &lbase, elemsz, cnt, levels, !put);
  size_t nb = strided_offsets(put ? offs_d : offs_s, rbase, rs, elemsz, cnt, levels);
  strided_offsets(put ? offs_s : offs_d, lbase, ls, elemsz, cnt, levels);
  gex_RMA_GetBlocking(tm, image, peer, remote, AREA, 0);
  model(put, nb);
  void *r = remote + rbase, *l = local + lbase;
  int negative = 0;
  for (size_t i = 0; i < levels; ++i) negative |= rs[i] < 0 || ls[i] < 0;
  if (form >= 3 && negative) form -= 3; /* GASNet-1 strides are unsigned */
  size_t g1cnt[4] = {elemsz, cnt[0], cnt[1], cnt[2]};
  gex_Event_t e;
  if (put) {
    switch (form) {
      case 0:
        gex_VIS_StridedPutBlocking(tm, peer, r, rs, l, ls, elemsz, cnt, levels, 0);
        break;
      case 1:
        e = gex_VIS_StridedPutNB(tm, peer, r, rs, l, ls, elemsz, cnt, levels, 0);
        gex_Event_Wait(e);
        break;
      case 2:
        gex_VIS_StridedPutNBI(tm, peer, r, rs, l, ls, elemsz, cnt, levels, 0);
        sync_nbi(1);
        break;
      case 3:
        gasnet_puts_bulk(peer, r, (size_t *)rs, l, (size_t *)ls, g1cnt, levels);
        break;
      case 4:
        gasnet_wait_syncnb(
            gasnet_puts_nb_bulk(peer, r, (size_t *)rs, l, (size_t *)ls, g1cnt, levels));
        break;
      default:
        gasnet_puts_nbi_bulk(peer, r, (size_t *)rs, l, (size_t *)ls, g1cnt, levels);
        gasnet_wait_syncnbi_puts();
    }
  } else {
    switch (form) {
      case 0:
        gex_VIS_StridedGetBlocking(tm, l, ls, peer, r, rs, elemsz, cnt, levels, 0);
        break;
      case 1:
        e = gex_VIS_StridedGetNB(tm, l, ls, peer, r, rs, elemsz, cnt, levels, 0);
        gex_Event_Wait(e);
        break;
      case 2:
        gex_VIS_StridedGetNBI(tm, l, ls, peer, r, rs, elemsz, cnt, levels, 0);
        sync_nbi(0);
        break;
      case 3:
        gasnet_gets_bulk(l, (size_t *)ls, peer, r, (size_t *)rs, g1cnt, levels);
        break;
      case 4:
        gasnet_wait_syncnb(
            gasnet_gets_nb_bulk(l, (size_t *)ls, peer, r, (size_t *)rs, g1cnt, levels));
        break;
      default:
        gasnet_gets_nbi_bulk(l, (size_t *)ls, peer, r, (size_t *)rs, g1cnt, levels);
        gasnet_wait_syncnbi_gets();
    }
  }
  verify(put ? "strided put" : "strided get");
}

/* Non-overlapping ranges of mixed lengths (zero among them) totalling
 * `total`, in shuffled order, at random gaps. */
static size_t rand_ranges(gex_Memvec_t *v, size_t max, unsigned char *base, size_t total) {
  size_t lens[64], k = 0, left = total;
  while (left && k < max - 1) {
    size_t l = rnd(0, 4) == 0 ? 0 : rnd(1, left < 300 ? left : 300);
    if (l > left) l = left;
    lens[k++] = l;
    left -= l;
  }
  if (left) lens[k++] = left;
  size_t off = rnd(0, 64);
  for (size_t i = 0; i < k; ++i) {
    v[i].gex_addr = base + off;
    v[i].gex_len = lens[i];
    off += lens[i] + rnd(0, 40);
  }
  CHECK(off < AREA, "ranges too long");
  for (size_t i = k; i > 1; --i) { /* shuffle */
    size_t j = rnd(0, i - 1);
    gex_Memvec_t t = v[i - 1];
    v[i - 1] = v[j];
    v[j] = t;
  }
  return k;
}

static size_t vector_offsets(size_t *out, const gex_Memvec_t *v, size_t k,
                             const unsigned char *base) {
  size_t m = 0;
  for (size_t i = 0; i < k; ++i)
    for (size_t b = 0; b < v[i].gex_len; ++b)
      out[m++] = (size_t)((const unsigned char *)v[i].gex_addr - base) + b;
  return m;
}

static void vector_round(int put, int form) {
  gex_Memvec_t rv[64], lv[64];
  size_t total = rnd(0, 20) == 0 ? 0 : rnd(1, 4000);
  size_t rk = rand_ranges(rv, put ? 64 : 1 + rnd(0, 63), remote, total);
  size_t lk = rand_ranges(lv, put ? 1 + rnd(0, 63) : 64, local, total);
  size_t nb = vector_offsets(put ? offs_d : offs_s, rv, rk, remote);
  vector_offsets(put ? offs_s : offs_d, lv, lk, local);
  gex_RMA_GetBlocking(tm, image, peer, remote, AREA, 0);
  model(put, nb);
  gasnet_memvec_t *g1r = (gasnet_memvec_t *)rv, *g1l = (gasnet_memvec_t *)lv;
  gex_Event_t e;
  if (put) {
    switch (form) {
      case 0:
        gex_VIS_VectorPutBlocking(tm, peer, rk, rv, lk, lv, 0);
        break;
      case 1:
        e = gex_VIS_VectorPutNB(tm, peer, rk, rv, lk, lv, 0);
        gex_Event_Wait(e);
        break;
      case 2:
        gex_VIS_VectorPutNBI(tm, peer, rk, rv, lk, lv, 0);
        sync_nbi(1);
        break;
      case 3:
        gasnet_putv_bulk(peer, rk, g1r, lk, g1l);
        break;
      case 4:
        gasnet_wait_syncnb(gasnet_putv_nb_bulk(peer, rk, g1r, lk, g1l));
        break;
      default:
        gasnet_putv_nbi_bulk(peer, rk, g1r, lk, g1l);
        gasnet_wait_syncnbi_puts();
    }
  } else {
    switch (form) {
      case 0:
        gex_VIS_VectorGetBlocking(tm, lk, lv, peer, rk, rv, 0);
        break;
      case 1:
        e = gex_VIS_VectorGetNB(tm, lk, lv, peer, rk, rv, 0);
        gex_Event_Wait(e);
        break;
      case 2:
        gex_VIS_VectorGetNBI(tm, lk, lv, peer, rk, rv, 0);
        sync_nbi(0);
        break;
      case 3:
        gasnet_getv_bulk(lk, g1l, peer, rk, g1r);
        break;
      case 4:
        gasnet_wait_syncnb(gasnet_getv_nb_bulk(lk, g1l, peer, rk, g1r));
        break;
      default:
        gasnet_getv_nbi_bulk(lk, g1l, peer, rk, g1r);
        gasnet_wait_syncnbi_gets();
    }
  }
  verify(put ? "vector put" : "vector get");
}

static void indexed_round(int put, int form) {
  void *rl[128], *ll[128];
  size_t len = rnd(1, 24), count = rnd(0, 40);
  if (rnd(0, 3) == 0) { /* pieces the library moves in vector loops (129 bytes to 8 KiB) */
    len = rnd(129, 600);
    count = rnd(3, 12);
  }
  /* The other side: the same bytes cut into pieces of len2. */
  size_t len2 = (len % 2 == 0 && rnd(0, 1)) ? len / 2 : len, count2 = count * len / len2;
  size_t dlen = put ? len : len2, slen = put ? len2 : len;
  size_t dcount = put ? count : count2, scount = put ? count2 : count;
  /* Destination slots: distinct, shuffled. Source slots: may repeat. */
  void **dl = put ? rl : ll, **sl = put ? ll : rl;
  unsigned char *dbase = put ? remote : local, *sbase = put ? local : remote;
  size_t slots = AREA / (dlen + 3);
  for (size_t i = 0; i < dcount; ++i) {
    size_t s;
    int again;
    do { /* distinct slots */
      s = rnd(0, slots - 1);
      again = 0;
      for (size_t j = 0; j < i; ++j) again |= dl[j] == (void *)(dbase + s * (dlen + 3));
    } while (again);
    dl[i] = dbase + s * (dlen + 3);
  }
  for (size_t i = 0; i < scount; ++i)
    sl[i] = (i && rnd(0, 3) == 0) ? sl[rnd(0, i - 1)] : sbase + rnd(0, AREA - slen);
  size_t m = 0;
  for (size_t i = 0; i < dcount; ++i)
    for (size_t b = 0; b < dlen; ++b) offs_d[m++] = (size_t)((unsigned char *)dl[i] - dbase) + b;
  m = 0;
  for (size_t i = 0; i < scount; ++i)
    for (size_t b = 0; b < slen; ++b) offs_s[m++] = (size_t)((unsigned char *)sl[i] - sbase) + b;
  gex_RMA_GetBlocking(tm, image, peer, remote, AREA, 0);
  model(put, m);
  gex_Event_t e;
  if (put) {
    switch (form) {
      case 0:
        gex_VIS_IndexedPutBlocking(tm, peer, dcount, dl, dlen, scount, sl, slen, 0);
        break;
      case 1:
        e = gex_VIS_IndexedPutNB(tm, peer, dcount, dl, dlen, scount, sl, slen, 0);
        gex_Event_Wait(e);
        break;
      case 2:
        gex_VIS_IndexedPutNBI(tm, peer, dcount, dl, dlen, scount, sl, slen, 0);
        sync_nbi(1);
        break;
      case 3:
        gasnet_puti_bulk(peer, dcount, dl, dlen, scount, sl, slen);
        break;
      case 4:
        gasnet_wait_syncnb(gasnet_puti_nb_bulk(peer, dcount, dl, dlen, scount, sl, slen));
        break;
      default:
        gasnet_puti_nbi_bulk(peer, dcount, dl, dlen, scount, sl, slen);
        gasnet_wait_syncnbi_puts();
    }
  } else {
    switch (form) {
      case 0:
        gex_VIS_IndexedGetBlocking(tm, dcount, dl, dlen, peer, scount, sl, slen, 0);
        break;
      case 1:
        e = gex_VIS_IndexedGetNB(tm, dcount, dl, dlen, peer, scount, sl, slen, 0);
        gex_Event_Wait(e);
        break;
      case 2:
        gex_VIS_IndexedGetNBI(tm, dcount, dl, dlen, peer, scount, sl, slen, 0);
        sync_nbi(0);
        break;
      case 3:
        gasnet_geti_bulk(dcount, dl, dlen, peer, scount, sl, slen);
        break;
      case 4:
        gasnet_wait_syncnb(gasnet_geti_nb_bulk(dcount, dl, dlen, peer, scount, sl, slen));
        break;
      default:
        gasnet_geti_nbi_bulk(dcount, dl, dlen, peer, scount, sl, slen);
        gasnet_wait_syncnbi_gets();
    }
  }
  verify(put ? "indexed put" : "indexed get");
}

/* One or two pieces of one length on each side (the entry points' short
 * path, src/capi/vis.cpp): vector, indexed and strided, EX forms, lengths
 * the copy moves in each of its ways (fixed sizes, ordinary stores,
 * memmove), destinations apart or adjacent, sources anywhere (repeats
 * allowed). */
static void few_round(int put, int form) {
  static const size_t lens[] = {1, 2, 3, 4, 8, 16, 24, 32, 64, 100, 512, 700, 3000};
  size_t len = lens[rnd(0, sizeof lens / sizeof lens[0] - 1)], pieces = rnd(1, 2);
  size_t dof[2], sof[2];
  dof[0] = rnd(0, AREA / 2 - len);
  dof[1] = rnd(0, 1) ? dof[0] + len : AREA / 2 + rnd(0, AREA / 2 - len); /* adjacent or apart */
  if (rnd(0, 1)) {
    size_t t = dof[0];
    dof[0] = dof[1];
    dof[1] = t;
  }
  for (size_t i = 0; i < 2; ++i) sof[i] = rnd(0, AREA - len);
  unsigned char *dbase = put ? remote : local, *sbase = put ? local : remote;
  size_t nb = 0;
  for (size_t i = 0; i < pieces; ++i)
    for (size_t b = 0; b < len; ++b, ++nb) {
      offs_d[nb] = dof[i] + b;
      offs_s[nb] = sof[i] + b;
    }
  gex_RMA_GetBlocking(tm, image, peer, remote, AREA, 0);
  model(put, nb);
  gex_Memvec_t dv[2], sv[2];
  void *dl[2], *sl[2];
  for (size_t i = 0; i < 2; ++i) {
    dl[i] = dv[i].gex_addr = dbase + dof[i];
    sl[i] = sv[i].gex_addr = sbase + sof[i];
    dv[i].gex_len = sv[i].gex_len = len;
  }
  ptrdiff_t ds[2] = {(ptrdiff_t)dof[1] - (ptrdiff_t)dof[0], 4 * AREA};
  ptrdiff_t ss[2] = {(ptrdiff_t)sof[1] - (ptrdiff_t)sof[0], 5};
  size_t cnt[2] = {pieces, 1};
  if (rnd(0, 1)) { /* the count of 2 in the second dimension */
    ds[1] = ds[0];
    ss[1] = ss[0];
    ds[0] = 3;
    ss[0] = -7;
    cnt[0] = 1;
    cnt[1] = pieces;
  }
  int kind = (int)rnd(0, 2);
  gex_Event_t e = GEX_EVENT_INVALID;
  if (put) {
    if (kind == 0) {
      if (form == 0) gex_VIS_VectorPutBlocking(tm, peer, pieces, dv, pieces, sv, 0);
      if (form == 1) e = gex_VIS_VectorPutNB(tm, peer, pieces, dv, pieces, sv, 0);
      if (form == 2) gex_VIS_VectorPutNBI(tm, peer, pieces, dv, pieces, sv, 0);
    } else if (kind == 1) {
      if (form == 0) gex_VIS_IndexedPutBlocking(tm, peer, pieces, dl, len, pieces, sl, len, 0);
      if (form == 1) e = gex_VIS_IndexedPutNB(tm, peer, pieces, dl, len, pieces, sl, len, 0);
      if (form == 2) gex_VIS_IndexedPutNBI(tm, peer, pieces, dl, len, pieces, sl, len, 0);
    } else {
      if (form == 0) gex_VIS_StridedPutBlocking(tm, peer, dl[0], ds, sl[0], ss, len, cnt, 2, 0);
      if (form == 1) e = gex_VIS_StridedPutNB(tm, peer, dl[0], ds, sl[0], ss, len, cnt, 2, 0);
      if (form == 2) gex_VIS_StridedPutNBI(tm, peer, dl[0], ds, sl[0], ss, len, cnt, 2, 0);
    }
  } else {
    if (kind == 0) {
      if (form == 0) gex_VIS_VectorGetBlocking(tm, pieces, dv, peer, pieces, sv, 0);
      if (form == 1) e = gex_VIS_VectorGetNB(tm, pieces, dv, peer, pieces, sv, 0);
      if (form == 2) gex_VIS_VectorGetNBI(tm, pieces, dv, peer, pieces, sv, 0);
    } else if (kind == 1) {
      if (form == 0) gex_VIS_IndexedGetBlocking(tm, pieces, dl, len, peer, pieces, sl, len, 0);
      if (form == 1) e = gex_VIS_IndexedGetNB(tm, pieces, dl, len, peer, pieces, sl, len, 0);
      if (form == 2) gex_VIS_IndexedGetNBI(tm, pieces, dl, len, peer, pieces, sl, len, 0);
    } else {
      if (form == 0) gex_VIS_StridedGetBlocking(tm, dl[0], ds, peer, sl[0], ss, len, cnt, 2, 0);
      if (form == 1) e = gex_VIS_StridedGetNB(tm, dl[0], ds, peer, sl[0], ss, len, cnt, 2, 0);
      if (form == 2) gex_VIS_StridedGetNBI(tm, dl[0], ds, peer, sl[0], ss, len, cnt, 2, 0);
    }
  }
  if (form == 1) gex_Event_Wait(e);
  if (form == 2) sync_nbi(put);
  verify(put ? "few-piece put" : "few-piece get");
}

/* A row of evenly spaced pieces spread over three levels (gasnet_vis.h
 * copies up to 4 of them in the client, the library's leaf loops the
 * rest): an optional level contiguous on both sides (it folds into the
 * piece), then a level of `a` pieces and one of `b` that continues it on
 * both sides (its strides `a` times the first one's), or on one side only
 * (the library's walk); the levels in a random order, so the foldable one
 * is not always first. A third of the rounds move the same elements as
 * vector lists, a third as indexed lists (the library takes lists that
 * step evenly on both sides as strided rows). */
#define ROW_MAX 96 /* 3 x 6 x 5 elements at most */
static void row_round(int put, int form) {
  static const size_t lens[] = {1, 3, 8, 16, 64, 100, 512};
  size_t len, cnt[3];
  ptrdiff_t rs[3], ls[3];
  long bases[2], extent[2], low[2];
  do { /* drawn again until both sides fit in AREA */
    len = lens[rnd(0, sizeof lens / sizeof lens[0] - 1)];
    size_t fold = rnd(0, 1) ? rnd(2, 3) : 1, piece = len * fold;
    size_t a = rnd(1, 6), b = rnd(1, 5);
    ptrdiff_t rstep = (ptrdiff_t)(piece + rnd(0, piece));
    ptrdiff_t lstep = (ptrdiff_t)(piece + rnd(0, 2 * piece));
    if (rnd(0, 3) == 0) rstep = -rstep;
    if (rnd(0, 3) == 0) lstep = -lstep;
    size_t c3[3] = {fold, a, b};
    ptrdiff_t r3[3] = {(ptrdiff_t)len, rstep, rstep * (ptrdiff_t)a};
    ptrdiff_t l3[3] = {(ptrdiff_t)len, lstep, lstep * (ptrdiff_t)a};
    if (fold == 1 && rnd(0, 1)) r3[0] = 7; /* a count of 1: its stride is anything */
    int broken = (int)rnd(0, 3); /* 1: the remote side does not continue, 2: the local side */
    if (broken == 1) r3[2] += rstep < 0 ? -(ptrdiff_t)piece : (ptrdiff_t)piece;
    if (broken == 2) l3[2] += lstep < 0 ? -(ptrdiff_t)piece : (ptrdiff_t)piece;
    size_t ord[3] = {0, 1, 2};
    if (rnd(0, 3) == 0) { /* another order of the levels */
      size_t j = rnd(0, 2), t = ord[0];
      ord[0] = ord[j];
      ord[j] = t;
    }
    for (size_t i = 0; i < 3; ++i) {
      cnt[i] = c3[ord[i]];
      rs[i] = r3[ord[i]];
      ls[i] = l3[ord[i]];
    }
    for (int side = 0; side < 2; ++side) {
      const ptrdiff_t *st = side ? ls : rs;
      long lo = 0, hi = (long)len;
      for (size_t i = 0; i < 3; ++i) {
        long span = st[i] * (long)(cnt[i] - 1);
        if (span < 0)
          lo += span;
        else
          hi += span;
      }
      extent[side] = hi - lo;
      low[side] = lo;
    }
  } while (extent[0] >= AREA || extent[1] >= AREA);
  for (int side = 0; side < 2; ++side)
    bases[side] = -low[side] + (long)rnd(0, AREA - 1 - (uint64_t)extent[side]);
  size_t nb = strided_offsets(put ? offs_d : offs_s, bases[0], rs, len, cnt, 3);
  strided_offsets(put ? offs_s : offs_d, bases[1], ls, len, cnt, 3);
  gex_RMA_GetBlocking(tm, image, peer, remote, AREA, 0);
  model(put, nb);
  void *r = remote + bases[0], *l = local + bases[1];
  /* The same elements as vector and indexed lists, in transfer order (the
   * library takes lists that step evenly on both sides as strided rows). */
  static gex_Memvec_t rv[ROW_MAX], lv[ROW_MAX];
  static void *ri[ROW_MAX], *li[ROW_MAX];
  size_t k = nb / len;
  CHECK(k <= ROW_MAX, "row of %zu elements", k);
  for (size_t i = 0; i < k; ++i) {
    ri[i] = rv[i].gex_addr = remote + (put ? offs_d : offs_s)[i * len];
    li[i] = lv[i].gex_addr = local + (put ? offs_s : offs_d)[i * len];
    rv[i].gex_len = lv[i].gex_len = len;
  }
  int kind = (int)rnd(0, 2); /* strided, vector, indexed */
  gex_Event_t e = GEX_EVENT_INVALID;
  if (put) {
    if (kind == 0) {
      if (form == 0) gex_VIS_StridedPutBlocking(tm, peer, r, rs, l, ls, len, cnt, 3, 0);
      if (form == 1) e = gex_VIS_StridedPutNB(tm, peer, r, rs, l, ls, len, cnt, 3, 0);
      if (form == 2) gex_VIS_StridedPutNBI(tm, peer, r, rs, l, ls, len, cnt, 3, 0);
    } else if (kind == 1) {
      if (form == 0) gex_VIS_VectorPutBlocking(tm, peer, k, rv, k, lv, 0);
      if (form == 1) e = gex_VIS_VectorPutNB(tm, peer, k, rv, k, lv, 0);
      if (form == 2) gex_VIS_VectorPutNBI(tm, peer, k, rv, k, lv, 0);
    } else {
      if (form == 0) gex_VIS_IndexedPutBlocking(tm, peer, k, ri, len, k, li, len, 0);
      if (form == 1) e = gex_VIS_IndexedPutNB(tm, peer, k, ri, len, k, li, len, 0);
      if (form == 2) gex_VIS_IndexedPutNBI(tm, peer, k, ri, len, k, li, len, 0);
    }
  } else {
    if (kind == 0) {
      if (form == 0) gex_VIS_StridedGetBlocking(tm, l, ls, peer, r, rs, len, cnt, 3, 0);
      if (form == 1) e = gex_VIS_StridedGetNB(tm, l, ls, peer, r, rs, len, cnt, 3, 0);
      if (form == 2) gex_VIS_StridedGetNBI(tm, l, ls, peer, r, rs, len, cnt, 3, 0);
    } else if (kind == 1) {
      if (form == 0) gex_VIS_VectorGetBlocking(tm, k, lv, peer, k, rv, 0);
      if (form == 1) e = gex_VIS_VectorGetNB(tm, k, lv, peer, k, rv, 0);
      if (form == 2) gex_VIS_VectorGetNBI(tm, k, lv, peer, k, rv, 0);
    } else {
      if (form == 0) gex_VIS_IndexedGetBlocking(tm, k, li, len, peer, k, ri, len, 0);
      if (form == 1) e = gex_VIS_IndexedGetNB(tm, k, li, len, peer, k, ri, len, 0);
      if (form == 2) gex_VIS_IndexedGetNBI(tm, k, li, len, peer, k, ri, len, 0);
    }
  }
  if (form == 1) gex_Event_Wait(e);
  if (form == 2) sync_nbi(put);
  verify(put ? "row put" : "row get");
}

/* ---- peer completion on one-piece puts ---- */
#define PC_LEN 64
static unsigned char big_out[BIG], big_in[BIG];

/* One piece of each size near the largest Medium payload (a packed
 * message's limit) and past it, as a vector, an indexed and a contiguous
 * strided put, each read back whole, then got back by a vector get. */
static void big_round(void) {
  size_t m = gex_AM_MaxRequestMedium(tm, peer, GEX_EVENT_NOW, 0, 0);
  size_t sizes[] = {m - 64, m - 9, m - 1, m, m + 1, 2 * m + 3, BIG - 8};
  unsigned char *rbig = remote + 2 * AREA;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    size_t nb = sizes[i];
    if (nb + 8 > BIG) continue;
    for (int form = 0; form < 3; ++form) {
      for (size_t j = 0; j < BIG; ++j) big_out[j] = (unsigned char)(j * 7 + nb + (size_t)form);
      memset(big_in, 0xA5, BIG);
      gex_RMA_PutBlocking(tm, peer, rbig, big_in, BIG, 0); /* a known background */
      if (form == 0) {
        gex_Memvec_t r = {rbig + 8, nb}, l = {big_out + 3, nb};
        gex_VIS_VectorPutBlocking(tm, peer, 1, &r, 1, &l, 0);
      } else if (form == 1) {
        void *rl[1] = {rbig + 8}, *ll[1] = {big_out + 3};
        gex_VIS_IndexedPutBlocking(tm, peer, 1, rl, nb, 1, ll, nb, 0);
      } else {
        size_t cnt[1] = {nb}; /* nb one-byte elements one after another: contiguous */
        ptrdiff_t st[1] = {1};
        gex_VIS_StridedPutBlocking(tm, peer, rbig + 8, st, big_out + 3, st, 1, cnt, 1, 0);
      }
      gex_RMA_GetBlocking(tm, big_in, peer, rbig, BIG, 0);
      size_t bad = (size_t)-1;
      for (size_t j = 0; j < BIG && bad == (size_t)-1; ++j) {
        unsigned char want = j >= 8 && j < 8 + nb ? big_out[j - 8 + 3] : 0xA5;
        if (big_in[j] != want) bad = j;
      }
      CHECK(bad == (size_t)-1, "big piece put (form %d, %zu bytes): remote byte %zu is %u", form,
            nb, bad, bad == (size_t)-1 ? 0u : big_in[bad]);
      memset(big_in, 0x5A, BIG);
      gex_Memvec_t r = {rbig + 8, nb}, l = {big_in + 5, nb};
      gex_VIS_VectorGetBlocking(tm, 1, &l, peer, 1, &r, 0);
      bad = (size_t)-1;
      for (size_t j = 0; j < BIG && bad == (size_t)-1; ++j) {
        unsigned char want = j >= 5 && j < 5 + nb ? big_out[j - 5 + 3] : 0x5A;
        if (big_in[j] != want) bad = j;
      }
      CHECK(bad == (size_t)-1, "big piece get (%zu bytes): local byte %zu is %u", nb, bad,
            bad == (size_t)-1 ? 0u : big_in[bad]);
    }
  }
}

/* Gets of 16 to 48 KiB of separate 512-byte pieces, issued back to back
 * (NBI) and synced once: over the network each is one packed request whose
 * target gathers the pieces straight into its reply, and replies up to the
 * bundling limit leave together. Every byte of the local region is checked:
 * the pieces and the gaps between them that must not change. */
static void burst_get_round(void) {
  static const size_t pieces[] = {32, 40, 64, 96}; /* 16, 20, 32, 48 KiB */
  const size_t len = 512;
  ptrdiff_t rs[1] = {1024}, ls[1] = {768};
  unsigned char *rbig = remote + 2 * AREA;
  for (size_t j = 0; j < BIG; ++j) big_out[j] = (unsigned char)(j * 13 + (j >> 9) + 1);
  gex_RMA_PutBlocking(tm, peer, rbig, big_out, BIG, 0);
  memset(big_in, 0x3C, BIG);
  size_t roff = 0, loff = 0;
  for (size_t g = 0; g < sizeof pieces / sizeof pieces[0]; ++g) {
    size_t cnt[1] = {pieces[g]};
    gex_VIS_StridedGetNBI(tm, big_in + loff, ls, peer, rbig + roff, rs, len, cnt, 1, 0);
    roff += pieces[g] * (size_t)rs[0];
    loff += pieces[g] * (size_t)ls[0];
  }
  gex_NBI_Wait(GEX_EC_GET, 0);
  roff = loff = 0;
  for (size_t g = 0; g < sizeof pieces / sizeof pieces[0]; ++g) {
    for (size_t k = 0; k < pieces[g] * (size_t)ls[0]; ++k) {
      size_t at = loff + k, piece = k / (size_t)ls[0], in = k % (size_t)ls[0];
      unsigned char want = in < len ? big_out[roff + piece * (size_t)rs[0] + in] : 0x3C;
      CHECK(big_in[at] == want, "burst get %zu (%zu pieces): local byte %zu is %u, not %u", g,
            pieces[g], at, big_in[at], want);
    }
    roff += pieces[g] * (size_t)rs[0];
    loff += pieces[g] * (size_t)ls[0];
  }
  for (size_t at = loff; at < BIG; ++at)
    CHECK(big_in[at] == 0x3C, "burst gets: local byte %zu past them is %u", at, big_in[at]);
}

static volatile int pc_runs;
static volatile int pc_bad;
static volatile uint32_t pc_tag;

/* The put before this completion wrote PC_LEN bytes of value (tag & 0xff)
 * at the start of our segment (our left neighbour's puts land there). */
static void pc_handler(gex_Token_t t, void *buf, size_t nbytes) {
  (void)t;
  uint32_t tag;
  if (nbytes != sizeof tag) {
    pc_bad = 1;
    return;
  }
  memcpy(&tag, buf, sizeof tag);
  pc_tag = tag;
  ++pc_runs;
}

static unsigned char *my_seg;

static void pc_round(gex_EP_t ep) {
  gex_AM_Entry_t e = {
      0, (gex_AM_Fn_t)pc_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "vischeck_pc"};
  CHECK(gex_EP_RegisterHandlers(ep, &e, 1) == GASNET_OK, "register the peer completion handler");
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  int sent = 0;
  for (int kind = 0; kind < 3; ++kind) {
    for (int armed = 0; armed < 2; ++armed) {
      uint32_t tag = (uint32_t)(me * 16 + kind * 2 + armed + 1);
      memset(local, (int)(tag & 0xff), PC_LEN);
      if (armed) gex_VIS_SetPeerCompletionHandler(e.gex_index, &tag, sizeof tag, 0);
      gex_Memvec_t dv = {remote, PC_LEN}, sv = {local, PC_LEN};
      void *dl = remote, *sl = local;
      size_t cnt[1] = {1};
      ptrdiff_t st[1] = {PC_LEN};
      if (kind == 0) gex_VIS_VectorPutBlocking(tm, peer, 1, &dv, 1, &sv, 0);
      if (kind == 1) gex_VIS_IndexedPutBlocking(tm, peer, 1, &dl, PC_LEN, 1, &sl, PC_LEN, 0);
      if (kind == 2) gex_VIS_StridedPutBlocking(tm, peer, remote, st, local, st, PC_LEN, cnt, 1, 0);
      sent += armed;
      /* Wait for this rank's own handler runs to catch up with its left
       * neighbour's puts (each rank does the same steps). */
      time_t t0 = time(NULL);
      while (pc_runs < sent && time(NULL) - t0 < 30) gasnet_AMPoll();
      CHECK(pc_runs >= sent, "peer completion %d: %d handler runs after %d armed puts (30 s)", kind,
            pc_runs, sent);
      if (armed) {
        uint32_t want = (uint32_t)(((me + n - 1) % n) * 16 + kind * 2 + armed + 1);
        CHECK(pc_tag == want, "peer completion %d: payload %u, expected %u", kind, pc_tag, want);
        for (int b = 0; b < PC_LEN; ++b)
          CHECK(my_seg[b] == (want & 0xff),
                "peer completion %d: byte %d of the put is %u when the handler ran, expected %u",
                kind, b, my_seg[b], want & 0xff);
      }
      gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
      gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
      CHECK(pc_runs == sent, "after %d armed puts the handler ran %d times", sent, pc_runs);
      /* Nobody arms the next put before every rank has counted. */
      gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
      gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    }
  }
  CHECK(!pc_bad, "a peer completion payload had the wrong size");
}

/* `vischeck gathered`: one strided put and one strided get of 1000 pieces
 * of 8 bytes, 8 bytes apart on the remote side (no two of them adjacent),
 * contiguous locally, each checked byte by byte. The job test reads how
 * many RMA operations they took from the conduit's exit note (ofi with
 * GASNET_VIS_AMPIPE=0: several remote ranges per operation). */
#define GATHER_PIECES 1000
static void gathered_round(void) {
  ptrdiff_t rs[1] = {16}, ls[1] = {8};
  size_t cnt[1] = {GATHER_PIECES};
  size_t nb = strided_offsets(offs_d, 0, rs, 8, cnt, 1);
  strided_offsets(offs_s, 0, ls, 8, cnt, 1);
  reset(424242);
  model(1, nb);
  gex_VIS_StridedPutBlocking(tm, peer, remote, rs, local, ls, 8, cnt, 1, 0);
  verify("gathered strided put");
  reset(434343); /* image: the remote area before the get */
  strided_offsets(offs_d, 0, ls, 8, cnt, 1);
  strided_offsets(offs_s, 0, rs, 8, cnt, 1);
  model(0, nb);
  gex_VIS_StridedGetBlocking(tm, local, ls, peer, remote, rs, 8, cnt, 1, 0);
  verify("gathered strided get");
}

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  const char *misuse = argc > 1 && (argv[1][0] < '0' || argv[1][0] > '9') ? argv[1] : NULL;
  int rounds = argc > 1 && !misuse ? atoi(argv[1]) : 200;
  gasnet_attach(NULL, 0, 2 * AREA + BIG, 0);
  me = gasnet_mynode();
  n = gasnet_nodes();
  check_rank = me;
  peer = (me + 1) % n;
  gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
  setvbuf(stdout, NULL, _IOLBF, 0);
  gasnet_seginfo_t *seg = calloc(n, sizeof *seg);
  gasnet_getSegmentInfo(seg, (int)n);
  remote = seg[peer].addr;
  rng += me * 1000003u;
  if (misuse && !strcmp(misuse, "gathered")) {
    gathered_round();
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    printf("vischeck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
    free(seg);
    gasnet_exit(0);
  }
  if (misuse) {
    if (!strcmp(misuse, "overlap")) { /* two elements onto the same destination bytes */
      ptrdiff_t ds[1] = {0}, ss[1] = {8};
      size_t cnt[1] = {2};
      gex_VIS_StridedPutBlocking(tm, peer, remote, ds, local, ss, 8, cnt, 1, 0);
    } else if (!strcmp(misuse, "overlap2")) { /* two pieces, the second inside the first */
      gex_Memvec_t dv[2] = {{remote, 8}, {remote + 4, 8}}, sv[2] = {{local, 8}, {local + 8, 8}};
      gex_VIS_VectorPutNBI(tm, peer, 2, dv, 2, sv, 0);
    } else if (!strcmp(misuse, "outside2")) { /* a second piece past the segment's end */
      void *dl[2] = {remote, remote + 2 * AREA + BIG}, *sl[2] = {local, local + 8};
      gex_VIS_IndexedPutBlocking(tm, peer, 2, dl, 8, 2, sl, 8, 0);
    } else if (!strcmp(misuse, "overflow")) {
      void *list[1] = {remote};
      gex_VIS_IndexedPutBlocking(tm, peer, SIZE_MAX / 2, list, 4, 1, list, 4, 0);
    } else if (!strcmp(misuse, "soverflow")) { /* contiguous levels whose bytes overflow */
      ptrdiff_t st[2] = {8, 16};
      size_t cnt[2] = {2, ((size_t)1 << 60) + 1}; /* 16 x that wraps to 16 */
      gex_VIS_StridedPutBlocking(tm, peer, remote, st, local, st, 8, cnt, 2, 0);
    } else if (!strcmp(misuse, "pcindex")) {
      gex_VIS_SetPeerCompletionHandler(5, NULL, 0, 0);
    }
    printf("vischeck: misuse '%s' was not caught\n", misuse);
    gasnet_exit(2);
  }
  /* Only rank r writes into rank r+1's segment: no waiting until the end. */
  for (int i = 0; i < rounds; ++i) {
    for (int put = 0; put < 2; ++put) {
      reset((uint64_t)i * 4 + (uint64_t)put);
      strided_round(put, i % 6);
      reset((uint64_t)i * 4 + 2);
      vector_round(put, i % 6);
      reset((uint64_t)i * 4 + 3);
      indexed_round(put, i % 6);
      reset((uint64_t)i * 4 + 1);
      few_round(put, i % 3);
      reset((uint64_t)i * 4 + 5);
      row_round(put, i % 3);
    }
  }
  big_round();
  burst_get_round();
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  my_seg = seg[me].addr;
  gex_EP_t ep;
  gasnet_QueryGexObjects(NULL, &ep, NULL, NULL);
  pc_round(ep);
  printf("vischeck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  free(seg);
  gasnet_exit(0);
  return 0;
}
