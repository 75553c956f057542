/* hello-gex: the GASNet-EX hello world.
 *
 * Every rank greets, attaches a segment, writes its rank into the next rank's
 * segment with a put, and checks what its left neighbour wrote.
 *   gasnetrun -n 4 ./hello-gex
 */
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "HELLO", &argc, &argv, 0) != GASNET_OK) return 1;
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  if (gex_Segment_Attach(&seg, tm, 1 << 20) != GASNET_OK) return 1;

  printf("Hello from rank %u of %u (job rank %u), segment at %p of %lu bytes\n", me, n,
         gex_System_QueryJobRank(), gex_Segment_QueryAddr(seg),
         (unsigned long)gex_Segment_QuerySize(seg));
  fflush(stdout);

  /* Put my rank into the first word of my right neighbour's segment. */
  gex_Rank_t right = (me + 1) % n, left = (me + n - 1) % n;
  void *right_base;
  gex_Segment_QueryBound(tm, right, &right_base, NULL, NULL);
  unsigned long value = 1000 + me;
  gex_RMA_PutBlocking(tm, right, right_base, &value, sizeof value, 0);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

  unsigned long got = *(unsigned long *)gex_Segment_QueryAddr(seg);
  int ok = got == 1000 + left;
  printf("rank %u received %lu from rank %u: %s\n", me, got, left, ok ? "ok" : "WRONG");
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  return ok ? 0 : 1;
}
