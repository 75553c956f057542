/* rcv_bench: what GASNET_RCV_THREAD gains when a rank computes without
 * polling. Rank 1 computes for COMPUTE_MS milliseconds without calling
 * GASNet, while rank 0 sends it Short requests one at a time and waits for
 * each reply. Printed: how long rank 0's round trips took while rank 1 was
 * busy (median and maximum) and how many completed during the compute.
 * Without the progress thread rank 1's handlers wait for the compute to end;
 * with GASNET_RCV_THREAD=1 they run at once. Then the ordinary round trip
 * with both ranks polling, to show what the thread costs when nobody
 * computes. Prints figures only.
 *   gasnetrun -n 2 rcv_bench            GASNET_RCV_THREAD=1 gasnetrun -n 2 rcv_bench
 */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>

#define COMPUTE_MS 300
#define MAX_TRIPS 100000
#define POLLED_TRIPS 20000

static volatile long replies;
static volatile long stop_sending;
enum { H_PING = 200, H_PONG, H_DONE };

static void ping(gasnet_token_t t) {
  gasnet_AMReplyShort0(t, H_PONG);
}
static void pong(gasnet_token_t t) {
  (void)t;
  replies++;
}
static void done(gasnet_token_t t) {
  (void)t;
  stop_sending = 1;
}

static double now_us(void) {
  return (double)gasnett_ticks_to_ns(gasnett_ticks_now()) / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One round trip from rank 0: its time in microseconds. */
static double trip(void) {
  long want = replies + 1;
  double t0 = now_us();
  gasnet_AMRequestShort0(1, H_PING);
  GASNET_BLOCKUNTIL(replies == want);
  return now_us() - t0;
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = {{H_PING, (void (*)(void))ping},
                                   {H_PONG, (void (*)(void))pong},
                                   {H_DONE, (void (*)(void))done}};
  gasnet_init(&argc, &argv);
  gasnet_attach(table, 3, 0, 0);
  gasnet_node_t me = gasnet_mynode();
  if (gasnet_nodes() != 2) {
    if (me == 0) printf("# rcv_bench: run it on 2 ranks\n");
    gasnet_exit(0);
  }
  const char *thread = getenv("GASNET_RCV_THREAD");
  static double t[MAX_TRIPS];
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (me == 1) {
    /* Compute without any GASNet call, then tell rank 0 to stop. */
    double end = now_us() + COMPUTE_MS * 1e3;
    volatile double x = 1;
    while (now_us() < end) x = x * 1.0000001 + 1e-9;
    gasnet_AMRequestShort0(0, H_DONE);
  } else {
    long n = 0;
    while (!stop_sending && n < MAX_TRIPS) t[n++] = trip();
    qsort(t, (size_t)n, sizeof t[0], cmp);
    printf("# rcv_bench: GASNET_RCV_THREAD=%s, rank 1 computes %d ms without polling\n",
           thread && *thread ? thread : "(unset)", COMPUTE_MS);
    printf("while computing: %ld round trips, median %.2f us, max %.1f us\n", n, t[n / 2],
           t[n - 1]);
  }
  stop_sending = 0;
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (me == 0) {
    for (int i = 0; i < POLLED_TRIPS; ++i) t[i] = trip();
    gasnet_AMRequestShort0(1, H_DONE);
    qsort(t, POLLED_TRIPS, sizeof t[0], cmp);
    printf("both polling: median round trip %.3f us over %d\n", t[POLLED_TRIPS / 2], POLLED_TRIPS);
  } else {
    GASNET_BLOCKUNTIL(stop_sending); /* serve rank 0 until it is done */
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(0);
  return 0;
}
