/* fi_raw_bench: what libfabric itself does between two processes on this
 * host, with no GASNet above it: the floor the ofi conduit is judged against.
 *
 *   fi_raw_bench [-p provider] [-n reps] [-s bytes] [-w window]
 *                [rt|write|stream|udp|all]
 *
 * Forks into two processes, each opening a reliable-datagram endpoint with
 * the hints the ofi conduit uses (messages and RMA, the same registration
 * modes), exchanges endpoint names over a socket pair, and measures
 *   rt:     send/receive round trip of 8 bytes (-s: of that size; inject
 *           when the provider allows, else fi_send from a registered
 *           buffer, receives posted ahead), as fi_pingpong does;
 *   write:  fi_write bandwidth to a registered buffer, 4 KiB to 4 MiB, one
 *           write at a time (FI_DELIVERY_COMPLETE, what a blocking put waits
 *           for) and 8 in flight (transmit completion, the pipe's capacity);
 *           -s measures only writes of that size;
 *   stream: one-way message bandwidth, 64 KiB messages (-s: that size):
 *           -w sends in flight (default 8) from one registered buffer, 64
 *           receives posted ahead and each reposted as it completes, an
 *           8-byte message back at the end (the provider's own streaming
 *           bandwidth, what an AM Medium flood can reach at best);
 *   udp:    the same one-way stream over plain UDP sockets on loopback, no
 *           libfabric: 65000-byte datagrams (-s: that size), the receiver
 *           counting what arrives (datagrams dropped by a full socket buffer
 *           count as lost; the rate is what arrived), what GASNet's udp
 *           conduit's path can reach at best. Not part of "all".
 * Prints medians of 5 runs; figures only, never fails on speed.
 * The provider defaults to GASNET_OFI_PROVIDER, then FI_PROVIDER, then
 * libfabric's first match. bench/ofi_vs_raw.py runs it beside the conduit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXSIZE (4u << 20)
#define WINDOW 8
#define RUNS 5

static const char *prog = "fi_raw_bench";
static int me;   /* 0 measures, 1 answers */
static int sock; /* to the other process */

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_cq *cq;
static struct fid_av *av;
static struct fid_ep *ep;
static fi_addr_t peer;
static uint64_t next_key = 1;
static int push; /* sockets: sends wait for the next progress call */

static void die(const char *what, long rc) {
  fprintf(stderr, "%s: process %d: %s: %s (%ld)\n", prog, me, what,
          fi_strerror((int)(rc < 0 ? -rc : rc)), rc);
  exit(1);
}

#define CHECK(call)           \
  do {                        \
    long rc_ = (call);        \
    if (rc_) die(#call, rc_); \
  } while (0)

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void xfer(void *buf, size_t len, int out) {
  char *p = buf;
  while (len) {
    ssize_t n = out ? write(sock, p, len) : read(sock, p, len);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      fprintf(stderr, "%s: process %d: the other process went away\n", prog, me);
      exit(1);
    }
    p += n;
    len -= (size_t)n;
  }
}

static void sync_both(void) {
  char c = 's';
  xfer(&c, 1, 1);
  xfer(&c, 1, 0);
}

/* The target of RMA: with manual progress (tcp, net) writes land only while
 * the target polls, so it polls until the other process says it is done. */
static void serve_until_sync(void) {
  struct pollfd pfd = {.fd = sock, .events = POLLIN};
  for (;;) {
    for (int i = 0; i < 1000; ++i) fi_cq_read(cq, NULL, 0);
    if (poll(&pfd, 1, 0) > 0) break;
  }
  sync_both();
}

/* Waits for one completion; returns its flags. */
static uint64_t wait_one(void) {
  struct fi_cq_msg_entry e;
  for (;;) {
    ssize_t n = fi_cq_read(cq, &e, 1);
    if (n == 1) return e.flags;
    if (n == -FI_EAGAIN) continue;
    if (n == -FI_EAVAIL) {
      struct fi_cq_err_entry err = {0};
      fi_cq_readerr(cq, &err, 0);
      die("completion error", err.err);
    }
    die("fi_cq_read", n);
  }
}

static void open_endpoint(const char *provider) {
  struct fi_info *hints = fi_allocinfo();
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG | FI_RMA;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  if (provider && *provider) hints->fabric_attr->prov_name = strdup(provider);
  int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info);
  fi_freeinfo(hints);
  if (!rc && info && !strcmp(info->fabric_attr->prov_name, "sockets")) {
    /* As the conduit does: sockets' progress thread spins 10 ms per wake-up
     * beside ours, so it runs with manual progress and each post is pushed. */
    info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    push = 1;
  }
  if (rc || !info) {
    fprintf(stderr, "%s: no provider with reliable-datagram endpoints, messages and RMA%s%s: %s\n",
            prog, provider && *provider ? " named " : "", provider ? provider : "",
            fi_strerror(-rc));
    exit(1);
  }
  CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
  CHECK(fi_domain(fabric, info, &domain, NULL));
  struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_MSG};
  CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
  struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = 2};
  CHECK(fi_av_open(domain, &av_attr, &av, NULL));
  CHECK(fi_endpoint(domain, info, &ep, NULL));
  CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
  CHECK(fi_ep_bind(ep, &av->fid, 0));
  CHECK(fi_enable(ep));
  char name[256];
  size_t len = sizeof name;
  CHECK(fi_getname(&ep->fid, name, &len));
  char other[256];
  size_t olen = 0;
  xfer(&len, sizeof len, 1);
  xfer(name, len, 1);
  xfer(&olen, sizeof olen, 0);
  if (olen > sizeof other) die("endpoint name too long", -FI_ETOOSMALL);
  xfer(other, olen, 0);
  if (fi_av_insert(av, other, 1, &peer, 0, NULL) != 1) die("fi_av_insert", -FI_EINVAL);
}

static struct fid_mr *reg(void *buf, size_t len, uint64_t access) {
  uint64_t mode = (uint64_t)info->domain_attr->mr_mode;
  struct fid_mr *mr = NULL;
  CHECK(fi_mr_reg(domain, buf, len, access, 0, (mode & FI_MR_PROV_KEY) ? 0 : next_key++, 0, &mr,
                  NULL));
  if (mode & FI_MR_ENDPOINT) {
    CHECK(fi_mr_bind(mr, &ep->fid, 0));
    CHECK(fi_mr_enable(mr));
  }
  return mr;
}

static double median(double *t) {
  for (int a = 0; a < RUNS; ++a)
    for (int b = a + 1; b < RUNS; ++b)
      if (t[b] < t[a]) {
        double x = t[a];
        t[a] = t[b];
        t[b] = x;
      }
  return t[RUNS / 2];
}

static struct fi_context2 send_ctx, recv_ctx;

/* Sends `len` bytes from `buf`: injected when the provider allows, else
 * fi_send (its completion is skipped by wait_recv). */
static void send_msg(char *buf, size_t len, void *desc) {
  ssize_t rc;
  if (len <= info->tx_attr->inject_size) {
    while ((rc = fi_inject(ep, buf, len, peer)) == -FI_EAGAIN) fi_cq_read(cq, NULL, 0);
    if (rc) die("fi_inject", rc);
    if (push) fi_cq_read(cq, NULL, 0);
    return;
  }
  while ((rc = fi_send(ep, buf, len, desc, peer, &send_ctx)) == -FI_EAGAIN) fi_cq_read(cq, NULL, 0);
  if (rc) die("fi_send", rc);
  if (push) fi_cq_read(cq, NULL, 0);
}

/* Waits for the next receive, skipping send completions. */
static void wait_recv(void) {
  while (!(wait_one() & FI_RECV)) {
  }
}

static void bench_rt(long reps, size_t len) {
  size_t cap = len < 64 ? 64 : len;
  char *sbuf = calloc(1, cap), *rbuf = calloc(1, cap);
  if (!sbuf || !rbuf) die("calloc", -FI_ENOMEM);
  struct fid_mr *smr = reg(sbuf, cap, FI_SEND);
  struct fid_mr *rmr = reg(rbuf, cap, FI_RECV);
  void *sdesc = fi_mr_desc(smr), *rdesc = fi_mr_desc(rmr);
  long warm = reps / 10 + 10;
  double t[RUNS];
  sync_both();
  for (int k = 0; k < RUNS; ++k) {
    double t0 = 0;
    for (long i = -warm; i < reps; ++i) {
      if (i == 0) t0 = now_ns();
      CHECK(fi_recv(ep, rbuf, cap, rdesc, peer, &recv_ctx));
      if (me == 0) {
        send_msg(sbuf, len, sdesc);
        wait_recv();
      } else {
        wait_recv();
        send_msg(sbuf, len, sdesc);
      }
    }
    t[k] = (now_ns() - t0) / (double)reps;
    sync_both();
  }
  if (me == 0)
    printf("raw send/recv round trip %zu B: %9.3f us (median of %d, %s, %s)\n", len,
           median(t) / 1e3, RUNS, info->fabric_attr->prov_name,
           len <= info->tx_attr->inject_size ? "fi_inject" : "fi_send");
  fi_close(&smr->fid);
  fi_close(&rmr->fid);
  free(sbuf);
  free(rbuf);
}

/* One-way message stream: process 0 sends `count` messages of `len` bytes
 * with up to `window` in flight; process 1 keeps RECVS receives posted and
 * answers the last with 8 bytes. */
#define RECVS 64
static void bench_stream(size_t len, int window) {
  static struct fi_context2 rctx[RECVS], sctx, actx;
  size_t cap = len < 64 ? 64 : len;
  char *buf = NULL;
  int nbuf = me == 0 ? 1 : RECVS;
  if (posix_memalign((void **)&buf, 4096, cap * (size_t)nbuf)) die("posix_memalign", -FI_ENOMEM);
  memset(buf, 0x5a, cap * (size_t)nbuf);
  struct fid_mr *mr = reg(buf, cap * (size_t)nbuf, FI_SEND | FI_RECV);
  void *desc = fi_mr_desc(mr);
  static char ack[64];
  struct fid_mr *amr = reg(ack, sizeof ack, FI_SEND | FI_RECV);
  long count = (long)((256u << 20) / cap);
  if (count < 64) count = 64;
  double t[RUNS];
  if (me == 1)
    for (int r = 0; r < RECVS; ++r)
      CHECK(fi_recv(ep, buf + cap * (size_t)r, cap, desc, peer, &rctx[r]));
  for (int k = 0; k < RUNS; ++k) {
    if (me == 0) CHECK(fi_recv(ep, ack, sizeof ack, fi_mr_desc(amr), peer, &actx));
    sync_both();
    double t0 = now_ns();
    if (me == 0) {
      long issued = 0, done = 0;
      int acked = 0;
      while (done < count || !acked) {
        while (issued < count && issued - done < window) {
          ssize_t rc = fi_send(ep, buf, len, desc, peer, &sctx);
          if (rc == -FI_EAGAIN) break;
          if (rc) die("fi_send", rc);
          if (push) fi_cq_read(cq, NULL, 0);
          ++issued;
        }
        struct fi_cq_msg_entry e[16];
        ssize_t n = fi_cq_read(cq, e, 16);
        if (n == -FI_EAGAIN) continue;
        if (n < 0) die("fi_cq_read", n);
        for (ssize_t i = 0; i < n; ++i) {
          if (e[i].flags & FI_RECV)
            acked = 1;
          else
            ++done;
        }
      }
      t[k] = (double)len * (double)count / (now_ns() - t0) * 1e3;
    } else {
      long got = 0;
      while (got < count) {
        struct fi_cq_msg_entry e[16];
        ssize_t n = fi_cq_read(cq, e, 16);
        if (n == -FI_EAGAIN) continue;
        if (n < 0) die("fi_cq_read", n);
        for (ssize_t i = 0; i < n; ++i) {
          if (!(e[i].flags & FI_RECV)) continue; /* the ack's send */
          if (e[i].len != len) die("a message of the wrong length", -FI_EIO);
          struct fi_context2 *c = e[i].op_context;
          size_t r = (size_t)(c - rctx);
          CHECK(fi_recv(ep, buf + cap * r, cap, desc, peer, c));
          ++got;
        }
      }
      send_msg(ack, 8, fi_mr_desc(amr));
    }
    sync_both();
  }
  if (me == 0)
    printf("raw one-way stream %zu B: %9.0f MB/s (10^6 B, median of %d, %s, %d in flight)\n", len,
           median(t), RUNS, info->fabric_attr->prov_name, window);
  /* the receives still posted end with the endpoint */
  fi_close(&amr->fid);
  fi_close(&mr->fid);
  free(buf);
}

/* The same one-way stream as plain UDP datagrams over loopback. */
static void bench_udp(size_t len) {
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  if (u < 0) die("socket", -errno);
  int big = 8 << 20;
  setsockopt(u, SOL_SOCKET, me ? SO_RCVBUF : SO_SNDBUF, &big, sizeof big);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(u, (struct sockaddr *)&a, sizeof a)) die("bind", -errno);
  socklen_t al = sizeof a;
  getsockname(u, (struct sockaddr *)&a, &al);
  struct sockaddr_in other;
  xfer(&a, sizeof a, 1);
  xfer(&other, sizeof other, 0);
  char *buf = malloc(len);
  if (!buf) die("malloc", -FI_ENOMEM);
  memset(buf, 0x5a, len);
  long count = (long)((256u << 20) / len);
  double t[RUNS], lost[RUNS];
  for (int k = 0; k < RUNS; ++k) {
    sync_both();
    if (me == 0) {
      for (long i = 0; i < count; ++i) {
        if (sendto(u, buf, len, 0, (struct sockaddr *)&other, sizeof other) != (ssize_t)len) {
          if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
            --i;
            continue;
          }
          die("sendto", -errno);
        }
      }
      char c = 'e';
      xfer(&c, 1, 1);
      xfer(&t[k], sizeof t[k], 0);
      xfer(&lost[k], sizeof lost[k], 0);
    } else {
      struct pollfd p[2] = {{.fd = u, .events = POLLIN}, {.fd = sock, .events = POLLIN}};
      long got = 0;
      double first = 0, last = 0;
      int ended = 0;
      for (;;) {
        if (poll(p, 2, ended ? 0 : -1) <= 0 && ended) break;
        if (p[1].revents & POLLIN) {
          char c;
          xfer(&c, 1, 0);
          ended = 1;
          p[1].fd = -1;
        }
        if (p[0].revents & POLLIN) {
          ssize_t n;
          while ((n = recv(u, buf, len, MSG_DONTWAIT)) > 0) {
            last = now_ns();
            if (!got) first = last;
            ++got;
          }
        }
      }
      double rate = got > 1 ? (double)len * (double)(got - 1) / (last - first) * 1e3 : 0;
      double l = 1.0 - (double)got / (double)count;
      xfer(&rate, sizeof rate, 1);
      xfer(&l, sizeof l, 1);
    }
    sync_both();
  }
  if (me == 0)
    printf("udp one-way stream %zu B: %9.0f MB/s (10^6 B, arrived, median of %d; %.1f%% lost)\n",
           len, median(t), RUNS, 100.0 * median(lost));
  free(buf);
  close(u);
}

static void write_one(char *src, void *desc, size_t len, uint64_t addr, uint64_t key,
                      uint64_t flags) {
  struct iovec iov = {.iov_base = src, .iov_len = len};
  struct fi_rma_iov rma = {.addr = addr, .len = len, .key = key};
  struct fi_msg_rma msg = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = peer,
                           .rma_iov = &rma,
                           .rma_iov_count = 1};
  ssize_t rc;
  while ((rc = fi_writemsg(ep, &msg, flags)) == -FI_EAGAIN) fi_cq_read(cq, NULL, 0);
  if (rc) die("fi_writemsg", rc);
  if (push) fi_cq_read(cq, NULL, 0);
}

static void bench_write(size_t only) {
  char *buf = NULL;
  if (posix_memalign((void **)&buf, 4096, MAXSIZE)) die("posix_memalign", -FI_ENOMEM);
  memset(buf, me + 1, MAXSIZE);
  struct fid_mr *mr = reg(buf, MAXSIZE, me == 0 ? FI_WRITE : FI_REMOTE_WRITE);
  uint64_t target[2] = {
      (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0, fi_mr_key(mr)};
  if (me == 1)
    xfer(target, sizeof target, 1);
  else
    xfer(target, sizeof target, 0);
  if (me == 0) {
    size_t max = info->ep_attr->max_msg_size;
    printf("# raw fi_write bandwidth, MB/s (10^6 B), medians of %d (%s, max message %zu B)\n", RUNS,
           info->fabric_attr->prov_name, max);
    printf("%-10s %12s %12s\n", "bytes", "1 in flight", "8 in flight");
    for (size_t len = 4096; len <= MAXSIZE; len *= 4) {
      if (only && len != only) continue;
      long reps = (long)((256u << 20) / len);
      if (reps < 16) reps = 16;
      double one[RUNS], many[RUNS];
      for (int k = 0; k < RUNS; ++k) {
        double t0 = now_ns();
        for (long i = 0; i < reps; ++i) {
          write_one(buf, fi_mr_desc(mr), len, target[0], target[1],
                    FI_COMPLETION | FI_DELIVERY_COMPLETE);
          wait_one();
        }
        one[k] = len * reps / (now_ns() - t0) * 1e3;
        t0 = now_ns();
        long done = 0, issued = 0;
        while (done < reps) {
          while (issued < reps && issued - done < WINDOW) {
            write_one(buf, fi_mr_desc(mr), len, target[0], target[1], FI_COMPLETION);
            ++issued;
          }
          wait_one();
          ++done;
        }
        many[k] = len * reps / (now_ns() - t0) * 1e3;
      }
      printf("%-10zu %12.0f %12.0f\n", len, median(one), median(many));
    }
    sync_both();
  } else {
    serve_until_sync();
  }
  fi_close(&mr->fid);
  free(buf);
}

/* The answering process failing leaves the measuring one waiting on its
 * completion queue: end it too. */
static void child_ended(int sig) {
  (void)sig;
  int status = 0;
  if (waitpid(-1, &status, WNOHANG) > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    static const char msg[] = "fi_raw_bench: the answering process failed\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
  }
}

int main(int argc, char **argv) {
  const char *provider = getenv("GASNET_OFI_PROVIDER");
  if (!provider || !*provider) provider = getenv("FI_PROVIDER");
  long reps = 20000;
  const char *what = "all";
  size_t only = 0;
  int window = 8;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-p") && i + 1 < argc)
      provider = argv[++i];
    else if (!strcmp(argv[i], "-n") && i + 1 < argc)
      reps = atol(argv[++i]);
    else if (!strcmp(argv[i], "-s") && i + 1 < argc)
      only = (size_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "-w") && i + 1 < argc)
      window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "rt") || !strcmp(argv[i], "write") || !strcmp(argv[i], "stream") ||
             !strcmp(argv[i], "udp") || !strcmp(argv[i], "all"))
      what = argv[i];
    else {
      fprintf(stderr,
              "usage: %s [-p provider] [-n reps] [-s bytes] [-w window] "
              "[rt|write|stream|udp|all]\n",
              prog);
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  if (window < 1) window = 1;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
    perror("socketpair");
    return 1;
  }
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  me = child == 0;
  sock = sv[me];
  close(sv[!me]);
  if (me == 1)
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the measuring process */
  else
    signal(SIGCHLD, child_ended);
  if (!strcmp(what, "udp")) {
    bench_udp(only ? only : 65000);
    fflush(stdout);
    sync_both();
    if (me == 1) _exit(0);
    int status = 0;
    if (waitpid(child, &status, 0) < 0) return 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  open_endpoint(provider);
  if (!strcmp(what, "rt") || !strcmp(what, "all"))
    bench_rt(reps, only && strcmp(what, "all") ? only : 8);
  if (!strcmp(what, "write") || !strcmp(what, "all")) bench_write(only);
  if (!strcmp(what, "stream") || !strcmp(what, "all"))
    bench_stream(only && strcmp(what, "all") ? only : 65536, window);
  fflush(stdout);
  sync_both();
  fi_close(&ep->fid);
  fi_close(&av->fid);
  fi_close(&cq->fid);
  fi_close(&domain->fid);
  fi_close(&fabric->fid);
  fi_freeinfo(info);
  if (me == 1) _exit(0);
  int status = 0;
  if (waitpid(child, &status, 0) < 0) return 0; /* reaped by child_ended: it exited 0 */
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
