/* legacycheck: the GASNet-1 NB and NBI puts and gets toward a peer whose
 * segment this process does not map (a network peer: run it on the ofi
 * conduit with GASNET_SUPERNODE_MAXSIZE=1). They must return before the
 * transfer completes (a GASNet-1 NB call returns a live handle, not
 * GASNET_INVALID_HANDLE as a blocking implementation does) and complete at
 * the sync, with the data checked on both sides.
 *
 *   legacycheck [bytes]    (default 4 MiB per transfer)
 *
 * Rank r works on its right neighbour's segment; each rank prints
 * "legacycheck rank R of N: PASS (K checks)" or "FAIL: ..." and exits 1.
 */
#include <gasnet.h>

#include "check.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Areas of every segment, each `len` bytes: what the left neighbour puts
 * with put_nb_bulk, with put_nbi_bulk and inside an access region; what it
 * gets with get_nb, with get_nbi_bulk and inside the region. */
enum { PUT_NB, PUT_NBI, PUT_REGION, GET_NB, GET_NBI, GET_REGION, AREAS };

static uint64_t seed(unsigned rank, int area) {
  return 1000u * (rank + 1) + (uint64_t)area;
}

/* Tries a handle until it completes; returns how often it was not ready. */
static long try_until_done(gasnet_handle_t h) {
  long not_ready = 0;
  while (gasnet_try_syncnb(h) == GASNET_ERR_NOT_READY) ++not_ready;
  return not_ready;
}

int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  size_t len = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (4u << 20);
  uintptr_t segsize = ((uintptr_t)AREAS * len + 4095) & ~(uintptr_t)4095;
  gasnet_attach(NULL, 0, segsize, 0);
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  check_rank = me;
  CHECK(n >= 2, "needs 2 or more ranks (got %u)", n);
  gasnet_node_t peer = (me + 1) % n, left = (me + n - 1) % n;

  gasnet_seginfo_t *seg = malloc(n * sizeof *seg);
  CHECK(gasnet_getSegmentInfo(seg, (int)n) == GASNET_OK, "gasnet_getSegmentInfo failed");
  unsigned char *mine = seg[me].addr, *remote = seg[peer].addr;

  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t segment;
  gasnet_QueryGexObjects(&client, &ep, &tm, &segment);
  void *peer_local = (void *)1;
  CHECK(gex_Segment_QueryBound(tm, peer, NULL, &peer_local, NULL) == GASNET_OK,
        "gex_Segment_QueryBound failed");
  CHECK(peer_local == NULL,
        "rank %u's segment is mapped here: run with GASNET_SUPERNODE_MAXSIZE=1 on a network "
        "conduit",
        peer);

  /* What my left neighbour will get from me. */
  fill(mine + GET_NB * len, len, seed(me, GET_NB));
  fill(mine + GET_NBI * len, len, seed(me, GET_NBI));
  fill(mine + GET_REGION * len, len, seed(me, GET_REGION));
  unsigned char *src[3], *dst[3];
  for (int i = 0; i < 3; ++i) {
    src[i] = malloc(len);
    dst[i] = malloc(len);
    memset(dst[i], 0, len);
  }
  fill(src[0], len, seed(me, PUT_NB));
  fill(src[1], len, seed(me, PUT_NBI));
  fill(src[2], len, seed(me, PUT_REGION));
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);

  /* NB: both calls return live handles; the try loop and the wait complete them. */
  gasnet_handle_t put = gasnet_put_nb_bulk(peer, remote + PUT_NB * len, src[0], len);
  CHECK(put != GASNET_INVALID_HANDLE,
        "gasnet_put_nb_bulk of %zu bytes to a network peer returned a completed handle: it "
        "blocked",
        len);
  gasnet_handle_t get = gasnet_get_nb(dst[0], peer, remote + GET_NB * len, len);
  CHECK(get != GASNET_INVALID_HANDLE,
        "gasnet_get_nb of %zu bytes from a network peer returned a completed handle: it blocked",
        len);
  long put_tries = try_until_done(put);
  gasnet_wait_syncnb(get);
  size_t bad = first_bad(dst[0], len, seed(peer, GET_NB));
  CHECK(bad == (size_t)-1, "gasnet_get_nb: byte %zu differs after the sync", bad);

  /* NBI: complete at gasnet_wait_syncnbi_all. */
  gasnet_put_nbi_bulk(peer, remote + PUT_NBI * len, src[1], len);
  gasnet_get_nbi_bulk(dst[1], peer, remote + GET_NBI * len, len);
  long nbi_tries = 0;
  while (gasnet_try_syncnbi_all() == GASNET_ERR_NOT_READY) ++nbi_tries;
  gasnet_wait_syncnbi_all();
  bad = first_bad(dst[1], len, seed(peer, GET_NBI));
  CHECK(bad == (size_t)-1, "gasnet_get_nbi_bulk: byte %zu differs after the sync", bad);

  /* An access region: its handle is live until both operations complete. */
  gasnet_begin_nbi_accessregion();
  gasnet_put_nbi_bulk(peer, remote + PUT_REGION * len, src[2], len);
  gasnet_get_nbi_bulk(dst[2], peer, remote + GET_REGION * len, len);
  gasnet_handle_t region = gasnet_end_nbi_accessregion();
  CHECK(region != GASNET_INVALID_HANDLE,
        "gasnet_end_nbi_accessregion returned a completed handle: its operations blocked");
  gasnet_wait_syncnb(region);
  bad = first_bad(dst[2], len, seed(peer, GET_REGION));
  CHECK(bad == (size_t)-1, "access-region get: byte %zu differs after the sync", bad);

  /* The owner sees what its left neighbour put. */
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  bad = first_bad(mine + PUT_NB * len, len, seed(left, PUT_NB));
  CHECK(bad == (size_t)-1, "gasnet_put_nb_bulk from rank %u: byte %zu differs", left, bad);
  bad = first_bad(mine + PUT_NBI * len, len, seed(left, PUT_NBI));
  CHECK(bad == (size_t)-1, "gasnet_put_nbi_bulk from rank %u: byte %zu differs", left, bad);
  bad = first_bad(mine + PUT_REGION * len, len, seed(left, PUT_REGION));
  CHECK(bad == (size_t)-1, "access-region put from rank %u: byte %zu differs", left, bad);

  printf("legacycheck rank %u: put_nb not ready %ld time(s), nbi not ready %ld time(s)\n", me,
         put_tries, nbi_tries);
  printf("legacycheck rank %u of %u: PASS (%ld checks)\n", me, n, check_count);
  fflush(stdout);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  for (int i = 0; i < 3; ++i) {
    free(src[i]);
    free(dst[i]);
  }
  free(seg);
  gasnet_exit(0);
  return 0;
}
