/* vis_calls: the cost of one VIS call toward a same-host peer, in a loop.
 *
 * Rank 0 issues ITERS NBI calls of PIECES pieces of LEN bytes each toward
 * rank 1's segment (pieces 2*LEN apart on both sides) and prints the time
 * per call for the vector put, the indexed put, the strided put (one
 * dimension of PIECES elements) and the vector get; rank 1 waits in a
 * barrier. Built against any install's smp-seq.mak, so the same source
 * measures gexx and GASNet-EX (docs/performance.md, "VIS on smp"):
 *
 *   gasnetrun -n 2 vis_calls [ITERS [LEN [PIECES [LEVELS]]]]   (1000000, 512, 1, 1)
 *
 * LEVELS 2: the strided put is two dimensions, 2 x PIECES/2 elements (PIECES
 * even), the rows 2*LEN*PIECES apart.
 *
 * Figures only: nothing is checked (vischeck checks the data).
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnetex.h>
#include <gasnet_vis.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_PIECES 64

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gex_Client_Init(&client, &ep, &tm, "vis_calls", &argc, &argv, 0);
  long iters = argc > 1 ? atol(argv[1]) : 1000000;
  size_t len = argc > 2 ? (size_t)atol(argv[2]) : 512;
  int pieces = argc > 3 ? atoi(argv[3]) : 1;
  int levels = argc > 4 ? atoi(argv[4]) : 1;
  if (pieces < 1 || pieces > MAX_PIECES || len == 0 || len * 4 * (size_t)pieces > (1u << 19) ||
      levels < 1 || levels > 2 || (levels == 2 && pieces % 2)) {
    fprintf(stderr,
            "vis_calls: PIECES 1..%d (even for LEVELS 2), LEN > 0, 4 * LEN * PIECES <= 512 KiB, "
            "LEVELS 1 or 2\n",
            MAX_PIECES);
    return 2;
  }
  gex_Segment_Attach(&seg, tm, 1u << 20);
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm), peer = (me + 1) % n;
  char *remote;
  gex_Segment_QueryBound(tm, peer, (void **)&remote, NULL, NULL);
  char *mine = (char *)gex_Segment_QueryAddr(seg) + (1u << 19);
  gex_Memvec_t dv[MAX_PIECES], sv[MAX_PIECES];
  void *dl[MAX_PIECES], *sl[MAX_PIECES];
  for (int i = 0; i < pieces; ++i) {
    dl[i] = dv[i].gex_addr = remote + (size_t)i * 2 * len;
    sl[i] = sv[i].gex_addr = mine + (size_t)i * 2 * len;
    dv[i].gex_len = sv[i].gex_len = len;
  }
  ptrdiff_t stride[2] = {(ptrdiff_t)(2 * len), (ptrdiff_t)(2 * len * (size_t)pieces)};
  size_t count[2] = {(size_t)pieces, 1};
  if (levels == 2) {
    count[0] = 2;
    count[1] = (size_t)pieces / 2;
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == 0) {
    double t = now_ns();
    for (long i = 0; i < iters; ++i) gex_VIS_VectorPutNBI(tm, peer, pieces, dv, pieces, sv, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    double vput = (now_ns() - t) / iters;
    t = now_ns();
    for (long i = 0; i < iters; ++i)
      gex_VIS_IndexedPutNBI(tm, peer, pieces, dl, len, pieces, sl, len, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    double iput = (now_ns() - t) / iters;
    t = now_ns();
    for (long i = 0; i < iters; ++i)
      gex_VIS_StridedPutNBI(tm, peer, remote, stride, mine, stride, len, count, (size_t)levels, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    double sput = (now_ns() - t) / iters;
    t = now_ns();
    for (long i = 0; i < iters; ++i) gex_VIS_VectorGetNBI(tm, pieces, sv, peer, pieces, dv, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    double vget = (now_ns() - t) / iters;
    printf(
        "vis_calls %d x %zu B (strided: %d level(s)): vector put %.2f ns, indexed put %.2f ns, "
        "strided put %.2f ns, vector get %.2f ns\n",
        pieces, len, levels, vput, iput, sput, vget);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(0);
  return 0;
}
