/* gexx_tools_sync.h: mutexes, condition variables, reader-writer locks and
 * thread-specific data of gasnet_tools.h. Included by gasnet_tools.h; not
 * for direct use.
 *
 * The types are the same in every thread model, so objects of libraries
 * built for different models agree on their layout. A GASNETT_THREAD_SINGLE
 * client skips the pthread calls (unless it defines GASNETT_USE_TRUE_MUTEXES)
 * but keeps the owner checks: locking a mutex twice, or unlocking one the
 * thread does not hold, is a fatal error in every model. */
#ifndef GEXX_TOOLS_SYNC_H
#define GEXX_TOOLS_SYNC_H

#ifndef GASNET_TOOLS_H
#error "gexx: include gasnet_tools.h, not gexx_tools_sync.h"
#endif

#include <errno.h>
#include <pthread.h>

#if GASNETT_THREAD_SAFE || (defined(GASNETT_USE_TRUE_MUTEXES) && GASNETT_USE_TRUE_MUTEXES)
#define GEXXT_TRUE_LOCKS 1
#else
#define GEXXT_TRUE_LOCKS 0
#endif

/* Out of line: reports a misuse (what, which lock) and ends the process. */
GASNETT_NORETURNP(gexx_tools_lock_misuse)
extern void gexx_tools_lock_misuse(const char *what, const void *lock) GASNETT_NORETURN;

/* The calling thread's identity for the owner checks (never 0). */
static inline uintptr_t gexxt_self(void) {
#if GEXXT_TRUE_LOCKS
  return (uintptr_t)pthread_self() | 1u;
#else
  return 1u;
#endif
}

/* ---- mutexes ---- */
typedef struct {
  pthread_mutex_t gexxt_lock;
  uintptr_t gexxt_owner; /* 0 when free */
} gasnett_mutex_t;
#define GASNETT_MUTEX_INITIALIZER \
  { PTHREAD_MUTEX_INITIALIZER, 0 }

static inline uintptr_t gexxt_mutex_owner(gasnett_mutex_t *m) {
  return __atomic_load_n(&m->gexxt_owner, __ATOMIC_RELAXED);
}
static inline void gexxt_mutex_took(gasnett_mutex_t *m) {
  __atomic_store_n(&m->gexxt_owner, gexxt_self(), __ATOMIC_RELAXED);
}
static inline void gasnett_mutex_init(gasnett_mutex_t *m) {
  int rc = pthread_mutex_init(&m->gexxt_lock, NULL);
  if (rc) gexx_tools_lock_misuse("gasnett_mutex_init failed", m);
  m->gexxt_owner = 0;
}
static inline int gasnett_mutex_destroy_ignoreerr(gasnett_mutex_t *m) {
  return pthread_mutex_destroy(&m->gexxt_lock);
}
static inline void gasnett_mutex_destroy(gasnett_mutex_t *m) {
  if (gexxt_mutex_owner(m)) gexx_tools_lock_misuse("gasnett_mutex_destroy of a locked mutex", m);
  if (gasnett_mutex_destroy_ignoreerr(m)) gexx_tools_lock_misuse("gasnett_mutex_destroy failed", m);
}
static inline void gasnett_mutex_lock(gasnett_mutex_t *m) {
  if (gexxt_mutex_owner(m) == gexxt_self())
    gexx_tools_lock_misuse("gasnett_mutex_lock of a mutex this thread already holds", m);
#if GEXXT_TRUE_LOCKS
  if (pthread_mutex_lock(&m->gexxt_lock)) gexx_tools_lock_misuse("gasnett_mutex_lock failed", m);
#endif
  gexxt_mutex_took(m);
}
/* 0 when taken, EBUSY when another holder has it. */
static inline int gasnett_mutex_trylock(gasnett_mutex_t *m) {
  if (gexxt_mutex_owner(m) == gexxt_self())
    gexx_tools_lock_misuse("gasnett_mutex_trylock of a mutex this thread already holds", m);
#if GEXXT_TRUE_LOCKS
  if (pthread_mutex_trylock(&m->gexxt_lock)) return EBUSY;
#else
  if (gexxt_mutex_owner(m)) return EBUSY;
#endif
  gexxt_mutex_took(m);
  return 0;
}
static inline void gasnett_mutex_unlock(gasnett_mutex_t *m) {
  if (gexxt_mutex_owner(m) != gexxt_self())
    gexx_tools_lock_misuse("gasnett_mutex_unlock of a mutex this thread does not hold", m);
  __atomic_store_n(&m->gexxt_owner, 0, __ATOMIC_RELAXED);
#if GEXXT_TRUE_LOCKS
  if (pthread_mutex_unlock(&m->gexxt_lock))
    gexx_tools_lock_misuse("gasnett_mutex_unlock failed", m);
#endif
}
static inline void gasnett_mutex_assertlocked(gasnett_mutex_t *m) {
  if (gexxt_mutex_owner(m) != gexxt_self())
    gexx_tools_lock_misuse("gasnett_mutex_assertlocked: the calling thread does not hold the mutex",
                           m);
}
static inline void gasnett_mutex_assertunlocked(gasnett_mutex_t *m) {
  if (gexxt_mutex_owner(m) == gexxt_self())
    gexx_tools_lock_misuse("gasnett_mutex_assertunlocked: the calling thread holds the mutex", m);
}

/* ---- condition variables ---- */
typedef struct {
  pthread_cond_t gexxt_cond;
} gasnett_cond_t;
#define GASNETT_COND_INITIALIZER \
  { PTHREAD_COND_INITIALIZER }

static inline void gasnett_cond_init(gasnett_cond_t *c) {
  if (pthread_cond_init(&c->gexxt_cond, NULL))
    gexx_tools_lock_misuse("gasnett_cond_init failed", c);
}
static inline void gasnett_cond_destroy(gasnett_cond_t *c) {
  if (pthread_cond_destroy(&c->gexxt_cond))
    gexx_tools_lock_misuse("gasnett_cond_destroy failed", c);
}
static inline void gasnett_cond_signal(gasnett_cond_t *c) {
#if GEXXT_TRUE_LOCKS
  pthread_cond_signal(&c->gexxt_cond);
#else
  (void)c;
#endif
}
static inline void gasnett_cond_broadcast(gasnett_cond_t *c) {
#if GEXXT_TRUE_LOCKS
  pthread_cond_broadcast(&c->gexxt_cond);
#else
  (void)c;
#endif
}
/* m must be held; it is released while waiting and held again on return. */
static inline void gasnett_cond_wait(gasnett_cond_t *c, gasnett_mutex_t *m) {
  gasnett_mutex_assertlocked(m);
#if GEXXT_TRUE_LOCKS
  __atomic_store_n(&m->gexxt_owner, 0, __ATOMIC_RELAXED);
  pthread_cond_wait(&c->gexxt_cond, &m->gexxt_lock);
  gexxt_mutex_took(m);
#else
  (void)c;
  gexx_tools_lock_misuse("gasnett_cond_wait in a single-threaded client would wait forever", m);
#endif
}

/* ---- reader-writer locks ----
 * A POSIX rwlock. <pthread.h> declares its type only when the client asks
 * for POSIX (a GNU mode, or _POSIX_C_SOURCE); in strict ISO C (gcc -std=c99
 * or -std=c11) the lock is storage of the same size and alignment that the
 * library's calls (gexx_tools_rwlock_op) use as the rwlock, statically
 * initialised to zero, which is PTHREAD_RWLOCK_INITIALIZER with the C
 * libraries this builds on (glibc and musl; the library checks it). */
/* The library's rwlock call (strict ISO C, below): `op` one of these;
 * returns pthread_rwlock_*'s result. */
extern int gexx_tools_rwlock_op(void *lock, int op);
#define GEXXT_RWLOCK_OP_init 0
#define GEXXT_RWLOCK_OP_destroy 1
#define GEXXT_RWLOCK_OP_rdlock 2
#define GEXXT_RWLOCK_OP_wrlock 3
#define GEXXT_RWLOCK_OP_tryrdlock 4
#define GEXXT_RWLOCK_OP_trywrlock 5
#define GEXXT_RWLOCK_OP_unlock 6
#if defined(PTHREAD_RWLOCK_INITIALIZER)
typedef struct {
  pthread_rwlock_t gexxt_rwlock;
} gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER \
  { PTHREAD_RWLOCK_INITIALIZER }
#define GEXXT_RWLOCK_CALL_(op, l) pthread_rwlock_##op(&(l)->gexxt_rwlock)
#define GEXXT_RWLOCK_INIT_(l) pthread_rwlock_init(&(l)->gexxt_rwlock, NULL)
#elif defined(__SIZEOF_PTHREAD_RWLOCK_T)
typedef struct {
  union {
    unsigned char gexxt_bytes[__SIZEOF_PTHREAD_RWLOCK_T];
    long gexxt_align;
  } gexxt_rwlock;
} gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER \
  {                                \
    {                              \
      { 0 }                        \
    }                              \
  }
#define GEXXT_RWLOCK_CALL_(op, l) gexx_tools_rwlock_op((l), GEXXT_RWLOCK_OP_##op)
#define GEXXT_RWLOCK_INIT_(l) gexx_tools_rwlock_op((l), GEXXT_RWLOCK_OP_init)
#else
#error \
    "gasnet_tools.h: this C library's <pthread.h> hides pthread_rwlock_t in this language mode; compile with -D_POSIX_C_SOURCE=200809L or a GNU mode (-std=gnu11)"
#endif

static inline void gasnett_rwlock_init(gasnett_rwlock_t *l) {
  if (GEXXT_RWLOCK_INIT_(l)) gexx_tools_lock_misuse("gasnett_rwlock_init failed", l);
}
static inline void gasnett_rwlock_destroy(gasnett_rwlock_t *l) {
  if (GEXXT_RWLOCK_CALL_(destroy, l))
    gexx_tools_lock_misuse("gasnett_rwlock_destroy of a held or invalid lock", l);
}
/* The single-threaded forms still take the lock: it costs one uncontended
 * atomic and keeps unlock-without-lock an error in every model. */
static inline void gasnett_rwlock_rdlock(gasnett_rwlock_t *l) {
  if (GEXXT_RWLOCK_CALL_(rdlock, l))
    gexx_tools_lock_misuse("gasnett_rwlock_rdlock failed (already write-locked by this thread?)",
                           l);
}
static inline void gasnett_rwlock_wrlock(gasnett_rwlock_t *l) {
  if (GEXXT_RWLOCK_CALL_(wrlock, l))
    gexx_tools_lock_misuse("gasnett_rwlock_wrlock failed (already held by this thread?)", l);
}
/* 0 when taken, EBUSY otherwise. */
static inline int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *l) {
  return GEXXT_RWLOCK_CALL_(tryrdlock, l) ? EBUSY : 0;
}
static inline int gasnett_rwlock_trywrlock(gasnett_rwlock_t *l) {
  return GEXXT_RWLOCK_CALL_(trywrlock, l) ? EBUSY : 0;
}
static inline void gasnett_rwlock_unlock(gasnett_rwlock_t *l) {
  if (GEXXT_RWLOCK_CALL_(unlock, l))
    gexx_tools_lock_misuse("gasnett_rwlock_unlock of a lock this thread does not hold", l);
}
/* POSIX cannot tell which thread holds a reader lock; as in a GASNet
 * non-debug build these checks do nothing. */
#define gasnett_rwlock_assertlocked(l) ((void)(l))
#define gasnett_rwlock_assertrdlocked(l) ((void)(l))
#define gasnett_rwlock_assertwrlocked(l) ((void)(l))
#define gasnett_rwlock_assertunlocked(l) ((void)(l))

/* ---- thread-specific data ---- */
/* A key is a void * per thread (per process in a single-threaded client),
 * NULL until set; it needs no initialisation. */
typedef void *gasnett_threadkey_t;
#define GASNETT_THREADKEY_INITIALIZER NULL
#if GASNETT_THREAD_SAFE
#define GEXXT_TLS __thread
#else
#define GEXXT_TLS
#endif
#define GASNETT_THREADKEY_DECLARE(key) extern GEXXT_TLS gasnett_threadkey_t gexxt_threadkey_##key
#define GASNETT_THREADKEY_DEFINE(key) GEXXT_TLS gasnett_threadkey_t gexxt_threadkey_##key = NULL
#define gasnett_threadkey_init(key) ((void)gexxt_threadkey_##key)
#define gasnett_threadkey_get(key) (gexxt_threadkey_##key)
#define gasnett_threadkey_set(key, newval) ((void)(gexxt_threadkey_##key = (newval)))
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, newval) gasnett_threadkey_set(key, newval)

#endif /* GEXX_TOOLS_SYNC_H */
