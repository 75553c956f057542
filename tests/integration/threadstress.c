/* threadstress: a GASNET_PAR client whose threads all communicate at once.
 *
 *   threadstress [OPS [SEED [THREADS [BARRIERS]]]]   (defaults 3000, 1, 8, 0)
 *   threadstress compute ROUNDS           (with GASNET_RCV_THREAD=1)
 *
 * Every rank runs THREADS threads; each does OPS operations drawn from a
 * random generator seeded by (SEED, rank, thread): AM Short (4 and 16
 * arguments), Medium and Long requests whose handlers check the arguments and
 * payload and reply in kind (the reply is checked too), requests without a
 * reply, blocking, NB and NBI puts and gets to random peers (NBI inside an
 * access region or synced with gasnet_wait_syncnbi_all) whose data is read
 * back and compared, handler-safe lock sections, and polls. A thread writes
 * only its own region of each peer's segment, so every read-back is exact.
 * At the end the ranks exchange how many requests each sent to each peer,
 * and every rank checks the requests its handlers ran, the replies its
 * threads got and the counter its handlers and threads raised under one hsl.
 *
 * Meanwhile the main thread runs BARRIERS barriers, alternately named
 * split-phase ones finished with gasnet_barrier_try and gex_Coll_BarrierNB
 * events tested to completion: their messages (the AM barrier of a job over
 * the network) are handled on whichever thread polls.
 *
 * In compute mode rank 0 computes without calling gexx until every other
 * rank has had ROUNDS requests answered by it and has said so with a put:
 * only a progress thread can answer them.
 *
 * Each rank prints "threadstress rank R of N: PASS (...)" or "FAIL: ..." and
 * the job exits 1.
 */
#include <gasnet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_THREADS 320 /* a test limit; gexx has none */
#define MAX_RANKS 16
#define REGION (32u << 10) /* bytes per (rank, thread) area */
#define MEDIUM_MAX 4096u   /* largest Medium payload sent */
#define NBI_PUTS 4         /* puts per access region */
enum { K_SHORT, K_SHORT16, K_MEDIUM, K_LONG, K_NOREPLY, K_KINDS };

static gex_Rank_t me, nranks;
static unsigned nthreads;
static gex_TM_t tm;
static gex_EP_t ep;
static void *seg_of[MAX_RANKS]; /* each rank's segment, in its owner's addresses */
static unsigned char *seg;      /* mine */
/* Set (release) once seg_of and seg are filled in. Handlers may run on the
 * GASNET_RCV_THREAD thread, which reads them; the job's barrier orders
 * that, but through another process, which ThreadSanitizer cannot see, so
 * handlers acquire this flag (and check it) before they use the addresses. */
static int segments_known;
static void need_segments(void) {
  CHECK(__atomic_load_n(&segments_known, __ATOMIC_ACQUIRE),
        "a handler ran before the segments were known");
}

/* Per-thread reply mailbox: the reply handler (on whichever thread polls)
 * checks the reply and stores its sequence number here. */
static struct {
  long got;
  char pad[64 - sizeof(long)];
} mailbox[MAX_THREADS];

static long recv_count[K_KINDS]; /* request handlers run here, by kind (atomic) */
static long replies_run;         /* reply handlers run here (atomic) */
static gasnet_hsl_t lock = GASNET_HSL_INITIALIZER;
static long locked_counter; /* raised by handlers and threads, under `lock` only */

/* ---- segment layout ---- */
/* Puts and gets of thread t of rank r land in (r, t)'s put area of each peer;
 * its Long requests in (r, t)'s long area; replies to its Longs in its own
 * reply area of rank r; the end-of-run exchange in the totals area. */
static size_t put_off(gex_Rank_t r, unsigned t) {
  return ((size_t)r * nthreads + t) * REGION;
}
static size_t long_off(gex_Rank_t r, unsigned t) {
  return ((size_t)(nranks + r) * nthreads + t) * REGION;
}
static size_t reply_off(unsigned t) {
  return ((size_t)2 * nranks * nthreads + t) * REGION;
}
static size_t totals_off(void) {
  return ((size_t)2 * nranks * nthreads + nthreads) * REGION;
}
static size_t seg_size(void) {
  return totals_off() + sizeof(long) * K_KINDS * MAX_RANKS;
}

/* ---- deterministic values ---- */
static uint32_t mix(uint32_t a, uint32_t b) {
  uint32_t x = a * 2654435761u ^ (b + 0x9E3779B9u + (a << 6) + (a >> 2));
  x ^= x >> 15;
  x *= 2246822519u;
  return x ^ (x >> 13);
}
/* What a responder `src` sends back for a request carrying `seed`. */
static uint32_t reply_seed(uint32_t seed, gex_Rank_t src) {
  return mix(seed, 0x5EED0000u + src);
}
static size_t medium_len(uint32_t seed) {
  return seed % (MEDIUM_MAX + 1);
}
static size_t long_len(uint32_t seed) {
  return seed % (REGION + 1);
}

/* ---- handlers ---- */
enum {
  H_SHORT = 200,
  H_SHORT_REP,
  H_SHORT16,
  H_SHORT16_REP,
  H_MEDIUM,
  H_MEDIUM_REP,
  H_LONG,
  H_LONG_REP,
  H_NOREPLY
};

static void count_locked(void) {
  gasnet_hsl_lock(&lock);
  ++locked_counter;
  gasnet_hsl_unlock(&lock);
}

static gex_Rank_t source(gex_Token_t t) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK(got & GEX_TI_SRCRANK, "gex_Token_Info lacks the source rank");
  CHECK(info.gex_srcrank < nranks, "source rank %u", info.gex_srcrank);
  return info.gex_srcrank;
}

static void check_payload(gex_Token_t t, const char *what, const void *buf, size_t nbytes,
                          size_t want, uint32_t seed) {
  gex_Rank_t src = source(t);
  CHECK(nbytes == want, "%s from %u: %zu bytes, expected %zu", what, src, nbytes, want);
  size_t bad = first_bad(buf, nbytes, seed);
  CHECK(bad == (size_t)-1, "%s from %u: byte %zu of %zu wrong", what, src, bad, nbytes);
}

static void request_ran(int kind, unsigned tid) {
  CHECK(tid < nthreads, "request from thread %u", tid);
  __atomic_fetch_add(&recv_count[kind], 1, __ATOMIC_RELAXED);
  count_locked();
}

static void reply_ran(unsigned tid, gex_AM_Arg_t seq) {
  CHECK(tid < nthreads, "reply to thread %u", tid);
  CHECK(__atomic_load_n(&mailbox[tid].got, __ATOMIC_RELAXED) == seq - 1,
        "thread %u got reply %d, expected %ld", tid, (int)seq,
        __atomic_load_n(&mailbox[tid].got, __ATOMIC_RELAXED) + 1);
  __atomic_fetch_add(&replies_run, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&mailbox[tid].got, (long)seq, __ATOMIC_RELEASE);
}

static void h_short(gex_Token_t t, gex_AM_Arg_t tid, gex_AM_Arg_t seq, gex_AM_Arg_t a,
                    gex_AM_Arg_t b) {
  gex_Rank_t src = source(t);
  CHECK((uint32_t)b == mix((uint32_t)a, src), "Short from %u: b=%d", src, (int)b);
  request_ran(K_SHORT, (unsigned)tid);
  gex_AM_ReplyShort4(t, H_SHORT_REP, 0, tid, seq, reply_seed((uint32_t)a, me), me);
}
static void h_short_rep(gex_Token_t t, gex_AM_Arg_t tid, gex_AM_Arg_t seq, gex_AM_Arg_t r,
                        gex_AM_Arg_t from) {
  gex_Rank_t src = source(t);
  CHECK((gex_Rank_t)from == src, "Short reply names rank %d, came from %u", (int)from, src);
  /* The request's `a` was the thread's seq mixed with the rank and thread. */
  CHECK((uint32_t)r == reply_seed(mix((uint32_t)seq, me * 131u + (uint32_t)tid), src),
        "Short reply value");
  reply_ran((unsigned)tid, seq);
}

#define A16 gex_AM_Arg_t
static void h_short16(gex_Token_t t, A16 tid, A16 seq, A16 a2, A16 a3, A16 a4, A16 a5, A16 a6,
                      A16 a7, A16 a8, A16 a9, A16 a10, A16 a11, A16 a12, A16 a13, A16 a14,
                      A16 a15) {
  gex_Rank_t src = source(t);
  A16 v[14] = {a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  for (unsigned i = 0; i < 14; ++i)
    CHECK((uint32_t)v[i] == mix((uint32_t)seq, i + 1000u * (uint32_t)tid + 77u * src),
          "Short16 from %u arg %u", src, i + 2);
  request_ran(K_SHORT16, (unsigned)tid);
  A16 r[14];
  for (unsigned i = 0; i < 14; ++i) r[i] = (A16)mix((uint32_t)v[i], me);
  gex_AM_ReplyShort16(t, H_SHORT16_REP, 0, tid, seq, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                      r[8], r[9], r[10], r[11], r[12], r[13]);
}
static void h_short16_rep(gex_Token_t t, A16 tid, A16 seq, A16 a2, A16 a3, A16 a4, A16 a5, A16 a6,
                          A16 a7, A16 a8, A16 a9, A16 a10, A16 a11, A16 a12, A16 a13, A16 a14,
                          A16 a15) {
  gex_Rank_t src = source(t);
  A16 v[14] = {a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  for (unsigned i = 0; i < 14; ++i) {
    uint32_t sent = mix((uint32_t)seq, i + 1000u * (uint32_t)tid + 77u * me);
    CHECK((uint32_t)v[i] == mix(sent, src), "Short16 reply from %u arg %u", src, i + 2);
  }
  reply_ran((unsigned)tid, seq);
}

static void h_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t tid, gex_AM_Arg_t seq,
                     gex_AM_Arg_t seed) {
  check_payload(t, "Medium request", buf, nbytes, medium_len((uint32_t)seed), (uint32_t)seed);
  request_ran(K_MEDIUM, (unsigned)tid);
  uint32_t rs = reply_seed((uint32_t)seed, me);
  unsigned char out[MEDIUM_MAX];
  fill(out, medium_len(rs), rs);
  gex_AM_ReplyMedium3(t, H_MEDIUM_REP, out, medium_len(rs), GEX_EVENT_NOW, 0, tid, seq, rs);
}
static void h_medium_rep(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t tid,
                         gex_AM_Arg_t seq, gex_AM_Arg_t rs) {
  check_payload(t, "Medium reply", buf, nbytes, medium_len((uint32_t)rs), (uint32_t)rs);
  reply_ran((unsigned)tid, seq);
}

static void h_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t tid, gex_AM_Arg_t seq,
                   gex_AM_Arg_t seed) {
  gex_Rank_t src = source(t);
  need_segments();
  CHECK(buf == seg + long_off(src, (unsigned)tid), "Long from %u thread %d landed at %p", src,
        (int)tid, buf);
  check_payload(t, "Long request", buf, nbytes, long_len((uint32_t)seed), (uint32_t)seed);
  request_ran(K_LONG, (unsigned)tid);
  uint32_t rs = reply_seed((uint32_t)seed, me);
  size_t len = long_len(rs);
  unsigned char *out = malloc(len ? len : 1);
  fill(out, len, rs);
  void *dest = (char *)seg_of[src] + reply_off((unsigned)tid);
  gex_AM_ReplyLong3(t, H_LONG_REP, out, len, dest, GEX_EVENT_NOW, 0, tid, seq, rs);
  free(out);
}
static void h_long_rep(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t tid, gex_AM_Arg_t seq,
                       gex_AM_Arg_t rs) {
  gex_Rank_t src = source(t);
  need_segments();
  CHECK(buf == seg + reply_off((unsigned)tid), "Long reply from %u landed at %p", src, buf);
  check_payload(t, "Long reply", buf, nbytes, long_len((uint32_t)rs), (uint32_t)rs);
  reply_ran((unsigned)tid, seq);
}

static void h_noreply(gex_Token_t t, gex_AM_Arg_t tid, gex_AM_Arg_t check) {
  gex_Rank_t src = source(t);
  CHECK((uint32_t)check == mix((uint32_t)tid, src), "no-reply request from %u", src);
  request_ran(K_NOREPLY, (unsigned)tid);
}

#define REQ GEX_FLAG_AM_REQUEST
#define REP GEX_FLAG_AM_REPLY
static gex_AM_Entry_t table[] = {
    {H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | REQ, 4, NULL, "short"},
    {H_SHORT_REP, (gex_AM_Fn_t)h_short_rep, GEX_FLAG_AM_SHORT | REP, 4, NULL, "short_rep"},
    {H_SHORT16, (gex_AM_Fn_t)h_short16, GEX_FLAG_AM_SHORT | REQ, 16, NULL, "short16"},
    {H_SHORT16_REP, (gex_AM_Fn_t)h_short16_rep, GEX_FLAG_AM_SHORT | REP, 16, NULL, "short16_rep"},
    {H_MEDIUM, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_MEDIUM | REQ, 3, NULL, "medium"},
    {H_MEDIUM_REP, (gex_AM_Fn_t)h_medium_rep, GEX_FLAG_AM_MEDIUM | REP, 3, NULL, "medium_rep"},
    {H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | REQ, 3, NULL, "long"},
    {H_LONG_REP, (gex_AM_Fn_t)h_long_rep, GEX_FLAG_AM_LONG | REP, 3, NULL, "long_rep"},
    {H_NOREPLY, (gex_AM_Fn_t)h_noreply, GEX_FLAG_AM_SHORT | REQ, 2, NULL, "noreply"},
};

/* ---- the threads ---- */
struct worker {
  unsigned tid;
  uint64_t rng;
  long seq; /* requests with a reply sent so far */
  long sent[K_KINDS][MAX_RANKS];
  long locked;               /* lock sections of this thread */
  unsigned char *out, *back; /* REGION bytes each */
  pthread_t thread;
};

static uint32_t next_rand(struct worker *w) {
  w->rng ^= w->rng << 13;
  w->rng ^= w->rng >> 7;
  w->rng ^= w->rng << 17;
  return (uint32_t)(w->rng >> 16);
}

static void *remote_put_area(gex_Rank_t peer, unsigned tid) {
  return (char *)seg_of[peer] + put_off(me, tid);
}

/* Sends one request that gets a reply and waits for the reply. */
static void am_exchange(struct worker *w, int kind, gex_Rank_t peer) {
  uint32_t seq = (uint32_t)++w->seq;
  uint32_t seed = mix(seq, me * 131u + w->tid);
  switch (kind) {
    case K_SHORT:
      gex_AM_RequestShort4(tm, peer, H_SHORT, 0, w->tid, seq, seed, mix(seed, me));
      break;
    case K_SHORT16: {
      A16 v[14];
      for (unsigned i = 0; i < 14; ++i) v[i] = (A16)mix(seq, i + 1000u * w->tid + 77u * me);
      gex_AM_RequestShort16(tm, peer, H_SHORT16, 0, w->tid, seq, v[0], v[1], v[2], v[3], v[4], v[5],
                            v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
      break;
    }
    case K_MEDIUM:
      fill(w->out, medium_len(seed), seed);
      gex_AM_RequestMedium3(tm, peer, H_MEDIUM, w->out, medium_len(seed), GEX_EVENT_NOW, 0, w->tid,
                            seq, seed);
      break;
    default: {
      fill(w->out, long_len(seed), seed);
      gex_Event_t lc;
      gex_AM_RequestLong3(tm, peer, H_LONG, w->out, long_len(seed),
                          (char *)seg_of[peer] + long_off(me, w->tid), &lc, 0, w->tid, seq, seed);
      gex_Event_Wait(lc);
    }
  }
  ++w->sent[kind][peer];
  GASNET_BLOCKUNTIL(__atomic_load_n(&mailbox[w->tid].got, __ATOMIC_ACQUIRE) == (long)seq);
}

static void check_back(struct worker *w, size_t len, uint32_t seed, gex_Rank_t peer,
                       const char *how) {
  size_t bad = first_bad(w->back, len, seed);
  CHECK(bad == (size_t)-1, "thread %u: %s of %zu bytes with rank %u: byte %zu wrong", w->tid, how,
        len, peer, bad);
}

static void rma_blocking(struct worker *w, gex_Rank_t peer) {
  uint32_t seed = next_rand(w);
  size_t len = next_rand(w) % (REGION + 1);
  size_t off = next_rand(w) % (REGION - len + 1);
  char *dst = (char *)remote_put_area(peer, w->tid) + off;
  fill(w->out, len, seed);
  gex_RMA_PutBlocking(tm, peer, dst, w->out, len, 0);
  memset(w->back, 0, len);
  gex_RMA_GetBlocking(tm, w->back, peer, dst, len, 0);
  check_back(w, len, seed, peer, "blocking put and get");
}

static void rma_nb(struct worker *w, gex_Rank_t peer) {
  uint32_t seed = next_rand(w);
  size_t len = next_rand(w) % (REGION + 1);
  char *dst = remote_put_area(peer, w->tid);
  fill(w->out, len, seed);
  gex_Event_t lc;
  gex_Event_t put = gex_RMA_PutNB(tm, peer, dst, w->out, len, &lc, 0);
  gex_Event_Wait(lc);
  gex_Event_Wait(put);
  memset(w->back, 0, len);
  gex_Event_t get = gex_RMA_GetNB(tm, w->back, peer, dst, len, 0);
  gex_Event_Wait(get);
  check_back(w, len, seed, peer, "NB put and get");
}

/* NBI puts to NBI_PUTS random peers in an access region, then NBI gets. */
static void rma_nbi(struct worker *w, int legacy) {
  const size_t part = REGION / NBI_PUTS;
  gex_Rank_t peers[NBI_PUTS];
  uint32_t seeds[NBI_PUTS];
  size_t lens[NBI_PUTS];
  if (!legacy) gex_NBI_BeginAccessRegion(0);
  for (unsigned i = 0; i < NBI_PUTS; ++i) {
    peers[i] = next_rand(w) % nranks;
    seeds[i] = next_rand(w);
    lens[i] = next_rand(w) % (part + 1);
    fill(w->out + i * part, lens[i], seeds[i]);
    char *dst = (char *)remote_put_area(peers[i], w->tid) + i * part;
    if (legacy)
      gasnet_put_nbi_bulk(peers[i], dst, w->out + i * part, lens[i]);
    else
      gex_RMA_PutNBI(tm, peers[i], dst, w->out + i * part, lens[i], GEX_EVENT_DEFER, 0);
  }
  if (legacy) {
    gasnet_wait_syncnbi_puts();
  } else {
    gex_Event_Wait(gex_NBI_EndAccessRegion(0));
  }
  memset(w->back, 0, REGION);
  for (unsigned i = 0; i < NBI_PUTS; ++i) {
    char *src = (char *)remote_put_area(peers[i], w->tid) + i * part;
    if (legacy)
      gasnet_get_nbi_bulk(w->back + i * part, peers[i], src, lens[i]);
    else
      gex_RMA_GetNBI(tm, w->back + i * part, peers[i], src, lens[i], 0);
  }
  if (legacy)
    gasnet_wait_syncnbi_all();
  else
    gex_NBI_Wait(GEX_EC_GET, 0);
  for (unsigned i = 0; i < NBI_PUTS; ++i) {
    size_t bad = first_bad(w->back + i * part, lens[i], seeds[i]);
    CHECK(bad == (size_t)-1, "thread %u: NBI%s put and get of %zu bytes with rank %u: byte %zu",
          w->tid, legacy ? " (GASNet-1)" : "", lens[i], peers[i], bad);
  }
}

static long ops_per_thread;

static void *worker_main(void *arg) {
  struct worker *w = arg;
  for (long op = 0; op < ops_per_thread; ++op) {
    gex_Rank_t peer = next_rand(w) % nranks;
    unsigned r = next_rand(w) % 100;
    if (r < 15) {
      am_exchange(w, K_SHORT, peer);
    } else if (r < 20) {
      am_exchange(w, K_SHORT16, peer);
    } else if (r < 32) {
      am_exchange(w, K_MEDIUM, peer);
    } else if (r < 44) {
      am_exchange(w, K_LONG, peer);
    } else if (r < 50) {
      gex_AM_RequestShort2(tm, peer, H_NOREPLY, 0, w->tid, mix(w->tid, me));
      ++w->sent[K_NOREPLY][peer];
    } else if (r < 62) {
      rma_blocking(w, peer);
    } else if (r < 72) {
      rma_nb(w, peer);
    } else if (r < 84) {
      rma_nbi(w, 0);
    } else if (r < 90) {
      rma_nbi(w, 1);
    } else if (r < 98) {
      count_locked();
      ++w->locked;
    } else {
      gasnet_AMPoll();
    }
  }
  return NULL;
}

/* The main thread's barriers while the workers communicate. */
static void barriers_beside(long count) {
  for (long i = 0; i < count; ++i) {
    if (i & 1) {
      gex_Event_t ev = gex_Coll_BarrierNB(tm, 0);
      while (gex_Event_Test(ev) != GASNET_OK) {
      }
      continue;
    }
    int rc, id = -1;
    gasnet_barrier_notify((int)i, 0);
    while ((rc = gasnet_barrier_try((int)i, 0)) == GASNET_ERR_NOT_READY) {
    }
    CHECK(rc == GASNET_OK && gasnet_barrier_result(&id) == 0 && id == (int)i,
          "barrier %ld beside the workers: result %d, name %d", i, rc, id);
  }
}

static volatile uint64_t compute_sink; /* keeps the computation */

/* Rank 0 computes; the others' requests are answered by its progress thread. */
static void compute(long rounds) {
  volatile long *said = (volatile long *)(seg + totals_off()); /* one word per rank */
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (me == 0) {
    uint64_t x = 1, spins = 0;
    for (;;) {
      gex_Rank_t done = 0;
      for (gex_Rank_t r = 1; r < nranks; ++r)
        done += __atomic_load_n(&said[r], __ATOMIC_ACQUIRE) == 1;
      if (done == nranks - 1) break;
      for (int i = 0; i < 1000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
      ++spins;
    }
    long got = __atomic_load_n(&recv_count[K_SHORT], __ATOMIC_RELAXED);
    CHECK(got == rounds * (long)(nranks - 1), "rank 0 served %ld requests, expected %ld", got,
          rounds * (long)(nranks - 1));
    compute_sink = x;
    printf("threadstress: rank 0 served %ld requests while computing (%llu steps)\n", got,
           (unsigned long long)spins);
  } else {
    struct worker w;
    memset(&w, 0, sizeof w);
    for (long i = 0; i < rounds; ++i) am_exchange(&w, K_SHORT, 0);
    long one = 1;
    gex_RMA_PutBlocking(tm, 0, (char *)seg_of[0] + totals_off() + sizeof(long) * me, &one,
                        sizeof one, 0);
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  me = gasnet_mynode();
  nranks = gasnet_nodes();
  check_rank = me;
  int compute_mode = argc > 2 && !strcmp(argv[1], "compute");
  ops_per_thread = argc > 1 ? atol(argv[1]) : 3000;
  unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
  nthreads = argc > 3 ? (unsigned)atoi(argv[3]) : 8;
  long barriers = argc > 4 ? atol(argv[4]) : 0;
  CHECK(nranks <= MAX_RANKS && nthreads >= 1 && nthreads <= MAX_THREADS && ops_per_thread >= 0,
        "at most %d ranks and 1..%d threads", MAX_RANKS, MAX_THREADS);
  gasnet_attach(NULL, 0, (seg_size() + 4095) / 4096 * 4096, 0);
  gasnet_QueryGexObjects(NULL, &ep, &tm, NULL);
  gex_EP_RegisterHandlers(ep, table, sizeof table / sizeof table[0]);
  for (gex_Rank_t r = 0; r < nranks; ++r) gex_Segment_QueryBound(tm, r, &seg_of[r], NULL, NULL);
  seg = seg_of[me];
  __atomic_store_n(&segments_known, 1, __ATOMIC_RELEASE);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS); /* every rank has its handlers */
  if (compute_mode) {
    long rounds = atol(argv[2]);
    compute(rounds);
    printf("threadstress rank %u of %u: PASS (compute, %ld rounds)\n", me, nranks, rounds);
    fflush(stdout);
    gasnet_exit(0);
  }

  struct worker *w = calloc(nthreads, sizeof *w);
  for (unsigned t = 0; t < nthreads; ++t) {
    w[t].tid = t;
    w[t].rng = (seed * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)me << 40) ^ ((uint64_t)t << 20) ^ 1;
    w[t].out = malloc(REGION);
    w[t].back = malloc(REGION);
    CHECK(pthread_create(&w[t].thread, NULL, worker_main, &w[t]) == 0, "pthread_create");
  }
  barriers_beside(barriers);
  long sent_to[MAX_RANKS][K_KINDS] = {{0}};
  long locked = 0, with_reply = 0;
  for (unsigned t = 0; t < nthreads; ++t) {
    CHECK(pthread_join(w[t].thread, NULL) == 0, "pthread_join");
    for (gex_Rank_t r = 0; r < nranks; ++r)
      for (int k = 0; k < K_KINDS; ++k) sent_to[r][k] += w[t].sent[k][r];
    locked += w[t].locked;
    with_reply += w[t].seq;
    CHECK(__atomic_load_n(&mailbox[t].got, __ATOMIC_ACQUIRE) == w[t].seq,
          "thread %u: last reply %ld, expected %ld", t, mailbox[t].got, w[t].seq);
    free(w[t].out);
    free(w[t].back);
  }
  free(w);

  /* Tell each peer how many requests of each kind it should have run. */
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  for (gex_Rank_t r = 0; r < nranks; ++r) {
    gex_RMA_PutBlocking(tm, r, (char *)seg_of[r] + totals_off() + sizeof(long) * K_KINDS * me,
                        sent_to[r], sizeof(long) * K_KINDS, 0);
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  const long *totals = (const long *)(seg + totals_off());
  long requests = 0;
  for (int k = 0; k < K_KINDS; ++k) {
    long expect = 0;
    for (gex_Rank_t r = 0; r < nranks; ++r) expect += totals[r * K_KINDS + k];
    /* A request without a reply may still be in flight after the barriers (they
       do not order AMs): poll until as many ran as were sent; one lost hangs the
       job, which its timeout reports, and one run twice shows here. */
    GASNET_BLOCKUNTIL(__atomic_load_n(&recv_count[k], __ATOMIC_RELAXED) >= expect);
    long got = __atomic_load_n(&recv_count[k], __ATOMIC_RELAXED);
    CHECK(got == expect, "request kind %d: handlers ran %ld, peers sent %ld", k, got, expect);
    requests += got;
  }
  CHECK(replies_run == with_reply, "reply handlers ran %ld, %ld requests wanted one", replies_run,
        with_reply);
  gasnet_hsl_lock(&lock);
  long counter = locked_counter;
  gasnet_hsl_unlock(&lock);
  CHECK(counter == requests + locked, "hsl counter %ld, expected %ld requests + %ld sections",
        counter, requests, locked);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  printf(
      "threadstress rank %u of %u: PASS (%ld checks, %u threads x %ld ops, %ld requests run, "
      "seed %lu, %ld barriers beside)\n",
      me, nranks, check_count, nthreads, ops_per_thread, requests, seed, barriers);
  fflush(stdout);
  gasnet_exit(0);
  return 0;
}
