/* tools_threads.c: the tools API under 8 threads (GASNETT_THREAD_SAFE
 * clients): exact atomic counts, and mutual exclusion, condition variables,
 * reader-writer locks and thread keys doing their jobs. */
#ifdef TOOLS_CHECK_WITH_GASNET
#include <gasnet.h>
#endif
#include <gasnet_tools.h>

#include "check_tools.h"

#define THREADS 8
#define ITERS 20000

GASNETT_THREADKEY_DECLARE(tools_test_key); /* defined in tools_check.c */

static pthread_barrier_t barrier;

static void run_threads(void *(*fn)(void *)) {
  pthread_t t[THREADS];
  pthread_barrier_init(&barrier, NULL, THREADS);
  for (long i = 0; i < THREADS; ++i)
    CHECK(pthread_create(&t[i], NULL, fn, (void *)i) == 0, "pthread_create");
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&barrier);
}

/* ---- atomics ---- */
static gasnett_atomic_t a_inc = gasnett_atomic_init(0);
static gasnett_atomic_t a_add = gasnett_atomic_init(0);
static gasnett_atomic32_t a32 = gasnett_atomic32_init(0);
static gasnett_atomic64_t a64 = gasnett_atomic64_init(0);
static gasnett_atomic64_t a64_cas = gasnett_atomic64_init(0);
static gasnett_atomic32_t a32_cas = gasnett_atomic32_init(0);
static gasnett_atomic_t a_dec = gasnett_atomic_init(THREADS * ITERS);
static gasnett_atomic32_t a32_dec = gasnett_atomic32_init(THREADS * ITERS);
static gasnett_strongatomic64_t s64 = gasnett_strongatomic64_init(0);
static gasnett_atomic64_t token = gasnett_atomic64_init(0);
static gasnett_atomic_t zero_hits = gasnett_atomic_init(0);
static gasnett_atomic64_t swap_sum = gasnett_atomic64_init(0);

static void *atomics_body(void *arg) {
  long me = (long)arg;
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < ITERS; ++i) {
    gasnett_atomic_increment(&a_inc, 0);
    gasnett_atomic_add(&a_add, 3, GASNETT_ATOMIC_MB_PRE);
    gasnett_atomic_subtract(&a_add, 1, GASNETT_ATOMIC_MB_POST);
    gasnett_atomic32_add(&a32, 2, GASNETT_ATOMIC_REL);
    gasnett_atomic32_decrement(&a32, GASNETT_ATOMIC_ACQ);
    gasnett_atomic64_increment(&a64, 0);
    gasnett_strongatomic64_add(&s64, (uint64_t)me, 0);
    uint64_t old64;
    do {
      old64 = gasnett_atomic64_read(&a64_cas, 0);
    } while (
        !gasnett_atomic64_compare_and_swap(&a64_cas, old64, old64 + 5, GASNETT_ATOMIC_ACQ_IF_TRUE));
    uint32_t old32;
    do {
      old32 = gasnett_atomic32_read(&a32_cas, 0);
    } while (!gasnett_atomic32_compare_and_swap(&a32_cas, old32, old32 + 1,
                                                GASNETT_ATOMIC_ACQ_IF_FALSE));
    if (gasnett_atomic_decrement_and_test(&a_dec, GASNETT_ATOMIC_ACQ_IF_TRUE))
      gasnett_atomic_increment(&zero_hits, 0);
    if (gasnett_atomic32_decrement_and_test(&a32_dec, 0)) gasnett_atomic_increment(&zero_hits, 0);
    /* Every value put in by a swap comes out of exactly one swap (or stays). */
    uint64_t mine = (uint64_t)me * ITERS + (uint64_t)i + 1;
    gasnett_atomic64_add(&swap_sum, gasnett_atomic64_swap(&token, mine, GASNETT_ATOMIC_MB_PRE), 0);
  }
  return NULL;
}

static void case_atomics_threads(void) {
  run_threads(atomics_body);
  const uint64_t n = (uint64_t)THREADS * ITERS;
  CHECK(gasnett_atomic_read(&a_inc, 0) == n, "increment");
  CHECK(gasnett_atomic_read(&a_add, 0) == 2 * n, "add/subtract");
  CHECK(gasnett_atomic32_read(&a32, 0) == (uint32_t)n, "32-bit add/decrement");
  CHECK(gasnett_atomic64_read(&a64, 0) == n, "64-bit increment");
  CHECK(gasnett_atomic64_read(&a64_cas, 0) == 5 * n, "64-bit CAS loop");
  CHECK(gasnett_atomic32_read(&a32_cas, 0) == (uint32_t)n, "32-bit CAS loop");
  CHECK(gasnett_atomic_read(&a_dec, 0) == 0 && gasnett_atomic32_read(&a32_dec, 0) == 0, "dec");
  CHECK(gasnett_atomic_read(&zero_hits, 0) == 2, "decrement_and_test fired %llu times, not 2",
        (unsigned long long)gasnett_atomic_read(&zero_hits, 0));
  CHECK(gasnett_strongatomic64_read(&s64, 0) == (uint64_t)ITERS * (THREADS * (THREADS - 1) / 2),
        "strong add");
  uint64_t all = n * (n + 1) / 2;
  CHECK(gasnett_atomic64_read(&swap_sum, 0) + gasnett_atomic64_read(&token, 0) == all, "swap");
}

/* ---- mutex, condition variable, rwlock, thread key ---- */
static gasnett_mutex_t mutex = GASNETT_MUTEX_INITIALIZER;
static long guarded; /* plain: only the mutex makes the count exact */
static gasnett_cond_t cond = GASNETT_COND_INITIALIZER;
static long turn; /* whose turn it is, handed round by the condition variable */
static gasnett_rwlock_t rwlock = GASNETT_RWLOCK_INITIALIZER;
static long pair_a, pair_b; /* writers keep them equal; readers check */
static gasnett_atomic_t torn = gasnett_atomic_init(0);

static void *sync_body(void *arg) {
  long me = (long)arg;
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < ITERS; ++i) {
    gasnett_mutex_lock(&mutex);
    gasnett_mutex_assertlocked(&mutex);
    ++guarded;
    gasnett_mutex_unlock(&mutex);
    gasnett_mutex_assertunlocked(&mutex);
  }
  for (int round = 0; round < 50; ++round) {
    gasnett_mutex_lock(&mutex);
    while (turn % THREADS != me) gasnett_cond_wait(&cond, &mutex);
    ++turn;
    gasnett_cond_broadcast(&cond);
    gasnett_mutex_unlock(&mutex);
  }
  for (int i = 0; i < ITERS / 10; ++i) {
    if (i % 4 == (int)(me % 4)) {
      gasnett_rwlock_wrlock(&rwlock);
      ++pair_a;
      sched_yield();
      ++pair_b;
      gasnett_rwlock_unlock(&rwlock);
    } else {
      gasnett_rwlock_rdlock(&rwlock);
      if (pair_a != pair_b) gasnett_atomic_increment(&torn, 0);
      gasnett_rwlock_unlock(&rwlock);
    }
  }
  int local;
  gasnett_threadkey_set(tools_test_key, &local);
  pthread_barrier_wait(&barrier);
  CHECK(gasnett_threadkey_get(tools_test_key) == &local, "thread key seen by another thread");
  return NULL;
}

static void *holder_body(void *arg) {
  (void)arg;
  gasnett_mutex_lock(&mutex);
  gasnett_rwlock_wrlock(&rwlock);
  pthread_barrier_wait(&barrier); /* held */
  pthread_barrier_wait(&barrier); /* main has tried */
  gasnett_rwlock_unlock(&rwlock);
  gasnett_mutex_unlock(&mutex);
  return NULL;
}

static void case_sync_threads(void) {
  run_threads(sync_body);
  CHECK(guarded == (long)THREADS * ITERS, "mutex lost updates: %ld", guarded);
  CHECK(turn == 50 * THREADS, "condition variable hand-off: turn %ld", turn);
  CHECK(gasnett_atomic_read(&torn, 0) == 0 && pair_a == pair_b, "rwlock let a reader see a write");

  pthread_t holder;
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_create(&holder, NULL, holder_body, NULL);
  pthread_barrier_wait(&barrier);
  CHECK(gasnett_mutex_trylock(&mutex) == EBUSY, "trylock of a held mutex");
  CHECK(gasnett_rwlock_tryrdlock(&rwlock) == EBUSY, "tryrdlock of a write-locked rwlock");
  CHECK(gasnett_rwlock_trywrlock(&rwlock) == EBUSY, "trywrlock of a write-locked rwlock");
  pthread_barrier_wait(&barrier);
  pthread_join(holder, NULL);
  pthread_barrier_destroy(&barrier);
  CHECK(gasnett_mutex_trylock(&mutex) == 0, "trylock of a free mutex");
  gasnett_mutex_unlock(&mutex);
  CHECK(gasnett_rwlock_tryrdlock(&rwlock) == 0 && gasnett_rwlock_tryrdlock(&rwlock) == 0,
        "readers");
  gasnett_rwlock_unlock(&rwlock);
  gasnett_rwlock_unlock(&rwlock);
}

/* ---- debug allocator from many threads ---- */
static void *malloc_body(void *arg) {
  long me = (long)arg;
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < 2000; ++i) {
    char *p = (char *)gasnett_debug_malloc((size_t)(me + i % 64 + 1));
    p[0] = 1;
    if (i % 100 == 0) gasnett_debug_memcheck_one();
    gasnett_debug_free(p);
  }
  return NULL;
}

static void case_malloc_threads(void) {
  gasnett_heapstats_t before, after;
  gasnett_getheapstats(&before);
  run_threads(malloc_body);
  gasnett_debug_memcheck_all();
  gasnett_getheapstats(&after);
  CHECK(after.live_objects == before.live_objects && after.live_bytes == before.live_bytes, "live");
  CHECK(after.allocated_objects - before.allocated_objects == THREADS * 2000, "allocations");
  CHECK(after.freed_objects - before.freed_objects == THREADS * 2000, "frees");
}

int run_thread_case(const char *name) {
  if (!strcmp(name, "atomics_threads"))
    case_atomics_threads();
  else if (!strcmp(name, "sync_threads"))
    case_sync_threads();
  else if (!strcmp(name, "malloc_threads"))
    case_malloc_threads();
  else
    return 0;
  return 1;
}
