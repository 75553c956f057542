/* upcxx_probe.c: the GASNet-EX calls under UPC++'s progress, rput, rpc and
 * atomics, each timed alone, so a UPC++ figure slower on gexx than on the
 * anchor can be traced to the call that costs more. Built by
 * bench/upcxx_vs_anchor.py --probe against each side's smp-seq.mak and run
 * on 2 ranks (rank 0 times, rank 1 waits in a barrier, polling). Times are
 * the timing thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not wall time: on
 * a loaded host the time a rank spends descheduled would otherwise swamp
 * calls of a few ns.
 *
 *   upcxx_probe [ITERS]   prints "NAME  NS ns" lines
 */
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile long got;
static void on_short(gex_Token_t t) {
  (void)t;
  got++;
}
static void on_medium(gex_Token_t t, void *buf, size_t n) {
  (void)t;
  (void)buf;
  (void)n;
  got++;
}

static void report(const char *name, double t0, long iters) {
  printf("%-34s %8.1f ns\n", name, (now() - t0) / (double)iters * 1e9);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gex_Client_Init(&client, &ep, &tm, "upcxx_probe", &argc, &argv, 0);
  gex_AM_Entry_t entries[2] = {
      {0, (gex_AM_Fn_t)on_short, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, NULL},
      {0, (gex_AM_Fn_t)on_medium, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, NULL}};
  gex_EP_RegisterHandlers(ep, entries, 2);
  gex_Segment_Attach(&seg, tm, 1 << 20);
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm), peer = (me + 1) % n;
  void *remote, *local;
  uintptr_t size;
  gex_Segment_QueryBound(tm, peer, &remote, &local, &size);
  gex_AD_t ad;
  gex_AD_Create(&ad, tm, GEX_DT_I64, GEX_OP_ADD | GEX_OP_FADD, 0);
  long iters = argc > 1 ? atol(argv[1]) : 1000000;
  long am_iters = iters / 10;
  char buf[8] = {0};
  /* 512 bytes from the start of this rank's segment to the start of the
   * peer's, as put_flood does (both 2 MiB-aligned blobs there) */
  char *big = gex_Segment_QueryAddr(seg);
  int64_t fetched;
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == 0) {
    double t = now();
    for (long i = 0; i < iters; i++) gasnet_AMPoll();
    report("gasnet_AMPoll (idle)", t, iters);
    t = now();
    for (long i = 0; i < iters; i++) (void)gex_Event_Test(GEX_EVENT_INVALID);
    report("gex_Event_Test(GEX_EVENT_INVALID)", t, iters);
    t = now();
    for (long i = 0; i < iters; i++) {
      gex_Event_t ev = gex_RMA_PutNB(tm, peer, remote, buf, 8, GEX_EVENT_DEFER, 0);
      while (gex_Event_Test(ev) != GASNET_OK) gasnet_AMPoll();
    }
    report("gex_RMA_PutNB(8) + Test", t, iters);
    t = now();
    for (long i = 0; i < iters; i++) {
      gex_Event_t ev = gex_RMA_PutNB(tm, peer, remote, buf, 8, GEX_EVENT_DEFER, 0);
      do gasnet_AMPoll();
      while (gex_Event_Test(ev) != GASNET_OK);
    }
    report("gex_RMA_PutNB(8) + AMPoll + Test", t, iters);
    t = now(); /* put_flood's gasnet-nbi loop at 512 bytes */
    gex_NBI_BeginAccessRegion(0);
    for (long i = 0; i < iters; i++) gex_RMA_PutNBI(tm, peer, remote, big, 512, GEX_EVENT_DEFER, 0);
    gex_Event_Wait(gex_NBI_EndAccessRegion(0));
    report("gex_RMA_PutNBI(512) in a region", t, iters);
    t = now();
    for (long i = 0; i < iters; i++) gex_RMA_PutBlocking(tm, peer, remote, big, 512, 0);
    report("gex_RMA_PutBlocking(512)", t, iters);
    t = now();
    for (long i = 0; i < iters; i++)
      gex_Event_Wait(gex_AD_OpNB_I64(ad, NULL, peer, remote, GEX_OP_ADD, 1, 0, 0));
    report("gex_AD_OpNB_I64 ADD + Wait", t, iters);
    t = now();
    for (long i = 0; i < iters; i++)
      (void)gex_Event_Test(gex_AD_OpNB_I64(ad, NULL, peer, remote, GEX_OP_ADD, 1, 0, 0));
    report("gex_AD_OpNB_I64 ADD + Test", t, iters);
    t = now(); /* as UPC++'s atomic_domain calls it */
    for (long i = 0; i < iters; i++)
      (void)gex_Event_Test(
          gex_AD_OpNB_I64(ad, NULL, peer, remote, GEX_OP_ADD, 1, 0, GEX_FLAG_RANK_IS_JOBRANK));
    report("gex_AD_OpNB_I64 ADD jobrank + Test", t, iters);
    t = now();
    for (long i = 0; i < iters; i++)
      gex_Event_Wait(gex_AD_OpNB_I64(ad, &fetched, peer, remote, GEX_OP_FADD, 1, 0, 0));
    report("gex_AD_OpNB_I64 FADD + Wait", t, iters);
    got = 0;
    t = now();
    for (long i = 0; i < am_iters; i++) gex_AM_RequestShort0(tm, me, entries[0].gex_index, 0);
    report("gex_AM_RequestShort0 to self", t, am_iters);
    if (got != am_iters) printf("  (delivered %ld of %ld at return)\n", (long)got, am_iters);
    got = 0;
    t = now();
    for (long i = 0; i < am_iters; i++)
      gex_AM_RequestMedium0(tm, me, entries[1].gex_index, buf, 8, GEX_EVENT_NOW, 0);
    report("gex_AM_RequestMedium0(8) to self", t, am_iters);
    if (got != am_iters) printf("  (delivered %ld of %ld at return)\n", (long)got, am_iters);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gex_AD_Destroy(ad);
  gasnet_exit(0);
  return 0;
}
