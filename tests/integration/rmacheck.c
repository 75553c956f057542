/* rmacheck: every put, get and memset form of both APIs, over sizes from
 * 1 byte to 16 MiB at misaligned offsets, with the data checked on both
 * sides; a randomised slicing test; event and NBI semantics.
 *
 *   rmacheck [max_bytes]     (default 16 MiB; the segment is 2*max + 64 KiB)
 *   rmacheck max_bytes once  (only the tested-once flood)
 *
 * Rank r works on its right neighbour's segment, mapped here or reached
 * over the network (then checked through blocking gets, and by the owner
 * at the end); each rank prints
 * "rmacheck rank R of N: PASS (K checks)" or "FAIL: ..." and exits 1.
 */
#include <gasnet.h>

#include "check.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gasnet_node_t me, n, peer;
static gex_TM_t tm;
static unsigned char *mine, *remote; /* my segment; peer's segment (its address) */
static unsigned char *local_src, *local_dst;

/* The peer's segment as this rank sees it: its mapping when it is mapped
 * here (smp, shared memory), else a local copy that peer_fetch fills from
 * it and peer_store writes back (a network peer). */
static unsigned char *peer_local;
static int peer_mapped;

static void peer_fetch(size_t off, size_t len) {
  if (!peer_mapped) gex_RMA_GetBlocking(tm, peer_local + off, peer, remote + off, len, 0);
}
static void peer_store(size_t off, size_t len) {
  if (!peer_mapped) gex_RMA_PutBlocking(tm, peer, remote + off, peer_local + off, len, 0);
}

enum {
  PUT_BLOCKING,
  PUT_NB,
  PUT_NBI,
  PUT_BULK,
  PUT_NB_BULK,
  PUT_NBI_BULK,
  EX_PUT_BLOCKING,
  EX_PUT_NB,
  EX_PUT_NB_LC,
  EX_PUT_NBI,
  EX_PUT_NBI_GROUP,
  NUM_PUTS
};
static const char *put_names[] = {
    "gasnet_put",         "gasnet_put_nb",       "gasnet_put_nbi",       "gasnet_put_bulk",
    "gasnet_put_nb_bulk", "gasnet_put_nbi_bulk", "gex_RMA_PutBlocking",  "gex_RMA_PutNB",
    "gex_RMA_PutNB(lc)",  "gex_RMA_PutNBI",      "gex_RMA_PutNBI(group)"};

static void do_put(int form, void *dest, void *src, size_t len) {
  gex_Event_t lc = GEX_EVENT_NO_OP;
  switch (form) {
    case PUT_BLOCKING:
      gasnet_put(peer, dest, src, len);
      break;
    case PUT_NB:
      gasnet_wait_syncnb(gasnet_put_nb(peer, dest, src, len));
      break;
    case PUT_NBI:
      gasnet_put_nbi(peer, dest, src, len);
      gasnet_wait_syncnbi_puts();
      break;
    case PUT_BULK:
      gasnet_put_bulk(peer, dest, src, len);
      break;
    case PUT_NB_BULK:
      gasnet_wait_syncnb(gasnet_put_nb_bulk(peer, dest, src, len));
      break;
    case PUT_NBI_BULK:
      gasnet_put_nbi_bulk(peer, dest, src, len);
      gasnet_wait_syncnbi_all();
      break;
    case EX_PUT_BLOCKING:
      CHECK(gex_RMA_PutBlocking(tm, peer, dest, src, len, 0) == 0, "put");
      break;
    case EX_PUT_NB:
      gex_Event_Wait(gex_RMA_PutNB(tm, peer, dest, src, len, GEX_EVENT_DEFER, 0));
      break;
    case EX_PUT_NB_LC: {
      gex_Event_t root = gex_RMA_PutNB(tm, peer, dest, src, len, &lc, 0);
      gex_Event_Wait(lc); /* the source may be reused once lc completes */
      gex_Event_Wait(root);
      break;
    }
    case EX_PUT_NBI:
      CHECK(gex_RMA_PutNBI(tm, peer, dest, src, len, GEX_EVENT_NOW, 0) == 0, "nbi");
      gex_NBI_Wait(GEX_EC_PUT, 0);
      break;
    case EX_PUT_NBI_GROUP:
      CHECK(gex_RMA_PutNBI(tm, peer, dest, src, len, GEX_EVENT_GROUP, 0) == 0, "nbi");
      gex_NBI_Wait(GEX_EC_LC | GEX_EC_PUT, 0);
      break;
  }
}

enum {
  GET_BLOCKING,
  GET_NB,
  GET_NBI,
  GET_BULK,
  GET_NB_BULK,
  GET_NBI_BULK,
  EX_GET_BLOCKING,
  EX_GET_NB,
  EX_GET_NBI,
  NUM_GETS
};
static const char *get_names[] = {
    "gasnet_get",          "gasnet_get_nb",      "gasnet_get_nbi",
    "gasnet_get_bulk",     "gasnet_get_nb_bulk", "gasnet_get_nbi_bulk",
    "gex_RMA_GetBlocking", "gex_RMA_GetNB",      "gex_RMA_GetNBI"};

static void do_get(int form, void *dest, void *src, size_t len) {
  switch (form) {
    case GET_BLOCKING:
      gasnet_get(dest, peer, src, len);
      break;
    case GET_NB:
      gasnet_wait_syncnb(gasnet_get_nb(dest, peer, src, len));
      break;
    case GET_NBI:
      gasnet_get_nbi(dest, peer, src, len);
      gasnet_wait_syncnbi_gets();
      break;
    case GET_BULK:
      gasnet_get_bulk(dest, peer, src, len);
      break;
    case GET_NB_BULK:
      gasnet_wait_syncnb(gasnet_get_nb_bulk(dest, peer, src, len));
      break;
    case GET_NBI_BULK:
      gasnet_get_nbi_bulk(dest, peer, src, len);
      gasnet_wait_syncnbi_all();
      break;
    case EX_GET_BLOCKING:
      CHECK(gex_RMA_GetBlocking(tm, dest, peer, src, len, 0) == 0, "get");
      break;
    case EX_GET_NB:
      gex_Event_Wait(gex_RMA_GetNB(tm, dest, peer, src, len, 0));
      break;
    case EX_GET_NBI:
      CHECK(gex_RMA_GetNBI(tm, dest, peer, src, len, 0) == 0, "nbi");
      gex_NBI_Wait(GEX_EC_GET, 0);
      break;
  }
}

/* One transfer size at one misaligned offset, through every form. */
static void sweep(size_t len, size_t off) {
  for (int form = 0; form < NUM_PUTS; ++form) {
    uint64_t seed = len * 131 + off * 7 + (uint64_t)form;
    fill(local_src + off, len, seed);
    peer_local[off - 1] = 0xA5; /* guard bytes around the target range */
    peer_local[off + len] = 0x5A;
    peer_store(off - 1, 1);
    peer_store(off + len, 1);
    do_put(form, remote + off, local_src + off, len);
    peer_fetch(off - 1, len + 2);
    size_t bad = first_bad(peer_local + off, len, seed);
    CHECK(bad == (size_t)-1, "%s of %zu bytes at offset %zu: remote byte %zu wrong",
          put_names[form], len, off, bad);
    CHECK(peer_local[off - 1] == 0xA5 && peer_local[off + len] == 0x5A,
          "%s of %zu bytes wrote outside its range", put_names[form], len);
    CHECK(first_bad(local_src + off, len, seed) == (size_t)-1, "%s changed its source",
          put_names[form]);
  }
  for (int form = 0; form < NUM_GETS; ++form) {
    uint64_t seed = len * 977 + off * 3 + (uint64_t)form;
    fill(peer_local + off, len, seed);
    peer_store(off, len);
    local_dst[off - 1] = 0xA5;
    local_dst[off + len] = 0x5A;
    do_get(form, local_dst + off, remote + off, len);
    size_t bad = first_bad(local_dst + off, len, seed);
    CHECK(bad == (size_t)-1, "%s of %zu bytes at offset %zu: local byte %zu wrong", get_names[form],
          len, off, bad);
    peer_fetch(off, len);
    CHECK(local_dst[off - 1] == 0xA5 && local_dst[off + len] == 0x5A,
          "%s of %zu bytes wrote outside its range", get_names[form], len);
    CHECK(first_bad(peer_local + off, len, seed) == (size_t)-1, "%s changed its source",
          get_names[form]);
  }
  /* memset, three forms */
  for (int form = 0; form < 3; ++form) {
    int v = 0x40 + form + (int)(len & 7);
    peer_local[off - 1] = 0xA5;
    peer_local[off + len] = 0x5A;
    peer_store(off - 1, 1);
    peer_store(off + len, 1);
    if (form == 0) gasnet_memset(peer, remote + off, v, len);
    if (form == 1) gasnet_wait_syncnb(gasnet_memset_nb(peer, remote + off, v, len));
    if (form == 2) {
      gasnet_memset_nbi(peer, remote + off, v, len);
      gasnet_wait_syncnbi_puts();
    }
    peer_fetch(off - 1, len + 2);
    int ok = 1;
    for (size_t i = 0; i < len; ++i) ok &= peer_local[off + i] == (unsigned char)v;
    CHECK(ok && peer_local[off - 1] == 0xA5 && peer_local[off + len] == 0x5A,
          "memset form %d of %zu bytes at offset %zu", form, len, off);
  }
}

static void values(void) {
  for (size_t len = 1; len <= sizeof(gasnet_register_value_t); ++len) {
    uint64_t v = 0x1122334455667788ull, mask = len == 8 ? ~0ull : ((1ull << (8 * len)) - 1);
    for (int form = 0; form < 6; ++form) {
      unsigned char *at = remote + 8 + 16 * (size_t)form + (len & 1);
      unsigned char *seen = peer_local + (at - remote);
      memset(seen, 0, 16);
      peer_store((size_t)(at - remote), 16);
      uint64_t w = v ^ (uint64_t)form;
      switch (form) {
        case 0:
          gasnet_put_val(peer, at, w, len);
          break;
        case 1:
          gasnet_wait_syncnb(gasnet_put_nb_val(peer, at, w, len));
          break;
        case 2:
          gasnet_put_nbi_val(peer, at, w, len);
          gasnet_wait_syncnbi_puts();
          break;
        case 3:
          gex_RMA_PutBlockingVal(tm, peer, at, w, len, 0);
          break;
        case 4:
          gex_Event_Wait(gex_RMA_PutNBVal(tm, peer, at, w, len, 0));
          break;
        case 5:
          gex_RMA_PutNBIVal(tm, peer, at, w, len, 0);
          gex_NBI_Wait(GEX_EC_PUT, 0);
          break;
      }
      uint64_t stored = 0;
      peer_fetch((size_t)(at - remote), 16);
      memcpy(&stored, seen, len); /* little-endian host: low-order bytes first */
      CHECK(stored == (w & mask) && seen[len] == 0, "put value form %d of %zu bytes: %llx", form,
            len, (unsigned long long)stored);
      uint64_t a = gasnet_get_val(peer, at, len);
      uint64_t b = gasnet_wait_syncnb_valget(gasnet_get_nb_val(peer, at, len));
      uint64_t c = gex_RMA_GetBlockingVal(tm, peer, at, len, 0);
      CHECK(a == (w & mask) && b == a && c == a, "get value of %zu bytes: %llx %llx %llx", len,
            (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
    }
  }
}

static void events(void) {
  /* Arrays of events: invalid entries are ignored; completed ones are reset. */
  gex_Event_t ev[4];
  uint32_t word = 0xFEEDu;
  for (int i = 0; i < 4; ++i)
    ev[i] = gex_RMA_PutNB(tm, peer, remote + 64 * (size_t)i, &word, sizeof word, GEX_EVENT_NOW, 0);
  gex_Event_WaitAll(ev, 4, 0);
  for (int i = 0; i < 4; ++i) CHECK(ev[i] == GEX_EVENT_INVALID, "WaitAll resets events");
  CHECK(gex_Event_TestAll(ev, 4, 0) == 0 && gex_Event_TestSome(ev, 4, 0) == 0,
        "all-invalid arrays test complete");
  gex_Event_WaitSome(ev, 4, 0);
  /* Tests may say "not yet" while an operation is on the network. */
  ev[1] = gex_RMA_GetNB(tm, &word, peer, remote, sizeof word, 0);
  while (gex_Event_TestSome(ev, 4, 0) != 0) gasnet_AMPoll();
  CHECK(ev[1] == GEX_EVENT_INVALID && word == 0xFEEDu, "TestSome");
  CHECK(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID, "leaf of invalid");
  CHECK(gex_Event_Test(GEX_EVENT_INVALID) == 0, "test of an invalid event");

  /* GASNet-1 handle arrays */
  gasnet_handle_t h[3];
  for (int i = 0; i < 3; ++i) h[i] = gasnet_put_nb(peer, remote + 8 * (size_t)i, &word, 4);
  while (gasnet_try_syncnb_all(h, 3) != GASNET_OK) continue;
  CHECK(h[0] == GASNET_INVALID_HANDLE && h[2] == GASNET_INVALID_HANDLE, "try_syncnb_all");
  gasnet_wait_syncnb_some(h, 3);
  CHECK(gasnet_try_syncnb_some(h, 3) == GASNET_OK && gasnet_try_syncnb(h[0]) == GASNET_OK,
        "try_syncnb_some");
  gasnet_put_nbi(peer, remote + 24, &word, 4);
  /* GASNet orders no two outstanding NBI operations: the put must complete
   * before a get of the same bytes is sure to see it (over udp a lone put
   * and a get in a burst travel on different streams). */
  gasnet_wait_syncnbi_puts();
  gasnet_get_nbi(&word, peer, remote + 24, 4);
  while (gasnet_try_syncnbi_all() != GASNET_OK) continue;
  CHECK(gasnet_try_syncnbi_gets() == GASNET_OK && gasnet_try_syncnbi_puts() == GASNET_OK,
        "try_syncnbi");
  CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == 0 && word == 0xFEEDu, "gex_NBI_Test");

  /* Access regions: the operations inside are synced by the region's event. */
  for (int api = 0; api < 2; ++api) {
    uint64_t in[8], out[8];
    for (int i = 0; i < 8; ++i) in[i] = 0xABCD0000u + (uint64_t)(i + 8 * api);
    if (api)
      gasnet_begin_nbi_accessregion();
    else
      gex_NBI_BeginAccessRegion(0);
    for (int i = 0; i < 8; ++i) {
      if (api)
        gasnet_put_nbi(peer, remote + 256 + 8 * (size_t)i, &in[i], 8);
      else
        gex_RMA_PutNBI(tm, peer, remote + 256 + 8 * (size_t)i, &in[i], 8, GEX_EVENT_DEFER, 0);
    }
    if (api)
      gasnet_wait_syncnb(gasnet_end_nbi_accessregion());
    else
      gex_Event_Wait(gex_NBI_EndAccessRegion(0));
    gasnet_get(out, peer, remote + 256, sizeof out);
    CHECK(memcmp(in, out, sizeof in) == 0, "access region %d data", api);
  }
}

/* A flood of NB puts as UPC++'s rput makes one: each event tested right
 * after its call, then the oldest ones still in flight (up to 4 that are
 * not done), a poll every 32 puts, then a drain by tests alone. Every put
 * lands, and a loop on gex_Event_Test with no other call finishes. Over a
 * network those tests do not send the burst the puts are held in (the
 * first test of an event does not poll, later ones keep a young burst
 * held), so the flood leaves in bundles (jobtests' udp row counts the
 * datagrams). */
#define ONCE_PUTS 3000
static void tested_once(void) {
  static gex_Event_t pending[ONCE_PUTS];
  static uint64_t vals[ONCE_PUTS];
  size_t head = 0, tail = 0;
  for (int i = 0; i < ONCE_PUTS; ++i) {
    vals[i] = 0x5EED000000000000ull + ((uint64_t)me << 32) + (uint64_t)i;
    gex_Event_t e =
        gex_RMA_PutNB(tm, peer, remote + 8 * (size_t)i, &vals[i], 8, GEX_EVENT_DEFER, 0);
    if (gex_Event_Test(e) == 0) continue;
    pending[tail++] = e;
    for (size_t k = head, misses = 0; k < tail && misses < 4; ++k) {
      if (pending[k] == GEX_EVENT_INVALID) continue;
      if (gex_Event_Test(pending[k]) != 0) {
        ++misses;
      } else {
        pending[k] = GEX_EVENT_INVALID;
      }
    }
    while (head < tail && pending[head] == GEX_EVENT_INVALID) ++head;
    if (i % 32 == 31) gasnet_AMPoll();
  }
  for (size_t k = head; k < tail; ++k)
    while (pending[k] != GEX_EVENT_INVALID && gex_Event_Test(pending[k]) != 0) continue;
  /* One more, and a bare test loop on it. */
  uint64_t last = 0xC0FFEEull + me, back = 0;
  gex_Event_t e = gex_RMA_PutNB(tm, peer, remote + 8 * ONCE_PUTS, &last, 8, GEX_EVENT_DEFER, 0);
  while (gex_Event_Test(e) != 0) continue;
  gex_RMA_GetBlocking(tm, &back, peer, remote + 8 * ONCE_PUTS, 8, 0);
  CHECK(back == last, "tested once: the last put wrote %#llx, expected %#llx",
        (unsigned long long)back, (unsigned long long)last);
  static uint64_t got[ONCE_PUTS];
  gex_RMA_GetBlocking(tm, got, peer, remote, sizeof got, 0);
  for (int i = 0; i < ONCE_PUTS; ++i) {
    if (got[i] != vals[i]) {
      CHECK(0, "tested once: put %d of %d wrote %#llx, expected %#llx", i, ONCE_PUTS,
            (unsigned long long)got[i], (unsigned long long)vals[i]);
      break;
    }
  }
}

/* At least 65535 operations may be outstanding at once. */
static void many_outstanding(void) {
  enum { COUNT = 70000 };
  static gasnet_handle_t h[COUNT];
  static gex_Event_t ev[COUNT];
  uint32_t *words = (uint32_t *)local_src;
  for (uint32_t i = 0; i < COUNT; ++i) words[i] = i * 2654435761u;
  for (uint32_t i = 0; i < COUNT; ++i)
    h[i] = gasnet_put_nb(peer, remote + 4 * (size_t)i, &words[i], 4);
  gasnet_wait_syncnb_all(h, COUNT);
  peer_fetch(0, 4 * (size_t)COUNT);
  CHECK(memcmp(peer_local, words, 4 * (size_t)COUNT) == 0, "%d NB puts outstanding", COUNT);
  for (uint32_t i = 0; i < COUNT; ++i)
    ev[i] = gex_RMA_GetNB(tm, local_dst + 4 * (size_t)i, peer, remote + 4 * (size_t)i, 4, 0);
  gex_Event_WaitAll(ev, COUNT, 0);
  CHECK(memcmp(local_dst, words, 4 * (size_t)COUNT) == 0, "%d NB gets outstanding", COUNT);
  memset(peer_local, 0, 4 * (size_t)COUNT);
  peer_store(0, 4 * (size_t)COUNT);
  for (uint32_t i = 0; i < COUNT; ++i)
    gex_RMA_PutNBI(tm, peer, remote + 4 * (size_t)i, &words[i], 4, GEX_EVENT_DEFER, 0);
  gex_NBI_Wait(GEX_EC_PUT, 0);
  peer_fetch(0, 4 * (size_t)COUNT);
  CHECK(memcmp(peer_local, words, 4 * (size_t)COUNT) == 0, "%d NBI puts outstanding", COUNT);
  /* One source word, changed right after each call (GEX_EVENT_NOW: the
   * source may be reused at return), and completion by a test loop. */
  memset(peer_local, 0, 4 * (size_t)COUNT);
  peer_store(0, 4 * (size_t)COUNT);
  uint32_t w;
  for (uint32_t i = 0; i < COUNT; ++i) {
    w = words[i];
    gex_RMA_PutNBI(tm, peer, remote + 4 * (size_t)i, &w, 4, GEX_EVENT_NOW, 0);
    w = ~w;
  }
  while (gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK) continue;
  peer_fetch(0, 4 * (size_t)COUNT);
  CHECK(memcmp(peer_local, words, 4 * (size_t)COUNT) == 0,
        "%d NBI puts from one reused source word", COUNT);
  /* One 20000-byte source (above a burst's AM size: network puts proper),
   * refilled right after each GEX_EVENT_NOW call: a conduit that read it
   * after the call returned (a datagram queued behind a full window, or
   * sent again after a loss) would carry a later fill. */
  enum { BIG = 20000, NBIG = 24 };
  unsigned char *one = malloc(BIG);
  memset(peer_local, 0, (size_t)BIG * NBIG);
  peer_store(0, (size_t)BIG * NBIG);
  for (int i = 0; i < NBIG; ++i) {
    memset(one, 0x40 + i, BIG);
    gex_RMA_PutNBI(tm, peer, remote + (size_t)BIG * (size_t)i, one, BIG, GEX_EVENT_NOW, 0);
  }
  memset(one, 0xFF, BIG);
  gex_NBI_Wait(GEX_EC_PUT, 0);
  peer_fetch(0, (size_t)BIG * NBIG);
  for (int i = 0; i < NBIG; ++i) {
    size_t bad = BIG;
    for (size_t b = 0; b < BIG && bad == BIG; ++b)
      if (peer_local[(size_t)BIG * (size_t)i + b] != 0x40 + i) bad = b;
    CHECK(bad == BIG, "NBI put %d of %d from one reused %d-byte source: byte %zu is 0x%02x", i,
          NBIG, BIG, bad, bad == BIG ? 0 : peer_local[(size_t)BIG * (size_t)i + bad]);
  }
  free(one);
  /* A burst of pieces from 990 to about 17000 bytes, each 10% longer than
   * the one before (the ofi conduit carries a burst's NB and NBI operations
   * of up to GASNET_OFI_AM_RMA_MAX bytes as AMs, larger ones as RMA: the
   * tests run it at 0, 4000 and the default), put back to back and got back
   * NBI into a cleared buffer. */
  size_t span = 0;
  for (size_t len = 990; len < 17000; len = len * 11 / 10 + 3) {
    gex_RMA_PutNBI(tm, peer, remote + span, local_src + span, len, GEX_EVENT_DEFER, 0);
    span += len;
  }
  gex_NBI_Wait(GEX_EC_PUT, 0);
  memset(local_dst, 0, span);
  span = 0;
  for (size_t len = 990; len < 17000; len = len * 11 / 10 + 3) {
    gex_RMA_GetNBI(tm, local_dst + span, peer, remote + span, len, 0);
    span += len;
  }
  gex_NBI_Wait(GEX_EC_GET, 0);
  CHECK(memcmp(local_dst, local_src, span) == 0, "a burst of 990-17000-byte NBI puts and gets");
}

static void slicing(size_t span) {
  /* Random slices of a random block: put them in random order, read them
   * back in other random slices, compare with the block. */
  unsigned int s = 12345u + me;
  fill(local_src, span, 99 + me);
  memset(peer_local, 0, span);
  peer_store(0, span);
  for (size_t done = 0; done < span;) {
    size_t len = 1 + (size_t)(rand_r(&s) % 70000);
    if (len > span - done) len = span - done;
    do_put(rand_r(&s) % NUM_PUTS, remote + done, local_src + done, len);
    done += len;
  }
  memset(local_dst, 0, span);
  for (size_t done = 0; done < span;) {
    size_t len = 1 + (size_t)(rand_r(&s) % 90000);
    if (len > span - done) len = span - done;
    do_get(rand_r(&s) % NUM_GETS, local_dst + done, remote + done, len);
    done += len;
  }
  CHECK(memcmp(local_dst, local_src, span) == 0, "slicing: data differs");
}

/* The owner's view: once everyone is done, my segment holds what my left
 * neighbour's slicing put there. */
static void owner_check(size_t span) {
  gasnet_barrier_notify(2, 0);
  gasnet_barrier_wait(2, 0);
  fill(local_dst, span, 99 + (me + n - 1) % n);
  CHECK(memcmp(mine, local_dst, span) == 0, "slicing: my segment differs from what was put");
}

static int finish(gasnet_seginfo_t *seg) {
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  printf("rmacheck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  gasnet_barrier(1, GASNET_BARRIERFLAG_ANONYMOUS);
  free(seg);
  if (!peer_mapped) free(peer_local);
  gasnet_exit(0);
  return 0;
}

int main(int argc, char **argv) {
  size_t max = argc > 1 ? strtoul(argv[1], NULL, 0) : (16u << 20);
  /* "once": only the tested-once flood (jobtests counts its datagrams). */
  int once_only = argc > 2 && strcmp(argv[2], "once") == 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  gasnet_init(&argc, &argv);
  uintptr_t segsize = (2 * max + (64 << 10) + 4095) & ~(uintptr_t)4095;
  gasnet_attach(NULL, 0, segsize, 0);
  gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
  me = check_rank = gasnet_mynode();
  n = gasnet_nodes();
  peer = (me + 1) % n;
  gasnet_seginfo_t *seg = calloc(n, sizeof *seg);
  gasnet_getSegmentInfo(seg, (int)n);
  mine = seg[me].addr;
  remote = seg[peer].addr;
  void *local_view;
  gex_Segment_QueryBound(tm, peer, NULL, &local_view, NULL);
  peer_mapped = local_view != NULL;
  peer_local = peer_mapped ? local_view : malloc(segsize);
  local_src = malloc(max + 64);
  local_dst = malloc(max + 64);

  if (once_only) {
    tested_once();
    return finish(seg);
  }
  /* Only one rank writes into each segment, so ranks need not wait for
   * each other until the end. */
  size_t sizes[] = {1,       2,       3,    7,    8,     9,     63,      64,
                    65,      1000,    4096, 4097, 65535, 65536, 1 << 20, (1 << 20) + 3,
                    4 << 20, 16 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
    if (sizes[i] > max) continue;
    size_t offs[] = {1, 3, 8, 13};
    for (size_t k = 0; k < 4; ++k) {
      if (sizes[i] >= (1 << 20) && k > 1) break; /* big sizes: two offsets are enough */
      sweep(sizes[i], offs[k]);
    }
  }
  values();
  events();
  if (max >= 8 * ONCE_PUTS + 8) tested_once();
  if (max >= 4 * 70000) many_outstanding();
  slicing(max < (4u << 20) ? max : (4u << 20));
  owner_check(max < (4u << 20) ? max : (4u << 20));
  return finish(seg);
}
