/* rma_bench: put/get latency (8 B to 1 KiB; blocking, NB, NBI) and bandwidth
 * (4 KiB to 16 MiB) from rank 0 to rank 1's segment, beside memcpy of the
 * same sizes measured in the same run; then barrier latency over all ranks.
 * Prints figures only.   gasnetrun -n 2 rma_bench [reps [barrier|bandwidth [bytes]]]
 * With "barrier", only the barrier latency is measured; with "bandwidth",
 * only the bandwidth table (or its one row of `bytes`).
 * Where rank 1's segment is not mapped here (ofi conduit, network peers),
 * the memcpy column copies between two local buffers and the cache-line
 * round trip is left out.
 * Before timing, every put form writes a pattern of each measured size that
 * every get form reads back (untimed); a byte that differs ends the job with
 * code 3, since figures over corrupted data mean nothing.
 */
#define _POSIX_C_SOURCE 200112L
#include <gasnet.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXBW (16u << 20)

static double now_ns(void) {
  return (double)gasnett_ticks_to_ns(gasnett_ticks_now());
}

typedef void (*op_fn)(void *remote, void *local, size_t len);
static gasnet_node_t peer;
static gex_TM_t tm;

static void put_blocking(void *r, void *l, size_t n) {
  gasnet_put(peer, r, l, n);
}
static void put_nb(void *r, void *l, size_t n) {
  gasnet_wait_syncnb(gasnet_put_nb(peer, r, l, n));
}
static void put_nbi(void *r, void *l, size_t n) {
  gasnet_put_nbi(peer, r, l, n);
}
static void get_blocking(void *r, void *l, size_t n) {
  gasnet_get(l, peer, r, n);
}
static void get_nb(void *r, void *l, size_t n) {
  gasnet_wait_syncnb(gasnet_get_nb(l, peer, r, n));
}
static void get_nbi(void *r, void *l, size_t n) {
  gasnet_get_nbi(l, peer, r, n);
}
static void ex_put(void *r, void *l, size_t n) {
  gex_RMA_PutBlocking(tm, peer, r, l, n, 0);
}
static void ex_get(void *r, void *l, size_t n) {
  gex_RMA_GetBlocking(tm, l, peer, r, n, 0);
}
static void put_bulk(void *r, void *l, size_t n) {
  gasnet_put_bulk(peer, r, l, n);
}
static void get_bulk(void *r, void *l, size_t n) {
  gasnet_get_bulk(l, peer, r, n);
}

static void *mapped_remote;
static void copy_in(void *r, void *l, size_t n) {
  (void)r;
  memcpy(mapped_remote, l, n);
}

/* Each put form writes a pattern of `len` bytes to the peer; each get form
 * reads it back into `back` and compares. Returns the number of mismatches. */
static long verify(void *remote, char *local, char *back, size_t len) {
  static const op_fn puts[] = {put_blocking, put_nb, put_nbi, ex_put, put_bulk};
  static const op_fn gets[] = {get_blocking, get_nb, get_nbi, ex_get, get_bulk};
  long bad = 0;
  for (int i = 0; i < 5; ++i) {
    for (size_t j = 0; j < len; ++j) local[j] = (char)(j * 7 + (size_t)i * 31 + len);
    puts[i](remote, local, len);
    if (puts[i] == put_nbi) gasnet_wait_syncnbi_all();
    for (int k = 0; k < 5; ++k) {
      memset(back, 0, len);
      gets[k](remote, back, len);
      if (gets[k] == get_nbi) gasnet_wait_syncnbi_all();
      if (memcmp(back, local, len) != 0) {
        size_t at = 0;
        while (back[at] == local[at]) ++at;
        fprintf(stderr,
                "rma_bench: ERROR: %zu B put form %d, get form %d: byte %zu is %d, not %d\n", len,
                i, k, at, back[at], local[at]);
        ++bad;
      }
    }
  }
  memset(local, 7, len);
  return bad;
}

static double median5(double t[5]) {
  for (int a = 0; a < 5; ++a)
    for (int b = a + 1; b < 5; ++b)
      if (t[b] < t[a]) {
        double x = t[a];
        t[a] = t[b];
        t[b] = x;
      }
  return t[2];
}

/* Median of 5 timings of `reps` calls, in ns per call. */
static double time_op(op_fn f, void *r, void *l, size_t len, long reps, int nbi) {
  double t[5];
  for (int k = 0; k < 5; ++k) {
    double t0 = now_ns();
    for (long i = 0; i < reps; ++i) f(r, l, len);
    if (nbi) gasnet_wait_syncnbi_all();
    t[k] = (now_ns() - t0) / (double)reps;
  }
  return median5(t);
}

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  gasnet_attach(NULL, 0, MAXBW + (1 << 16), 0);
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  long reps = argc > 1 ? atol(argv[1]) : 200000;
  int barrier_only = argc > 2 && strcmp(argv[2], "barrier") == 0;
  int bandwidth_only = argc > 2 && strcmp(argv[2], "bandwidth") == 0;
  size_t bw_only = bandwidth_only && argc > 3 ? (size_t)atol(argv[3]) : 0;
  gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
  gasnet_seginfo_t *seg = calloc(n, sizeof *seg);
  gasnet_getSegmentInfo(seg, (int)n);
  peer = n > 1 ? 1 : 0;
  char *local = NULL, *back = NULL;
  if (posix_memalign((void **)&local, 4096, MAXBW) != 0) return 1;
  if (posix_memalign((void **)&back, 4096, MAXBW) != 0) return 1;
  memset(local, 7, MAXBW);
  gex_Segment_QueryBound(tm, peer, NULL, &mapped_remote, NULL);
  if (!mapped_remote && posix_memalign(&mapped_remote, 4096, MAXBW) != 0) return 1;
  /* Whether ranks 0 and 1 map each other's segments (each asks about the other). */
  void *other_view = NULL;
  gex_Segment_QueryBound(tm, me == 0 ? peer : 0, NULL, &other_view, NULL);
  int mapped = other_view != NULL;

  if (me == 0 && !barrier_only) {
    /* Warm-up: a network provider may connect on first use (rxm does). */
    for (int i = 0; i < 100; ++i) {
      put_blocking(seg[peer].addr, local, 8);
      get_blocking(seg[peer].addr, local, 8);
    }
    long bad = 0;
    for (size_t len = 8; len <= 1024 && !bandwidth_only; len *= 2)
      bad += verify(seg[peer].addr, local, back, len);
    for (size_t len = 4096; len <= MAXBW; len *= 4)
      if (!bw_only || len == bw_only) bad += verify(seg[peer].addr, local, back, len);
    if (bad) {
      fprintf(stderr, "rma_bench: ERROR: %ld put/get pairs read back other bytes\n", bad);
      fflush(stdout);
      gasnet_exit(3);
    }
    printf("# rma_bench: rank 0 -> rank %u, %u rank(s); medians of 5 runs\n", peer, n);
    if (!bandwidth_only) {
      printf("# latency, ns per operation (NBI: issue + final sync, per op)\n");
      printf("%-8s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "bytes", "memcpy", "put", "put_nb",
             "put_nbi", "ex_put", "get", "get_nb", "get_nbi", "ex_get");
    }
    for (size_t len = 8; len <= 1024 && !bandwidth_only; len *= 2) {
      printf("%-8zu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", len,
             time_op(copy_in, seg[peer].addr, local, len, reps, 0),
             time_op(put_blocking, seg[peer].addr, local, len, reps, 0),
             time_op(put_nb, seg[peer].addr, local, len, reps, 0),
             time_op(put_nbi, seg[peer].addr, local, len, reps, 1),
             time_op(ex_put, seg[peer].addr, local, len, reps, 0),
             time_op(get_blocking, seg[peer].addr, local, len, reps, 0),
             time_op(get_nb, seg[peer].addr, local, len, reps, 0),
             time_op(get_nbi, seg[peer].addr, local, len, reps, 1),
             time_op(ex_get, seg[peer].addr, local, len, reps, 0));
    }
    printf("# bandwidth, MB/s (10^6 bytes), bulk forms\n");
    printf("%-10s %10s %10s %10s %8s %8s\n", "bytes", "memcpy", "put_bulk", "get_bulk", "put/cpy",
           "get/cpy");
    for (size_t len = 4096; len <= MAXBW; len *= 4) {
      if (bw_only && len != bw_only) continue;
      long r = (long)((256u << 20) / len);
      if (r < 8) r = 8;
      double c = time_op(copy_in, seg[peer].addr, local, len, r, 0);
      double p = time_op(put_bulk, seg[peer].addr, local, len, r, 0);
      double g = time_op(get_bulk, seg[peer].addr, local, len, r, 0);
      printf("%-10zu %10.0f %10.0f %10.0f %7.1f%% %7.1f%%\n", len, len / c * 1e3, len / p * 1e3,
             len / g * 1e3, 100 * c / p, 100 * c / g);
    }
    fflush(stdout);
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);

  /* The floor for any barrier: one cache line going to the other rank and
   * back, measured through rank 1's segment, which both ranks map. */
  if (n > 1 && me < 2 && mapped && !barrier_only) {
    void *base;
    gex_Segment_QueryBound(tm, 1, NULL, &base, NULL);
    volatile long *ping = (volatile long *)((char *)base + MAXBW);
    volatile long *pong = (volatile long *)((char *)base + MAXBW + 128);
    long trips = reps / 4 > 1000 ? reps / 4 : 1000;
    double rt[5];
    for (int k = 0; k < 5; ++k) {
      double t0 = now_ns();
      for (long i = 1; i <= trips; ++i) {
        long tag = (long)k * trips + i;
        if (me == 0) {
          __atomic_store_n(ping, tag, __ATOMIC_RELEASE);
          while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != tag) {
          }
        } else {
          while (__atomic_load_n(ping, __ATOMIC_ACQUIRE) != tag) {
          }
          __atomic_store_n(pong, tag, __ATOMIC_RELEASE);
        }
      }
      rt[k] = (now_ns() - t0) / (double)trips;
    }
    double trip = median5(rt);
    if (me == 0) printf("# cache-line round trip between ranks 0 and 1: %.3f us\n", trip / 1e3);
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);

  /* Barrier latency: every rank, named and anonymous, median of 5. */
  long breps = reps / 4 > 1000 ? reps / 4 : 1000;
  double tn[5], ta[5];
  for (int k = 0; k < 5; ++k) {
    double t0 = now_ns();
    for (long i = 0; i < breps; ++i) gasnet_barrier((int)i, 0);
    tn[k] = (now_ns() - t0) / (double)breps;
    t0 = now_ns();
    for (long i = 0; i < breps; ++i) gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    ta[k] = (now_ns() - t0) / (double)breps;
  }
  double named = median5(tn), anonymous = median5(ta);
  if (me == 0) {
    printf("# barrier latency over %u rank(s), us: named %.3f anonymous %.3f\n", n, named / 1e3,
           anonymous / 1e3);
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(0);
  return 0;
}
