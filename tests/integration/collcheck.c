/* collcheck: teams and the EX collectives, with the data checked.
 *
 *   collcheck [big_bytes]    (default 300000: more than one Medium payload)
 *
 * Teams: a grid's row and column teams (gex_TM_Split, overlapping), the
 * job reversed by key, a split of the row team by parity (nested), the
 * even job ranks (gex_TM_Create), gex_TM_Pair; rank maps checked both ways, with
 * GEX_FLAG_RANK_IS_JOBRANK, and puts and AMs through the sub-teams. Then on
 * every team: barriers; broadcasts from every root, small and large;
 * every built-in type x operation reduced to one and to all; GEX_OP_USER
 * and GEX_OP_USER_NC on GEX_DT_USER (a non-commutative concatenation whose
 * order is checked); many collectives in flight on several teams at once,
 * waited for in a scrambled order; gex_TM_Destroy with its scratch handed
 * back. Large broadcasts and reductions from sources in the segment
 * (read in place on a host), the root overwriting its source at completion.
 * Built GASNET_PAR (collcheck_par), two threads per rank also run
 * collectives on two different teams at once.
 * Each rank prints "collcheck rank R of N: PASS (K checks)" or "FAIL: ...".
 */
#include <gasnetex.h>
#include <gasnet_coll.h>

#include "check.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef GASNET_PAR
#include <pthread.h>
#endif

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t world;
static gex_Rank_t me, n;
static size_t big = 300000;
static unsigned char *seg;

#define SEGSZ (4u << 20)
#define AM_HIDX 200

/* ---- teams ---- */

static gex_TM_t row_tm, col_tm, rev_tm, par_tm, even_tm;
static gex_Rank_t ncols, myrow, mycol;
static char scratch_row[64], scratch_even[64];

static void check_map(gex_TM_t tm, const char *what, gex_Rank_t size, gex_Rank_t rank,
                      const gex_Rank_t *members) {
  CHECK(gex_TM_QuerySize(tm) == size, "%s: size %u, expected %u", what, gex_TM_QuerySize(tm), size);
  CHECK(gex_TM_QueryRank(tm) == rank, "%s: rank %u, expected %u", what, gex_TM_QueryRank(tm), rank);
  CHECK(gex_TM_QueryClient(tm) == client && gex_TM_QueryEP(tm) == ep, "%s: client or ep", what);
  for (gex_Rank_t r = 0; r < size; ++r) {
    CHECK(gex_TM_TranslateRankToJobrank(tm, r) == members[r], "%s: rank %u -> job %u, expected %u",
          what, r, gex_TM_TranslateRankToJobrank(tm, r), members[r]);
    CHECK(gex_TM_TranslateJobrankToRank(tm, members[r]) == r, "%s: job %u -> rank", what,
          members[r]);
    gex_EP_Location_t loc = gex_TM_TranslateRankToEP(tm, r, 0);
    CHECK(loc.gex_rank == members[r] && loc.gex_ep_index == 0, "%s: TranslateRankToEP(%u)", what,
          r);
    loc = gex_TM_TranslateRankToEP(tm, members[r], GEX_FLAG_RANK_IS_JOBRANK);
    CHECK(loc.gex_rank == members[r], "%s: TranslateRankToEP(job %u, RANK_IS_JOBRANK)", what,
          members[r]);
  }
  for (gex_Rank_t j = 0; j < n; ++j) {
    int in = 0;
    for (gex_Rank_t r = 0; r < size; ++r) in |= members[r] == j;
    if (!in)
      CHECK(gex_TM_TranslateJobrankToRank(tm, j) == GEX_RANK_INVALID, "%s: job %u is not a member",
            what, j);
  }
}

static void make_teams(void) {
  /* A grid of about sqrt(n) columns. */
  ncols = 1;
  while ((ncols + 1) * (ncols + 1) <= n) ++ncols;
  myrow = me / ncols;
  mycol = me % ncols;
  gex_Rank_t members[64];

  CHECK(gex_TM_Split(&row_tm, world, (int)myrow, (int)mycol, NULL, 0,
                     GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 4096,
        "the scratch query asks for one page (clients take 0 as a failed query)");
  CHECK(gex_TM_Split(NULL, world, 0, 1, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_MIN) == 0,
        "a scratch query that joins no team (null new_tm_p) gets 0");
  gex_TM_t before = row_tm;
  CHECK(gex_TM_Split(&row_tm, world, (int)myrow, (int)mycol, scratch_row, sizeof scratch_row,
                     GEX_FLAG_TM_LOCAL_SCRATCH) == 0,
        "split returns 0");
  CHECK(row_tm != before && row_tm != GEX_TM_INVALID, "row team made");
  gex_Rank_t rowsize = 0;
  for (gex_Rank_t j = myrow * ncols; j < n && j < (myrow + 1) * ncols; ++j) members[rowsize++] = j;
  check_map(row_tm, "row team", rowsize, mycol, members);

  /* Keys in reverse: column members ordered by descending row. */
  gex_TM_Split(&col_tm, world, (int)mycol, -(int)myrow, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  gex_Rank_t colsize = 0, colrank = 0;
  for (gex_Rank_t j = n; j-- > 0;) {
    if (j % ncols != mycol) continue;
    if (j == me) colrank = colsize;
    members[colsize++] = j;
  }
  check_map(col_tm, "column team", colsize, colrank, members);

  /* Every rank, the same key: parent order (here reversed by the first split). */
  gex_TM_t mid;
  gex_TM_Split(&mid, world, 7, (int)(n - me), NULL, 0, 0);
  gex_TM_Split(&rev_tm, mid, 3, 0, NULL, 0, 0);
  for (gex_Rank_t r = 0; r < n; ++r) members[r] = n - 1 - r;
  check_map(rev_tm, "reversed team", n, n - 1 - me, members);
  CHECK(gex_TM_Destroy(mid, NULL, 0) == 0, "destroy without scratch returns 0");

  /* Nested: the row team by parity of the column; odd ones pass a null new_tm_p. */
  gex_TM_t keep = row_tm;
  par_tm = keep;
  gex_TM_Split((mycol & 1) ? NULL : &par_tm, row_tm, 0, 0, NULL, 0, 0);
  if (mycol & 1) {
    CHECK(par_tm == keep, "a null new_tm_p leaves the caller's variable alone");
    par_tm = GEX_TM_INVALID;
  } else {
    gex_Rank_t s = 0;
    for (gex_Rank_t c = 0; c < rowsize; c += 2) members[s++] = myrow * ncols + c;
    check_map(par_tm, "even columns of the row", s, mycol / 2, members);
  }
  /* Negative color: no team. */
  gex_TM_t none = world;
  gex_TM_Split(&none, world, -1, 0, NULL, 0, 0);
  CHECK(none == GEX_TM_INVALID, "a negative color gives GEX_TM_INVALID");

  /* gex_TM_Create: the even job ranks. */
  gex_Rank_t ne = (n + 1) / 2;
  gex_EP_Location_t locs[64];
  for (gex_Rank_t i = 0; i < ne; ++i) {
    locs[i].gex_rank = 2 * i;
    locs[i].gex_ep_index = 0;
    members[i] = 2 * i;
  }
  CHECK(gex_TM_Create(NULL, 1, world, NULL, (me & 1) ? 0 : ne, NULL, 0,
                      GEX_FLAG_TM_SCRATCH_SIZE_MIN) == ((me & 1) ? 0u : 4096u),
        "create's scratch query (a page for a member, 0 for a caller not in the team)");
  even_tm = world;
  gex_Addr_t sa = scratch_even;
  gex_TM_Create(&even_tm, 1, world, (me & 1) ? NULL : locs, (me & 1) ? 0 : ne, &sa,
                sizeof scratch_even, 0);
  if (me & 1) {
    CHECK(even_tm == world, "a non-member's variable is left alone");
    even_tm = GEX_TM_INVALID;
  } else {
    check_map(even_tm, "even team", ne, me / 2, members);
  }
  gex_TM_SetCData(row_tm, &row_tm);
  CHECK(gex_TM_QueryCData(row_tm) == &row_tm && gex_TM_QueryCData(world) != &row_tm,
        "CData is per team");
}

/* ---- point-to-point through a sub-team ---- */

static volatile int am_seen;
static void am_handler(gex_Token_t token, gex_AM_Arg_t from) {
  gex_Token_Info_t info;
  gex_Token_Info(token, &info, GEX_TI_SRCRANK);
  CHECK((gex_Rank_t)from == info.gex_srcrank, "AM source %u, the token says %u", (unsigned)from,
        info.gex_srcrank);
  __atomic_fetch_add(&am_seen, 1, __ATOMIC_SEQ_CST);
}

static void point_to_point(void) {
  /* Put my job rank into my right neighbour's slot in the reversed team. */
  gex_Rank_t r = gex_TM_QueryRank(rev_tm), right = (r + 1) % n;
  gex_Rank_t right_job = gex_TM_TranslateRankToJobrank(rev_tm, right);
  void *dest;
  gex_Segment_QueryBound(rev_tm, right, &dest, NULL, NULL);
  gex_RMA_PutBlocking(rev_tm, right, (char *)dest + 8 * me, &me, sizeof me, 0);
  gex_Segment_QueryBound(world, right_job, &dest, NULL, NULL);
  gex_RMA_PutBlocking(rev_tm, right_job, (char *)dest + 8 * me + 4, &me, sizeof me,
                      GEX_FLAG_RANK_IS_JOBRANK);
  gex_AM_RequestShort1(row_tm, (mycol + 1) % gex_TM_QuerySize(row_tm), AM_HIDX, 0,
                       (gex_AM_Arg_t)me);
  gex_Coll_BarrierBlocking(rev_tm, 0);
  gex_Rank_t left_job = gex_TM_TranslateRankToJobrank(rev_tm, (r + n - 1) % n);
  gex_Rank_t got[2];
  memcpy(got, seg + 8 * left_job, sizeof got);
  CHECK(got[0] == left_job && got[1] == left_job, "puts through the reversed team: %u %u, not %u",
        got[0], got[1], left_job);
  while (__atomic_load_n(&am_seen, __ATOMIC_SEQ_CST) < 1) gasnet_AMPoll();
  gex_Coll_BarrierBlocking(world, 0);

  /* gex_TM_Pair(ep, 0): a team whose ranks are job ranks, for a put to the
   * left neighbour's last word. */
  gex_TM_t pair = gex_TM_Pair(ep, 0);
  gex_Rank_t left = (me + n - 1) % n;
  CHECK(gex_TM_TranslateRankToJobrank(pair, left) == left, "pair team: rank %u is job rank %u",
        left, gex_TM_TranslateRankToJobrank(pair, left));
  uint64_t word = 0xC0FFEE0000ull + me, seen;
  gex_Segment_QueryBound(pair, left, &dest, NULL, NULL);
  gex_RMA_PutBlocking(pair, left, (char *)dest + SEGSZ - 8, &word, sizeof word, 0);
  gex_Coll_BarrierBlocking(world, 0);
  memcpy(&seen, seg + SEGSZ - 8, sizeof seen);
  CHECK(seen == 0xC0FFEE0000ull + (me + 1) % n, "put through gex_TM_Pair: %llx",
        (unsigned long long)seen);
  gex_Coll_BarrierBlocking(world, 0);
}

/* ---- collectives ---- */

static void barriers(gex_TM_t tm) {
  for (int i = 0; i < 20; ++i) gex_Coll_BarrierBlocking(tm, 0);
  gex_Event_t ev[8];
  for (int i = 0; i < 8; ++i) ev[i] = gex_Coll_BarrierNB(tm, 0);
  gex_Event_WaitAll(ev, 8, 0);
}

static void broadcasts(gex_TM_t tm, uint64_t salt) {
  gex_Rank_t size = gex_TM_QuerySize(tm), rank = gex_TM_QueryRank(tm);
  unsigned char *src = malloc(big), *dst = malloc(big);
  size_t sizes[3] = {8, 1000, big};
  for (int s = 0; s < 3; ++s) {
    for (gex_Rank_t root = 0; root < size; ++root) {
      uint64_t seed = salt * 1000 + root * 10 + s;
      if (rank == root) fill(src, sizes[s], seed);
      memset(dst, 0xEE, sizes[s]);
      gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, dst, src, sizes[s], 0));
      size_t bad = first_bad(dst, sizes[s], seed);
      CHECK(bad == (size_t)-1, "broadcast of %zu bytes from root %u on a team of %u: byte %zu",
            sizes[s], root, size, bad);
    }
  }
  free(src);
  free(dst);
}

/* One element's value at a rank, for a type and an operation: small enough
 * that products and sums stay exact. */
static double value(gex_Rank_t r, size_t i, gex_OP_t op) {
  if (op == GEX_OP_MULT) return (double)(1 + (r + i) % 3);
  if (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR)
    return (double)((r * 7 + i * 13) & 0xFF) + 256.0 * (double)((r + i) & 0x3);
  return (double)((int)((r * 37 + i * 11) % 101) - 50);
}

static double expected(gex_Rank_t size, size_t i, gex_OP_t op, int is_unsigned) {
  double acc = value(0, i, op);
  long bits = (long)acc;
  for (gex_Rank_t r = 1; r < size; ++r) {
    double v = value(r, i, op);
    switch (op) {
      case GEX_OP_ADD:
        acc += v;
        break;
      case GEX_OP_MULT:
        acc *= v;
        break;
      case GEX_OP_MIN:
        if (is_unsigned ? (uint64_t)(int64_t)v < (uint64_t)(int64_t)acc : v < acc) acc = v;
        break;
      case GEX_OP_MAX:
        if (is_unsigned ? (uint64_t)(int64_t)v > (uint64_t)(int64_t)acc : v > acc) acc = v;
        break;
      case GEX_OP_AND:
        bits &= (long)v;
        break;
      case GEX_OP_OR:
        bits |= (long)v;
        break;
      case GEX_OP_XOR:
        bits ^= (long)v;
        break;
    }
  }
  if (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR) return (double)bits;
  return acc;
}

#define NELEM 37
#define NOPS 7
static const gex_OP_t ops[NOPS] = {GEX_OP_AND,  GEX_OP_OR,  GEX_OP_XOR, GEX_OP_ADD,
                                   GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX};

#define REDUCE_TYPE(T, DT, IS_FLOAT, IS_UNSIGNED)                                                 \
  for (int o = 0; o < NOPS; ++o) {                                                                \
    gex_OP_t op = ops[o];                                                                         \
    if ((IS_FLOAT) && (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR)) continue;        \
    if (op == GEX_OP_MULT && size > 20) continue;                                                 \
    T src[NELEM], dst[NELEM];                                                                     \
    for (size_t i = 0; i < NELEM; ++i) {                                                          \
      src[i] = (T)(int64_t)value(rank, i, op);                                                    \
      dst[i] = (T)99;                                                                             \
    }                                                                                             \
    gex_Rank_t root = (gex_Rank_t)(o % size);                                                     \
    for (int all = 0; all < 2; ++all) {                                                           \
      if (all)                                                                                    \
        gex_Event_Wait(                                                                           \
            gex_Coll_ReduceToAllNB(tm, dst, src, DT, sizeof(T), NELEM, op, NULL, NULL, 0));       \
      else                                                                                        \
        gex_Event_Wait(                                                                           \
            gex_Coll_ReduceToOneNB(tm, root, dst, src, DT, sizeof(T), NELEM, op, NULL, NULL, 0)); \
      if (all || rank == root) {                                                                  \
        for (size_t i = 0; i < NELEM; ++i) {                                                      \
          T want = (T)(int64_t)expected(size, i, op, IS_UNSIGNED);                                \
          CHECK(dst[i] == want, "%s %s op 0x%x element %zu on a team of %u: %g, expected %g",     \
                all ? "ReduceToAll" : "ReduceToOne", #DT, (unsigned)op, i, size, (double)dst[i],  \
                (double)want);                                                                    \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }

static void reductions(gex_TM_t tm) {
  gex_Rank_t size = gex_TM_QuerySize(tm), rank = gex_TM_QueryRank(tm);
  REDUCE_TYPE(int32_t, GEX_DT_I32, 0, 0)
  REDUCE_TYPE(uint32_t, GEX_DT_U32, 0, 1)
  REDUCE_TYPE(int64_t, GEX_DT_I64, 0, 0)
  REDUCE_TYPE(uint64_t, GEX_DT_U64, 0, 1)
  REDUCE_TYPE(float, GEX_DT_FLT, 1, 0)
  REDUCE_TYPE(double, GEX_DT_DBL, 1, 0)
}

/* GEX_OP_USER_NC on strings: out = arg2 . arg1 with arg1 from the lower
 * ranks, so the result lists the ranks from highest to lowest. */
#define STRW 72
static void concat(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  size_t w = (size_t)(uintptr_t)cdata;
  for (size_t i = 0; i < count; ++i) {
    char tmp[4 * STRW];
    char *y = (char *)arg2_and_out + i * w;
    const char *x = (const char *)arg1 + i * w;
    snprintf(tmp, sizeof tmp, "%s%s", y, x);
    memcpy(y, tmp, w);
    y[w - 1] = 0;
  }
}
static void add_u64(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  CHECK(cdata == (void *)&add_u64, "the reduction's cdata is passed through");
  const uint64_t *a = arg1;
  uint64_t *b = arg2_and_out;
  for (size_t i = 0; i < count; ++i) b[i] += a[i];
}

/* GEX_OP_USER_NC on affine maps x -> a x + b (two u64, mod 2^64):
 * out = arg1 o arg2, arg1 from the lower ranks. Associative, and order
 * matters: the result is f_0 o f_1 o ... o f_{n-1} only in rank order. */
static void compose(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  (void)cdata;
  const uint64_t *l = arg1;
  uint64_t *r = arg2_and_out;
  for (size_t i = 0; i < count; ++i) {
    uint64_t a = l[2 * i] * r[2 * i], b = l[2 * i] * r[2 * i + 1] + l[2 * i + 1];
    r[2 * i] = a;
    r[2 * i + 1] = b;
  }
}
static uint64_t map_a(gex_Rank_t r, size_t i) {
  return 2 * (uint64_t)r + 3 + i;
}
static uint64_t map_b(gex_Rank_t r, size_t i) {
  return (uint64_t)r * 1000 + 7 * i + 1;
}

/* Elements larger than an AM Medium payload: byte-wise sums mod 256. */
#define HUGE_ELEM 100003
static void add_bytes(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  const unsigned char *a = arg1;
  unsigned char *b = arg2_and_out;
  for (size_t i = 0; i < count * (size_t)(uintptr_t)cdata; ++i) b[i] = (unsigned char)(a[i] + b[i]);
}

static void user_reductions(gex_TM_t tm) {
  gex_Rank_t size = gex_TM_QuerySize(tm), rank = gex_TM_QueryRank(tm);
  if (size > 64) return;
  enum { K = 5 };
  char src[K][STRW], dst[K][STRW];
  memset(src, 0, sizeof src);
  for (int k = 0; k < K; ++k) snprintf(src[k], STRW, "%c", 'A' + (rank + k) % 26);
  for (gex_Rank_t root = 0; root < size; root += (size > 3 ? size / 3 : 1)) {
    memset(dst, 0, sizeof dst);
    gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, dst, src, GEX_DT_USER, STRW, K, GEX_OP_USER_NC,
                                          concat, (void *)(uintptr_t)STRW, 0));
    if (rank == root) {
      for (int k = 0; k < K; ++k) {
        for (gex_Rank_t i = 0; i < size; ++i) {
          char want = (char)('A' + ((size - 1 - i) + k) % 26);
          CHECK(dst[k][i] == want, "USER_NC to root %u: element %d is \"%s\"", root, k, dst[k]);
        }
      }
    }
  }
  memset(dst, 0, sizeof dst);
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, dst, src, GEX_DT_USER, STRW, K, GEX_OP_USER_NC, concat,
                                        (void *)(uintptr_t)STRW, 0));
  for (int k = 0; k < K; ++k)
    CHECK(strlen(dst[k]) == size && dst[k][0] == (char)('A' + ((size - 1) + k) % 26) &&
              dst[k][size - 1] == (char)('A' + k % 26),
          "USER_NC to all: element %d is \"%s\"", k, dst[k]);
  /* GEX_OP_USER on a built-in type, large: several chunks. */
  size_t cnt = big / 8;
  uint64_t *a = malloc(cnt * 8), *b = malloc(cnt * 8);
  for (size_t i = 0; i < cnt; ++i) a[i] = rank * 1000003ull + i;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, b, a, GEX_DT_U64, 8, cnt, GEX_OP_USER, add_u64,
                                        (void *)&add_u64, 0));
  for (size_t i = 0; i < cnt; ++i) {
    uint64_t want = 1000003ull * size * (size - 1) / 2 + (uint64_t)size * i;
    CHECK(b[i] == want, "USER add of %zu u64 to all: element %zu is %llu, expected %llu", cnt, i,
          (unsigned long long)b[i], (unsigned long long)want);
  }
  /* GEX_DT_USER elements bigger than one message, to a root that is not 0. */
  {
    size_t bytes = 3 * (size_t)HUGE_ELEM;
    unsigned char *x = malloc(bytes), *y = malloc(bytes);
    for (size_t i = 0; i < bytes; ++i) x[i] = (unsigned char)(rank * 3 + i);
    gex_Rank_t root = size - 1;
    gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, y, x, GEX_DT_USER, HUGE_ELEM, 3, GEX_OP_USER,
                                          add_bytes, (void *)(uintptr_t)HUGE_ELEM, 0));
    if (rank == root) {
      for (size_t i = 0; i < bytes; ++i) {
        unsigned want = (unsigned)(3 * (size * (size - 1) / 2) + size * i) & 0xFF;
        CHECK(y[i] == want, "huge USER element byte %zu: %u, expected %u", i, y[i], want);
      }
    }
    free(x);
    free(y);
  }
  /* In place (src == dst): MAX, and ADD (every member's own value must
   * count once, though the destination it is folded into is its source). */
  for (size_t i = 0; i < cnt; ++i) a[i] = i + rank;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, a, a, GEX_DT_U64, 8, cnt, GEX_OP_MAX, NULL, NULL, 0));
  for (size_t i = 0; i < cnt; i += 97)
    CHECK(a[i] == i + size - 1, "in-place MAX element %zu: %llu", i, (unsigned long long)a[i]);
  for (size_t i = 0; i < cnt; ++i) a[i] = (i << 8) + rank + 1;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, a, a, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
  for (size_t i = 0; i < cnt; i += 89) {
    uint64_t want = (uint64_t)size * (i << 8) + (uint64_t)size * (size + 1) / 2;
    CHECK(a[i] == want, "in-place ADD element %zu: %llu, expected %llu", i,
          (unsigned long long)a[i], (unsigned long long)want);
  }
  /* In place with a client operation (which writes its output before it
   * has read every input when they share memory). */
  for (size_t i = 0; i < cnt; ++i) a[i] = (i << 8) + rank + 1;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, a, a, GEX_DT_U64, 8, cnt, GEX_OP_USER, add_u64,
                                        (void *)&add_u64, 0));
  for (size_t i = 0; i < cnt; i += 89) {
    uint64_t want = (uint64_t)size * (i << 8) + (uint64_t)size * (size + 1) / 2;
    CHECK(a[i] == want, "in-place USER add element %zu: %llu, expected %llu", i,
          (unsigned long long)a[i], (unsigned long long)want);
  }
  for (size_t i = 0; i < cnt; ++i) a[i] = (i << 8) + rank + 1;
  gex_Event_Wait(
      gex_Coll_ReduceToOneNB(tm, size - 1, a, a, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
  for (size_t i = 0; i < cnt && rank == size - 1; i += 89) {
    uint64_t want = (uint64_t)size * (i << 8) + (uint64_t)size * (size + 1) / 2;
    CHECK(a[i] == want, "in-place ADD to one, element %zu: %llu, expected %llu", i,
          (unsigned long long)a[i], (unsigned long long)want);
  }
  free(a);
  free(b);
}

/* Many collectives in flight on several teams, waited for out of order. */
static void concurrent(void) {
  enum { M = 6 };
  gex_TM_t teams[4] = {world, row_tm, col_tm, rev_tm};
  gex_Event_t ev[4][3 * M];
  uint64_t in[4][M], sum[4][M], bc[4][M], mx[4][M];
  for (int t = 0; t < 4; ++t) {
    gex_Rank_t rank = gex_TM_QueryRank(teams[t]), size = gex_TM_QuerySize(teams[t]);
    for (int i = 0; i < M; ++i) {
      in[t][i] = rank + 100u * i + 7u * t;
      ev[t][3 * i] = gex_Coll_ReduceToAllNB(teams[t], &sum[t][i], &in[t][i], GEX_DT_U64, 8, 1,
                                            GEX_OP_ADD, NULL, NULL, 0);
      ev[t][3 * i + 1] =
          gex_Coll_BroadcastNB(teams[t], (gex_Rank_t)(i % size), &bc[t][i], &in[t][i], 8, 0);
      ev[t][3 * i + 2] =
          gex_Coll_ReduceToOneNB(teams[t], (gex_Rank_t)((i + 1) % size), &mx[t][i], &in[t][i],
                                 GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL, NULL, 0);
    }
  }
  for (int k = 0; k < 3 * M; ++k) /* 7 and 3 * M are coprime: a permutation */
    for (int t = 3; t >= 0; --t) gex_Event_Wait(ev[t][(k * 7) % (3 * M)]);
  for (int t = 0; t < 4; ++t) {
    gex_Rank_t rank = gex_TM_QueryRank(teams[t]), size = gex_TM_QuerySize(teams[t]);
    for (int i = 0; i < M; ++i) {
      uint64_t base = 100u * i + 7u * t;
      CHECK(sum[t][i] == size * base + (uint64_t)size * (size - 1) / 2,
            "concurrent sum team %d op %d", t, i);
      CHECK(bc[t][i] == base + (uint64_t)(i % size), "concurrent broadcast team %d op %d", t, i);
      if (rank == (gex_Rank_t)((i + 1) % size))
        CHECK(mx[t][i] == base + size - 1, "concurrent max team %d op %d", t, i);
    }
  }
}

/* Large collectives whose sources lie in the segment (a host-phase team
 * reads such a source in place, from the poster's segment): broadcasts from
 * every root whose root overwrites its source as soon as its call
 * completes (a reader still copying would see that), reduce-to-all and
 * reduce-to-one from the segment into private memory, in place, and with
 * the destination overlapping the source by one element. Not run by the
 * PAR threads (they share the segment). */
static void in_segment(gex_TM_t tm, uint64_t salt) {
  gex_Rank_t size = gex_TM_QuerySize(tm), rank = gex_TM_QueryRank(tm);
  size_t len = big < SEGSZ / 3 ? big : SEGSZ / 3;
  unsigned char *src = seg, *dst = seg + len, *priv = malloc(len);
  for (gex_Rank_t root = 0; root < size; ++root) {
    uint64_t seed = salt * 1000 + root * 10 + 7;
    for (int into_seg = 0; into_seg < 2; ++into_seg) {
      unsigned char *to = into_seg ? dst : priv;
      if (rank == root) fill(src, len, seed);
      memset(to, 0xEE, len);
      gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, to, src, len, 0));
      if (rank == root) memset(src, 0xCC, len);
      size_t bad = first_bad(to, len, seed);
      CHECK(bad == (size_t)-1,
            "broadcast of %zu bytes from the segment (root %u, team of %u, into %s): byte %zu", len,
            root, size, into_seg ? "the segment" : "private memory", bad);
      gex_Coll_BarrierBlocking(tm, 0);
    }
  }
  size_t cnt = len / 8;
  uint64_t *a = (uint64_t *)src, *b = (uint64_t *)priv;
  for (int form = 0; form < 3; ++form) {
    /* 0: to all into private memory; 1: to one (a root in the middle), into
     * the segment; 2: to all in place (the source is the destination). */
    gex_Rank_t root = size / 2;
    uint64_t *out = form == 2 ? a : form == 1 ? (uint64_t *)dst : b;
    for (size_t i = 0; i < cnt; ++i) a[i] = (i << 8) + rank + 1;
    if (form == 1)
      gex_Event_Wait(
          gex_Coll_ReduceToOneNB(tm, root, out, a, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
    else
      gex_Event_Wait(
          gex_Coll_ReduceToAllNB(tm, out, a, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
    size_t wrong = 0, first = 0;
    if (form == 1 && rank != root) { /* its source, unchanged */
      for (size_t i = 0; i < cnt; ++i)
        if (a[i] != (i << 8) + rank + 1 && wrong++ == 0) first = i;
    }
    /* The source is the client's again: a member still reading it would
     * fold this. */
    if (form != 2) memset(a, 0xCC, cnt * 8);
    for (size_t i = 0; i < cnt && !(form == 1 && rank != root); ++i) {
      uint64_t want = (uint64_t)size * (i << 8) + (uint64_t)size * (size + 1) / 2;
      if (out[i] != want && wrong++ == 0) first = i;
    }
    CHECK(wrong == 0,
          "ADD of %zu u64 from the segment (form %d, team of %u, rank %u): %zu elements wrong, "
          "the first %zu",
          cnt, form, size, rank, wrong, first);
    gex_Coll_BarrierBlocking(tm, 0); /* before the sources are written again */
  }
  /* Sources in the segment on even ranks and in private memory on odd
   * ones (the members read in place and those that give their slices
   * through their buffers in one reduction): to all into private memory,
   * then to one whose root reduces in place (its destination is its
   * source). Each member overwrites its source as its call completes. */
  uint64_t *own = malloc(cnt * 8);
  for (int form = 0; form < 2; ++form) {
    gex_Rank_t root = size - 1;
    uint64_t *from = rank % 2 ? own : a;
    uint64_t *out = form == 1 && rank == root ? from : b;
    for (size_t i = 0; i < cnt; ++i) from[i] = (i << 8) + rank + 1;
    if (form == 0)
      gex_Event_Wait(
          gex_Coll_ReduceToAllNB(tm, out, from, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
    else
      gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, out, from, GEX_DT_U64, 8, cnt, GEX_OP_ADD,
                                            NULL, NULL, 0));
    if (out != from) memset(from, 0xCC, cnt * 8);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < cnt && (form == 0 || rank == root); ++i) {
      uint64_t want = (uint64_t)size * (i << 8) + (uint64_t)size * (size + 1) / 2;
      if (out[i] != want && wrong++ == 0) first = i;
    }
    CHECK(wrong == 0,
          "ADD of %zu u64, sources in the segment on even ranks (%s, team of %u, rank %u): %zu "
          "elements wrong, the first %zu",
          cnt, form ? "to one in place" : "to all", size, rank, wrong, first);
    gex_Coll_BarrierBlocking(tm, 0);
  }
  free(own);
  /* A non-commutative client operation, large, from the segment: the
   * members' values combined in rank order (slice by slice on 3 or more). */
  size_t maps = len / 16;
  for (size_t i = 0; i < maps; ++i) {
    a[2 * i] = map_a(rank, i);
    a[2 * i + 1] = map_b(rank, i);
  }
  gex_Event_Wait(
      gex_Coll_ReduceToAllNB(tm, b, a, GEX_DT_USER, 16, maps, GEX_OP_USER_NC, compose, NULL, 0));
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < maps; ++i) {
    uint64_t wa = 1, wb = 0; /* the identity, then o f_r for r = 0, 1, ... */
    for (gex_Rank_t r = 0; r < size; ++r) {
      wb = wa * map_b(r, i) + wb;
      wa = wa * map_a(r, i);
    }
    if ((b[2 * i] != wa || b[2 * i + 1] != wb) && wrong++ == 0) first = i;
  }
  CHECK(wrong == 0,
        "USER_NC composition of %zu maps from the segment (team of %u): %zu wrong, the "
        "first %zu",
        maps, size, wrong, first);
  gex_Coll_BarrierBlocking(tm, 0);
  free(priv);
}

/* A reduce-to-one of 3 MiB from the segment on the job team: members fold
 * it in slices over more rounds than their buffers hold, so a member waits
 * for the root between rounds; each member overwrites its source as soon
 * as its call completes (a member still folding from it would fold that). */
static void long_reduce(void) {
  size_t cnt = (3u << 20) / 8;
  uint64_t *a = (uint64_t *)seg, *out = malloc(cnt * 8);
  for (int r = 0; r < 2; ++r) {
    gex_Rank_t root = r ? n - 1 : 0;
    for (size_t i = 0; i < cnt; ++i) a[i] = (i << 8) + me + 1;
    gex_Event_Wait(
        gex_Coll_ReduceToOneNB(world, root, out, a, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
    memset(a, 0xCC, cnt * 8);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < cnt && me == root; ++i) {
      uint64_t want = (uint64_t)n * (i << 8) + (uint64_t)n * (n + 1) / 2;
      if (out[i] != want && wrong++ == 0) first = i;
    }
    CHECK(wrong == 0,
          "ADD of %zu u64 (3 MiB) to root %u from the segment: %zu elements wrong, the "
          "first %zu",
          cnt, root, wrong, first);
    gex_Coll_BarrierBlocking(world, 0);
  }
  free(out);
}

static void all_collectives(gex_TM_t tm, uint64_t salt) {
  barriers(tm);
  broadcasts(tm, salt);
  reductions(tm);
  user_reductions(tm);
}

#ifdef GASNET_PAR
static void *thread_main(void *arg) {
  gex_TM_t tm = *(gex_TM_t *)arg;
  for (int i = 0; i < 3; ++i) all_collectives(tm, 50 + i);
  return NULL;
}
#endif

static void destroy_teams(void) {
  gex_Memvec_t sv;
  CHECK(gex_TM_Destroy(row_tm, &sv, 0) != 0 && sv.gex_addr == scratch_row &&
            sv.gex_len == sizeof scratch_row,
        "row team's scratch handed back");
  if (even_tm != GEX_TM_INVALID) {
    gex_Coll_BarrierBlocking(even_tm, 0);
    CHECK(gex_TM_Destroy(even_tm, &sv, GEX_FLAG_GLOBALLY_QUIESCED) != 0 &&
              sv.gex_addr == scratch_even && sv.gex_len == sizeof scratch_even,
          "even team's scratch handed back");
  }
  if (par_tm != GEX_TM_INVALID) CHECK(gex_TM_Destroy(par_tm, NULL, 0) == 0, "destroy");
  CHECK(gex_TM_Destroy(col_tm, &sv, 0) == 0 && sv.gex_addr == NULL, "no scratch");
  CHECK(gex_TM_Destroy(rev_tm, NULL, 0) == 0, "destroy");
}

/* `collcheck <misuse>`: a wrong call that must stop the job with a message
 * naming the call and the value (jobtests.py checks the message). */
static void misuse(const char *what) {
  gex_Segment_t segment;
  gex_Segment_Attach(&segment, world, SEGSZ);
  int32_t a[4] = {1, 2, 3, 4}, b[4];
  float f[4] = {0}, g[4];
  if (!strcmp(what, "badroot")) {
    gex_Event_Wait(gex_Coll_BroadcastNB(world, n + 3, b, a, sizeof a, 0));
  } else if (!strcmp(what, "badop")) {
    gex_Event_Wait(
        gex_Coll_ReduceToAllNB(world, b, a, GEX_DT_I32, 4, 4, GEX_OP_FADD, NULL, NULL, 0));
  } else if (!strcmp(what, "floatxor")) {
    gex_Event_Wait(
        gex_Coll_ReduceToAllNB(world, g, f, GEX_DT_FLT, 4, 4, GEX_OP_XOR, NULL, NULL, 0));
  } else if (!strcmp(what, "mismatch")) {
    gex_Event_Wait(gex_Coll_BroadcastNB(world, me % 2, b, a, sizeof a, 0));
    gex_Event_Wait(gex_Coll_BroadcastNB(world, 0, b, a, sizeof a, 0));
  } else if (!strcmp(what, "badsize")) {
    gex_Event_Wait(
        gex_Coll_ReduceToAllNB(world, b, a, GEX_DT_I32, 8, 2, GEX_OP_ADD, NULL, NULL, 0));
  } else if (!strcmp(what, "badtype")) {
    gex_Event_Wait(
        gex_Coll_ReduceToOneNB(world, 0, b, a, (gex_DT_t)0x4000, 4, 4, GEX_OP_ADD, NULL, NULL, 0));
  } else if (!strcmp(what, "mismatchsize")) {
    gex_Event_Wait(gex_Coll_BroadcastNB(world, 0, b, a, me ? 8 : sizeof a, 0));
  } else if (!strcmp(what, "mismatchkind")) {
    if (me == 0)
      gex_Event_Wait(gex_Coll_BroadcastNB(world, 0, b, a, sizeof a, 0));
    else
      gex_Event_Wait(
          gex_Coll_ReduceToAllNB(world, b, a, GEX_DT_I32, 4, 4, GEX_OP_ADD, NULL, NULL, 0));
  } else if (!strcmp(what, "badteam")) {
    gex_Event_Wait(gex_Coll_BroadcastNB(GEX_TM_INVALID, 0, b, a, sizeof a, 0));
  }
  gex_Coll_BarrierBlocking(world, 0); /* a rank that got past waits here for the fatal one */
  printf("collcheck: misuse %s was not caught\n", what);
  fflush(stdout);
  gasnet_exit(1);
}

int main(int argc, char **argv) {
  gex_Client_Init(&client, &ep, &world, "collcheck", &argc, &argv, 0);
  me = gex_TM_QueryRank(world);
  n = gex_TM_QuerySize(world);
  check_rank = me;
  if (argc > 1 && argv[1][0] >= 'a' && argv[1][0] <= 'z') misuse(argv[1]);
  if (argc > 1) big = strtoul(argv[1], NULL, 10);
  CHECK(n <= 64, "at most 64 ranks");
  gex_Segment_t segment;
  gex_Segment_Attach(&segment, world, SEGSZ);
  seg = gex_Segment_QueryAddr(segment);
  gex_AM_Entry_t entry = {
      AM_HIDX,    (gex_AM_Fn_t)am_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL,
      "collcheck"};
  gex_EP_RegisterHandlers(ep, &entry, 1);

  make_teams();
  point_to_point();
  gex_TM_t teams[6] = {world, row_tm, col_tm, rev_tm, par_tm, even_tm};
  for (int t = 0; t < 6; ++t)
    if (teams[t] != GEX_TM_INVALID) {
      all_collectives(teams[t], (uint64_t)t);
      in_segment(teams[t], (uint64_t)t);
    }
  long_reduce();
  for (int rep = 0; rep < 5; ++rep) concurrent();
#ifdef GASNET_PAR
  pthread_t th[2];
  pthread_create(&th[0], NULL, thread_main, &row_tm);
  pthread_create(&th[1], NULL, thread_main, &col_tm);
  pthread_join(th[0], NULL);
  pthread_join(th[1], NULL);
#endif
  gex_Coll_BarrierBlocking(world, 0);
  destroy_teams();
  gex_Coll_BarrierBlocking(world, 0);
  printf("collcheck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  fflush(stdout);
  gasnet_exit(0);
  return 0;
}
