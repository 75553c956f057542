/* fadd_bench: remote fetch-and-add (gex_AD_OpNB_U64 GEX_OP_FADD) toward one
 * word of rank 0's segment. Prints figures only.
 *
 *   gasnetrun -n N fadd_bench [reps]      (default 20000)
 *
 * 1. Latency: rank 1 (rank 0 alone in a one-rank job) issues FADDs one at
 *    a time, each waited for before the next, while the others wait in a
 *    barrier; the average per operation.
 * 2. Throughput: every rank hammers the word at once, `reps` FADDs each in
 *    windows of 64 outstanding NB operations; operations per second over
 *    the whole job (total operations / slowest rank's time).
 * The word's final value is checked (a wrong sum ends with status 1).
 * On smp (or pshm) the word is mapped and each FADD is a CPU atomic; on the
 * ofi conduit with GASNET_SUPERNODE_MAXSIZE=1 it travels to rank 0.
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnet.h>
#include <gasnet_ratomic.h>
#include <gasnet_tools.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOW 64

static double now_ns(void) {
  return (double)gasnett_ticks_to_ns(gasnett_ticks_now());
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gex_Client_Init(&client, &ep, &tm, "fadd_bench", &argc, &argv, 0);
  gex_Segment_Attach(&seg, tm, 1 << 16);
  long reps = argc > 1 ? atol(argv[1]) : 20000;
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  uint64_t *word;
  gex_Segment_QueryBound(tm, 0, (void **)&word, NULL, NULL);
  gex_AD_t ad;
  gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
  if (me == 0) gex_AD_OpBlocking_U64(ad, NULL, 0, word, GEX_OP_SET, 0, 0, 0);
  gex_Coll_BarrierBlocking(tm, 0);

  gex_Rank_t timer = n > 1 ? 1 : 0;
  uint64_t fetched = 0, issued = 0;
  if (me == timer) {
    for (long i = 0; i < reps / 10; ++i) /* warm-up */
      gex_Event_Wait(gex_AD_OpNB_U64(ad, &fetched, 0, word, GEX_OP_FADD, 1, 0, 0));
    double t0 = now_ns();
    for (long i = 0; i < reps; ++i)
      gex_Event_Wait(gex_AD_OpNB_U64(ad, &fetched, 0, word, GEX_OP_FADD, 1, 0, 0));
    double t1 = now_ns();
    issued += reps + reps / 10;
    printf("fadd_bench: %u rank(s), latency of one FADD toward rank 0: %.3f us\n", n,
           (t1 - t0) / reps / 1000.0);
  }
  gex_Coll_BarrierBlocking(tm, 0);

  static uint64_t results[WINDOW];
  gex_Event_t events[WINDOW];
  double t0 = now_ns();
  for (long i = 0; i < reps; i += WINDOW) {
    long k = reps - i < WINDOW ? reps - i : WINDOW;
    for (long j = 0; j < k; ++j)
      events[j] = gex_AD_OpNB_U64(ad, &results[j], 0, word, GEX_OP_FADD, 1, 0, 0);
    gex_Event_WaitAll(events, (size_t)k, 0);
  }
  double mine = now_ns() - t0;
  issued += reps;
  /* The slowest rank's time: each rank puts its own into rank 0's segment. */
  double *times;
  gex_Segment_QueryBound(tm, 0, (void **)&times, NULL, NULL);
  times += 1; /* after the word */
  gex_RMA_PutBlocking(tm, 0, times + me, &mine, sizeof mine, 0);
  uint64_t total_issued = 0;
  uint64_t *counts = (uint64_t *)(times + n);
  gex_RMA_PutBlocking(tm, 0, counts + me, &issued, sizeof issued, 0);
  gex_Coll_BarrierBlocking(tm, 0);
  if (me == 0) {
    double slowest = 0;
    double *local_times = (double *)gex_Segment_QueryAddr(seg) + 1;
    uint64_t *local_counts = (uint64_t *)(local_times + n);
    for (gex_Rank_t r = 0; r < n; ++r) {
      if (local_times[r] > slowest) slowest = local_times[r];
      total_issued += local_counts[r];
    }
    uint64_t value = 0;
    gex_AD_OpBlocking_U64(ad, &value, 0, word, GEX_OP_GET, 0, 0, 0);
    printf("fadd_bench: %u rank(s) hammering rank 0, %ld FADDs each: %.0f ops/s in all\n", n, reps,
           (double)reps * n / (slowest / 1e9));
    if (value != total_issued) {
      printf("fadd_bench: the word holds %" PRIu64 ", expected %" PRIu64 "\n", value, total_issued);
      gasnet_exit(1);
    }
  }
  gex_Coll_BarrierBlocking(tm, 0);
  gex_AD_Destroy(ad);
  gasnet_exit(0);
  return 0;
}
