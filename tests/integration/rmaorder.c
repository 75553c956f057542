/* rmaorder: GASNet's memory model for blocking puts, under contention.
 *
 * The ranks pass a lock around a ring with blocking puts and gets only, as
 * GASNet's testacc does: the holder reads a shared record, writes the next
 * one, then puts the lock to the next rank. A rank that sees the lock must
 * see the record its predecessor wrote, so every record read is the one the
 * ring's order predicts. It fails when a blocking put's stores can become
 * visible after a later put's (seen with glibc's memmove on an AMD EPYC: see
 * src/util/copy.hpp), about once in 10^5 rounds there.
 *
 * The record (8192 bytes) is read and written in turn in the sizes given,
 * by default 4 (the value forms), 8, 16, 40, 64, 1024 and 2048 bytes: the
 * first `size` bytes in one put, the rest in a second one. Every size up to
 * 8192 moves through include/gexx_copy.h's ordinary-store paths (one load
 * and store; overlapping 16-byte vectors; the 32-byte AVX2 and 64-byte
 * AVX-512 loops), none fenced.
 *
 *   rmaorder [rounds] [size,size,...]    (default 1000000 rounds per rank)
 * The lock is spun on with blocking gets alone (each polls when it must).
 */
#include <gasnetex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define RECORD_WORDS 2048

typedef struct {
  uint32_t seq[RECORD_WORDS];
} record_t;

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  CHECK(gex_Client_Init(&client, &ep, &tm, "rmaorder", &argc, &argv, 0) == GASNET_OK, "init");
  CHECK(gex_Segment_Attach(&seg, tm, 1 << 16) == GASNET_OK, "attach");
  long rounds = argc > 1 ? atol(argv[1]) : 1000000;
  size_t sizes[16], nsizes = 0;
  {
    const char *spec = argc > 2 ? argv[2] : "4,8,16,40,64,1024,2048";
    for (char *end; *spec && nsizes < 16; spec = *end ? end + 1 : end) {
      sizes[nsizes] = strtoul(spec, &end, 10);
      CHECK(end != spec && sizes[nsizes] >= 4 && sizes[nsizes] % 4 == 0 &&
                sizes[nsizes] <= sizeof(record_t),
            "bad size list %s", argv[2]);
      ++nsizes;
    }
  }
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  check_rank = me;
  CHECK(n >= 2, "rmaorder needs 2 or more ranks");
  void *base0, *baseN;
  CHECK(gex_Segment_QueryBound(tm, 0, &base0, NULL, NULL) == GASNET_OK, "bound 0");
  CHECK(gex_Segment_QueryBound(tm, n - 1, &baseN, NULL, NULL) == GASNET_OK, "bound n-1");
  uint32_t *lock = (uint32_t *)base0;    /* on rank 0 */
  record_t *rec = (record_t *)baseN + 1; /* on the last rank */
  if (me == 0) *lock = 0;
  if (me == n - 1) memset(rec, 0, sizeof *rec);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

  long bad = 0;
  uint32_t expect = me; /* the ring's count when this rank holds the lock */
  for (long i = 0; i < rounds; ++i, expect += n) {
    /* A blocking get polls when it must. After many misses the holder is
     * likely not running (a loaded host): give it the core instead of
     * spinning out the time slice; the handover itself is untouched. */
    for (unsigned misses = 0; gex_RMA_GetBlockingVal(tm, 0, lock, sizeof *lock, 0) != me;)
      if (++misses % 4096 == 0) sched_yield();
    static record_t r;
    size_t len = sizes[i % nsizes];
    if (len > sizeof r) __builtin_unreachable(); /* checked above; tells the compiler */
    uint32_t got;
    if (len == 4) {
      got = (uint32_t)gex_RMA_GetBlockingVal(tm, n - 1, rec, 4, 0);
    } else {
      gex_RMA_GetBlocking(tm, &r, n - 1, rec, len, 0);
      got = r.seq[0];
      for (size_t k = 1; k < len / 4; ++k) /* one holder wrote them all */
        if (r.seq[k] != got && bad++ < 5)
          printf("rmaorder rank %u: round %ld: torn record (word %zu is %u, word 0 %u)\n", me, i, k,
                 r.seq[k], got);
    }
    /* The whole record, in two puts: the first len bytes (a value put for
     * 4), then the rest. */
    for (size_t k = 0; k < RECORD_WORDS; ++k) r.seq[k] = expect + 1;
    if (len == 4)
      gex_RMA_PutBlockingVal(tm, n - 1, rec, expect + 1, 4, 0);
    else
      gex_RMA_PutBlocking(tm, n - 1, rec, &r, len, 0);
    if (len < sizeof r)
      gex_RMA_PutBlocking(tm, n - 1, (char *)rec + len, &r.seq[len / 4], sizeof r - len, 0);
    gex_RMA_PutBlockingVal(tm, 0, lock, (me + 1) % n, sizeof *lock, 0);
    if (got != expect && bad++ < 5)
      printf("rmaorder rank %u: round %ld: read %u, expected %u (a put seen after the lock)\n", me,
             i, got, expect);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == n - 1)
    CHECK(rec->seq[0] == (uint32_t)(rounds * n), "final record %u, expected %ld", rec->seq[0],
          rounds * n);
  printf("rmaorder rank %u of %u: %s (%ld rounds, %ld bad)\n", me, n, bad ? "FAIL" : "PASS", rounds,
         bad);
  gasnet_exit(bad ? 1 : 0);
  return 0;
}
