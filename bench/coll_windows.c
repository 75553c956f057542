/* coll_windows: one EX collective in short timed windows, for a noisy host.
 *
 * coll_bench times one long loop per operation; on a VM whose two vCPUs sit
 * close together in some runs and far apart in others (docs/performance.md,
 * issue 18's ninth session table) one loop's figure is whichever placement
 * the run got. This times WINDOWS windows of REPS back-to-back calls, each
 * after a barrier, and rank 0 prints the lowest, the lower quartile and the
 * median window (us per call). Many alternated runs of both libraries,
 * compared by their medians, say more than a few long ones. Built against
 * any install's smp-seq.mak, so the same source measures gexx and GASNet-EX:
 *
 *   gasnetrun -n N coll_windows [OP [WINDOWS [REPS [BYTES]]]]   (r1 40 2000 8)
 *
 * OP: r1 reduce-to-one (the root moves round the team), ra reduce-to-all,
 * bc broadcast (the root moves round), ba barrier. Reductions add u64.
 * Figures only: nothing is checked (collcheck checks the data).
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Client_Init(&client, &ep, &tm, "coll_windows", &argc, &argv, 0);
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  const char *op = argc > 1 ? argv[1] : "r1";
  int windows = argc > 2 ? atoi(argv[2]) : 40;
  int reps = argc > 3 ? atoi(argv[3]) : 2000;
  size_t bytes = argc > 4 ? (size_t)atol(argv[4]) : 8;
  int kind = !strcmp(op, "r1")   ? 1
             : !strcmp(op, "ra") ? 2
             : !strcmp(op, "bc") ? 3
             : !strcmp(op, "ba") ? 4
                                 : 0;
  if (!kind || windows < 1 || reps < 1 || (kind <= 2 && (bytes == 0 || bytes % 8))) {
    if (me == 0)
      fprintf(stderr,
              "coll_windows: OP is r1, ra, bc or ba; WINDOWS and REPS at least 1; BYTES a "
              "multiple of 8 for the reductions\n");
    gasnet_exit(2);
  }
  unsigned char *src = malloc(bytes + 8), *dst = malloc(bytes + 8);
  double *t = malloc(sizeof(double) * (size_t)windows);
  memset(src, 1, bytes + 8);
  gex_Coll_BarrierBlocking(tm, 0);
  for (int w = 0; w < windows; ++w) {
    gex_Coll_BarrierBlocking(tm, 0);
    double start = now_us();
    for (int i = 0; i < reps; ++i) {
      gex_Rank_t root = (gex_Rank_t)(i % (int)n);
      switch (kind) {
        case 1:
          gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, dst, src, GEX_DT_U64, 8, bytes / 8,
                                                GEX_OP_ADD, NULL, NULL, 0));
          break;
        case 2:
          gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, dst, src, GEX_DT_U64, 8, bytes / 8, GEX_OP_ADD,
                                                NULL, NULL, 0));
          break;
        case 3:
          gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, dst, src, bytes, 0));
          break;
        default:
          gex_Coll_BarrierBlocking(tm, 0);
      }
    }
    t[w] = (now_us() - start) / reps;
  }
  if (me == 0) {
    qsort(t, (size_t)windows, sizeof t[0], by_value);
    printf("coll_windows %s %zu B, %u ranks: lowest %.3f  q1 %.3f  median %.3f us per call\n", op,
           kind == 4 ? (size_t)0 : bytes, n, t[0], t[windows / 4], t[windows / 2]);
  }
  gex_Coll_BarrierBlocking(tm, 0);
  free(t);
  free(dst);
  free(src);
  gasnet_exit(0);
  return 0;
}
