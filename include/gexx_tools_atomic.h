/* gexx_tools_atomic.h: the atomic types and operations of gasnet_tools.h.
 * Included by gasnet_tools.h; not for direct use.
 *
 * Every operation takes fence flags; the fences run around a relaxed
 * operation on a GCC/Clang __atomic builtin, so a request is never weakened
 * and constant flags fold away. "Weak" atomics (gasnett_atomic_* in a
 * GASNETT_THREAD_SINGLE client) are plain loads and stores with compiler
 * fences, as the specification allows for code with no concurrency. */
#ifndef GEXX_TOOLS_ATOMIC_H
#define GEXX_TOOLS_ATOMIC_H

#ifndef GASNET_TOOLS_H
#error "gexx: include gasnet_tools.h, not gexx_tools_atomic.h"
#endif

#define GASNETT_ATOMIC_NONE 0x00
#define GASNETT_ATOMIC_RMB_PRE 0x01
#define GASNETT_ATOMIC_WMB_PRE 0x02
#define GASNETT_ATOMIC_RMB_POST 0x04
#define GASNETT_ATOMIC_WMB_POST 0x08
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20
#define GASNETT_ATOMIC_MB_PRE (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define GASNETT_ATOMIC_MB_POST (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST)
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE

/* gasnett_atomic_t holds a 32-bit word, as GASNet's does on the platforms
 * gexx supports (clients store GASNETT_ATOMIC_MAX in gasnett_atomic32_t and
 * compare it back); gasnett_atomic64_t is the 64-bit one. */
typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)UINT32_MAX)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)INT32_MIN)
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)INT32_MAX)
#define gasnett_atomic_signed(v) ((gasnett_atomic_sval_t)(v))

/* Every operation exists on every platform (lock-free 32- and 64-bit
 * __atomic builtins), and all of them are safe in signal handlers. */
#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_STRONGATOMIC_CAS 1
#define GASNETT_HAVE_STRONGATOMIC_ADD_SUB 1
#define GASNETT_ATOMIC_CONFIG atomics_gcc_builtin
#define GASNETT_ATOMIC32_CONFIG atomic32_gcc_builtin
#define GASNETT_ATOMIC64_CONFIG atomic64_gcc_builtin

/* rmb is an acquire fence (earlier loads before everything later), wmb a
 * release fence (everything earlier before later stores), both together a
 * full fence. A weak (single-threaded) operation only stops the compiler. */
static inline void gexxt_atomic_fence(int rmb, int wmb, int strong) {
  if (!rmb && !wmb) return;
  if (!strong)
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  else if (rmb && wmb)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else if (rmb)
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
  else
    __atomic_thread_fence(__ATOMIC_RELEASE);
}
static inline void gexxt_atomic_pre(int f, int strong) {
  gexxt_atomic_fence(f & GASNETT_ATOMIC_RMB_PRE, f & GASNETT_ATOMIC_WMB_PRE, strong);
}
static inline void gexxt_atomic_post(int f, int strong) {
  gexxt_atomic_fence(f & GASNETT_ATOMIC_RMB_POST, f & GASNETT_ATOMIC_WMB_POST, strong);
}
/* After a boolean operation (compare-and-swap, decrement-and-test). */
static inline int gexxt_atomic_post_bool(int f, int strong, int result) {
  int rmb_if = (result && (f & GASNETT_ATOMIC_RMB_POST_IF_TRUE)) ||
               (!result && (f & GASNETT_ATOMIC_RMB_POST_IF_FALSE));
  gexxt_atomic_fence((f & GASNETT_ATOMIC_RMB_POST) || rmb_if, f & GASNETT_ATOMIC_WMB_POST, strong);
  return result;
}

/* One family of operations: PFX##_t holding a T (ST its signed twin),
 * STRONG 1 for true atomics, 0 for plain single-threaded ones. */
#define GEXXT_ATOMIC_FAMILY(PFX, T, STRONG)                                                      \
  static inline T PFX##_read(PFX##_t *p, int f) {                                                \
    T v;                                                                                         \
    gexxt_atomic_pre(f, STRONG);                                                                 \
    v = STRONG ? __atomic_load_n(&p->gexxt_ctr, __ATOMIC_RELAXED) : p->gexxt_ctr;                \
    gexxt_atomic_post(f, STRONG);                                                                \
    return v;                                                                                    \
  }                                                                                              \
  static inline void PFX##_set(PFX##_t *p, T v, int f) {                                         \
    gexxt_atomic_pre(f, STRONG);                                                                 \
    if (STRONG)                                                                                  \
      __atomic_store_n(&p->gexxt_ctr, v, __ATOMIC_RELAXED);                                      \
    else                                                                                         \
      p->gexxt_ctr = v;                                                                          \
    gexxt_atomic_post(f, STRONG);                                                                \
  }                                                                                              \
  static inline T PFX##_add(PFX##_t *p, T op, int f) {                                           \
    T v;                                                                                         \
    gexxt_atomic_pre(f, STRONG);                                                                 \
    v = STRONG ? __atomic_add_fetch(&p->gexxt_ctr, op, __ATOMIC_RELAXED) : (p->gexxt_ctr += op); \
    gexxt_atomic_post(f, STRONG);                                                                \
    return v;                                                                                    \
  }                                                                                              \
  static inline T PFX##_subtract(PFX##_t *p, T op, int f) {                                      \
    T v;                                                                                         \
    gexxt_atomic_pre(f, STRONG);                                                                 \
    v = STRONG ? __atomic_sub_fetch(&p->gexxt_ctr, op, __ATOMIC_RELAXED) : (p->gexxt_ctr -= op); \
    gexxt_atomic_post(f, STRONG);                                                                \
    return v;                                                                                    \
  }                                                                                              \
  static inline void PFX##_increment(PFX##_t *p, int f) {                                        \
    (void)PFX##_add(p, 1, f);                                                                    \
  }                                                                                              \
  static inline void PFX##_decrement(PFX##_t *p, int f) {                                        \
    (void)PFX##_subtract(p, 1, f);                                                               \
  }                                                                                              \
  static inline int PFX##_decrement_and_test(PFX##_t *p, int f) {                                \
    T v;                                                                                         \
    gexxt_atomic_pre(f, STRONG);                                                                 \
    v = STRONG ? __atomic_sub_fetch(&p->gexxt_ctr, 1, __ATOMIC_RELAXED) : --p->gexxt_ctr;        \
    return gexxt_atomic_post_bool(f, STRONG, v == 0);                                            \
  }                                                                                              \
  static inline int PFX##_compare_and_swap(PFX##_t *p, T oldval, T newval, int f) {              \
    int ok;                                                                                      \
    gexxt_atomic_pre(f, STRONG);                                                                 \
    if (STRONG) {                                                                                \
      ok = __atomic_compare_exchange_n(&p->gexxt_ctr, &oldval, newval, 0, __ATOMIC_RELAXED,      \
                                       __ATOMIC_RELAXED);                                        \
    } else {                                                                                     \
      ok = p->gexxt_ctr == oldval;                                                               \
      if (ok) p->gexxt_ctr = newval;                                                             \
    }                                                                                            \
    return gexxt_atomic_post_bool(f, STRONG, ok);                                                \
  }                                                                                              \
  static inline T PFX##_swap(PFX##_t *p, T v, int f) {                                           \
    T old;                                                                                       \
    gexxt_atomic_pre(f, STRONG);                                                                 \
    if (STRONG) {                                                                                \
      old = __atomic_exchange_n(&p->gexxt_ctr, v, __ATOMIC_RELAXED);                             \
    } else {                                                                                     \
      old = p->gexxt_ctr;                                                                        \
      p->gexxt_ctr = v;                                                                          \
    }                                                                                            \
    gexxt_atomic_post(f, STRONG);                                                                \
    return old;                                                                                  \
  }

/* The fixed-width types have exactly the size and alignment of the integer,
 * so (int32_t *) and (double *) storage may be cast to them. */
typedef struct {
  gasnett_atomic_val_t gexxt_ctr;
} gasnett_strongatomic_t;
typedef struct {
  uint32_t gexxt_ctr;
} gasnett_strongatomic32_t;
typedef struct {
  uint64_t gexxt_ctr;
} gasnett_strongatomic64_t;
#define gasnett_strongatomic_init(v) \
  { (gasnett_atomic_val_t)(v) }
#define gasnett_strongatomic32_init(v) \
  { (uint32_t)(v) }
#define gasnett_strongatomic64_init(v) \
  { (uint64_t)(v) }
GEXXT_ATOMIC_FAMILY(gasnett_strongatomic, gasnett_atomic_val_t, 1)
GEXXT_ATOMIC_FAMILY(gasnett_strongatomic32, uint32_t, 1)
GEXXT_ATOMIC_FAMILY(gasnett_strongatomic64, uint64_t, 1)

#if GASNETT_THREAD_SAFE
#define GEXXT_ATOMIC(name) gasnett_strongatomic##name
#else
typedef gasnett_strongatomic_t gexxt_weakatomic_t;
typedef gasnett_strongatomic32_t gexxt_weakatomic32_t;
typedef gasnett_strongatomic64_t gexxt_weakatomic64_t;
#define gexxt_weakatomic_init gasnett_strongatomic_init
#define gexxt_weakatomic32_init gasnett_strongatomic32_init
#define gexxt_weakatomic64_init gasnett_strongatomic64_init
GEXXT_ATOMIC_FAMILY(gexxt_weakatomic, gasnett_atomic_val_t, 0)
GEXXT_ATOMIC_FAMILY(gexxt_weakatomic32, uint32_t, 0)
GEXXT_ATOMIC_FAMILY(gexxt_weakatomic64, uint64_t, 0)
#define GEXXT_ATOMIC(name) gexxt_weakatomic##name
#endif

/* gasnett_atomic{,32,64}_*: true atomics for thread-safe clients, plain
 * operations for single-threaded ones. */
#define gasnett_atomic_t GEXXT_ATOMIC(_t)
#define gasnett_atomic_init(v) GEXXT_ATOMIC(_init)(v)
#define gasnett_atomic_read GEXXT_ATOMIC(_read)
#define gasnett_atomic_set GEXXT_ATOMIC(_set)
#define gasnett_atomic_add GEXXT_ATOMIC(_add)
#define gasnett_atomic_subtract GEXXT_ATOMIC(_subtract)
#define gasnett_atomic_increment GEXXT_ATOMIC(_increment)
#define gasnett_atomic_decrement GEXXT_ATOMIC(_decrement)
#define gasnett_atomic_decrement_and_test GEXXT_ATOMIC(_decrement_and_test)
#define gasnett_atomic_compare_and_swap GEXXT_ATOMIC(_compare_and_swap)
#define gasnett_atomic_swap GEXXT_ATOMIC(_swap)

#define gasnett_atomic32_t GEXXT_ATOMIC(32_t)
#define gasnett_atomic32_init(v) GEXXT_ATOMIC(32_init)(v)
#define gasnett_atomic32_read GEXXT_ATOMIC(32_read)
#define gasnett_atomic32_set GEXXT_ATOMIC(32_set)
#define gasnett_atomic32_add GEXXT_ATOMIC(32_add)
#define gasnett_atomic32_subtract GEXXT_ATOMIC(32_subtract)
#define gasnett_atomic32_increment GEXXT_ATOMIC(32_increment)
#define gasnett_atomic32_decrement GEXXT_ATOMIC(32_decrement)
#define gasnett_atomic32_decrement_and_test GEXXT_ATOMIC(32_decrement_and_test)
#define gasnett_atomic32_compare_and_swap GEXXT_ATOMIC(32_compare_and_swap)
#define gasnett_atomic32_swap GEXXT_ATOMIC(32_swap)

#define gasnett_atomic64_t GEXXT_ATOMIC(64_t)
#define gasnett_atomic64_init(v) GEXXT_ATOMIC(64_init)(v)
#define gasnett_atomic64_read GEXXT_ATOMIC(64_read)
#define gasnett_atomic64_set GEXXT_ATOMIC(64_set)
#define gasnett_atomic64_add GEXXT_ATOMIC(64_add)
#define gasnett_atomic64_subtract GEXXT_ATOMIC(64_subtract)
#define gasnett_atomic64_increment GEXXT_ATOMIC(64_increment)
#define gasnett_atomic64_decrement GEXXT_ATOMIC(64_decrement)
#define gasnett_atomic64_decrement_and_test GEXXT_ATOMIC(64_decrement_and_test)
#define gasnett_atomic64_compare_and_swap GEXXT_ATOMIC(64_compare_and_swap)
#define gasnett_atomic64_swap GEXXT_ATOMIC(64_swap)

#endif /* GEXX_TOOLS_ATOMIC_H */
