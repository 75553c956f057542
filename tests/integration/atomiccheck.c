/* atomiccheck: remote atomics (gasnet_ratomic.h) across a job.
 *
 *   atomiccheck [THREADS [ITERS]]   (defaults 4, 300; a GASNET_PAR client)
 *   atomiccheck misuse-op | misuse-float-bitwise | misuse-float-bitwise-op | misuse-align |
 *               misuse-segment
 *
 * 1. Every type x operation x {NB, NBI, blocking}: rank r works on words of
 *    its right neighbour's segment (mapped here or over the network); each
 *    operation starts from a known value, its fetched value and the word
 *    afterwards (read by an atomic GET and by an RMA get) are compared with
 *    what this file computes itself. Two operand sets cover both outcomes
 *    of MIN/MAX and CAS.
 * 2. THREADS threads of every rank add to one word of rank 0 (INC, FADD and
 *    ADD, through all three forms) ITERS times each; the final value and the
 *    sum of the fetched values' uniqueness bound are checked.
 * 3. A lock made of FCAS and SET (with GEX_FLAG_AD_ACQ / _REL) guards a
 *    counter of rank 0 that is read and written with plain RMA.
 * 4. Job ranks (GEX_FLAG_RANK_IS_JOBRANK, as UPC++ passes on every
 *    operation): on the job's team and on a team of the job in reverse
 *    order (team rank r is job rank n-1-r), each rank adds to a word of its
 *    right neighbour named by team rank and by job rank, inline and through
 *    the library's function, and checks the fetched values and the word.
 * 5. Bursts: each rank adds 1 to a word of its right neighbour k times in a
 *    row (NBI or NB; a network transport may carry a burst in bundles) and
 *    waits as clients do (gex_NBI_Wait, a gex_NBI_Test loop,
 *    gex_Event_WaitAll, a gex_Event_TestAll loop); the fetched values must
 *    be exactly the k values from the word's start, each once, and a
 *    blocking FADD after the wait must see the whole burst.
 * The misuse modes break one rule each; the job must stop with a message.
 * Each rank prints "atomiccheck rank R of N: PASS (K checks)".
 */
#include <gasnet.h>
#include <gasnet_ratomic.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static gex_TM_t tm;
static gex_Rank_t me, n, peer;
static char **segs; /* every rank's segment, as its owner sees it */
static int threads = 4, iters = 300;

enum { FORM_NB, FORM_NBI, FORM_BLOCKING, NUM_FORMS };
static const char *form_names[] = {"NB", "NBI", "Blocking"};

struct op_info {
  gex_OP_t op;
  const char *name;
  int bitwise;
};
static const struct op_info ops[] = {
    {GEX_OP_SET, "SET", 0},   {GEX_OP_GET, "GET", 0},   {GEX_OP_SWAP, "SWAP", 0},
    {GEX_OP_FCAS, "FCAS", 0}, {GEX_OP_CAS, "CAS", 0},   {GEX_OP_AND, "AND", 1},
    {GEX_OP_OR, "OR", 1},     {GEX_OP_XOR, "XOR", 1},   {GEX_OP_FAND, "FAND", 1},
    {GEX_OP_FOR, "FOR", 1},   {GEX_OP_FXOR, "FXOR", 1}, {GEX_OP_ADD, "ADD", 0},
    {GEX_OP_SUB, "SUB", 0},   {GEX_OP_MULT, "MULT", 0}, {GEX_OP_MIN, "MIN", 0},
    {GEX_OP_MAX, "MAX", 0},   {GEX_OP_INC, "INC", 0},   {GEX_OP_DEC, "DEC", 0},
    {GEX_OP_FADD, "FADD", 0}, {GEX_OP_FSUB, "FSUB", 0}, {GEX_OP_FMULT, "FMULT", 0},
    {GEX_OP_FMIN, "FMIN", 0}, {GEX_OP_FMAX, "FMAX", 0}, {GEX_OP_FINC, "FINC", 0},
    {GEX_OP_FDEC, "FDEC", 0},
};
#define NUM_OPS (sizeof ops / sizeof *ops)

static int fetching(gex_OP_t op) {
  return op == GEX_OP_GET || op == GEX_OP_SWAP || op == GEX_OP_FCAS ||
         (op >= GEX_OP_FAND && op <= GEX_OP_FDEC);
}

/* Region of the sweep in each segment: one 8-byte word per (type, op, form, set). */
#define SWEEP_WORDS (6 * NUM_OPS * NUM_FORMS * 2)
#define SWEEP_OFF 0
#define SHARED_OFF (SWEEP_OFF + 8 * SWEEP_WORDS + 64) /* rank 0: the hammered words */
#define LOCK_OFF (SHARED_OFF + 64)
#define COUNTER_OFF (LOCK_OFF + 64)
#define JOBRANK_OFF (COUNTER_OFF + 64) /* two words: section 4 */
#define BURST_OFF (JOBRANK_OFF + 64)   /* one word: section 5 */
#define SEGSIZE (1u << 20)

/* What the word holds after `op`, computed here without the library. The
 * operands are small and positive, so no integer operation overflows. */
#define DEFINE_TYPE(TC, T, FMT)                                                                   \
  static T expect_##TC(gex_OP_t op, T old, T a, T b) {                                            \
    if (op >= GEX_OP_FAND && op <= GEX_OP_FDEC) op = GEX_OP_TO_NONFETCHING(op);                   \
    switch (op) {                                                                                 \
      case GEX_OP_SET:                                                                            \
      case GEX_OP_SWAP:                                                                           \
        return a;                                                                                 \
      case GEX_OP_GET:                                                                            \
        return old;                                                                               \
      case GEX_OP_CAS:                                                                            \
      case GEX_OP_FCAS:                                                                           \
        return old == a ? b : old;                                                                \
      case GEX_OP_AND:                                                                            \
        return (T)((uint64_t)old & (uint64_t)a);                                                  \
      case GEX_OP_OR:                                                                             \
        return (T)((uint64_t)old | (uint64_t)a);                                                  \
      case GEX_OP_XOR:                                                                            \
        return (T)((uint64_t)old ^ (uint64_t)a);                                                  \
      case GEX_OP_ADD:                                                                            \
        return old + a;                                                                           \
      case GEX_OP_SUB:                                                                            \
        return old - a;                                                                           \
      case GEX_OP_MULT:                                                                           \
        return old * a;                                                                           \
      case GEX_OP_MIN:                                                                            \
        return a < old ? a : old;                                                                 \
      case GEX_OP_MAX:                                                                            \
        return a > old ? a : old;                                                                 \
      case GEX_OP_INC:                                                                            \
        return old + 1;                                                                           \
      case GEX_OP_DEC:                                                                            \
        return old - 1;                                                                           \
    }                                                                                             \
    CHECK(0, "expect_" #TC ": operation 0x%x", (unsigned)op);                                     \
    return old;                                                                                   \
  }                                                                                               \
  static T run_##TC(int form, gex_AD_t ad, T *result, gex_Rank_t r, void *addr, gex_OP_t op, T a, \
                    T b, gex_Flags_t flags) {                                                     \
    switch (form) {                                                                               \
      case FORM_NB: {                                                                             \
        gex_Event_t e = gex_AD_OpNB_##TC(ad, result, r, addr, op, a, b, flags);                   \
        gex_Event_Wait(e);                                                                        \
        break;                                                                                    \
      }                                                                                           \
      case FORM_NBI:                                                                              \
        CHECK(gex_AD_OpNBI_##TC(ad, result, r, addr, op, a, b, flags) == 0, "NBI returned");      \
        gex_NBI_Wait(GEX_EC_RMW, 0);                                                              \
        break;                                                                                    \
      default:                                                                                    \
        CHECK(gex_AD_OpBlocking_##TC(ad, result, r, addr, op, a, b, flags) == 0,                  \
              "Blocking returned");                                                               \
    }                                                                                             \
    return *result;                                                                               \
  }                                                                                               \
  static void sweep_##TC(int type_index, T v0, T a1, T a2, T b) {                                 \
    gex_OP_t all = 0;                                                                             \
    for (size_t i = 0; i < NUM_OPS; ++i)                                                          \
      if (!ops[i].bitwise || GEX_DT_##TC <= GEX_DT_U64) all |= ops[i].op;                         \
    gex_AD_t ad;                                                                                  \
    gex_AD_Create(&ad, tm, GEX_DT_##TC, all, 0);                                                  \
    gex_AD_SetCData(ad, &ad);                                                                     \
    CHECK(gex_AD_QueryDT(ad) == GEX_DT_##TC && gex_AD_QueryOps(ad) == all &&                      \
              gex_AD_QueryTM(ad) == tm && gex_AD_QueryFlags(ad) == 0 &&                           \
              gex_AD_QueryCData(ad) == &ad,                                                       \
          #TC ": a domain query disagrees with what it was created with");                        \
    for (size_t i = 0; i < NUM_OPS; ++i) {                                                        \
      if (!(all & ops[i].op)) continue;                                                           \
      for (int form = 0; form < NUM_FORMS; ++form) {                                              \
        for (int set = 0; set < 2; ++set) {                                                       \
          size_t word = ((type_index * NUM_OPS + i) * NUM_FORMS + form) * 2 + set;                \
          T *addr = (T *)(segs[peer] + SWEEP_OFF + 8 * word);                                     \
          gex_OP_t op = ops[i].op;                                                                \
          T a = set ? a2 : a1;                                                                    \
          if (op == GEX_OP_CAS || op == GEX_OP_FCAS) a = set ? v0 + 1 : v0;                       \
          T result = 0, junk = 0, after = 0, raw = 0;                                             \
          gex_AD_OpBlocking_##TC(ad, &junk, peer, addr, GEX_OP_SET, v0, 0, 0);                    \
          T got = run_##TC(form, ad, &result, peer, addr, op, a, b, 0);                           \
          if (fetching(op)) {                                                                     \
            CHECK(got == v0, #TC " %s %s set %d: fetched " FMT ", expected " FMT, ops[i].name,    \
                  form_names[form], set, got, v0);                                                \
          }                                                                                       \
          T want = expect_##TC(op, v0, a, b);                                                     \
          gex_AD_OpBlocking_##TC(ad, &after, peer, addr, GEX_OP_GET, 0, 0, 0);                    \
          CHECK(after == want, #TC " %s %s set %d: the word holds " FMT ", expected " FMT,        \
                ops[i].name, form_names[form], set, after, want);                                 \
          gex_RMA_GetBlocking(tm, &raw, peer, addr, sizeof raw, 0);                               \
          CHECK(raw == want, #TC " %s %s set %d: an RMA get reads " FMT ", expected " FMT,        \
                ops[i].name, form_names[form], set, raw, want);                                   \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
    gex_AD_Destroy(ad);                                                                           \
  }

DEFINE_TYPE(I32, int32_t, "%d")
DEFINE_TYPE(U32, uint32_t, "%u")
DEFINE_TYPE(I64, int64_t, "%" PRId64)
DEFINE_TYPE(U64, uint64_t, "%" PRIu64)
DEFINE_TYPE(FLT, float, "%g")
DEFINE_TYPE(DBL, double, "%g")

/* ---- many threads of every rank on one word --------------------------- */
static gex_AD_t counter_ad;

static void *hammer(void *arg) {
  uintptr_t t = (uintptr_t)arg;
  uint64_t *word = (uint64_t *)(segs[0] + SHARED_OFF);
  uint64_t last = 0;
  for (int i = 0; i < iters; ++i) {
    uint64_t fetched = 0;
    switch ((i + t) % 4) {
      case 0:
        gex_Event_Wait(gex_AD_OpNB_U64(counter_ad, &fetched, 0, word, GEX_OP_FADD, 1, 0, 0));
        CHECK(fetched >= last, "thread %u: FADD fetched %llu after %llu", (unsigned)t,
              (unsigned long long)fetched, (unsigned long long)last);
        last = fetched;
        break;
      case 1:
        gex_AD_OpNBI_U64(counter_ad, NULL, 0, word, GEX_OP_INC, 0, 0, 0);
        break;
      case 2:
        gex_AD_OpBlocking_U64(counter_ad, &fetched, 0, word, GEX_OP_FINC, 0, 0, 0);
        CHECK(fetched >= last, "thread %u: FINC fetched %llu after %llu", (unsigned)t,
              (unsigned long long)fetched, (unsigned long long)last);
        last = fetched;
        break;
      default:
        gex_AD_OpBlocking_U64(counter_ad, NULL, 0, word, GEX_OP_ADD, 1, 0, 0);
    }
  }
  gex_NBI_Wait(GEX_EC_RMW, 0);
  return NULL;
}

static void concurrent(void) {
  gex_AD_Create(&counter_ad, tm, GEX_DT_U64,
                GEX_OP_FADD | GEX_OP_INC | GEX_OP_FINC | GEX_OP_ADD | GEX_OP_GET | GEX_OP_SET, 0);
  uint64_t *word = (uint64_t *)(segs[0] + SHARED_OFF);
  if (me == 0) gex_AD_OpBlocking_U64(counter_ad, NULL, 0, word, GEX_OP_SET, 0, 0, 0);
  gex_Coll_BarrierBlocking(tm, 0);
  pthread_t tid[64];
  for (int t = 0; t < threads; ++t) pthread_create(&tid[t], NULL, hammer, (void *)(uintptr_t)t);
  for (int t = 0; t < threads; ++t) pthread_join(tid[t], NULL);
  gex_Coll_BarrierBlocking(tm, 0);
  uint64_t total = 0;
  gex_AD_OpBlocking_U64(counter_ad, &total, 0, word, GEX_OP_GET, 0, 0, 0);
  uint64_t want = (uint64_t)n * threads * iters;
  CHECK(total == want, "the shared word holds %llu after %llu increments",
        (unsigned long long)total, (unsigned long long)want);
  gex_Coll_BarrierBlocking(tm, 0);
  gex_AD_Destroy(counter_ad);
}

/* ---- a lock of FCAS and SET guarding a plain counter ------------------ */
static void lock_test(void) {
  gex_AD_t ad;
  gex_AD_Create(&ad, tm, GEX_DT_I32, GEX_OP_FCAS | GEX_OP_SET | GEX_OP_GET, 0);
  int32_t *lock = (int32_t *)(segs[0] + LOCK_OFF);
  uint64_t *counter = (uint64_t *)(segs[0] + COUNTER_OFF);
  gex_Coll_BarrierBlocking(tm, 0);
  int rounds = iters / 3 + 1;
  for (int i = 0; i < rounds; ++i) {
    int32_t seen = -1;
    do {
      gex_AD_OpBlocking_I32(ad, &seen, 0, lock, GEX_OP_FCAS, 0, (int32_t)me + 1, GEX_FLAG_AD_ACQ);
      if (seen) gasnet_AMPoll();
    } while (seen != 0);
    uint64_t c = 0;
    gex_RMA_GetBlocking(tm, &c, 0, counter, sizeof c, 0);
    c += 1;
    gex_RMA_PutBlocking(tm, 0, counter, &c, sizeof c, 0);
    int32_t holder = 0;
    gex_AD_OpBlocking_I32(ad, &holder, 0, lock, GEX_OP_GET, 0, 0, 0);
    CHECK(holder == (int32_t)me + 1, "the lock holds %d while rank %u has it", holder, me);
    gex_AD_OpBlocking_I32(ad, NULL, 0, lock, GEX_OP_SET, 0, 0, GEX_FLAG_AD_REL);
  }
  gex_Coll_BarrierBlocking(tm, 0);
  uint64_t c = 0;
  gex_RMA_GetBlocking(tm, &c, 0, counter, sizeof c, 0);
  CHECK(c == (uint64_t)n * rounds, "the locked counter is %llu after %llu increments",
        (unsigned long long)c, (unsigned long long)n * rounds);
  gex_Coll_BarrierBlocking(tm, 0);
  gex_AD_Destroy(ad);
}

/* ---- gex_AD_Create does not wait for the other members ------------------
 * Every rank but 0 creates a domain and fetch-adds 1 to a word of rank 0's
 * segment before rank 0 has called gex_AD_Create; rank 0 polls until all
 * n - 1 additions have landed and only then creates its own. A create that
 * waited for every member (a barrier) never returns on ranks 1..n-1, and the
 * job's time limit ends it. UPC++'s spec-issue160 test depends on this. */
static void create_unsynced(void) {
  int64_t *word = (int64_t *)(segs[0] + 128);
  if (me == 0) *word = 0;
  gex_Coll_BarrierBlocking(tm, 0); /* the word is zero before anyone adds */
  gex_AD_t ad;
  if (me != 0) {
    gex_AD_Create(&ad, tm, GEX_DT_I64, GEX_OP_FADD, 0);
    int64_t old = -1;
    gex_AD_OpBlocking_I64(ad, &old, 0, word, GEX_OP_FADD, 1, 0, 0);
    CHECK(old >= 0 && old < (int64_t)n - 1, "create-unsynced: rank %u fetched %" PRId64, me, old);
  } else {
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != (int64_t)n - 1) gasnet_AMPoll();
    gex_AD_Create(&ad, tm, GEX_DT_I64, GEX_OP_FADD, 0);
    int64_t old = -1;
    gex_AD_OpBlocking_I64(ad, &old, 0, word, GEX_OP_FADD, 1, 0, 0);
    CHECK(old == (int64_t)n - 1, "create-unsynced: rank 0 fetched %" PRId64 " after %u adds", old,
          n - 1);
    CHECK(*word == (int64_t)n, "create-unsynced: the word holds %" PRId64, *word);
  }
  gex_AD_Destroy(ad);
  gex_Coll_BarrierBlocking(tm, 0);
  printf("atomiccheck rank %u of %u: create did not wait\n", me, n);
  printf("atomiccheck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  gasnet_exit(0);
}

/* ---- misuse: each must stop the job ----------------------------------- */
static void misuse(const char *what) {
  gex_AD_t ad;
  if (!strcmp(what, "misuse-float-bitwise")) {
    gex_AD_Create(&ad, tm, GEX_DT_DBL, GEX_OP_ADD | GEX_OP_XOR, 0);
  } else if (!strcmp(what, "misuse-float-bitwise-op")) {
    float old = 0;
    gex_AD_Create(&ad, tm, GEX_DT_FLT, GEX_OP_FADD, 0);
    gex_AD_OpBlocking_FLT(ad, &old, peer, segs[peer] + 64, GEX_OP_FXOR, 1, 0, 0);
  } else {
    gex_AD_Create(&ad, tm, GEX_DT_I64, GEX_OP_ADD, 0);
    char *target = segs[peer] + 64;
    if (!strcmp(what, "misuse-op")) {
      gex_AD_OpBlocking_I64(ad, NULL, peer, target, GEX_OP_SUB, 1, 0, 0);
    } else if (!strcmp(what, "misuse-align")) {
      gex_AD_OpBlocking_I64(ad, NULL, peer, target + 4, GEX_OP_ADD, 1, 0, 0);
    } else if (!strcmp(what, "misuse-segment")) {
      gex_AD_OpBlocking_I64(ad, NULL, peer, target + 2 * SEGSIZE, GEX_OP_ADD, 1, 0, 0);
    }
  }
  printf("atomiccheck: %s was not caught\n", what);
  gasnet_exit(2);
}

/* ---- job ranks on the job's team and on a reversed team ------------------ */
static void jobrank_ops(void) {
  gex_TM_t rev;
  gex_TM_Split(&rev, tm, 0, (int)(n - 1 - me), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  CHECK(gex_TM_QueryRank(rev) == n - 1 - me, "reversed team: my rank %u, expected %u",
        gex_TM_QueryRank(rev), n - 1 - me);
  gex_TM_t teams[2] = {tm, rev};
  for (int t = 0; t < 2; ++t) {
    gex_AD_t ad;
    gex_AD_Create(&ad, teams[t], GEX_DT_I64, GEX_OP_FADD | GEX_OP_ADD | GEX_OP_GET | GEX_OP_SET, 0);
    int64_t *word = (int64_t *)(segs[peer] + JOBRANK_OFF + 8 * t);
    gex_Rank_t team_peer = t ? n - 1 - peer : peer;
    int64_t got = -1, junk;
    gex_AD_OpBlocking_I64(ad, &junk, team_peer, word, GEX_OP_SET, 100, 0, 0);
    /* Inline forms, then the library's (the parenthesised name is its function). */
    gex_Event_Wait(
        gex_AD_OpNB_I64(ad, &got, peer, word, GEX_OP_FADD, 1, 0, GEX_FLAG_RANK_IS_JOBRANK));
    CHECK(got == 100, "team %d: inline FADD by job rank %u fetched %" PRId64 ", expected 100", t,
          peer, got);
    gex_AD_OpNBI_I64(ad, NULL, peer, word, GEX_OP_ADD, 10, 0, GEX_FLAG_RANK_IS_JOBRANK);
    gex_NBI_Wait(GEX_EC_RMW, 0);
    gex_Event_Wait(
        (gex_AD_OpNB_I64)(ad, &got, peer, word, GEX_OP_FADD, 1000, 0, GEX_FLAG_RANK_IS_JOBRANK));
    CHECK(got == 111, "team %d: library FADD by job rank %u fetched %" PRId64 ", expected 111", t,
          peer, got);
    (gex_AD_OpBlocking_I64)(ad, &got, team_peer, word, GEX_OP_FADD, 10000, 0, 0);
    CHECK(got == 1111, "team %d: FADD by team rank %u fetched %" PRId64 ", expected 1111", t,
          team_peer, got);
    gex_AD_OpBlocking_I64(ad, &got, peer, word, GEX_OP_GET, 0, 0, GEX_FLAG_RANK_IS_JOBRANK);
    CHECK(got == 11111, "team %d: the word of job rank %u holds %" PRId64 ", expected 11111", t,
          peer, got);
    gex_Coll_BarrierBlocking(tm, 0);
    CHECK(*(int64_t *)(segs[me] + JOBRANK_OFF + 8 * t) == 11111,
          "team %d: my own word holds %" PRId64 ", expected 11111", t,
          *(int64_t *)(segs[me] + JOBRANK_OFF + 8 * t));
    gex_AD_Destroy(ad);
  }
}

/* ---- bursts of NB and NBI operations toward one peer ---------------------- */
#define BURST_MAX 2000
static uint64_t burst_got[BURST_MAX];
static gex_Event_t burst_ev[BURST_MAX];
static char burst_seen[BURST_MAX];

static void bursts(void) {
  static const int sizes[] = {1, 2, 7, 64, 300, BURST_MAX};
  static const char *ways[] = {"NBI + gex_NBI_Wait", "NBI + gex_NBI_Test loop",
                               "NB + gex_Event_WaitAll", "NB + gex_Event_TestAll loop"};
  gex_AD_t ad;
  gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_INC | GEX_OP_GET, 0);
  uint64_t *word = (uint64_t *)(segs[peer] + BURST_OFF);
  uint64_t start = 0, now = 0;
  for (int way = 0; way < 4; ++way) {
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
      int k = sizes[s];
      memset(burst_got, 0xff, sizeof burst_got);
      memset(burst_seen, 0, sizeof burst_seen);
      for (int i = 0; i < k; ++i) {
        if (way < 2) {
          CHECK(gex_AD_OpNBI_U64(ad, &burst_got[i], peer, word, GEX_OP_FADD, 1, 0, 0) == 0,
                "burst NBI returned");
        } else {
          burst_ev[i] = gex_AD_OpNB_U64(ad, &burst_got[i], peer, word, GEX_OP_FADD, 1, 0, 0);
        }
      }
      if (way == 0) gex_NBI_Wait(GEX_EC_RMW, 0);
      while (way == 1 && gex_NBI_Test(GEX_EC_RMW, 0) != GASNET_OK) continue;
      if (way == 2) gex_Event_WaitAll(burst_ev, (size_t)k, 0);
      while (way == 3 && gex_Event_TestAll(burst_ev, (size_t)k, 0) != GASNET_OK) continue;
      for (int i = 0; i < k; ++i) {
        uint64_t off = burst_got[i] - start;
        CHECK(off < (uint64_t)k && !burst_seen[off],
              "burst of %d (%s): operation %d fetched %llu, expected each of %llu..%llu once", k,
              ways[way], i, (unsigned long long)burst_got[i], (unsigned long long)start,
              (unsigned long long)(start + (uint64_t)k - 1));
        if (off < (uint64_t)k) burst_seen[off] = 1;
      }
      start += (uint64_t)k;
      gex_AD_OpBlocking_U64(ad, &now, peer, word, GEX_OP_FADD, 0, 0, 0);
      CHECK(now == start, "burst of %d (%s): the word holds %llu after it, expected %llu", k,
            ways[way], (unsigned long long)now, (unsigned long long)start);
    }
  }
  /* Non-fetching operations in a burst, then a GET. */
  for (int i = 0; i < 300; ++i) gex_AD_OpNBI_U64(ad, NULL, peer, word, GEX_OP_INC, 0, 0, 0);
  gex_NBI_Wait(GEX_EC_RMW, 0);
  start += 300;
  gex_AD_OpBlocking_U64(ad, &now, peer, word, GEX_OP_GET, 0, 0, 0);
  CHECK(now == start, "a burst of 300 INCs: the word holds %llu, expected %llu",
        (unsigned long long)now, (unsigned long long)start);
  gex_Coll_BarrierBlocking(tm, 0);
  uint64_t mine = *(volatile uint64_t *)(segs[me] + BURST_OFF);
  CHECK(mine == start, "my own burst word holds %llu, expected %llu", (unsigned long long)mine,
        (unsigned long long)start);
  gex_AD_Destroy(ad);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t seg;
  gex_Client_Init(&client, &ep, &tm, "atomiccheck", &argc, &argv, 0);
  gex_Segment_Attach(&seg, tm, SEGSIZE);
  me = check_rank = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  peer = (me + 1) % n;
  segs = calloc(n, sizeof *segs);
  for (gex_Rank_t r = 0; r < n; ++r) gex_Segment_QueryBound(tm, r, (void **)&segs[r], NULL, NULL);
  if (argc > 1 && !strncmp(argv[1], "misuse", 6)) misuse(argv[1]);
  if (argc > 1 && !strcmp(argv[1], "create-unsynced")) create_unsynced();
  if (argc > 1) threads = atoi(argv[1]);
  if (argc > 2) iters = atoi(argv[2]);
  if (threads < 1 || threads > 64) threads = 4;

  sweep_I32(0, 12, 5, 20, 77);
  sweep_U32(1, 12u, 5u, 20u, 77u);
  sweep_I64(2, 12, 5, 20, 77);
  sweep_U64(3, 12u, 5u, 20u, 77u);
  sweep_FLT(4, 12.5f, 5.25f, 20.5f, 77.75f);
  sweep_DBL(5, 12.5, 5.25, 20.5, 77.75);
  gex_Coll_BarrierBlocking(tm, 0);
  concurrent();
  lock_test();
  gex_Coll_BarrierBlocking(tm, 0);
  jobrank_ops();
  gex_Coll_BarrierBlocking(tm, 0);
  bursts();
  gex_Coll_BarrierBlocking(tm, 0);
  printf("atomiccheck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  gasnet_exit(0);
  return 0;
}
