/* A GASNet client using the names and behaviours of the drop-in header
 * surface (docs/compatibility.md): built with nothing but an install's
 * fragment, run as a 4-rank job; each rank prints "client rank r/n: ok".
 * The tools come first on purpose: either include order works. */
#include <gasnet_tools.h>
#include <gasnet.h>
#include <gasnet_portable_platform.h>
#include <gasnet_fwd.h>

#include <limits.h>
#include <signal.h>

#ifndef GASNET_CONDUIT_NAME
#error "GASNET_CONDUIT_NAME is missing"
#endif
#if !defined(HAVE_PTHREAD_H) || SIZEOF_GEX_RMA_VALUE_T != 8 || SIZEOF_VOID_P != 8
#error "gasnet_config.h lacks the configuration clients probe"
#endif
#if GASNETT_MAX_THREADS < 2
#error "GASNETT_MAX_THREADS is missing"
#endif

static int failures = 0;
#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "rank %u: check failed: %s (line %d)\n", (unsigned)gasnet_mynode(), #cond, \
              __LINE__);                                                                         \
      ++failures;                                                                                \
    }                                                                                            \
  } while (0)

static volatile int pongs = 0;
static void ping(gasnet_token_t t, gasnet_handlerarg_t a0, gasnet_handlerarg_t a1) {
  gasnet_AMReplyShort(t, 202, 1, a0 + a1); /* GASNet-1 form: count first */
}
static void pong(gasnet_token_t t, gasnet_handlerarg_t sum) {
  (void)t;
  if (sum == 42) pongs = pongs + 1;
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = {{201, (void (*)())ping}, {202, (void (*)())pong}};
  gex_AM_Entry_t *diag;
  int ndiag;
  gasnett_diagnostic_gethandlers(&diag, &ndiag);
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(table, 2, 1 << 20, 0) != GASNET_OK) return 1;
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gasnet_QueryGexObjects(&client, &ep, &tm, &seg);
  if (gex_EP_RegisterHandlers(ep, diag, (size_t)ndiag) != GASNET_OK) return 1;
  GASNET_BEGIN_FUNCTION();
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();

  /* identification */
  CHECK(strstr(GASNET_CONFIG_STRING, "CONDUIT=" GASNET_CONDUIT_NAME_STR) != NULL);
  CHECK(strcmp(_STRINGIFY(GASNET_CONDUIT_NAME), GASNET_CONDUIT_NAME_STR) == 0);
  char line[64];
  snprintf(line, sizeof line, "%" PRIuPTR " %" PRIuSZ, (uintptr_t)7, (size_t)8);
  CHECK(strcmp(line, "7 8") == 0);
  CHECK(MAX(3, 9) == 9 && MIN(3, 9) == 3 && MAX(-1.5, -2.5) == -1.5);

  /* limits a client keeps in an int */
  CHECK(gasnet_AMMaxLongRequest() <= INT_MAX && gasnet_AMMaxLongReply() <= INT_MAX);
  CHECK(gex_AM_LUBRequestLong() == gasnet_AMMaxLongRequest());

  /* the unnumbered GASNet-1 AM forms */
  gasnet_AMRequestShort((me + 1) % n, 201, 2, 40, 2);
  GASNET_BLOCKUNTIL(pongs == 1);

  /* handler-safe locks: EX and GASNet-1 names are one type; interrupts
   * hold/resume are ignored while one is held (an unmatched resume would
   * otherwise end the job) */
  gex_HSL_t hsl = GEX_HSL_INITIALIZER;
  gasnet_hsl_t *legacy = &hsl;
  gex_HSL_Lock(&hsl);
  gasnet_resume_interrupts();
  gasnet_hsl_unlock(legacy);
  CHECK(gex_HSL_Trylock(&hsl) == GASNET_OK);
  gex_HSL_Unlock(&hsl);

  /* unnamed and blocking barriers */
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_UNNAMED);
  CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_UNNAMED) == GASNET_OK);
  gex_Coll_BarrierBlocking(tm, 0);

  /* the library's self-test, every section */
  gasnet_seginfo_t *si = (gasnet_seginfo_t *)malloc(n * sizeof *si);
  gasnet_getSegmentInfo(si, (int)n);
  CHECK(gasnett_run_diagnostics(100, 2, NULL, tm, si[me].addr, (me + 1) % n,
                                si[(me + 1) % n].addr) == 0);
  free(si);

  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  printf("client rank %u/%u: %s\n", (unsigned)me, (unsigned)n, failures ? "FAILED" : "ok");
  fflush(stdout);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(failures ? 1 : 0);
  return 0;
}
