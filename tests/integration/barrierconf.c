/* barrierconf: the GASNet barrier rules, case by case, on every rank.
 *
 *   barrierconf [try]   (with "try", waits are loops of gasnet_barrier_try)
 *
 * Prints "barrierconf rank R of N: PASS (K cases)" or "FAIL: ..." and exits 1.
 */
#include <gasnet.h>

#include "check.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ANON GASNET_BARRIERFLAG_ANONYMOUS
#define MISMATCH GASNET_BARRIERFLAG_MISMATCH

static gasnet_node_t me, n;
static int use_try;

static int finish(int id, int flags) {
  if (!use_try) return gasnet_barrier_wait(id, flags);
  int rc;
  while ((rc = gasnet_barrier_try(id, flags)) == GASNET_ERR_NOT_READY) {
  }
  return rc;
}

static int split(int id, int flags, int wait_id, int wait_flags) {
  gasnet_barrier_notify(id, flags);
  return finish(wait_id, wait_flags);
}

/* The last barrier's agreed value: -1 for anonymous, else its name. */
static long agreed(void) {
  int id = -7;
  return gasnet_barrier_result(&id) ? -1 : id;
}

static void pair_cases(gasnet_node_t j, int i) {
  int rc;
  /* rank j forces a mismatch, split-phase and blocking */
  rc = split(0, me == j ? MISMATCH : 0, 0, me == j ? MISMATCH : 0);
  CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "forced mismatch by rank %u (split): %d", j, rc);
  rc = gasnet_barrier(0, me == j ? MISMATCH : 0);
  CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "forced mismatch by rank %u (blocking)", j);

  /* rank j names another barrier */
  rc = split(me == j, 0, me == j, 0);
  CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "rank %u's different name (split)", j);
  rc = gasnet_barrier(me == j, 0);
  CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "rank %u's different name (blocking)", j);

  /* many named, rank j anonymous: the name wins */
  rc = me == j ? split(12345, ANON, 12345, ANON) : split(5551212, 0, 5551212, 0);
  CHECK(rc == GASNET_OK && agreed() == 5551212, "named + anonymous %u: %d %ld", j, rc, agreed());
  rc = me == j ? gasnet_barrier(12345, ANON) : gasnet_barrier(5551212, 0);
  CHECK(rc == GASNET_OK && agreed() == 5551212, "named + anonymous %u (blocking)", j);

  /* rank j: anonymous notify, then a wait that names the job's barrier */
  rc = me == j ? split(12345, ANON, 5551212, 0) : split(5551212, 0, 5551212, 0);
  CHECK(rc == GASNET_OK && agreed() == 5551212, "anonymous notify + named wait on %u", j);
  /* ... or a wait that names another one: a mismatch for rank j */
  rc = me == j ? split(12345, ANON, 12345, 0) : split(5551212, 0, 5551212, 0);
  if (me == j) CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "misnamed wait on rank %u", j);

  /* rank j named, everyone else anonymous */
  rc = me == j ? split((int)0xcafef00d, 0, (int)0xcafef00d, 0) : split(911, ANON, 911, ANON);
  CHECK(rc == GASNET_OK && agreed() == (int)0xcafef00d, "one named %u + anonymous", j);
  rc = me == j ? gasnet_barrier((int)0xcafef00d, 0) : gasnet_barrier(911, ANON);
  CHECK(rc == GASNET_OK && agreed() == (int)0xcafef00d, "one named + anonymous (blocking)");

  /* matching names; all anonymous */
  CHECK(gasnet_barrier(i, 0) == GASNET_OK && agreed() == i, "all named %d", i);
  CHECK(gasnet_barrier(i ^ (int)j, ANON) == GASNET_OK && agreed() == -1, "all anonymous");
  CHECK(split(i, 0, i, 0) == GASNET_OK && agreed() == i, "all named split %d", i);
  CHECK(split(i ^ (int)j, ANON, i ^ (int)j, 0) == GASNET_OK && agreed() == -1,
        "all anonymous notify, named wait");
}

static void triple_cases(gasnet_node_t j, gasnet_node_t k) {
  /* two different names among anonymous ranks: everyone sees the mismatch */
  int rc;
  if (me == j)
    rc = split(1592, 0, 1592, 0);
  else if (me == k)
    rc = split(1776, 0, 1776, 0);
  else
    rc = split(12345, ANON, 12345, ANON);
  CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "names of %u and %u among anonymous", j, k);
  if (me == j)
    rc = gasnet_barrier(1592, 0);
  else if (me == k)
    rc = gasnet_barrier(1776, 0);
  else
    rc = gasnet_barrier(12345, ANON);
  CHECK(rc == GASNET_ERR_BARRIER_MISMATCH, "names of %u and %u (blocking)", j, k);
}

/* gasnet_barrier_try before every rank has notified must say NOT_READY:
 * the other ranks notify only after rank 0 releases them with a put. */
static void try_before_ready(void) {
  gasnet_seginfo_t seg[256];
  gasnet_getSegmentInfo(seg, (int)n);
  volatile int *flag = (volatile int *)seg[me].addr;
  *flag = 0;
  gasnet_barrier(0, ANON);
  if (me == 0) {
    gasnet_barrier_notify(42, 0);
    CHECK(gasnet_barrier_try(42, 0) == GASNET_ERR_NOT_READY, "try before the others notified");
    int one = 1;
    for (gasnet_node_t r = 1; r < n; ++r) gasnet_put(r, seg[r].addr, &one, sizeof one);
    int rc;
    while ((rc = gasnet_barrier_try(42, 0)) == GASNET_ERR_NOT_READY) {
    }
    CHECK(rc == GASNET_OK, "try after everyone notified: %d", rc);
  } else {
    /* Polls: over a network whose data moves only when the target polls
     * (libfabric manual progress), the put would never land otherwise. */
    GASNET_BLOCKUNTIL(*flag);
    CHECK(split(42, 0, 42, 0) == GASNET_OK, "released rank");
  }
}

/* Eight barriers in flight, waited out of order. Before starting barrier k
 * each rank puts its count into slot [me] of every rank's segment, so barrier
 * k may complete only once every rank's slot holds at least that count. The
 * last rank starts each barrier late, so one that completes early is seen. */
static void overlapping_ex_barriers(void) {
  static int round;
  gex_TM_t tm;
  gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
  gasnet_seginfo_t seg[256];
  const int slots = n <= 256;
  if (slots) gasnet_getSegmentInfo(seg, (int)n);
  gex_Event_t ev[8];
  for (int i = 0; i < 8; ++i) {
    int count = round * 8 + i + 1;
    if (me == n - 1) usleep(2000);
    for (gasnet_node_t r = 0; r < n && slots; ++r)
      gasnet_put(r, (int *)((char *)seg[r].addr + 1024) + me, &count, sizeof count);
    ev[i] = gex_Coll_BarrierNB(tm, 0);
  }
  for (int i = 0; i < 8; ++i) {
    int k = (int)((me + (unsigned)i) % 8); /* out of order */
    gex_Event_Wait(ev[k]);
    for (gasnet_node_t r = 0; r < n && slots; ++r) {
      int seen = ((volatile int *)((char *)seg[me].addr + 1024))[r];
      CHECK(seen >= round * 8 + k + 1,
            "overlapping barrier %d of round %d done before rank %u began it (%d)", k, round, r,
            seen);
    }
  }
  ++round;
}

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  gasnet_attach(NULL, 0, 1 << 16, 0);
  me = check_rank = gasnet_mynode();
  n = gasnet_nodes();
  use_try = argc > 1 && strcmp(argv[1], "try") == 0;
  setvbuf(stdout, NULL, _IOLBF, 0);

  for (int i = 0; i < 3; ++i) {
    CHECK(split(0, 0, 1, 0) == GASNET_ERR_BARRIER_MISMATCH, "notify and wait names differ");
    CHECK(split(0, ANON, 0, 0) == GASNET_OK && agreed() == -1, "anonymous notify, named wait");
    CHECK(split(0, 0, 0, ANON) == GASNET_OK && agreed() == 0, "named notify, anonymous wait");
    overlapping_ex_barriers();
    for (gasnet_node_t j = 0; j < n && n > 1; ++j) pair_cases(j, i);
    for (gasnet_node_t j = 0; j < n && n > 2 && i == 0; ++j)
      for (gasnet_node_t k = 0; k < n; ++k)
        if (k != j) triple_cases(j, k);
  }
  if (n > 1 && n <= 256) try_before_ready();
  gasnet_barrier(0, ANON);
  printf("barrierconf rank %u of %u: PASS (%ld cases)\n", me, n, check_count);
  gasnet_barrier(0, ANON);
  gasnet_exit(0);
  return 0;
}
