/* ring: the demo `make run` shows. Each rank greets, then a block of data
 * travels once around the ring: every rank reads the block from its left
 * neighbour's segment, checks it, adds its own mark and publishes it for the
 * next rank. */
#include <gasnet.h>
#include <stdio.h>
#include <string.h>

#define WORDS 4096

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  gasnet_attach(NULL, 0, 1 << 20, 0);
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_seginfo_t seg[n];
  gasnet_getSegmentInfo(seg, (int)n);

  printf("rank %u of %u: hello from the smp conduit\n", me, n);
  fflush(stdout);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);

  static unsigned long block[WORDS];
  for (gasnet_node_t step = 0; step < n; ++step) {
    if (step == me) {
      if (me == 0) {
        for (int i = 0; i < WORDS; ++i) block[i] = (unsigned long)i;
      } else {
        gasnet_get(block, me - 1, seg[me - 1].addr, sizeof block);
        unsigned long expect = (unsigned long)(me - 1) * (me) / 2;
        int ok = 1;
        for (int i = 0; i < WORDS; ++i) ok &= block[i] == (unsigned long)i + expect;
        printf("rank %u: got %lu words from rank %u, contents %s\n", me, (unsigned long)WORDS,
               me - 1, ok ? "correct" : "WRONG");
        for (int i = 0; i < WORDS; ++i) block[i] += me;
      }
      gasnet_put(me, seg[me].addr, block, sizeof block);
      fflush(stdout);
    }
    gasnet_barrier((int)step, 0);
  }
  if (me == 0) {
    gasnet_get(block, n - 1, seg[n - 1].addr, sizeof block);
    unsigned long total = (unsigned long)(n - 1) * n / 2;
    printf(
        "rank 0: the block came back around the ring of %u ranks; every word carries the sum "
        "of the ranks, %lu: %s\n",
        n, total, block[7] == 7 + total ? "correct" : "WRONG");
  }
  gasnet_barrier(0, 0);
  gasnet_exit(0);
  return 0;
}
