/* am_bench: active-message figures between ranks 0 and 1, as GASNet's testam
 * reports them: round-trip latency (rank 0 sends a request, rank 1's handler
 * answers with a reply of the same category and size, rank 0 waits for the
 * reply handler) and one-way flood rate (rank 0 sends requests back to back,
 * rank 1 counts them and, at the last one, sends one Short request back).
 * Short with no arguments; Medium and Long from 0 B to 64 KiB, Long into the
 * other rank's segment. Handlers check payload sizes always, and contents
 * (first and last byte) in the untimed warm-up runs only. Other ranks only
 * take part in the barriers.
 * Prints figures only.   gasnetrun -n 2 am_bench [iterations [short]]
 * With "short", only the AMShort round trip is measured.
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRUNS 5
#define MAXLEN (64u << 10)
#define SEGSIZE (1u << 20)
#define PATTERN 0x5a
#define STUCK_NS 20e9 /* a wait this long means the AMs lost messages */

static double now_ns(void) {
  return (double)gasnett_ticks_to_ns(gasnett_ticks_now());
}

static gex_TM_t tm;
static gex_Rank_t peer;   /* the other rank of the pair */
static void *peer_seg;    /* the peer's segment, in its own address space */
static size_t expect_len; /* payload size of the current measurement */
static int verify;        /* check payload contents too (warm-up runs only) */

static volatile long requests; /* on rank 1: requests received */
static volatile long replies;  /* on rank 0: replies received */
static volatile long acks;     /* on rank 0: flood acknowledgements received */
static volatile long bad;      /* payloads of the wrong size or contents */

enum {
  H_SHORT_REQ,
  H_SHORT_REP,
  H_MED_REQ,
  H_MED_REP,
  H_LONG_REQ,
  H_LONG_REP,
  H_SHORT_SINK,
  H_MED_SINK,
  H_LONG_SINK,
  H_ACK,
  NHANDLERS
};
static gex_AM_Entry_t handlers[NHANDLERS];

static void check(const void *buf, size_t nbytes) {
  const unsigned char *p = (const unsigned char *)buf;
  if (nbytes != expect_len) ++bad;
  if (verify && nbytes && (p[0] != PATTERN || p[nbytes - 1] != PATTERN)) ++bad;
}

/* Round trip: each request handler answers in kind. */
static void short_req(gex_Token_t t) {
  ++requests;
  gex_AM_ReplyShort0(t, handlers[H_SHORT_REP].gex_index, 0);
}
static void short_rep(gex_Token_t t) {
  (void)t;
  ++replies;
}
static void med_req(gex_Token_t t, void *buf, size_t nbytes) {
  check(buf, nbytes);
  ++requests;
  gex_AM_ReplyMedium0(t, handlers[H_MED_REP].gex_index, buf, nbytes, GEX_EVENT_NOW, 0);
}
static void med_rep(gex_Token_t t, void *buf, size_t nbytes) {
  (void)t;
  check(buf, nbytes);
  ++replies;
}
static void long_req(gex_Token_t t, void *buf, size_t nbytes) {
  check(buf, nbytes);
  ++requests;
  gex_AM_ReplyLong0(t, handlers[H_LONG_REP].gex_index, buf, nbytes, peer_seg, GEX_EVENT_NOW, 0);
}
static void long_rep(gex_Token_t t, void *buf, size_t nbytes) {
  (void)t;
  check(buf, nbytes);
  ++replies;
}

/* Flood: the request handlers only count. */
static void short_sink(gex_Token_t t) {
  (void)t;
  ++requests;
}
static void medlong_sink(gex_Token_t t, void *buf, size_t nbytes) {
  (void)t;
  check(buf, nbytes);
  ++requests;
}
static void ack(gex_Token_t t) {
  (void)t;
  ++acks;
}

static void entry(int i, gex_AM_Fn_t fn, gex_Flags_t flags, const char *name) {
  handlers[i].gex_index = 0;
  handlers[i].gex_fnptr = fn;
  handlers[i].gex_flags = flags;
  handlers[i].gex_nargs = 0;
  handlers[i].gex_cdata = NULL;
  handlers[i].gex_name = name;
}

static void register_handlers(gex_EP_t ep) {
  const gex_Flags_t sreq = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST;
  const gex_Flags_t srep = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY;
  const gex_Flags_t mreq = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST;
  const gex_Flags_t mrep = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY;
  const gex_Flags_t lreq = GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST;
  const gex_Flags_t lrep = GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY;
  entry(H_SHORT_REQ, (gex_AM_Fn_t)short_req, sreq, "short_req");
  entry(H_SHORT_REP, (gex_AM_Fn_t)short_rep, srep, "short_rep");
  entry(H_MED_REQ, (gex_AM_Fn_t)med_req, mreq, "med_req");
  entry(H_MED_REP, (gex_AM_Fn_t)med_rep, mrep, "med_rep");
  entry(H_LONG_REQ, (gex_AM_Fn_t)long_req, lreq, "long_req");
  entry(H_LONG_REP, (gex_AM_Fn_t)long_rep, lrep, "long_rep");
  entry(H_SHORT_SINK, (gex_AM_Fn_t)short_sink, sreq, "short_sink");
  entry(H_MED_SINK, (gex_AM_Fn_t)medlong_sink, mreq, "med_sink");
  entry(H_LONG_SINK, (gex_AM_Fn_t)medlong_sink, lreq, "long_sink");
  entry(H_ACK, (gex_AM_Fn_t)ack, sreq, "ack");
  if (gex_EP_RegisterHandlers(ep, handlers, NHANDLERS) != GASNET_OK) {
    fprintf(stderr, "am_bench: gex_EP_RegisterHandlers failed\n");
    gasnet_exit(1);
  }
}

/* Polls until *ctr reaches target; reports and exits if it never does. */
static void wait_for(volatile long *ctr, long target, const char *what) {
  double t0 = 0;
  for (unsigned long spins = 0; *ctr < target; ++spins) {
    gasnet_AMPoll();
    if ((spins & 0xffff) == 0xffff) {
      double t = now_ns();
      if (t0 == 0) {
        t0 = t;
      } else if (t - t0 > STUCK_NS) {
        fprintf(stderr, "am_bench: rank %u stuck waiting for %s: %ld of %ld after %.0f s\n",
                (unsigned)gasnet_mynode(), what, *ctr, target, (t - t0) / 1e9);
        gasnet_exit(2);
      }
    }
  }
  if (*ctr != target) {
    fprintf(stderr, "am_bench: rank %u counted %ld %s, expected %ld\n", (unsigned)gasnet_mynode(),
            *ctr, what, target);
    ++bad;
  }
}

static double median(double t[NRUNS]) {
  for (int a = 0; a < NRUNS; ++a)
    for (int b = a + 1; b < NRUNS; ++b)
      if (t[b] < t[a]) {
        double x = t[a];
        t[a] = t[b];
        t[b] = x;
      }
  return t[NRUNS / 2];
}

enum kind { SHORT, MEDIUM, LONG };
static const char *const kind_name[] = {"AMShort", "AMMedium", "AMLong"};

static void send(enum kind k, int flood, const void *src, size_t len) {
  if (k == SHORT) {
    gex_AM_RequestShort0(tm, peer, handlers[flood ? H_SHORT_SINK : H_SHORT_REQ].gex_index, 0);
  } else if (k == MEDIUM) {
    gex_AM_RequestMedium0(tm, peer, handlers[flood ? H_MED_SINK : H_MED_REQ].gex_index, src, len,
                          GEX_EVENT_NOW, 0);
  } else {
    gex_AM_RequestLong0(tm, peer, handlers[flood ? H_LONG_SINK : H_LONG_REQ].gex_index, src, len,
                        peer_seg, GEX_EVENT_NOW, 0);
  }
}

/* One measurement between ranks 0 and 1: a warm-up run and NRUNS timed runs
 * of `iters` messages each. Returns, on rank 0, the median ns per message
 * (per round trip, or per message of the flood). The counters only grow, so
 * each rank keeps the totals it has to wait for and runs need no barrier. */
static double measure(enum kind k, int flood, const void *src, size_t len, long iters) {
  static long requests_due, replies_due, acks_due;
  gex_Rank_t me = gasnet_mynode();
  double t[NRUNS];
  expect_len = len;
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  for (int run = -1; run < NRUNS; ++run) {
    verify = run < 0; /* touching payloads costs cache misses: not while timing */
    if (me == 0) {
      double t0 = now_ns();
      if (flood) {
        for (long i = 0; i < iters; ++i) send(k, 1, src, len);
        wait_for(&acks, ++acks_due, "flood acknowledgements");
      } else {
        for (long i = 0; i < iters; ++i) {
          send(k, 0, src, len);
          wait_for(&replies, ++replies_due, "replies");
        }
      }
      if (run >= 0) t[run] = (now_ns() - t0) / (double)iters;
    } else if (me == 1) {
      requests_due += iters;
      wait_for(&requests, requests_due, "requests");
      if (flood) gex_AM_RequestShort0(tm, peer, handlers[H_ACK].gex_index, 0);
    }
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  return me == 0 ? median(t) : 0;
}

/* Fewer iterations for large payloads: about `bytes` of payload per run. */
static long iterations(long base, size_t len, double bytes) {
  long n = len ? (long)(bytes / (double)len) : base;
  if (n > base) n = base;
  return n < 500 ? 500 : n;
}

static void report(enum kind k, int flood, size_t len, double ns) {
  if (gasnet_mynode() != 0) return;
  if (!flood) {
    printf("%-8s round trip %8zu B: %9.3f us (median of %d)\n", kind_name[k], len, ns / 1e3, NRUNS);
  } else if (k == SHORT || len == 0) {
    printf("%-8s flood      %8zu B: %9.3f us/msg (median of %d)\n", kind_name[k], len, ns / 1e3,
           NRUNS);
  } else {
    printf("%-8s flood      %8zu B: %9.3f us/msg %10.1f MB/s (median of %d)\n", kind_name[k], len,
           ns / 1e3, (double)len / ns * 1e3, NRUNS);
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  gasnet_attach(NULL, 0, SEGSIZE, 0);
  gex_Rank_t me = gasnet_mynode(), n = gasnet_nodes();
  long base = argc > 1 ? atol(argv[1]) : 100000;
  if (base < 1) base = 1;
  /* "short": only the AMShort round trip (bench/ofi_vs_raw.py). */
  int short_only = argc > 2 && strcmp(argv[2], "short") == 0;
  gex_EP_t ep;
  gasnet_QueryGexObjects(NULL, &ep, &tm, NULL);
  register_handlers(ep);
  peer = me == 0 ? 1 : 0;
  if (n < 2) {
    if (me == 0) printf("# am_bench: needs 2 ranks (gasnetrun -n 2); nothing measured\n");
    gasnet_exit(0);
  }
  if (me < 2) gex_Segment_QueryBound(tm, peer, &peer_seg, NULL, NULL);

  size_t maxmed = gex_AM_MaxRequestMedium(tm, peer, GEX_EVENT_NOW, 0, 0);
  size_t maxrep = gex_AM_MaxReplyMedium(tm, peer, GEX_EVENT_NOW, 0, 0);
  if (maxrep < maxmed) maxmed = maxrep;
  size_t maxlong = gex_AM_MaxRequestLong(tm, peer, GEX_EVENT_NOW, 0, 0);
  size_t maxlongrep = gex_AM_MaxReplyLong(tm, peer, GEX_EVENT_NOW, 0, 0);
  if (maxlongrep < maxlong) maxlong = maxlongrep;
  char *src = NULL;
  if (posix_memalign((void **)&src, 4096, MAXLEN) != 0) gasnet_exit(1);
  memset(src, PATTERN, MAXLEN);
  static const size_t sizes[] = {0, 8, 64, 512, 4096, 32768, 65536};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);

  if (me == 0) {
    printf("# am_bench: rank 0 -> rank 1, %u rank(s); max Medium %zu B, max Long %zu B\n", n,
           maxmed, maxlong);
    printf(
        "# round trip: request, reply of the same kind and size; flood: requests back to\n"
        "# back, one Short acknowledgement at the end; medians of %d runs, MB = 10^6 B\n",
        NRUNS);
  }
  report(SHORT, 0, 0, measure(SHORT, 0, NULL, 0, base));
  for (int i = 0; i < nsizes && sizes[i] <= maxmed && !short_only; ++i)
    report(MEDIUM, 0, sizes[i],
           measure(MEDIUM, 0, src, sizes[i], iterations(base, sizes[i], 256e6)));
  for (int i = 0; i < nsizes && sizes[i] <= maxlong && !short_only; ++i)
    report(LONG, 0, sizes[i], measure(LONG, 0, src, sizes[i], iterations(base, sizes[i], 256e6)));
  if (!short_only) report(SHORT, 1, 0, measure(SHORT, 1, NULL, 0, 4 * base));
  for (int i = 0; i < nsizes && sizes[i] <= maxmed && !short_only; ++i)
    report(MEDIUM, 1, sizes[i],
           measure(MEDIUM, 1, src, sizes[i], iterations(4 * base, sizes[i], 1e9)));
  for (int i = 0; i < nsizes && sizes[i] <= maxlong && !short_only; ++i)
    report(LONG, 1, sizes[i], measure(LONG, 1, src, sizes[i], iterations(4 * base, sizes[i], 1e9)));

  if (bad) {
    /* Figures over corrupted data mean nothing: fail the job (a lone
       gasnet_exit ends every rank with this code). */
    fprintf(stderr, "am_bench: ERROR: rank %u saw %ld bad payloads or counts\n", me, bad);
    fflush(stdout);
    gasnet_exit(3);
  }
  fflush(stdout);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  free(src);
  gasnet_exit(0);
  return 0;
}
