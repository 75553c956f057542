/* coll_loop: one EX collective back to back, the root rotating, for
 * profiling and for before/after comparisons of a single path (coll_bench
 * runs them all). Rank 0 prints the mean time per operation and the rate.
 * Figures only: nothing is asserted.
 *   gasnetrun -n N coll_loop [b|r1|ra] [reps] [bytes]
 * b: broadcast, r1: reduce-to-one, ra: reduce-to-all (u64 ADD); defaults
 * b, 50 repetitions, 1 MiB.
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t world;
  gex_Client_Init(&client, &ep, &world, "coll_loop", &argc, &argv, 0);
  gex_Rank_t me = gex_TM_QueryRank(world), n = gex_TM_QuerySize(world);
  const char *op = argc > 1 ? argv[1] : "b";
  int reps = argc > 2 ? atoi(argv[2]) : 50;
  size_t bytes = argc > 3 ? strtoul(argv[3], NULL, 0) : (size_t)1 << 20;
  if (bytes < 8) bytes = 8;
  size_t count = bytes / 8;
  unsigned char *a = malloc(bytes), *b = malloc(bytes);
  memset(a, 1, bytes);
  gex_Coll_BarrierBlocking(world, 0);
  uint64_t t0 = gasnett_ticks_to_ns(gasnett_ticks_now());
  for (int i = 0; i < reps; ++i) {
    gex_Rank_t root = (gex_Rank_t)(i % n);
    if (op[0] == 'b')
      gex_Event_Wait(gex_Coll_BroadcastNB(world, root, b, a, bytes, 0));
    else if (!strcmp(op, "r1"))
      gex_Event_Wait(gex_Coll_ReduceToOneNB(world, root, b, a, GEX_DT_U64, 8, count, GEX_OP_ADD,
                                            NULL, NULL, 0));
    else
      gex_Event_Wait(
          gex_Coll_ReduceToAllNB(world, b, a, GEX_DT_U64, 8, count, GEX_OP_ADD, NULL, NULL, 0));
  }
  double us = (double)(gasnett_ticks_to_ns(gasnett_ticks_now()) - t0) / 1000.0 / reps;
  if (me == 0)
    printf("coll_loop %s %zu B, %u ranks: %.1f us/op %.1f MB/s\n", op, bytes, n, us, bytes / us);
  free(a);
  free(b);
  gasnet_exit(0);
  return 0;
}
