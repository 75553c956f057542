/* amcheck: the Active Message core API, both GASNet-EX and GASNet-1 forms.
 *
 *   amcheck            conformance: every category x request/reply x 0..16
 *                      arguments (values checked), payloads of every size class
 *                      with contents checked, loopback, negotiated payloads both
 *                      ways, lc_opt events, IMMEDIATE under back-pressure,
 *                      token info, GASNet-1 AMs, handler-safe locks
 *   amcheck flood      every rank but 0 floods rank 0 (100000 messages in all)
 *   amcheck replyflood every rank floods the next with requests; each is answered
 *                      with a Short or a Medium of up to 5000 bytes (over ofi the
 *                      replies of one poll's batch travel bundled), all checked
 *   amcheck pollchain  requests passed along a chain, each rank in its own poll loop
 *   amcheck loopback   AMs to oneself run inside their calls (replies too)
 *   amcheck <rule>     breaks one handler rule; the job must end with a message
 *
 * Each rank prints "amcheck rank R of N: PASS (K checks)" or "FAIL: ..." and
 * exits 1.
 */
#include <gasnet.h>
#include <gasnet_handler.h>

#include "check.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SHORT, MEDIUM, LONG };
static const char *cat_name[] = {"Short", "Medium", "Long"};

#define SEG_SIZE (16u << 20)
/* The largest Medium payload: what one UDP datagram carries on the udp conduit. */
#ifdef GASNET_CONDUIT_UDP
#define MAX_MEDIUM 65000u
#else
#define MAX_MEDIUM 65536u
#endif
#define REGION (4u << 20) /* four regions: from-peer, peer-replies, loop req, loop rep */

static gex_Rank_t me, n, next, prev;
static gex_TM_t tm;
static gex_EP_t ep;
static unsigned char *seg;          /* my segment */
static void *seg_of[64];            /* each rank's segment (its own address) */
static volatile long replies_seen;  /* reply handlers run on this rank */
static volatile long requests_seen; /* request handlers run on this rank */

/* ---- deterministic values ---- */
static gex_AM_Arg_t arg_value(int cat, unsigned nargs, unsigned i, gex_Rank_t src, int is_req) {
  uint32_t x = (uint32_t)cat * 1000003u + nargs * 7919u + i * 104729u + src * 15485863u +
               (uint32_t)is_req * 49979687u;
  x *= 2654435761u;
  return (gex_AM_Arg_t)x;
}
static uint64_t payload_seed(int cat, size_t nbytes, gex_Rank_t src, int is_req) {
  return ((uint64_t)cat << 48) ^ ((uint64_t)nbytes << 8) ^ ((uint64_t)src << 40) ^ (uint64_t)is_req;
}

/* Region in `owner`'s segment where a Long from `src` lands. */
static unsigned char *long_dest(gex_Rank_t owner, gex_Rank_t src, int is_req) {
  unsigned region = owner == src ? (is_req ? 2 : 3) : (is_req ? 0 : 1);
  return (unsigned char *)seg_of[owner] + (size_t)region * REGION;
}

/* ---- the conformance handlers: one per category and argument count ---- */
static size_t cur_nbytes; /* the payload size of the exchange in progress */

static void on_msg(gex_Token_t t, int cat, unsigned nargs, const gex_AM_Arg_t *v, void *buf,
                   size_t nbytes) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
  CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP),
        "gex_Token_Info lacks required fields");
  CHECK(info.gex_ep == ep, "token names another endpoint");
  gex_Rank_t src = info.gex_srcrank;
  int is_req = info.gex_is_req;
  CHECK((got & GEX_TI_IS_LONG) && info.gex_is_long == (cat == LONG), "gex_is_long wrong");
  CHECK((got & GEX_TI_ENTRY) && info.gex_entry && info.gex_entry->gex_nargs == nargs,
        "gex_entry wrong");
  for (unsigned i = 0; i < nargs; ++i) {
    CHECK(v[i] == arg_value(cat, nargs, i, src, is_req),
          "AM%s %s %u args from %u: arg %u is %d, expected %d", cat_name[cat],
          is_req ? "request" : "reply", nargs, src, i, (int)v[i],
          (int)arg_value(cat, nargs, i, src, is_req));
  }
  if (cat != SHORT) {
    /* A request's size is the sender's choice (its content encodes it); a
     * reply answers this rank's own exchange. */
    CHECK(is_req || nbytes == cur_nbytes, "AM%s reply: nbytes %zu, expected %zu", cat_name[cat],
          nbytes, cur_nbytes);
    if (cat == MEDIUM) {
      CHECK(((uintptr_t)buf & 15) == 0 || nbytes == 0, "Medium buffer %p is not 16-byte aligned",
            buf);
    } else {
      CHECK(buf == long_dest(me, src, is_req), "Long buffer %p, expected %p", buf,
            (void *)long_dest(me, src, is_req));
    }
    size_t bad = first_bad(buf, nbytes, payload_seed(cat, nbytes, src, is_req));
    CHECK(bad == (size_t)-1, "AM%s %s of %zu bytes from %u: byte %zu wrong", cat_name[cat],
          is_req ? "request" : "reply", nbytes, src, bad);
  }
  if (!is_req) {
    ++replies_seen;
    return;
  }
  ++requests_seen;
  /* Reply in kind, with this rank's values and payload. */
  gex_AM_Arg_t r[16];
  for (unsigned i = 0; i < nargs; ++i) r[i] = arg_value(cat, nargs, i, me, 0);
  gex_AM_Index_t h = info.gex_entry->gex_index;
  static unsigned char out[REGION];
  fill(out, nbytes, payload_seed(cat, nbytes, me, 0));
  switch (cat) {
    case SHORT:
      switch (nargs) { /* the numbered forms, then the counting form */
        case 0:
          gex_AM_ReplyShort0(t, h, 0);
          break;
        case 1:
          gex_AM_ReplyShort1(t, h, 0, r[0]);
          break;
        case 2:
          gex_AM_ReplyShort(t, h, 0, r[0], r[1]);
          break;
        case 5:
          gex_AM_ReplyShort5(t, h, 0, r[0], r[1], r[2], r[3], r[4]);
          break;
        case 16:
          gex_AM_ReplyShort(t, h, 0, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                            r[10], r[11], r[12], r[13], r[14], r[15]);
          break;
        default:
          gexx_AM_ReplyShort(t, h, 0, nargs, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8],
                             r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
      }
      break;
    case MEDIUM:
      gexx_AM_ReplyMedium(t, h, out, nbytes, GEX_EVENT_NOW, 0, nargs, r[0], r[1], r[2], r[3], r[4],
                          r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
      break;
    default: {
      void *dest = long_dest(src, me, 0);
      gex_Event_t lc;
      gexx_AM_ReplyLong(t, h, out, nbytes, dest, &lc, 0, nargs, r[0], r[1], r[2], r[3], r[4], r[5],
                        r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
    }
  }
}

#define P0
#define P1 P0, gex_AM_Arg_t a0
#define P2 P1, gex_AM_Arg_t a1
#define P3 P2, gex_AM_Arg_t a2
#define P4 P3, gex_AM_Arg_t a3
#define P5 P4, gex_AM_Arg_t a4
#define P6 P5, gex_AM_Arg_t a5
#define P7 P6, gex_AM_Arg_t a6
#define P8 P7, gex_AM_Arg_t a7
#define P9 P8, gex_AM_Arg_t a8
#define P10 P9, gex_AM_Arg_t a9
#define P11 P10, gex_AM_Arg_t a10
#define P12 P11, gex_AM_Arg_t a11
#define P13 P12, gex_AM_Arg_t a12
#define P14 P13, gex_AM_Arg_t a13
#define P15 P14, gex_AM_Arg_t a14
#define P16 P15, gex_AM_Arg_t a15
#define V0
#define V1 V0 a0,
#define V2 V1 a1,
#define V3 V2 a2,
#define V4 V3 a3,
#define V5 V4 a4,
#define V6 V5 a5,
#define V7 V6 a6,
#define V8 V7 a7,
#define V9 V8 a8,
#define V10 V9 a9,
#define V11 V10 a10,
#define V12 V11 a11,
#define V13 V12 a12,
#define V14 V13 a13,
#define V15 V14 a14,
#define V16 V15 a15,
#define HANDLERS(k)                                           \
  static void sh##k(gex_Token_t t P##k) {                     \
    gex_AM_Arg_t v[17] = {V##k 0};                            \
    on_msg(t, SHORT, k, v, NULL, 0);                          \
  }                                                           \
  static void mh##k(gex_Token_t t, void *b, size_t nb P##k) { \
    gex_AM_Arg_t v[17] = {V##k 0};                            \
    on_msg(t, MEDIUM, k, v, b, nb);                           \
  }                                                           \
  static void lh##k(gex_Token_t t, void *b, size_t nb P##k) { \
    gex_AM_Arg_t v[17] = {V##k 0};                            \
    on_msg(t, LONG, k, v, b, nb);                             \
  }
HANDLERS(0)
HANDLERS(1)
HANDLERS(2)
HANDLERS(3)
HANDLERS(4)
HANDLERS(5)
HANDLERS(6)
HANDLERS(7)
HANDLERS(8)
HANDLERS(9)
HANDLERS(10)
HANDLERS(11)
HANDLERS(12)
HANDLERS(13)
HANDLERS(14)
HANDLERS(15)
HANDLERS(16)
#define E(k)                                                                                \
  {0, (gex_AM_Fn_t)sh##k, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, k, NULL, "sh" #k},        \
      {0, (gex_AM_Fn_t)mh##k, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQREP, k, NULL, "mh" #k}, { \
    0, (gex_AM_Fn_t)lh##k, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQREP, k, NULL, "lh" #k          \
  }
static gex_AM_Entry_t conf_table[] = {E(0), E(1),  E(2),  E(3),  E(4),  E(5),  E(6),  E(7), E(8),
                                      E(9), E(10), E(11), E(12), E(13), E(14), E(15), E(16)};
#define CONF_ENTRIES (sizeof conf_table / sizeof conf_table[0])
static gex_AM_Index_t conf_index(int cat, unsigned nargs) {
  return conf_table[nargs * 3 + cat].gex_index;
}

/* One request and its reply, from this rank to `to`. */
static void exchange(gex_Rank_t to, int cat, unsigned nargs, size_t nbytes) {
  static unsigned char src[REGION];
  gex_AM_Arg_t a[16] = {0};
  for (unsigned i = 0; i < nargs; ++i) a[i] = arg_value(cat, nargs, i, me, 1);
  fill(src, nbytes, payload_seed(cat, nbytes, me, 1));
  cur_nbytes = nbytes;
  long want = replies_seen + 1;
  gex_AM_Index_t h = conf_index(cat, nargs);
  int rc;
  if (cat == SHORT) {
    switch (nargs) {
      case 0:
        rc = gex_AM_RequestShort0(tm, to, h, 0);
        break;
      case 3:
        rc = gex_AM_RequestShort3(tm, to, h, 0, a[0], a[1], a[2]);
        break;
      case 4:
        rc = gex_AM_RequestShort(tm, to, h, 0, a[0], a[1], a[2], a[3]);
        break;
      case 16:
        rc = gex_AM_RequestShort16(tm, to, h, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
                                   a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
        break;
      default:
        rc = gexx_AM_RequestShort(tm, to, h, 0, nargs, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                  a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    }
  } else if (cat == MEDIUM) {
    if (nargs == 2)
      rc = gex_AM_RequestMedium(tm, to, h, src, nbytes, GEX_EVENT_NOW, 0, a[0], a[1]);
    else
      rc = gexx_AM_RequestMedium(tm, to, h, src, nbytes, GEX_EVENT_NOW, 0, nargs, a[0], a[1], a[2],
                                 a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                                 a[13], a[14], a[15]);
  } else {
    void *dest = long_dest(to, me, 1);
    if (nargs == 1)
      rc = gex_AM_RequestLong1(tm, to, h, src, nbytes, dest, GEX_EVENT_NOW, 0, a[0]);
    else
      rc = gexx_AM_RequestLong(tm, to, h, src, nbytes, dest, GEX_EVENT_NOW, 0, nargs, a[0], a[1],
                               a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                               a[13], a[14], a[15]);
  }
  CHECK(rc == 0, "AM%s request returned %d without GEX_FLAG_IMMEDIATE", cat_name[cat], rc);
  GASNET_BLOCKUNTIL(replies_seen == want);
  if (cat == LONG) {
    size_t bad = first_bad(long_dest(me, to, 0), nbytes, payload_seed(cat, nbytes, to, 0));
    CHECK(bad == (size_t)-1, "Long reply payload byte %zu wrong", bad);
  }
}

static void conformance(void) {
  static const size_t medium_sizes[] = {0,
                                        1,
                                        7,
                                        8,
                                        15,
                                        16,
                                        63,
                                        64,
                                        65,
                                        511,
                                        512,
                                        513,
                                        4095,
                                        4096,
                                        4097,
                                        32768,
                                        MAX_MEDIUM - 1,
                                        MAX_MEDIUM};
  static const size_t long_sizes[] = {0, 1, 8, 513, 4096, 65536, 65537, 1u << 20, REGION};
  gex_Rank_t targets[2] = {next, me}; /* a neighbour, then loopback */
  for (int ti = 0; ti < 2; ++ti) {
    gex_Rank_t to = targets[ti];
    for (unsigned k = 0; k <= 16; ++k) {
      exchange(to, SHORT, k, 0);
      exchange(to, MEDIUM, k, k * 100 + 3);
      exchange(to, LONG, k, k * 1000 + 5);
    }
    size_t maxm = gex_AM_MaxRequestMedium(tm, to, GEX_EVENT_NOW, 0, 16);
    CHECK(maxm == MAX_MEDIUM && gex_AM_MaxReplyMedium(tm, to, GEX_EVENT_NOW, 0, 0) == maxm,
          "max Medium is %zu", maxm);
    for (size_t i = 0; i < sizeof medium_sizes / sizeof medium_sizes[0]; ++i) {
      exchange(to, MEDIUM, 0, medium_sizes[i]);
      exchange(to, MEDIUM, 16, medium_sizes[i]);
      exchange(to, MEDIUM, 9, medium_sizes[i]);
    }
    for (size_t i = 0; i < sizeof long_sizes / sizeof long_sizes[0]; ++i) {
      exchange(to, LONG, 0, long_sizes[i]);
      exchange(to, LONG, 16, long_sizes[i]);
    }
  }
}

/* ---- negotiated payloads ---- */
static volatile long np_replies;
static size_t np_expect;
enum { NP_REPLY_GEXX = 1, NP_REPLY_CLIENT = 2, NP_REPLY_LONG = 3 };

static void np_reply_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed) {
  (void)t;
  CHECK(nbytes <= np_expect && nbytes >= np_expect / 2, "NPAM reply: %zu bytes, expected %zu",
        nbytes, np_expect);
  CHECK(first_bad(buf, nbytes, (uint64_t)seed) == (size_t)-1, "NPAM reply payload wrong");
  ++np_replies;
}
static gex_AM_Entry_t np_table[2];

static void np_request_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed,
                               gex_AM_Arg_t mode) {
  CHECK(first_bad(buf, nbytes, (uint64_t)seed) == (size_t)-1, "NPAM request payload wrong");
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  gex_AM_Index_t h = np_table[1].gex_index;
  gex_AM_Arg_t rseed = seed + 1;
  if (mode == NP_REPLY_GEXX) { /* gexx's buffer */
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, nbytes, nbytes + 100, NULL, 0, 1);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP, "PrepareReplyMedium returned NO_OP without IMMEDIATE");
    CHECK(gex_AM_SrcDescSize(sd) >= nbytes, "PrepareReplyMedium granted too little");
    CHECK(((uintptr_t)gex_AM_SrcDescAddr(sd) & 15) == 0, "NPAM buffer not aligned");
    fill(gex_AM_SrcDescAddr(sd), nbytes, (uint64_t)rseed);
    gex_AM_CommitReplyMedium1(sd, h, nbytes, rseed);
  } else if (mode == NP_REPLY_CLIENT) { /* the client's buffer */
    static unsigned char mine[MAX_MEDIUM];
    fill(mine, nbytes, (uint64_t)rseed);
    gex_AM_SrcDesc_t sd =
        gex_AM_PrepareReplyMedium(t, mine, nbytes / 2, nbytes, GEX_EVENT_NOW, 0, 1);
    CHECK(gex_AM_SrcDescAddr(sd) == mine, "client buffer not returned by SrcDescAddr");
    CHECK(gex_AM_SrcDescSize(sd) >= nbytes / 2 && gex_AM_SrcDescSize(sd) <= nbytes,
          "SrcDescSize %zu outside [least, most]", gex_AM_SrcDescSize(sd));
    gex_AM_CommitReplyMedium(sd, h, gex_AM_SrcDescSize(sd), rseed);
  } else { /* Long reply into the requester's segment, gexx's buffer, destination known */
    void *dest = long_dest(info.gex_srcrank, me, 0);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, NULL, nbytes, nbytes, dest, NULL, 0, 1);
    fill(gex_AM_SrcDescAddr(sd), nbytes, (uint64_t)rseed);
    gex_AM_CommitReplyLong1(sd, np_table[1].gex_index, nbytes, dest, rseed);
  }
}

static void np_round(gex_Rank_t to, int req_mode, int rep_mode, size_t nbytes) {
  gex_AM_Index_t h = np_table[0].gex_index;
  gex_AM_Arg_t seed = (gex_AM_Arg_t)(nbytes * 31 + (size_t)req_mode * 7 + (size_t)rep_mode);
  long want = np_replies + 1;
  np_expect = nbytes;
  static unsigned char buf[1u << 20];
  gex_AM_SrcDesc_t sd;
  if (req_mode == 0) { /* Medium, gexx buffer */
    sd = gex_AM_PrepareRequestMedium(tm, to, NULL, nbytes, MAX_MEDIUM, NULL, 0, 2);
    CHECK(sd && gex_AM_SrcDescSize(sd) >= nbytes, "PrepareRequestMedium");
    fill(gex_AM_SrcDescAddr(sd), nbytes, (uint64_t)seed);
    gex_AM_CommitRequestMedium2(sd, h, nbytes, seed, rep_mode);
  } else if (req_mode == 1) { /* Medium, client buffer, lc event */
    gex_Event_t lc;
    fill(buf, nbytes, (uint64_t)seed);
    sd = gex_AM_PrepareRequestMedium(tm, to, buf, nbytes, nbytes, &lc, 0, 2);
    CHECK(gex_AM_SrcDescAddr(sd) == buf && gex_AM_SrcDescSize(sd) == nbytes, "client Medium");
    gex_AM_CommitRequestMedium(sd, h, nbytes, seed, rep_mode);
    gex_Event_Wait(lc);
  } else if (req_mode == 2) { /* Long, gexx buffer, destination given at Prepare */
    void *dest = long_dest(to, me, 1);
    sd = gex_AM_PrepareRequestLong(tm, to, NULL, nbytes, nbytes * 2, dest, NULL, 0, 2);
    CHECK(gex_AM_SrcDescSize(sd) >= nbytes, "PrepareRequestLong size");
    fill(gex_AM_SrcDescAddr(sd), nbytes, (uint64_t)seed);
    gex_AM_CommitRequestLong2(sd, h, nbytes, dest, seed, rep_mode);
  } else if (req_mode == 3) { /* Long, gexx buffer, destination chosen at Commit */
    sd = gex_AM_PrepareRequestLong(tm, to, NULL, nbytes, nbytes, NULL, NULL, 0, 2);
    fill(gex_AM_SrcDescAddr(sd), nbytes, (uint64_t)seed);
    gex_AM_CommitRequestLong2(sd, h, nbytes, long_dest(to, me, 1), seed, rep_mode);
  } else { /* Long, client buffer */
    fill(buf, nbytes, (uint64_t)seed);
    sd = gex_AM_PrepareRequestLong(tm, to, buf, nbytes, nbytes, NULL, GEX_EVENT_GROUP, 0, 2);
    gex_AM_CommitRequestLong2(sd, h, nbytes, long_dest(to, me, 1), seed, rep_mode);
    gex_NBI_Wait(GEX_EC_AM, 0);
  }
  GASNET_BLOCKUNTIL(np_replies == want);
}

static void negotiated(void) {
  np_table[0] = (gex_AM_Entry_t){
      0,       (gex_AM_Fn_t)np_request_handler, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 2, NULL,
      "np_req"};
  np_table[1] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)np_reply_handler, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REPLY, 1, NULL, "np_rep"};
  gex_EP_RegisterHandlers(ep, np_table, 2);
  CHECK(np_table[0].gex_index >= GEX_AM_INDEX_BASE && np_table[1].gex_index >= GEX_AM_INDEX_BASE,
        "RegisterHandlers wrote back indices %u, %u", np_table[0].gex_index, np_table[1].gex_index);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS); /* every rank has registered */
  static const size_t sizes[] = {1, 64, 4096, MAX_MEDIUM};
  gex_Rank_t targets[2] = {next, me};
  for (int ti = 0; ti < 2; ++ti)
    for (int req = 0; req < 5; ++req)
      for (int rep = 1; rep <= 3; ++rep)
        for (size_t i = 0; i < 4; ++i) np_round(targets[ti], req, rep, sizes[i]);
}

/* ---- local completion ---- */
static volatile long lc_seen;
static void lc_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed) {
  (void)t;
  CHECK(first_bad(buf, nbytes, (uint64_t)seed) == (size_t)-1, "lc payload changed under us");
  ++lc_seen;
}

static void local_completion(void) {
  gex_AM_Entry_t e[1] = {
      {0, (gex_AM_Fn_t)lc_handler, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 1, NULL, "lc"}};
  gex_EP_RegisterHandlers(ep, e, 1);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  static unsigned char buf[MAX_MEDIUM];
  for (int round = 0; round < 20; ++round) {
    long want = lc_seen + 4;
    gex_Event_t ev[2];
    fill(buf, sizeof buf, (uint64_t)round);
    gex_AM_RequestMedium1(tm, next, e[0].gex_index, buf, sizeof buf, &ev[0], 0, round);
    /* Once the event completes the buffer may change: the message is out. */
    gex_Event_Wait(ev[0]);
    memset(buf, 0xEE, sizeof buf);
    fill(buf, 4096, (uint64_t)round + 1000);
    gex_AM_RequestLong1(tm, next, e[0].gex_index, buf, 4096, long_dest(next, me, 1) + 4096 * round,
                        &ev[1], 0, round + 1000);
    while (gex_Event_Test(ev[1]) != 0) gasnet_AMPoll();
    memset(buf, 0xDD, 4096);
    fill(buf, 100, (uint64_t)round + 2000);
    gex_AM_RequestMedium1(tm, next, e[0].gex_index, buf, 100, GEX_EVENT_GROUP, 0, round + 2000);
    gex_NBI_Wait(GEX_EC_AM, 0);
    memset(buf, 0xCC, 100);
    fill(buf, 100, (uint64_t)round + 3000);
    gex_AM_RequestMedium1(tm, next, e[0].gex_index, buf, 100, GEX_EVENT_GROUP, 0, round + 3000);
    while (gex_NBI_Test(GEX_EC_AM, 0) != 0) gasnet_AMPoll();
    GASNET_BLOCKUNTIL(lc_seen >= want || n > 1); /* with n > 1 the messages go to next */
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  GASNET_BLOCKUNTIL(lc_seen == 80);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* ---- IMMEDIATE under back-pressure ---- */
static volatile long imm_seen;
static void imm_handler(gex_Token_t t, gex_AM_Arg_t seq) {
  (void)t;
  CHECK(seq == imm_seen, "IMMEDIATE message %d arrived as number %ld", (int)seq, imm_seen);
  ++imm_seen;
}

static volatile long imm_sent = -1;
static void imm_done_handler(gex_Token_t t, gex_AM_Arg_t sent) {
  (void)t;
  imm_sent = sent;
}

/* Rank 1 does not poll until rank 0 has been refused. A mapped rank 0
 * says so by a store into rank 1's segment; over a network whose data
 * moves only when the target polls (libfabric manual progress), rank 1
 * instead sleeps long enough for the refusal and rank 0 then says how many
 * were accepted in an AM. */
static void immediate(void) {
  gex_AM_Entry_t e[2] = {
      {0, (gex_AM_Fn_t)imm_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "imm"},
      {0, (gex_AM_Fn_t)imm_done_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
       "imm_done"}};
  gex_EP_RegisterHandlers(ep, e, 2);
  void *view = NULL;
  if (n >= 2) gex_Segment_QueryBound(tm, me == 0 ? 1 : 0, NULL, &view, NULL);
  int mapped = view != NULL;
  volatile uint64_t *flag = (volatile uint64_t *)(seg + 3 * (size_t)REGION + REGION - 64);
  *flag = 0;
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (n < 2) return;
  if (me == 1) {
    long sent;
    if (mapped) {
      while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
      }
      sent = (long)(*flag - 1);
    } else {
      sleep(3);
      GASNET_BLOCKUNTIL(imm_sent >= 0);
      sent = imm_sent;
    }
    GASNET_BLOCKUNTIL(imm_seen == sent);
    printf("amcheck: IMMEDIATE accepted %ld messages before refusing\n", sent);
  } else if (me == 0) {
    long sent = 0;
    while (sent < 10000000) {
      if (gex_AM_RequestShort1(tm, 1, e[0].gex_index, GEX_FLAG_IMMEDIATE, sent) != 0) break;
      ++sent;
    }
    CHECK(sent < 10000000, "GEX_FLAG_IMMEDIATE never refused a receiver that does not poll");
    gex_AM_SrcDesc_t sd =
        gex_AM_PrepareRequestMedium(tm, 1, NULL, 8, 8, NULL, GEX_FLAG_IMMEDIATE, 1);
    CHECK(sd == GEX_AM_SRCDESC_NO_OP, "PrepareRequestMedium with IMMEDIATE did not refuse");
    uint64_t v = (uint64_t)sent + 1;
    if (mapped)
      gex_RMA_PutBlocking(tm, 1, (char *)seg_of[1] + 3 * (size_t)REGION + REGION - 64, &v, 8, 0);
    else
      gex_AM_RequestShort1(tm, 1, e[1].gex_index, 0, (gex_AM_Arg_t)sent);
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* ---- GASNet-1 ---- */
static volatile long g1_seen;
static gasnet_hsl_t g1_lock = GASNET_HSL_INITIALIZER;
static long g1_locked_count;
static gasnet_handlerentry_t g1_table[6];
/* gasnet_handler.h: a pointer travels as PACK() and comes back unpacked. */
enum { _hidx_ptr_req = 200, _hidx_ptr_rep = 201 };
static void ptr_req_inner(gasnet_token_t token, void *p) {
  SHORT_REP(1, 2, (token, gasneti_handleridx(ptr_rep), PACK(p)));
}
static void ptr_rep_inner(gasnet_token_t token, void *p) {
  (void)token;
  ++*(volatile long *)p;
}
SHORT_HANDLER(ptr_req, 1, 2, (token, UNPACK(a0)), (token, UNPACK2(a0, a1)));
SHORT_HANDLER(ptr_rep, 1, 2, (token, UNPACK(a0)), (token, UNPACK2(a0, a1)));
static void g1_short(gasnet_token_t t, gasnet_handlerarg_t hi, gasnet_handlerarg_t lo,
                     gasnet_handlerarg_t is_req) {
  gasnet_node_t src;
  CHECK(gasnet_AMGetMsgSource(t, &src) == GASNET_OK, "gasnet_AMGetMsgSource");
  void *p = (void *)(uintptr_t)GASNETI_MAKEWORD(hi, lo);
  CHECK(p == (void *)&g1_seen || is_req, "pointer did not survive HIWORD/LOWORD packing");
  gasnet_hsl_lock(&g1_lock);
  ++g1_locked_count;
  gasnet_hsl_unlock(&g1_lock);
  if (is_req) {
    gasnet_AMReplyShort3(t, g1_table[0].index, hi, lo, 0);
  } else {
    ++g1_seen;
  }
  (void)src;
}
static void g1_medium(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t seed) {
  CHECK(first_bad(buf, nbytes, (uint64_t)seed) == (size_t)-1, "gasnet Medium payload wrong");
  gasnet_AMReplyMedium1(t, g1_table[2].index, buf, nbytes, seed);
}
static void g1_long(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t seed) {
  CHECK(first_bad(buf, nbytes, (uint64_t)seed) == (size_t)-1, "gasnet Long payload wrong");
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  gasnet_AMReplyLong1(t, g1_table[2].index, buf, nbytes, long_dest(src, me, 0), seed);
}
static void g1_reply_payload(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t seed) {
  (void)t;
  CHECK(first_bad(buf, nbytes, (uint64_t)seed) == (size_t)-1, "gasnet reply payload wrong");
  ++g1_seen;
}

static void gasnet1(void) {
  CHECK(gasnet_AMMaxArgs() == 16 && gasnet_AMMaxMedium() >= MAX_MEDIUM &&
            gasnet_AMMaxLongRequest() >= SEG_SIZE && gasnet_AMMaxLongReply() >= SEG_SIZE,
        "gasnet_AMMax* queries");
  gasnet_hold_interrupts();
  gasnet_resume_interrupts();
  CHECK(gasnet_set_waitmode(GASNET_WAIT_BLOCK) == GASNET_OK, "set_waitmode");
  static unsigned char buf[MAX_MEDIUM];
  uintptr_t p = (uintptr_t)&g1_seen;
  for (int round = 0; round < 3; ++round) {
    gex_Rank_t to = round == 1 ? me : next;
    long want = g1_seen + 1;
    gasnet_AMRequestShort3(to, g1_table[0].index, GASNETI_HIWORD(p), GASNETI_LOWORD(p), 1);
    GASNET_BLOCKUNTIL(g1_seen == want);
    fill(buf, sizeof buf, 77);
    gasnet_AMRequestMedium1(to, g1_table[1].index, buf, sizeof buf, 77);
    GASNET_BLOCKUNTIL(g1_seen == want + 1);
    fill(buf, 5000, 78);
    gasnet_AMRequestLong1(to, g1_table[3].index, buf, 5000, long_dest(to, me, 1), 78);
    GASNET_BLOCKUNTIL(g1_seen == want + 2);
    gasnet_AMRequestLongAsync1(to, g1_table[3].index, buf, 5000, long_dest(to, me, 1), 78);
    GASNET_BLOCKUNTIL(g1_seen == want + 3);
    SHORT_REQ(1, 2, (to, gasneti_handleridx(ptr_req), PACK(&g1_seen)));
    GASNET_BLOCKUNTIL(g1_seen == want + 4);
  }
  gasnet_set_waitmode(GASNET_WAIT_SPINBLOCK);
  CHECK(gasnet_hsl_trylock(&g1_lock) == GASNET_OK, "hsl_trylock on a free lock");
  CHECK(gasnet_hsl_trylock(&g1_lock) == GASNET_ERR_NOT_READY, "hsl_trylock on a held lock");
  gasnet_hsl_unlock(&g1_lock);
}

/* ---- one Long of the whole segment ---- */
static volatile long whole_seen;
static void whole_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed) {
  (void)t;
  CHECK(buf == seg && nbytes == SEG_SIZE, "whole-segment Long landed at %p, %zu bytes", buf,
        nbytes);
  size_t bad = first_bad(buf, nbytes, (uint64_t)seed);
  CHECK(bad == (size_t)-1, "whole-segment Long: byte %zu wrong", bad);
  ++whole_seen;
}

static void whole_segment(void) {
  gex_AM_Entry_t e[1] = {
      {0, (gex_AM_Fn_t)whole_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "whole"}};
  gex_EP_RegisterHandlers(ep, e, 1);
  CHECK(gex_AM_MaxRequestLong(tm, next, GEX_EVENT_NOW, 0, 1) >= SEG_SIZE,
        "MaxRequestLong below the segment size");
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  static unsigned char src[SEG_SIZE];
  fill(src, SEG_SIZE, 4242 + me);
  gex_AM_RequestLong1(tm, next, e[0].gex_index, src, SEG_SIZE, seg_of[next], GEX_EVENT_NOW, 0,
                      4242 + me);
  GASNET_BLOCKUNTIL(whole_seen == 1);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* ---- flood: all ranks to rank 0 ---- */
#define FLOOD_TOTAL 100000
static volatile long flood_count, flood_acks;
static long flood_from[64], flood_sum[64];
static gex_AM_Entry_t flood_table[3];
static void flood_short(gex_Token_t t, gex_AM_Arg_t seq) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK(info.gex_srcrank < 64, "flood source");
  flood_from[info.gex_srcrank]++;
  flood_sum[info.gex_srcrank] += seq;
  ++flood_count;
  if (seq % 64 == 0) gex_AM_ReplyShort0(t, flood_table[2].gex_index, 0);
}
static void flood_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq) {
  CHECK(first_bad(buf, nbytes, (uint64_t)seq) == (size_t)-1, "flood Medium payload wrong");
  flood_short(t, seq);
}
static void flood_ack(gex_Token_t t) {
  (void)t;
  ++flood_acks;
}

static void flood(void) {
  flood_table[0] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)flood_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "flood_s"};
  flood_table[1] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)flood_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "flood_m"};
  flood_table[2] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)flood_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "flood_ack"};
  gex_EP_RegisterHandlers(ep, flood_table, 3);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  long senders = n > 1 ? n - 1 : 1;
  long per = FLOOD_TOTAL / senders + (FLOOD_TOTAL % senders ? 1 : 0);
  unsigned char buf[256];
  if (me != 0 || n == 1) {
    long acks = 0;
    for (long s = 0; s < per; ++s) {
      if (s % 4 == 3) {
        size_t len = (size_t)(s % 200) + 1;
        fill(buf, len, (uint64_t)s);
        gex_AM_RequestMedium1(tm, 0, flood_table[1].gex_index, buf, len, GEX_EVENT_NOW, 0, s);
      } else {
        gex_AM_RequestShort1(tm, 0, flood_table[0].gex_index, 0, s);
      }
      if (s % 64 == 0) ++acks;
    }
    GASNET_BLOCKUNTIL(flood_acks == acks);
  }
  if (me == 0) {
    GASNET_BLOCKUNTIL(flood_count == per * senders);
    for (gex_Rank_t r = (n > 1 ? 1 : 0); r < n; ++r) {
      CHECK(flood_from[r] == per, "rank %u delivered %ld of %ld messages", r, flood_from[r], per);
      CHECK(flood_sum[r] == per * (per - 1) / 2, "rank %u sequence sum wrong", r);
    }
    printf("amcheck: flood delivered %ld messages from %ld ranks\n", (long)flood_count, senders);
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* ---- replyflood: every rank sends REPLYFLOOD_TOTAL requests to the next
 * without polling between them (the credits make it wait when they run
 * out); the next answers each with a Short (every fifth) or a Medium whose
 * length and contents follow from the request's number, lengths crossing
 * the 16-byte boundaries and the ofi conduit's bundle limit (4096). ---- */
#define REPLYFLOOD_TOTAL 20000
static volatile long rf_replies;
static long rf_sum;
static gex_AM_Entry_t rf_table[3]; /* defined below its handlers */
static size_t rf_len(gex_AM_Arg_t seq) {
  return (size_t)((uint32_t)seq * 37u % 5001u);
}
static void rf_request(gex_Token_t t, gex_AM_Arg_t seq) {
  static unsigned char buf[5001];
  if (seq % 5 == 0) {
    gex_AM_ReplyShort2(t, rf_table[1].gex_index, 0, seq, ~seq);
  } else {
    size_t len = rf_len(seq);
    fill(buf, len, (uint64_t)seq);
    gex_AM_ReplyMedium2(t, rf_table[2].gex_index, buf, len, GEX_EVENT_NOW, 0, seq, ~seq);
  }
}
static void rf_check(gex_AM_Arg_t seq, gex_AM_Arg_t inv) {
  CHECK(inv == ~seq, "reply to request %d carries %d as its second argument", seq, inv);
  rf_sum += seq;
  ++rf_replies;
}
static void rf_short(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t inv) {
  (void)t;
  CHECK(seq % 5 == 0, "a Short reply to request %d, which is answered by a Medium", seq);
  rf_check(seq, inv);
}
static void rf_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq, gex_AM_Arg_t inv) {
  (void)t;
  CHECK(seq % 5 != 0 && nbytes == rf_len(seq), "the reply to request %d has %zu bytes", seq,
        nbytes);
  CHECK(((uintptr_t)buf & 7) == 0, "a Medium reply's payload at %p is not 8-byte aligned", buf);
  size_t bad = first_bad(buf, nbytes, (uint64_t)seq);
  CHECK(bad == (size_t)-1, "the reply to request %d is wrong at byte %zu of %zu", seq, bad, nbytes);
  rf_check(seq, inv);
}

static gex_AM_Entry_t rf_table[3] = {
    {0, (gex_AM_Fn_t)rf_request, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "rf_req"},
    {0, (gex_AM_Fn_t)rf_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "rf_short"},
    {0, (gex_AM_Fn_t)rf_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "rf_medium"}};

static void replyflood(void) {
  gex_EP_RegisterHandlers(ep, rf_table, 3);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  for (long s = 0; s < REPLYFLOOD_TOTAL; ++s)
    gex_AM_RequestShort1(tm, next, rf_table[0].gex_index, 0, (gex_AM_Arg_t)s);
  GASNET_BLOCKUNTIL(rf_replies == REPLYFLOOD_TOTAL);
  CHECK(rf_sum == (long)REPLYFLOOD_TOTAL * (REPLYFLOOD_TOTAL - 1) / 2,
        "the replies' numbers add up to %ld", rf_sum);
  printf("amcheck rank %u: replyflood checked %ld replies from rank %u\n", me, (long)rf_replies,
         next);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* ---- ping-pong: rank 0 sends a request, rank 1 replies, each waits in its
 * own gasnet_AMPoll loop; every rank joins a barrier after each block. Run
 * on one CPU, a waiter that never yields leaves its peer no core until the
 * scheduler preempts it: a round trip then takes two time slices (about
 * 0.1 s for the run when waiters yield, 25 s when they do not). The run
 * prints its time but asserts no bound on it (tests make no timed
 * assertions): it checks that every round trip completes, and the job's
 * timeout catches a livelock. `pingpong spin` sets GASNET_WAIT_SPIN, the
 * waiter that never yields; bench/ is where its time is compared. ---- */
#define PINGPONG_BLOCKS 30
#define PINGPONG_BLOCK 100
static volatile long pp_requests, pp_replies;
static gex_AM_Entry_t pp_table[2];

static void pp_request(gex_Token_t t, gex_AM_Arg_t seq) {
  CHECK(seq == pp_requests, "ping-pong request %d arrived as number %ld", seq, pp_requests);
  ++pp_requests;
  gex_AM_ReplyShort1(t, pp_table[1].gex_index, 0, seq);
}
static void pp_reply(gex_Token_t t, gex_AM_Arg_t seq) {
  (void)t;
  CHECK(seq == pp_replies, "ping-pong reply %d arrived as number %ld", seq, pp_replies);
  ++pp_replies;
}

static double pp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pingpong(const char *waitmode) {
  if (waitmode) {
    CHECK(!strcmp(waitmode, "spin"), "ping-pong: unknown wait mode '%s' (only: spin)", waitmode);
    gasnet_set_waitmode(GASNET_WAIT_SPIN);
  }
  pp_table[0] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)pp_request, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "pp_req"};
  pp_table[1] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)pp_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "pp_rep"};
  gex_EP_RegisterHandlers(ep, pp_table, 2);
  CHECK(n >= 2, "ping-pong needs 2 ranks");
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  double start = pp_now();
  for (long b = 0; b < PINGPONG_BLOCKS; ++b) {
    long due = (b + 1) * PINGPONG_BLOCK;
    if (me == 0) {
      for (long i = b * PINGPONG_BLOCK; i < due; ++i) {
        gex_AM_RequestShort1(tm, 1, pp_table[0].gex_index, 0, (gex_AM_Arg_t)i);
        while (pp_replies <= i) gasnet_AMPoll();
      }
    } else if (me == 1) {
      while (pp_requests < due) gasnet_AMPoll();
    }
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  }
  double took = pp_now() - start;
  if (me == 0) {
    CHECK(pp_replies == PINGPONG_BLOCKS * PINGPONG_BLOCK, "%ld replies", pp_replies);
    printf("amcheck: ping-pong of %ld round trips in %.3f s\n", pp_replies, took);
  }
  if (me == 1) CHECK(pp_requests == PINGPONG_BLOCKS * PINGPONG_BLOCK, "%ld requests", pp_requests);
}

/* ---- poll chain: round after round, each rank waits in its own
 * gasnet_AMPoll loop for its predecessor's request, sends one to every
 * other rank, then waits for every other rank's. With more ranks than
 * cores the rank waited for is often descheduled: a poll that never gave
 * its core up would leave it none until the scheduler preempts the poller.
 * Checks each sender's requests arrive in round order and all arrive;
 * prints its time, asserts none. ---- */
#define CHAIN_ROUNDS 60
static volatile long chain_from[64]; /* requests from each rank, all rounds */
static gex_AM_Entry_t chain_table[1];

static void chain_request(gex_Token_t t, gex_AM_Arg_t round) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  gex_Rank_t src = info.gex_srcrank;
  CHECK(src < n && src != me, "poll chain: a request from rank %u", src);
  CHECK(round == chain_from[src], "poll chain: rank %u's request for round %d came as number %ld",
        src, (int)round, chain_from[src]);
  ++chain_from[src];
}

static void pollchain(void) {
  chain_table[0] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)chain_request, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "chain"};
  gex_EP_RegisterHandlers(ep, chain_table, 1);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  double start = pp_now();
  for (long round = 0; round < CHAIN_ROUNDS; ++round) {
    if (me > 0)
      while (chain_from[me - 1] <= round) gasnet_AMPoll();
    for (gex_Rank_t r = 0; r < n; ++r)
      if (r != me) gex_AM_RequestShort1(tm, r, chain_table[0].gex_index, 0, (gex_AM_Arg_t)round);
    for (gex_Rank_t r = 0; r < n; ++r)
      while (r != me && chain_from[r] <= round) gasnet_AMPoll();
  }
  double took = pp_now() - start;
  for (gex_Rank_t r = 0; r < n; ++r)
    if (r != me)
      CHECK(chain_from[r] == CHAIN_ROUNDS, "poll chain: %ld requests from rank %u", chain_from[r],
            r);
  if (me == 0)
    printf("amcheck: poll chain of %d rounds over %u ranks in %.3f s\n", CHAIN_ROUNDS, n, took);
}

/* ---- loopback: a request to oneself runs its handler inside the request
 * call, and a reply from that handler runs its own inside the reply call
 * (GASNet's loopback); a Medium handler gets its own aligned copy (it may
 * write to it: the sender's buffer stays as it was), a reply's copy apart
 * from its request's; local completion is immediate. ---- */
static gex_AM_Entry_t loop_table[4];
static volatile int loop_req_running, loop_rep_ran;
static volatile long loop_rep_nbytes;

static void loop_reply(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK(info.gex_srcrank == me && !info.gex_is_req, "loopback reply token: rank %u, is_req %d",
        info.gex_srcrank, info.gex_is_req);
  CHECK(loop_req_running, "loopback reply ran outside its request handler's reply call");
  CHECK(((uintptr_t)buf & 15) == 0 || nbytes == 0, "loopback reply buffer %p unaligned", buf);
  size_t bad = first_bad(buf, nbytes, (uint64_t)seed);
  CHECK(bad == (size_t)-1, "loopback reply of %zu bytes: byte %zu wrong", nbytes, bad);
  memset(buf, 0xA5, nbytes); /* the handler owns its copy */
  loop_rep_nbytes = (long)nbytes;
  ++loop_rep_ran;
}

static void loop_request(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK(info.gex_srcrank == me && info.gex_is_req, "loopback request token: rank %u, is_req %d",
        info.gex_srcrank, info.gex_is_req);
  CHECK(((uintptr_t)buf & 15) == 0 || nbytes == 0, "loopback request buffer %p unaligned", buf);
  size_t bad = first_bad(buf, nbytes, (uint64_t)seed);
  CHECK(bad == (size_t)-1, "loopback request of %zu bytes: byte %zu wrong", nbytes, bad);
  /* Reply with twice the payload (another copy, the same size class or the
   * next); this request's buffer must survive the reply. */
  static unsigned char out[MAX_MEDIUM];
  size_t rn = nbytes * 2 > sizeof out ? sizeof out : nbytes * 2;
  fill(out, rn, (uint64_t)seed + 1);
  loop_req_running = 1;
  int before = loop_rep_ran;
  gex_Event_t lc = (gex_Event_t)1;
  gex_AM_ReplyMedium1(t, loop_table[1].gex_index, out, rn, &lc, 0, seed + 1);
  loop_req_running = 0;
  CHECK(loop_rep_ran == before + 1,
        "the loopback reply handler had not run when ReplyMedium returned");
  CHECK(lc == GEX_EVENT_INVALID, "loopback reply: local completion event not complete");
  bad = first_bad(buf, nbytes, (uint64_t)seed);
  CHECK(bad == (size_t)-1, "loopback request of %zu bytes: byte %zu changed by the reply", nbytes,
        bad);
  memset(buf, 0x5A, nbytes);
}

static volatile long loop_long_ran;
static void loop_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed) {
  (void)t;
  CHECK(buf == seg + 2 * REGION, "loopback Long buffer %p, expected %p", buf,
        (void *)(seg + 2 * REGION));
  size_t bad = first_bad(buf, nbytes, (uint64_t)seed);
  CHECK(bad == (size_t)-1, "loopback Long of %zu bytes: byte %zu wrong", nbytes, bad);
  ++loop_long_ran;
}
static volatile long loop_short_ran;
static void loop_short(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b) {
  (void)t;
  CHECK(a == 7 && b == -7, "loopback Short arguments %d %d", (int)a, (int)b);
  ++loop_short_ran;
}

static void loopback(void) {
  loop_table[0] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)loop_request, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "loop_req"};
  loop_table[1] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)loop_reply, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "loop_rep"};
  loop_table[2] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)loop_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "loop_long"};
  loop_table[3] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)loop_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "loop_short"};
  gex_EP_RegisterHandlers(ep, loop_table, 4);
  static const size_t sizes[] = {0, 1, 15, 16, 128, 200, 256, 257, 4000, 32768, MAX_MEDIUM};
  static unsigned char src[MAX_MEDIUM], copy[MAX_MEDIUM];
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    size_t nb = sizes[i];
    uint64_t seed = 0x1000 + i * 77;
    fill(src, nb, seed);
    memcpy(copy, src, nb);
    int before = loop_rep_ran;
    gex_Event_t lc = (gex_Event_t)1;
    int rc =
        gex_AM_RequestMedium1(tm, me, loop_table[0].gex_index, src, nb, i % 2 ? &lc : GEX_EVENT_NOW,
                              GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)seed);
    CHECK(rc == 0, "loopback Medium refused (%d) with GEX_FLAG_IMMEDIATE", rc);
    CHECK(loop_rep_ran == before + 1,
          "loopback Medium of %zu bytes: handlers had not run at return", nb);
    CHECK(loop_rep_nbytes == (long)(nb * 2 > MAX_MEDIUM ? MAX_MEDIUM : nb * 2),
          "reply of %ld bytes", loop_rep_nbytes);
    CHECK(!(i % 2) || lc == GEX_EVENT_INVALID, "loopback Medium: local completion not complete");
    CHECK(memcmp(src, copy, nb) == 0, "loopback Medium: the sender's buffer changed");
    /* Long to oneself: lands in this rank's loopback region before the handler runs. */
    long lbefore = loop_long_ran;
    gex_AM_RequestLong1(tm, me, loop_table[2].gex_index, src, nb, seg + 2 * REGION, &lc, 0,
                        (gex_AM_Arg_t)seed);
    CHECK(loop_long_ran == lbefore + 1 && lc == GEX_EVENT_INVALID,
          "loopback Long of %zu bytes: not run, or not complete, at return", nb);
    long sbefore = loop_short_ran;
    gex_AM_RequestShort2(tm, me, loop_table[3].gex_index, 0, 7, -7);
    CHECK(loop_short_ran == sbefore + 1, "loopback Short: not run at return");
    /* GASNet-1's form, the same path. */
    gasnet_AMRequestShort2(me, loop_table[3].gex_index, 7, -7);
    CHECK(loop_short_ran == sbefore + 2, "gasnet_AMRequestShort2 to oneself: not run at return");
  }
  if (me == 0) printf("amcheck: loopback ran every handler inside its call\n");
}

/* ---- broken rules: each must end the job with a message ---- */
static const char *rule;
static gex_Token_t saved_token;
static gex_AM_Entry_t rule_table[3];
static void rule_request(gex_Token_t t, gex_AM_Arg_t a) {
  (void)a;
  if (!strcmp(rule, "request_in_handler"))
    gex_AM_RequestShort1(tm, 0, rule_table[0].gex_index, 0, 1);
  if (!strcmp(rule, "double_reply")) {
    gex_AM_ReplyShort0(t, rule_table[1].gex_index, 0);
    gex_AM_ReplyShort0(t, rule_table[1].gex_index, 0);
  }
  if (!strcmp(rule, "poll_in_handler")) gasnet_AMPoll();
  if (!strcmp(rule, "reply_in_reply") || !strcmp(rule, "stale_token"))
    gex_AM_ReplyShort0(t, rule_table[1].gex_index, 0);
  if (!strcmp(rule, "stale_token")) saved_token = t;
  if (!strcmp(rule, "medium_too_big")) {
    static char big[65537];
    gex_AM_ReplyMedium0(t, rule_table[2].gex_index, big, sizeof big, GEX_EVENT_NOW, 0);
  }
}
static void rule_reply(gex_Token_t t) {
  if (!strcmp(rule, "reply_in_reply")) gex_AM_ReplyShort0(t, rule_table[1].gex_index, 0);
}
static void rule_medium(gex_Token_t t, void *b, size_t nb) {
  (void)t, (void)b, (void)nb;
}

static void break_rule(void) {
  rule_table[0] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)rule_request, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "rule_req"};
  rule_table[1] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)rule_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "rule_rep"};
  rule_table[2] = (gex_AM_Entry_t){
      0, (gex_AM_Fn_t)rule_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "rule_med"};
  gex_EP_RegisterHandlers(ep, rule_table, 3);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (me == 0) {
    gex_Rank_t to = n > 1 ? 1 : 0;
    if (!strcmp(rule, "unregistered")) gex_AM_RequestShort0(tm, to, 140, 0);
    /* gexx's own barrier handler index, with its arguments: refused at once */
    if (!strcmp(rule, "reserved_index")) gex_AM_RequestShort4(tm, to, 1, 0, 1, 0, 0, 1);
    if (!strcmp(rule, "wrong_nargs"))
      gex_AM_RequestShort2(tm, to, rule_table[0].gex_index, 0, 1, 2);
    if (!strcmp(rule, "wrong_category")) {
      gex_AM_RequestMedium1(tm, to, rule_table[0].gex_index, "x", 1, GEX_EVENT_NOW, 0, 1);
    }
    gex_AM_RequestShort1(tm, to, rule_table[0].gex_index, 0, 1);
  }
  /* Serve AMs for a while: the broken rule must end the job before this
   * loop does (no barrier here: a rank in a barrier wait has arrived). */
  time_t until = time(NULL) + 10;
  while (time(NULL) < until) {
    gasnet_AMPoll();
    /* The handler that saved this token has returned: the token is dead. */
    if (saved_token) gex_AM_ReplyShort0(saved_token, rule_table[1].gex_index, 0);
  }
  printf("amcheck: rule %s was not caught\n", rule);
  gasnet_exit(3);
}

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  me = gasnet_mynode();
  n = gasnet_nodes();
  check_rank = me;
  next = (me + 1) % n;
  prev = (me + n - 1) % n;
  g1_table[0] = (gasnet_handlerentry_t){0, (void (*)())g1_short};
  g1_table[1] = (gasnet_handlerentry_t){0, (void (*)())g1_medium};
  g1_table[2] = (gasnet_handlerentry_t){0, (void (*)())g1_reply_payload};
  g1_table[3] = (gasnet_handlerentry_t){0, (void (*)())g1_long};
  g1_table[4] = (gasnet_handlerentry_t)gasneti_handler_tableentry_with_bits(ptr_req);
  g1_table[5] = (gasnet_handlerentry_t)gasneti_handler_tableentry_with_bits(ptr_rep);
  gasnet_attach(g1_table, 6, SEG_SIZE, 0);
  CHECK(g1_table[0].index == 255 && g1_table[1].index == 254 && g1_table[3].index == 252,
        "gasnet_attach assigned indices %u %u %u %u", g1_table[0].index, g1_table[1].index,
        g1_table[2].index, g1_table[3].index);
  gasnet_QueryGexObjects(NULL, &ep, &tm, NULL);
  CHECK(n <= 64, "at most 64 ranks");
  for (gex_Rank_t r = 0; r < n; ++r) gex_Segment_QueryBound(tm, r, &seg_of[r], NULL, NULL);
  seg = seg_of[me];
  const char *mode = argc > 1 ? argv[1] : "all";
  if (!strcmp(mode, "flood")) {
    flood();
  } else if (!strcmp(mode, "replyflood")) {
    replyflood();
  } else if (!strcmp(mode, "pollchain")) {
    pollchain();
  } else if (!strcmp(mode, "loopback")) {
    loopback();
  } else if (!strcmp(mode, "pingpong")) {
    pingpong(argc > 2 ? argv[2] : NULL);
  } else if (!strcmp(mode, "all")) {
    gex_EP_RegisterHandlers(ep, conf_table, CONF_ENTRIES);
    CHECK(conf_table[0].gex_index == 251 &&
              conf_table[CONF_ENTRIES - 1].gex_index == 199, /* 201 and 200 are taken */
          "RegisterHandlers assigned %u..%u", conf_table[0].gex_index,
          conf_table[CONF_ENTRIES - 1].gex_index);
    CHECK(gex_AM_MaxArgs() == 16 && gex_AM_LUBRequestMedium() == MAX_MEDIUM &&
              gex_AM_LUBReplyLong() >= SEG_SIZE,
          "AM limits");
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    conformance();
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    negotiated();
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    local_completion();
    immediate();
    gasnet1();
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    whole_segment();
    CHECK(g1_locked_count == 6, "hsl section ran %ld times, expected 6", g1_locked_count);
  } else {
    rule = mode;
    break_rule();
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  printf("amcheck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  fflush(stdout);
  gasnet_exit(0);
  return 0;
}
