/* vis_bench: a strided put of small elements toward another rank, as one
 * gex_VIS_StridedPutNBI versus one gex_RMA_PutNBI per element, both waited
 * for with gex_NBI_Wait. Prints figures only (and fails on wrong data).
 *
 *   gasnetrun -n 2 vis_bench [elements] [elemsz] [reps]   (default 4096 8 20)
 *
 * Rank 0 writes `elements` elements of `elemsz` bytes from a contiguous
 * source into rank 1's segment with a stride of twice the element size (the
 * bytes between the elements must stay as they were), `reps` times each
 * way; the time per transfer and the ratio are printed. After each way rank
 * 1 checks every byte: the elements hold the source, the gaps the fill.
 * On the ofi conduit with GASNET_SUPERNODE_MAXSIZE=1 every element crosses
 * the network: VIS packs them into few messages, the loop sends one each.
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnet.h>
#include <gasnet_tools.h>
#include <gasnet_vis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILL 0xee

static double now_us(void) {
  return (double)gasnett_ticks_to_ns(gasnett_ticks_now()) / 1000.0;
}

static unsigned char src_byte(size_t i, int round) {
  return (unsigned char)(i * 7 + (size_t)round * 13 + 1);
}

/* Rank 1: the elements hold round `round`'s source, the gaps the fill. */
static int check(const unsigned char *dst, size_t elements, size_t elemsz, int round) {
  for (size_t e = 0; e < elements; ++e) {
    for (size_t b = 0; b < elemsz; ++b) {
      if (dst[2 * e * elemsz + b] != src_byte(e * elemsz + b, round)) return 0;
      if (dst[(2 * e + 1) * elemsz + b] != FILL) return 0;
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gex_Client_Init(&client, &ep, &tm, "vis_bench", &argc, &argv, 0);
  size_t elements = argc > 1 ? (size_t)atol(argv[1]) : 4096;
  size_t elemsz = argc > 2 ? (size_t)atol(argv[2]) : 8;
  int reps = argc > 3 ? atoi(argv[3]) : 20;
  if (elements < 1 || elemsz < 1 || reps < 1) {
    fprintf(stderr, "usage: vis_bench [elements] [elemsz] [reps]\n");
    gasnet_exit(2);
  }
  size_t span = 2 * elements * elemsz;
  gex_Segment_Attach(&seg, tm, (uintptr_t)((span + 65535) / 65536 * 65536));
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  if (n != 2) {
    if (me == 0) fprintf(stderr, "vis_bench: run with 2 ranks\n");
    gasnet_exit(2);
  }
  unsigned char *mine = (unsigned char *)gex_Segment_QueryAddr(seg);
  void *theirs;
  gex_Segment_QueryBound(tm, 1, &theirs, NULL, NULL);
  unsigned char *src = (unsigned char *)malloc(elements * elemsz);
  ptrdiff_t dststrides[1] = {(ptrdiff_t)(2 * elemsz)}, srcstrides[1] = {(ptrdiff_t)elemsz};
  size_t count[1] = {elements};
  double per[2] = {0, 0};
  const char *way[2] = {"gex_VIS_StridedPutNBI", "gex_RMA_PutNBI per element"};
  int bad = 0;
  for (int w = 0; w < 2; ++w) {
    if (me == 1) memset(mine, FILL, span);
    gex_Coll_BarrierBlocking(tm, 0);
    if (me == 0) {
      double total = 0;
      for (int r = -1; r < reps; ++r) { /* round -1 warms up */
        for (size_t i = 0; i < elements * elemsz; ++i) src[i] = src_byte(i, r < 0 ? 0 : r);
        double t0 = now_us();
        if (w == 0) {
          gex_VIS_StridedPutNBI(tm, 1, theirs, dststrides, src, srcstrides, elemsz, count, 1, 0);
        } else {
          for (size_t e = 0; e < elements; ++e)
            gex_RMA_PutNBI(tm, 1, (char *)theirs + 2 * e * elemsz, src + e * elemsz, elemsz,
                           GEX_EVENT_DEFER, 0);
        }
        gex_NBI_Wait(GEX_EC_ALL, 0);
        if (r >= 0) total += now_us() - t0;
      }
      per[w] = total / reps;
    }
    gex_Coll_BarrierBlocking(tm, 0);
    if (me == 1 && !check(mine, elements, elemsz, reps - 1)) {
      fprintf(stderr, "vis_bench: %s left wrong bytes at rank 1\n", way[w]);
      bad = 1;
    }
  }
  if (me == 0) {
    printf("vis_bench: %zu elements of %zu bytes, stride %zu: %s %.1f us, %s %.1f us (%.1fx)\n",
           elements, elemsz, 2 * elemsz, way[0], per[0], way[1], per[1], per[1] / per[0]);
  }
  gex_Coll_BarrierBlocking(tm, 0);
  free(src);
  gasnet_exit(bad ? 3 : 0);
  return 0;
}
