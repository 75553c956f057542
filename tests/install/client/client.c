/* client: a GASNet program built only from an installed gexx tree.
 *
 * It uses the GASNet-1 and the GASNet-EX API side by side, so a header,
 * define or library missing from any installed build recipe shows up as a
 * compile, link or run failure. Each rank writes two blocks into its right
 * neighbour's segment, one per API, then checks what its left neighbour wrote.
 *   gasnetrun -n 4 ./client
 */
#include <gasnet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 1024
#define SEGSIZE (64 * 1024)

/* Distinct per writer, per API and per word, so a block from the wrong rank,
 * the wrong API or at the wrong offset never matches. */
static uint64_t pattern(gasnet_node_t writer, unsigned api, unsigned i) {
  return ((uint64_t)writer << 32) | ((uint64_t)api << 24) | i;
}

static int check_block(const uint64_t *got, gasnet_node_t writer, unsigned api, const char *what) {
  for (unsigned i = 0; i < WORDS; ++i) {
    if (got[i] != pattern(writer, api, i)) {
      fprintf(stderr, "client: %s word %u is %#llx, expected %#llx\n", what, i,
              (unsigned long long)got[i], (unsigned long long)pattern(writer, api, i));
      return 0;
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(NULL, 0, SEGSIZE, 0) != GASNET_OK) gasnet_exit(1);
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_node_t right = (me + 1) % n, left = (me + n - 1) % n;

  gex_TM_t tm;
  gex_Segment_t myseg;
  gasnet_QueryGexObjects(NULL, NULL, &tm, &myseg);
  int ok = gex_TM_QueryRank(tm) == me && gex_TM_QuerySize(tm) == n;
  if (!ok) fprintf(stderr, "client: rank %u: GASNet-1 and GASNet-EX disagree on rank/size\n", me);

  gasnet_seginfo_t *seg = malloc(n * sizeof *seg);
  void *right_base = NULL;
  uintptr_t right_size = 0;
  if (!seg || gasnet_getSegmentInfo(seg, (int)n) != GASNET_OK ||
      gex_Segment_QueryBound(tm, right, &right_base, NULL, &right_size) != GASNET_OK)
    gasnet_exit(1);
  if (right_base != seg[right].addr || right_size < 2 * WORDS * sizeof(uint64_t)) {
    fprintf(stderr, "client: rank %u: the two APIs describe rank %u's segment differently\n", me,
            right);
    ok = 0;
  }

  /* Words [0, WORDS) of the right neighbour's segment come through gasnet_put,
   * words [WORDS, 2*WORDS) through gex_RMA_PutBlocking. */
  static uint64_t block[WORDS];
  uint64_t *remote = right_base;
  for (unsigned i = 0; i < WORDS; ++i) block[i] = pattern(me, 1, i);
  gasnet_put(right, remote, block, sizeof block);
  for (unsigned i = 0; i < WORDS; ++i) block[i] = pattern(me, 2, i);
  if (gex_RMA_PutBlocking(tm, right, remote + WORDS, block, sizeof block, 0) != GASNET_OK)
    gasnet_exit(1);

  gasnet_barrier_notify(1, 0);
  if (gasnet_barrier_wait(1, 0) != GASNET_OK) gasnet_exit(1);

  /* My left neighbour's blocks, read in place; then my own blocks, read back with gets. */
  const uint64_t *mine = gex_Segment_QueryAddr(myseg);
  ok &= check_block(mine, left, 1, "gasnet_put");
  ok &= check_block(mine + WORDS, left, 2, "gex_RMA_PutBlocking");
  gasnet_get(block, right, remote, sizeof block);
  ok &= check_block(block, me, 1, "gasnet_get");
  if (gex_RMA_GetBlocking(tm, block, right, remote + WORDS, sizeof block, 0) != GASNET_OK)
    gasnet_exit(1);
  ok &= check_block(block, me, 2, "gex_RMA_GetBlocking");

  printf("client rank %u/%u: %s\n", me, n, ok ? "ok" : "FAILED");
  fflush(stdout);
  free(seg);
  /* No rank may leave while a peer still reads its segment. */
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(ok ? 0 : 1);
}
