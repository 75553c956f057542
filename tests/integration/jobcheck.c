/* jobcheck: the test program the integration tests launch.
 *
 *   jobcheck data [SEGSIZE]   full check of rank/size, segments, put/get, barriers
 *   jobcheck ex               the same identity and data checks through GASNet-EX
 *   jobcheck exit CODE RANK   RANK calls gasnet_exit(CODE) while the others wait
 *   jobcheck hang RANK        every rank says READY; RANK sleeps, the rest spin
 *                             in a barrier (for kill tests)
 *   jobcheck early RANK       RANK returns 0 from main at once; the rest sleep
 *                             without polling
 *   jobcheck crash RANK       RANK dies of SIGSEGV after attaching
 *   jobcheck segv RANK        RANK writes through a null pointer in
 *                             crash_here_on_purpose (for backtrace tests)
 *   jobcheck oob              a put outside the target's segment (a fatal error)
 *   jobcheck attach SIZE      attaches SIZE bytes without asking what is available
 *   jobcheck env VAR          prints gasnet_getenv(VAR) and the arguments it got
 *   jobcheck unbuilt          asks for what this release does not provide (gex_TM_Create
 *                             of two teams at once)
 *   jobcheck double_notify    calls gasnet_barrier_notify twice in a row
 *   jobcheck early_result     asks gasnet_barrier_result between notify and wait
 *   jobcheck cpus             every rank starts on the first CPU it may use (moved
 *                             there, then let go), then prints the CPU it is on
 *                             when gasnet_init returns and how many CPUs it may
 *                             still use (GASNET_SPREAD_RANKS)
 *
 * Each check prints "FAIL: ..." and exits 1 on the first problem.
 */
#define _GNU_SOURCE
#include <gasnet.h>

#include "check.h"
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static gasnet_node_t me, n;

static uint64_t pattern(gasnet_node_t owner, size_t i) {
  return ((uint64_t)owner << 40) ^ (i * 0x9E3779B97F4A7C15ull);
}

/* Not inlined, so a backtrace names it. */
__attribute__((noinline)) static void crash_here_on_purpose(volatile int *where) {
  *where = 42;
}

/* segsize 0: exactly gasnet_getMaxLocalSegmentSize(); returns the size attached. */
static uintptr_t start(uintptr_t segsize) {
  CHECK(gasnet_init(NULL, NULL) == GASNET_OK, "gasnet_init");
  me = check_rank = gasnet_mynode();
  n = gasnet_nodes();
  if (!segsize) segsize = gasnet_getMaxLocalSegmentSize();
  CHECK(gasnet_getMaxLocalSegmentSize() >= segsize, "max local segment %lu < %lu",
        (unsigned long)gasnet_getMaxLocalSegmentSize(), (unsigned long)segsize);
  CHECK(gasnet_getMaxGlobalSegmentSize() <= gasnet_getMaxLocalSegmentSize(), "global > local");
  CHECK(gasnet_attach(NULL, 0, segsize, 0) == GASNET_OK, "gasnet_attach");
  return segsize;
}

static void check_data(uintptr_t segsize) {
  gasnet_seginfo_t *seg = calloc(n + 1, sizeof *seg);
  seg[n].addr = (void *)0x1234; /* entries past the job size stay untouched */
  CHECK(gasnet_getSegmentInfo(seg, (int)n + 1) == GASNET_OK, "getSegmentInfo");
  CHECK(seg[n].addr == (void *)0x1234, "getSegmentInfo wrote past the job");
  for (gasnet_node_t r = 0; r < n; ++r)
    CHECK(seg[r].size == segsize && seg[r].addr, "rank %u's segment is %p/%lu", r, seg[r].addr,
          (unsigned long)seg[r].size);

  /* Fill my segment by local stores, read every rank's with gets. */
  uint64_t *mine = seg[me].addr;
  size_t words = segsize / sizeof(uint64_t);
  for (size_t i = 0; i < words; ++i) mine[i] = pattern(me, i);
  gasnet_barrier(1, 0);
  size_t chunk = words < 1024 ? words : 1024;
  uint64_t *buf = malloc(chunk * sizeof *buf);
  for (gasnet_node_t r = 0; r < n; ++r) {
    size_t at = (words - chunk) / (r + 1); /* a different place in each segment */
    gasnet_get(buf, r, (uint64_t *)seg[r].addr + at, chunk * sizeof *buf);
    for (size_t i = 0; i < chunk; ++i)
      CHECK(buf[i] == pattern(r, at + i), "get from rank %u word %zu: %llx", r, at + i,
            (unsigned long long)buf[i]);
  }
  gasnet_barrier(2, 0);

  /* Every rank puts a signed record into slot `me` of every segment. */
  for (gasnet_node_t r = 0; r < n; ++r) {
    uint64_t rec[2] = {0xC0FFEE00ull + me, ((uint64_t)me << 32) | r};
    gasnet_put(r, (uint64_t *)seg[r].addr + 2 * me, rec, sizeof rec);
  }
  gasnet_barrier(3, 0);
  for (gasnet_node_t r = 0; r < n; ++r) {
    CHECK(mine[2 * r] == 0xC0FFEE00ull + r && mine[2 * r + 1] == (((uint64_t)r << 32) | me),
          "record from rank %u: %llx %llx", r, (unsigned long long)mine[2 * r],
          (unsigned long long)mine[2 * r + 1]);
  }
  gasnet_barrier(4, 0);

  /* Barrier values: anonymous mixes with named; different names mismatch. */
  int flags = (me % 2) ? GASNET_BARRIERFLAG_ANONYMOUS : 0;
  gasnet_barrier_notify(77, flags);
  CHECK(gasnet_barrier_wait(77, flags) == GASNET_OK, "anonymous/named mix");
  if (n > 1) {
    gasnet_barrier_notify((int)(me == 0), 0);
    CHECK(gasnet_barrier_wait((int)(me == 0), 0) == GASNET_ERR_BARRIER_MISMATCH,
          "different names must mismatch");
    gasnet_barrier_notify(5, me == n - 1 ? GASNET_BARRIERFLAG_MISMATCH : 0);
    CHECK(gasnet_barrier_wait(5, 0) == GASNET_ERR_BARRIER_MISMATCH, "forced mismatch");
  }
  gasnet_barrier_notify(9, 0);
  int rc;
  while ((rc = gasnet_barrier_try(9, 0)) == GASNET_ERR_NOT_READY) {
  }
  CHECK(rc == GASNET_OK, "barrier_try: %s", gasnet_ErrorName(rc));
  printf("jobcheck rank %u of %u: PASS\n", me, n);
  fflush(stdout);
  free(buf);
  free(seg);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

static void check_ex(void) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  CHECK(gex_Client_Init(&client, &ep, &tm, "JOBCHECK", NULL, NULL, 0) == GASNET_OK, "init");
  me = check_rank = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  CHECK(me == gex_System_QueryJobRank() && n == gex_System_QueryJobSize(), "job rank/size");
  CHECK(strcmp(gex_Client_QueryName(client), "JOBCHECK") == 0, "client name");
  CHECK(gex_TM_QueryEP(tm) == ep && gex_EP_QueryClient(ep) == client, "object links");
  CHECK(gex_Segment_Attach(&seg, tm, 65536) == GASNET_OK, "attach");
  CHECK(gex_Segment_QuerySize(seg) == 65536 && gex_EP_QuerySegment(ep) == seg, "segment");
  uint32_t *base = gex_Segment_QueryAddr(seg);
  for (gex_Rank_t r = 0; r < n; ++r) {
    void *owner, *local;
    uintptr_t size;
    CHECK(gex_Segment_QueryBound(tm, r, &owner, &local, &size) == GASNET_OK, "bound");
    CHECK(size == 65536 && local != NULL, "bound of rank %u", r);
    if (r == me) CHECK(owner == base && local == base, "own segment addresses");
    uint32_t v = 0xAB000000u | (me << 8) | r;
    CHECK(gex_RMA_PutBlocking(tm, r, (uint32_t *)owner + me, &v, sizeof v, 0) == 0, "put");
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  for (gex_Rank_t r = 0; r < n; ++r)
    CHECK(base[r] == (0xAB000000u | (r << 8) | me), "word from rank %u: %x", r, base[r]);
  gex_Event_t ev = gex_Coll_BarrierNB(tm, 0);
  while (gex_Event_Test(ev) == GASNET_ERR_NOT_READY) {
  }
  printf("jobcheck rank %u of %u: PASS\n", me, n);
  fflush(stdout);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "data";
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(mode, "ex")) {
    check_ex();
    return 0;
  }
  uintptr_t segsize = 1 << 20;
  if (!strcmp(mode, "data") && argc > 2) segsize = strtoul(argv[2], NULL, 0);
  if (!strcmp(mode, "datamax")) { /* "data" on a segment of the advertised maximum */
    mode = "data";
    segsize = 0;
  }
  if (!strcmp(mode, "env")) {
    start(1 << 16);
    const char *v = gasnet_getenv(argv[2]);
    printf("rank %u sees %s=%s, argc %d, last argument '%s'\n", me, argv[2], v ? v : "(unset)",
           argc, argv[argc - 1]);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
  }
  if (!strcmp(mode, "cpus")) {
    /* The start that makes ranks share a CPU: all of them on the first one. */
    cpu_set_t allowed, one;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0, "sched_getaffinity");
    int first = 0;
    while (!CPU_ISSET(first, &allowed)) ++first;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity");
    CHECK(sched_setaffinity(0, sizeof allowed, &allowed) == 0, "sched_setaffinity");
    CHECK(gasnet_init(NULL, NULL) == GASNET_OK, "gasnet_init");
    int after_init = sched_getcpu();
    cpu_set_t now;
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0, "sched_getaffinity");
    me = gasnet_mynode();
    CHECK(gasnet_attach(NULL, 0, 1 << 16, 0) == GASNET_OK, "gasnet_attach");
    printf("jobcheck rank %u: cpu %d, may use %d of %d\n", me, after_init, CPU_COUNT(&now),
           CPU_COUNT(&allowed));
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
  }
  if (!strcmp(mode, "attach")) {
    gasnet_init(&argc, &argv);
    gasnet_attach(NULL, 0, strtoul(argv[2], NULL, 0), 0);
    gasnet_exit(0);
  }
  segsize = start(segsize);
  gasnet_node_t who =
      argc > 3 ? (gasnet_node_t)atoi(argv[3]) : (argc > 2 ? (gasnet_node_t)atoi(argv[2]) : 0);
  if (!strcmp(mode, "data")) {
    check_data(segsize);
  } else if (!strcmp(mode, "exit")) {
    int code = atoi(argv[2]);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (me == who) gasnet_exit(code);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS); /* never completes */
  } else if (!strcmp(mode, "hang")) {
    printf("READY rank %u pid %ld\n", me, (long)getpid());
    fflush(stdout);
    if (me == who)
      for (;;) pause();
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  } else if (!strcmp(mode, "early")) {
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (me == who) return 0;
    for (;;) pause();
  } else if (!strcmp(mode, "crash")) {
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (me == who) raise(SIGSEGV);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  } else if (!strcmp(mode, "segv")) {
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (me == who) crash_here_on_purpose((volatile int *)(uintptr_t)(argc - 3));
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  } else if (!strcmp(mode, "unbuilt")) {
    gex_TM_t tm, sub[2];
    gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
    gex_TM_Create(sub, 2, tm, NULL, 0, NULL, 0, 0);
    CHECK(0, "gex_TM_Create returned");
  } else if (!strcmp(mode, "double_notify")) {
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(0, "a second notify returned");
  } else if (!strcmp(mode, "early_result")) {
    int id;
    gasnet_barrier_notify(0, 0);
    gasnet_barrier_result(&id);
    CHECK(0, "gasnet_barrier_result returned");
  } else if (!strcmp(mode, "oob")) {
    gasnet_seginfo_t seg[1];
    gasnet_getSegmentInfo(seg, 1);
    uint64_t v = 1;
    gasnet_put(0, (char *)seg[0].addr + seg[0].size - 4, &v, sizeof v);
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  gasnet_exit(0);
  return 0;
}
