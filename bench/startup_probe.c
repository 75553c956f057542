/* startup_probe: times gasnet_init and gasnet_attach of SIZE bytes, then
 * touches the whole segment once (first-touch cost), on every rank; rank 0
 * prints the slowest rank's figures. Used by bench/startup.py. */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  uintptr_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : (1 << 20);
  gasnett_tick_t t0 = gasnett_ticks_now();
  gasnet_init(&argc, &argv);
  gasnett_tick_t t1 = gasnett_ticks_now();
  gasnet_attach(NULL, 0, size, 0);
  gasnett_tick_t t2 = gasnett_ticks_now();
  gasnet_seginfo_t seg[1];
  gasnet_getSegmentInfo(seg, 1);
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_seginfo_t *all = malloc(n * sizeof *all);
  gasnet_getSegmentInfo(all, (int)n);
  memset(all[me].addr, 1, size);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnett_tick_t t3 = gasnett_ticks_now();

  /* Each rank publishes its times in rank 0's segment; rank 0 reports the max. */
  double mine[3] = {gasnett_ticks_to_ns(t1 - t0) / 1e6, gasnett_ticks_to_ns(t2 - t1) / 1e6,
                    gasnett_ticks_to_ns(t3 - t2) / 1e6};
  gasnet_put(0, (double *)all[0].addr + 3 * me, mine, sizeof mine);
  gasnet_barrier(1, 0);
  if (me == 0) {
    double worst[3] = {0, 0, 0};
    for (gasnet_node_t r = 0; r < n; ++r)
      for (int k = 0; k < 3; ++k) {
        double v = ((double *)all[0].addr)[3 * r + k];
        if (v > worst[k]) worst[k] = v;
      }
    printf("init_ms %.3f attach_ms %.3f touch_ms %.3f\n", worst[0], worst[1], worst[2]);
  }
  gasnet_barrier(2, 0);
  gasnet_exit(0);
  return 0;
}
