/* put_offsets: the time of one same-host gex_RMA_PutNBI of LEN bytes in a
 * loop, by the page offset of its destination, beside a plain memcpy to the
 * same address (the floor). A load whose address has the same low 12 bits as
 * a store still in flight waits for that store (4K aliasing): a put loop pays
 * it on every call where a word the inline put reads shares its page offset
 * with the bytes the previous copy stored. Built against any install's
 * smp-seq.mak, so the same source measures gexx and GASNet-EX
 * (docs/performance.md, "The inline RMA ABI"):
 *
 *   gasnetrun -n 2 put_offsets [ITERS [LEN [OFFSET ...]]]   (4000000, 512, 0 256 512 2048 3584)
 *
 * Rank 0 puts into rank 1's segment at each OFFSET from its start (the
 * source at the same offset of its own); rank 1 waits in a barrier. The
 * lowest of 3 timings per offset. Figures only: nothing is checked.
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  gex_Client_Init(&client, &ep, &tm, "put_offsets", &argc, &argv, 0);
  long iters = argc > 1 ? atol(argv[1]) : 4000000;
  size_t len = argc > 2 ? (size_t)atol(argv[2]) : 512;
  static const long defaults[] = {0, 256, 512, 2048, 3584};
  int noffsets = argc > 3 ? argc - 3 : (int)(sizeof defaults / sizeof defaults[0]);
  const size_t half = 1u << 20;
  if (iters < 1 || len == 0 || len > 65536) {
    fprintf(stderr, "put_offsets: ITERS >= 1, LEN 1..65536\n");
    return 2;
  }
  gex_Segment_Attach(&seg, tm, 2 * half);
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm), peer = (me + 1) % n;
  char *remote = NULL, *mapped = NULL;
  gex_Segment_QueryBound(tm, peer, (void **)&remote, (void **)&mapped, NULL);
  char *mine = (char *)gex_Segment_QueryAddr(seg) + half;
  memset(mine, 1, half);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == 0) {
    printf(
        "put_offsets: %zu-byte gex_RMA_PutNBI to rank %u, ns per call (memcpy to the same "
        "address beside it)\n",
        len, (unsigned)peer);
    for (int k = 0; k < noffsets; ++k) {
      long off = argc > 3 ? atol(argv[3 + k]) : defaults[k];
      if (off < 0 || (size_t)off + len > half) {
        fprintf(stderr, "put_offsets: offset %ld out of range\n", off);
        return 2;
      }
      double put = 1e30, copy = 1e30;
      for (int rep = 0; rep < 3; ++rep) {
        double t = now_ns();
        for (long i = 0; i < iters; ++i)
          gex_RMA_PutNBI(tm, peer, remote + off, mine + off, len, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_ALL, 0);
        t = (now_ns() - t) / (double)iters;
        if (t < put) put = t;
        if (mapped) {
          t = now_ns();
          for (long i = 0; i < iters; ++i) {
            memcpy(mapped + off, mine + off, len);
            __asm__ volatile("" ::: "memory");
          }
          t = (now_ns() - t) / (double)iters;
          if (t < copy) copy = t;
        }
      }
      if (mapped)
        printf("offset %5ld: put %6.2f ns  memcpy %6.2f ns\n", off, put, copy);
      else
        printf("offset %5ld: put %6.2f ns  (segment not mapped here)\n", off, put);
    }
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(0);
  return 0;
}
