/* coll_bench: latency of the EX collectives at 8 bytes (barrier,
 * broadcast, reduce-to-one and reduce-to-all of one u64) and bandwidth at
 * 1 MiB (broadcast and reduce-to-all of u64 ADD), over the job team and
 * over a team made by gex_TM_Split holding every rank (the engine's path
 * for the barrier as well). Every rank runs each operation `reps` times
 * back to back, the root rotating; rank 0 prints the mean time per
 * operation. Figures only: nothing is asserted.
 *   gasnetrun -n N coll_bench [reps] [job|split] [OPERATION:BYTES]
 * (a second argument runs only that team, a third only that operation and
 * size, e.g. broadcast:1048576 or barrier:0; bench/coll_vs_anchor.py passes
 * them)
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1u << 20)

static gex_Rank_t me, n;

static double now_us(void) {
  return (double)gasnett_ticks_to_ns(gasnett_ticks_now()) / 1000.0;
}

static void report(const char *team, const char *what, size_t bytes, int reps, double us) {
  if (me != 0) return;
  double per = us / reps;
  if (bytes >= 4096)
    printf("%-6s %-14s %8zu B  %10.2f us  %9.1f MB/s\n", team, what, bytes, per, bytes / per);
  else
    printf("%-6s %-14s %8zu B  %10.2f us\n", team, what, bytes, per);
  fflush(stdout);
}

/* Whether `only` (empty: everything) selects operation `what` at `bytes`. */
static const char *only_op = "";
static int wanted(const char *what, size_t bytes) {
  size_t len = strlen(what);
  if (!*only_op) return 1;
  return strncmp(only_op, what, len) == 0 && only_op[len] == ':' &&
         strtoull(only_op + len + 1, NULL, 10) == bytes;
}

static void run(gex_TM_t tm, const char *name, int reps, unsigned char *a, unsigned char *b) {
  double t;
  if (wanted("barrier", 0)) {
    gex_Coll_BarrierBlocking(tm, 0);
    t = now_us();
    for (int i = 0; i < reps; ++i) gex_Coll_BarrierBlocking(tm, 0);
    report(name, "barrier", 0, reps, now_us() - t);
  }

  size_t sizes[2] = {8, BIG};
  for (int s = 0; s < 2; ++s) {
    size_t bytes = sizes[s];
    int r = s ? (reps / 20 > 5 ? reps / 20 : 5) : reps;
    if (wanted("broadcast", bytes)) {
      gex_Coll_BarrierBlocking(tm, 0);
      t = now_us();
      for (int i = 0; i < r; ++i)
        gex_Event_Wait(gex_Coll_BroadcastNB(tm, (gex_Rank_t)(i % n), b, a, bytes, 0));
      report(name, "broadcast", bytes, r, now_us() - t);
    }
    if (wanted("reduce-to-one", bytes)) {
      gex_Coll_BarrierBlocking(tm, 0);
      t = now_us();
      for (int i = 0; i < r; ++i)
        gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, (gex_Rank_t)(i % n), b, a, GEX_DT_U64, 8,
                                              bytes / 8, GEX_OP_ADD, NULL, NULL, 0));
      report(name, "reduce-to-one", bytes, r, now_us() - t);
    }
    if (wanted("reduce-to-all", bytes)) {
      gex_Coll_BarrierBlocking(tm, 0);
      t = now_us();
      for (int i = 0; i < r; ++i)
        gex_Event_Wait(
            gex_Coll_ReduceToAllNB(tm, b, a, GEX_DT_U64, 8, bytes / 8, GEX_OP_ADD, NULL, NULL, 0));
      report(name, "reduce-to-all", bytes, r, now_us() - t);
    }
  }
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t world, all;
  gex_Client_Init(&client, &ep, &world, "coll_bench", &argc, &argv, 0);
  me = gex_TM_QueryRank(world);
  n = gex_TM_QuerySize(world);
  int reps = argc > 1 ? atoi(argv[1]) : 2000;
  const char *only = argc > 2 ? argv[2] : "";
  if (argc > 3) only_op = argv[3];
  unsigned char *a = malloc(BIG), *b = malloc(BIG);
  memset(a, 1, BIG);
  /* A segment, and the scratch the split team asks for in it: GASNet-EX's
   * collectives need both (gexx's ask for no scratch). */
  size_t scratch =
      gex_TM_Split(&all, world, 0, (int)me, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
  gex_Segment_t segment;
  gex_Segment_Attach(&segment, world, (scratch + 65535) / 65536 * 65536 + 65536);
  gex_TM_Split(&all, world, 0, (int)me, scratch ? gex_Segment_QueryAddr(segment) : NULL, scratch,
               scratch ? GEX_FLAG_TM_LOCAL_SCRATCH : 0);
  if (me == 0) printf("coll_bench: %u ranks, %d repetitions (1 MiB: fewer)\n", n, reps);
  if (strcmp(only, "split") != 0) run(world, "job", reps, a, b);
  if (strcmp(only, "job") != 0) run(all, "split", reps, a, b);
  gex_TM_Destroy(all, NULL, 0);
  free(a);
  free(b);
  gasnet_exit(0);
  return 0;
}
