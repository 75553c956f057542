/* inlinerma: the same-host put and get compiled into the client
 * (include/gexx_inline_rma.h).
 *
 *   inlinerma EXPECT       every EX and GASNet-1 put/get form (blocking, NB,
 *                          NBI, value; sizes 1 to 4096 bytes) toward the next
 *                          rank and toward itself, the data checked on both
 *                          sides. EXPECT says what the exported table must
 *                          show: "mapped" (every peer's row filled, as on
 *                          smp), "unmapped" (only this rank's own row: the
 *                          ofi conduit with GASNET_SUPERNODE_MAXSIZE=1, the
 *                          other peers through the library) or "off" (no
 *                          table: puts or gets traced, or a GASNET_DEBUG
 *                          build, whose forms are library calls).
 *   inlinerma events       5 gex_Event_Test and 3 gex_Event_Wait of
 *                          GEX_EVENT_INVALID and 4 gasnet_AMPoll() on each
 *                          rank ("events-traced": S is traced, and
 *                          gexx_sync_traced must say so).
 *   inlinerma oob          rank 0 puts 8 bytes that end past rank 1's segment
 *                          with gex_RMA_PutBlocking: the library stops the job.
 *
 * Prints "inlinerma rank R of N: PASS (C checks)" (R's form: check.h). */
#include <gasnetex.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SEG (1u << 20)
#define AREA 8192 /* each writer's own area in a target's segment */

static gex_TM_t tm;
static gex_Rank_t me, n;

static void *seg_of(gex_Rank_t r) {
  void *owner = 0;
  CHECK(gex_Segment_QueryBound(tm, r, &owner, 0, 0) == GASNET_OK, "QueryBound(%u)", r);
  return owner;
}

#if GEXX_INLINE_RMA
/* ABI 1's object, as a client built against that header sees it: its
 * `peers` must stay null, which sends such a client to the library. */
extern struct gexx_rma_inline_v1_s {
  void *peers;
  gex_TM_t job_tm;
  uint32_t npeers;
  uint32_t abi;
} gexx_rma_inline;
#endif

static void check_table(const char *expect, gex_Rank_t peer) {
#if GEXX_INLINE_RMA
  CHECK(gexx_rma_inline.peers == 0 && gexx_rma_inline.abi == 1,
        "ABI 1's table: peers %p, abi %u (an old client would read it)", gexx_rma_inline.peers,
        gexx_rma_inline.abi);
  gexx_rma_peer_t *t = gexx_rma_fast.peers;
  CHECK(gexx_rma_fast.abi == GEXX_RMA_INLINE_ABI, "abi %u", gexx_rma_fast.abi);
  /* The words every inline call reads sit in the last 64 bytes of a page
   * (away from the start of a page, where a put's copy most often stores
   * just before them), and so do the rows' end. */
  CHECK((uintptr_t)&gexx_rma_fast % GEXX_RMA_FAST_PAGE == 0, "gexx_rma_fast at %p, not a page",
        (void *)&gexx_rma_fast);
  CHECK((uintptr_t)&gexx_rma_fast.peers % GEXX_RMA_FAST_PAGE == GEXX_RMA_FAST_PAGE - 64,
        "gexx_rma_fast.peers at page offset %lu",
        (unsigned long)((uintptr_t)&gexx_rma_fast.peers % GEXX_RMA_FAST_PAGE));
  CHECK(gexx_rma_fast.copy_isa == gexx_copy_isa_(), "copy_isa %u, this CPU %u",
        gexx_rma_fast.copy_isa, gexx_copy_isa_());
  if (!strcmp(expect, "off")) {
    CHECK(t == 0, "the table is published although puts/gets are traced");
    return;
  }
  CHECK(t != 0, "no table after attach");
  CHECK((uintptr_t)(t + n) % GEXX_RMA_FAST_PAGE == GEXX_RMA_FAST_PAGE - 64,
        "the rows end at page offset %lu",
        (unsigned long)((uintptr_t)(t + n) % GEXX_RMA_FAST_PAGE));
  CHECK(gexx_rma_fast.npeers == n, "npeers %u", gexx_rma_fast.npeers);
  CHECK(gexx_rma_fast.job_tm == tm, "job_tm");
  for (gex_Rank_t r = 0; r < n; ++r) {
    void *owner = 0, *local = 0;
    uintptr_t size = 0;
    gex_Segment_QueryBound(tm, r, &owner, &local, &size);
    int want_mapped = r == me || !strcmp(expect, "mapped");
    if (want_mapped) {
      CHECK(t[r].size == size && t[r].owner_base == (uintptr_t)owner && t[r].local == local,
            "row %u does not match QueryBound", r);
    } else {
      CHECK(local == 0 && t[r].size == 0, "row %u: mapped (local %p, size %lu)", r, local,
            (unsigned long)t[r].size);
    }
  }
  (void)peer;
#else
  /* A GASNET_DEBUG build: every form is the library's function. */
  CHECK(!strcmp(expect, "off"), "inline forms off, but expected '%s'", expect);
  (void)peer;
#endif
}

/* Every form toward `to`, into this rank's area of its segment. */
static void exercise(gex_Rank_t to, uint64_t seed) {
  static const size_t sizes[] = {1, 2, 3, 4, 7, 8, 16, 64, 1000, 1024, 4096};
  unsigned char *area = (unsigned char *)seg_of(to) + (size_t)me * AREA;
  unsigned char src[4096], back[4096];
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    size_t len = sizes[k];
    for (int form = 0; form < 6; ++form) {
      uint64_t s = seed * 131 + k * 7 + (uint64_t)form;
      fill(src, len, s);
      memset(back, 0, len);
      gex_Event_t e;
      switch (form) {
        case 0:
          gex_RMA_PutBlocking(tm, to, area, src, len, 0);
          gex_RMA_GetBlocking(tm, back, to, area, len, 0);
          break;
        case 1:
          gex_RMA_PutNBI(tm, to, area, src, len, GEX_EVENT_NOW, 0);
          gex_NBI_Wait(GEX_EC_PUT, 0);
          gex_RMA_GetNBI(tm, back, to, area, len, 0);
          gex_NBI_Wait(GEX_EC_GET, 0);
          break;
        case 2:
          e = gex_RMA_PutNB(tm, to, area, src, len, GEX_EVENT_DEFER, 0);
          gex_Event_Wait(e);
          e = gex_RMA_GetNB(tm, back, to, area, len, 0);
          gex_Event_Wait(e);
          break;
        case 3:
          gasnet_put(to, area, src, len);
          gasnet_get(back, to, area, len);
          break;
        case 4:
          gasnet_put_bulk(to, area, src, len);
          gasnet_get_bulk(back, to, area, len);
          break;
        default: { /* a put through the team with the job-rank flag */
          gex_RMA_PutBlocking(tm, to, area, src, len, GEX_FLAG_RANK_IS_JOBRANK);
          gex_RMA_GetBlocking(tm, back, to, area, len, GEX_FLAG_RANK_IS_JOBRANK);
          break;
        }
      }
      size_t bad = first_bad(back, len, s);
      CHECK(bad == (size_t)-1, "form %d, %zu bytes to rank %u: byte %zu read back wrong", form, len,
            to, bad);
    }
  }
  /* Value forms: every size 1-8, the low-order bytes of the value. */
  for (size_t len = 1; len <= 8; ++len) {
    gex_RMA_Value_t v = (gex_RMA_Value_t)(0x1122334455667788ull + seed + len);
    gex_RMA_Value_t mask = len == 8 ? ~(gex_RMA_Value_t)0 : (((gex_RMA_Value_t)1 << (8 * len)) - 1);
    gex_RMA_PutBlockingVal(tm, to, area + 16, v, len, 0);
    CHECK(gex_RMA_GetBlockingVal(tm, to, area + 16, len, 0) == (v & mask), "Val %zu bytes", len);
    gex_RMA_PutNBIVal(tm, to, area + 32, v + 1, len, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_Event_Wait(gex_RMA_PutNBVal(tm, to, area + 48, v + 2, len, 0));
    CHECK(gex_RMA_GetBlockingVal(tm, to, area + 32, len, 0) == ((v + 1) & mask), "NBIVal");
    CHECK(gex_RMA_GetBlockingVal(tm, to, area + 48, len, 0) == ((v + 2) & mask), "NBVal");
    gasnet_put_val(to, area + 64, v + 3, len);
    CHECK(gasnet_get_val(to, area + 64, len) == ((v + 3) & mask), "gasnet_put_val %zu", len);
    /* The bytes as the owner sees them (little-endian: the low-order ones first). */
    gex_RMA_Value_t raw = 0;
    gex_RMA_GetBlocking(tm, &raw, to, area + 16, len, 0);
    CHECK(raw == (v & mask), "Val %zu bytes: memory holds %lx", len, (unsigned long)raw);
  }
  /* The last blocking put, left for the owner to check: 100 bytes. */
  fill(src, 100, seed + 999);
  gex_RMA_PutBlocking(tm, to, area + 4096, src, 100, 0);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t seg;
  CHECK(gex_Client_Init(&client, &ep, &tm, "inlinerma", &argc, &argv, 0) == GASNET_OK, "init");
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  check_rank = me;
  const char *mode = argc > 1 ? argv[1] : "mapped";
  CHECK(n * AREA <= SEG / 2, "too many ranks");
#if GEXX_INLINE_RMA
  CHECK(gexx_rma_fast.peers == 0, "a table before attach");
#endif
  CHECK(gex_Segment_Attach(&seg, tm, SEG) == GASNET_OK, "attach");
  gex_Rank_t next = (me + 1) % n;

  if (!strcmp(mode, "oob")) {
    if (me == 0 && n > 1) {
      uintptr_t size = 0;
      void *owner = 0;
      gex_Segment_QueryBound(tm, 1, &owner, 0, &size);
      uint64_t x = 42;
      gex_RMA_PutBlocking(tm, 1, (char *)owner + size - 4, &x, 8, 0);
      printf("inlinerma: the out-of-segment put was not caught\n");
      fflush(stdout);
    }
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
  }

  if (!strcmp(mode, "events") || !strcmp(mode, "events-traced")) {
    /* Exactly 5 tests and 3 waits of GEX_EVENT_INVALID (what a same-host
     * put or atomic returns) and 4 gasnet_AMPoll(): inline or not, each is a
     * line of the trace when S and X are traced (jobtests.py counts them). */
#if GEXX_INLINE_RMA
    unsigned want = !strcmp(mode, "events-traced");
    CHECK(__atomic_load_n(&gexx_rma_fast.sync_traced, __ATOMIC_RELAXED) == want,
          "gexx_rma_fast.sync_traced is %u", gexx_rma_fast.sync_traced);
    CHECK(__atomic_load_n(&gexx_sync_traced, __ATOMIC_RELAXED) == want, "gexx_sync_traced is %u",
          gexx_sync_traced); /* ABI 1's word, for clients built against it */
#endif
    for (int i = 0; i < 5; ++i)
      CHECK(gex_Event_Test(GEX_EVENT_INVALID) == GASNET_OK, "test %d of GEX_EVENT_INVALID", i);
    for (int i = 0; i < 3; ++i) gex_Event_Wait(GEX_EVENT_INVALID);
    for (int i = 0; i < 4; ++i) CHECK(gasnet_AMPoll() == GASNET_OK, "gasnet_AMPoll");
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    printf("inlinerma rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
    fflush(stdout);
    gasnet_exit(0);
  }

  check_table(mode, next);
  exercise(next, 1000 + me);
  exercise(me, 2000 + me); /* a put to self */
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  /* What the previous rank and this rank itself left in this segment. */
  gex_Rank_t prev = (me + n - 1) % n;
  unsigned char *mine = (unsigned char *)seg_of(me);
  size_t bad;
  if (n > 1) { /* with one rank, the put to self wrote over it */
    bad = first_bad(mine + (size_t)prev * AREA + 4096, 100, 1000 + prev + 999);
    CHECK(bad == (size_t)-1, "the put of rank %u: byte %zu wrong", prev, bad);
  }
  bad = first_bad(mine + (size_t)me * AREA + 4096, 100, 2000 + me + 999);
  CHECK(bad == (size_t)-1, "the put to self: byte %zu wrong", bad);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  printf("inlinerma rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  fflush(stdout);
  gasnet_exit(0);
  return 0;
}
