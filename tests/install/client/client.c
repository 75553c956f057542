/* client: a GASNet program built only from an installed gexx tree.
 *
 * It uses the GASNet-1 and the GASNet-EX API side by side, so a header,
 * define or library missing from any installed build recipe shows up as a
 * compile, link or run failure. Each rank writes two blocks into its right
 * neighbour's segment, one per API, then checks what its left neighbour wrote;
 * then it sends its right neighbour a GASNet-1 Medium request (answered with a
 * Short reply carrying a checksum) and a GASNet-EX Long request, and checks
 * what arrived. When the program also links client_cxx.cc (CLIENT_WITH_CXX),
 * the line it prints carries what the C++ part reports.
 *   gasnetrun -n 4 ./client      or      GASNET_PSHM_NODES=4 ./client
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

/* ---- active messages ---- */
#define AM_BYTES 256
#define H_MEDIUM 201
#define H_REPLY 202
#define LONG_OFFSET (4 * WORDS * sizeof(uint64_t))

static volatile int g_medium_ok, g_medium_seen, g_reply_seen, g_long_ok, g_long_seen;
static volatile uint32_t g_reply_sum;
static gasnet_node_t g_left;

static uint8_t am_byte(unsigned from, unsigned i) {
  return (uint8_t)(from * 31u + i * 7u + 1u);
}
static uint32_t am_sum(const uint8_t *buf, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum = sum * 33u + buf[i];
  return sum;
}

/* GASNet-1 Medium request from the left neighbour: check it, reply with the checksum. */
static void medium_handler(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t from,
                           gasnet_handlerarg_t magic) {
  gasnet_node_t src = (gasnet_node_t)-1;
  gasnet_AMGetMsgSource(token, &src);
  int ok = src == g_left && (gasnet_node_t)from == src && magic == 0x5eed && nbytes == AM_BYTES;
  for (size_t i = 0; ok && i < nbytes; ++i) ok = ((uint8_t *)buf)[i] == am_byte(src, i);
  g_medium_ok = ok;
  g_medium_seen = 1;
  gasnet_AMReplyShort1(token, H_REPLY, (gasnet_handlerarg_t)am_sum(buf, nbytes));
}
static void reply_handler(gasnet_token_t token, gasnet_handlerarg_t sum) {
  (void)token;
  g_reply_sum = (uint32_t)sum;
  g_reply_seen = 1;
}

/* GASNet-EX Long request: the payload is already at addr in my segment. */
static void long_handler(gex_Token_t token, void *addr, size_t nbytes, gex_AM_Arg_t from) {
  gex_Token_Info_t info;
  gex_Token_Info(token, &info, GEX_TI_SRCRANK);
  int ok = info.gex_srcrank == g_left && (gex_Rank_t)from == g_left && nbytes == AM_BYTES;
  for (size_t i = 0; ok && i < nbytes; ++i) ok = ((uint8_t *)addr)[i] == am_byte(1000 + from, i);
  g_long_ok = ok;
  g_long_seen = 1;
}

#ifdef CLIENT_WITH_CXX
extern const char *client_cxx_report(void);
#endif

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = {{H_MEDIUM, (void (*)(void))medium_handler},
                                   {H_REPLY, (void (*)(void))reply_handler}};
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(table, 2, SEGSIZE, 0) != GASNET_OK) gasnet_exit(1);
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
  if (right_base != seg[right].addr || right_size < LONG_OFFSET + AM_BYTES) {
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

  /* Active messages to the right neighbour, after the barrier above so the
   * Long's target words are no longer being checked. */
  g_left = left;
  gex_EP_t ep = gex_TM_QueryEP(tm);
  gex_AM_Entry_t entry = {
      0, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, "client_long"};
  if (gex_EP_RegisterHandlers(ep, &entry, 1) != GASNET_OK) gasnet_exit(1);
  /* Every rank registered before any Long arrives. */
  gasnet_barrier_notify(2, 0);
  if (gasnet_barrier_wait(2, 0) != GASNET_OK) gasnet_exit(1);
  static uint8_t medium[AM_BYTES], longbuf[AM_BYTES];
  for (unsigned i = 0; i < AM_BYTES; ++i) {
    medium[i] = am_byte(me, i);
    longbuf[i] = am_byte(1000 + me, i);
  }
  gasnet_AMRequestMedium2(right, H_MEDIUM, medium, AM_BYTES, (gasnet_handlerarg_t)me, 0x5eed);
  gex_AM_RequestLong1(tm, right, entry.gex_index, longbuf, AM_BYTES,
                      (char *)right_base + LONG_OFFSET, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)me);
  GASNET_BLOCKUNTIL(g_medium_seen && g_reply_seen && g_long_seen);
  if (!g_medium_ok) fprintf(stderr, "client: rank %u: the Medium request arrived wrong\n", me);
  if (g_reply_sum != am_sum(medium, AM_BYTES))
    fprintf(stderr, "client: rank %u: the reply's checksum is %#x, expected %#x\n", me,
            (unsigned)g_reply_sum, (unsigned)am_sum(medium, AM_BYTES));
  if (!g_long_ok) fprintf(stderr, "client: rank %u: the Long request arrived wrong\n", me);
  ok &= g_medium_ok && g_long_ok && g_reply_sum == am_sum(medium, AM_BYTES);

#ifdef CLIENT_WITH_CXX
  printf("client rank %u/%u: %s (%s)\n", me, n, ok ? "ok" : "FAILED", client_cxx_report());
#else
  printf("client rank %u/%u: %s\n", me, n, ok ? "ok" : "FAILED");
#endif
  fflush(stdout);
  free(seg);
  /* No rank may leave while a peer still reads its segment. */
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(ok ? 0 : 1);
}
