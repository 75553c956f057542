/* tracecheck: a 2-rank job with a known list of operations, for the trace
 * and statistics tests (tracetests.py). Rank 0, toward rank 1:
 *
 *   3 x gasnet_put 64 B, 1 x gasnet_get 128 B, gasnet_put_nbi 32 B and
 *   gasnet_wait_syncnbi_puts, a loopback gasnet_put 16 B to itself,
 *   AMRequestShort1 (handler 200, argument 42), AMRequestMedium0 100 B
 *   (handler 201)
 *
 * Rank 1 waits until both handlers have run. Then both ranks take the
 * barrier notify(7, 0) / wait(7, 0), print "tracecheck rank R: PASS" and
 * return from main ("tracecheck exit": call gasnet_exit(0) instead).
 *
 * "tracecheck user" first uses the tools API's tracing macros (compiled in
 * here with GASNET_TRACE and GASNET_STATS): it sets the source line
 * tracecheck_user.c:<100 + rank>, writes "hello from rank R" and the trace
 * mask it reads back as a trace line, and registers a statistics callback
 * that writes "callback of rank R".
 */
#define GASNET_TRACE 1
#define GASNET_STATS 1
#include <gasnet.h>
#include <gasnet_tools.h>

#include "check.h"
#include <string.h>

#define SEG_SIZE (64u * 1024u)
enum { H_SHORT = 200, H_MEDIUM = 201 };

static volatile int handled;
static volatile gasnet_handlerarg_t short_arg;
static volatile size_t medium_bytes;

static void on_short(gasnet_token_t token, gasnet_handlerarg_t a0) {
  (void)token;
  short_arg = a0;
  handled++;
}

static void on_medium(gasnet_token_t token, void *buf, size_t nbytes) {
  (void)token;
  medium_bytes = first_bad(buf, nbytes, 5) == (size_t)-1 ? nbytes : 0;
  handled++;
}

static void stats_callback(void (*stats_printf)(const char *fmt, ...)) {
  stats_printf("callback of rank %u", check_rank);
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = {{H_SHORT, (void (*)())on_short},
                                   {H_MEDIUM, (void (*)())on_medium}};
  gasnet_init(&argc, &argv);
  gasnet_attach(table, 2, SEG_SIZE, 0);
  check_rank = gasnet_mynode();
  CHECK(gasnet_nodes() == 2, "run me on 2 ranks, not %u", gasnet_nodes());
  gasnet_seginfo_t seg[2];
  gasnet_getSegmentInfo(seg, 2);
  unsigned char *peer = seg[1].addr;
  if (argc > 1 && strcmp(argv[1], "user") == 0) {
    GASNETT_TRACE_SETSOURCELINE("tracecheck_user.c", 100 + check_rank);
    const char *file = NULL;
    unsigned int line = 0;
    GASNETT_TRACE_GETSOURCELINE(&file, &line);
    CHECK(file && strcmp(file, "tracecheck_user.c") == 0 && line == 100 + check_rank,
          "GASNETT_TRACE_GETSOURCELINE gave back %s:%u", file ? file : "(null)", line);
    GASNETT_TRACE_PRINTF("hello from rank %u", check_rank);
    GASNETT_TRACE_PRINTF("mask %s", GASNETT_TRACE_GETMASK());
    CHECK(GASNETT_STATS_INIT(stats_callback), "GASNETT_STATS_INIT says statistics are off");
    GASNETT_TRACE_SETSOURCELINE(NULL, 0);
  }
  static unsigned char src[256], dst[256];
  if (check_rank == 0) {
    fill(src, sizeof src, 5);
    for (int i = 0; i < 3; ++i) gasnet_put(1, peer + 64 * i, src + 64 * i, 64);
    gasnet_get(dst, 1, peer, 128);
    CHECK(first_bad(dst, 128, 5) == (size_t)-1, "the get brought back other bytes");
    gasnet_put_nbi(1, peer + 256, src, 32);
    gasnet_wait_syncnbi_puts();
    gasnet_put(0, seg[0].addr, src, 16);
    gasnet_AMRequestShort1(1, H_SHORT, 42);
    gasnet_AMRequestMedium0(1, H_MEDIUM, src, 100);
  } else {
    GASNET_BLOCKUNTIL(handled == 2);
    CHECK(short_arg == 42, "the Short handler got %d, not 42", (int)short_arg);
    CHECK(medium_bytes == 100, "the Medium handler got a wrong payload");
  }
  gasnet_barrier_notify(7, 0);
  CHECK(gasnet_barrier_wait(7, 0) == GASNET_OK, "barrier 7 failed");
  printf("tracecheck rank %u: PASS\n", check_rank);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "exit") == 0) gasnet_exit(0);
  return 0;
}
