/* Locality queries: gex_System_QueryNbrhdInfo / QueryHostInfo /
 * QueryMyPosition agree with gasnet_getNodeInfo, and the neighbourhood is
 * really shared memory: each rank stores into every neighbour's segment
 * through the cross-mapped address gasnet_getNodeInfo's offset gives, and
 * the neighbour finds the value after a barrier. Prints one line per rank:
 *   topo rank R: host H of NH [r,r,...] nbrhd B of NB [r,r,...]
 */
#include <gasnet.h>
#include <gasnetex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, ...)                                    \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf(stderr, "topocheck rank %u: ", (unsigned)me); \
      fprintf(stderr, __VA_ARGS__);                         \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);    \
      ++failures;                                           \
    }                                                       \
  } while (0)

static gex_Rank_t me, n;

static void list(char *out, size_t room, gex_RankInfo_t *info, gex_Rank_t count) {
  size_t used = (size_t)snprintf(out, room, "[");
  for (gex_Rank_t i = 0; i < count && used < room; ++i)
    used +=
        (size_t)snprintf(out + used, room - used, i ? ",%u" : "%u", (unsigned)info[i].gex_jobrank);
  if (used < room) snprintf(out + used, room - used, "]");
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gex_Client_Init(&client, &ep, &tm, "topocheck", &argc, &argv, 0);
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  gex_Segment_Attach(&seg, tm, 1 << 20);

  gex_RankInfo_t *nb = NULL, *hs = NULL;
  gex_Rank_t nb_count = 0, nb_mine = 0, hs_count = 0, hs_mine = 0;
  gex_System_QueryNbrhdInfo(&nb, &nb_count, &nb_mine);
  gex_System_QueryHostInfo(&hs, &hs_count, &hs_mine);
  gex_Rank_t nb_sets, nb_idx, hs_sets, hs_idx;
  gex_System_QueryMyPosition(&nb_sets, &nb_idx, &hs_sets, &hs_idx);
  gex_System_QueryNbrhdInfo(NULL, NULL, NULL); /* every pointer may be NULL */

  CHECK(nb && nb_count >= 1 && nb_mine < nb_count && nb[nb_mine].gex_jobrank == me,
        "my neighbourhood does not hold me");
  CHECK(hs && hs_count >= nb_count && hs[hs_mine].gex_jobrank == me, "my host does not hold me");
  for (gex_Rank_t i = 1; i < nb_count; ++i)
    CHECK(nb[i - 1].gex_jobrank < nb[i].gex_jobrank, "neighbourhood not sorted");
  for (gex_Rank_t i = 1; i < hs_count; ++i)
    CHECK(hs[i - 1].gex_jobrank < hs[i].gex_jobrank, "host not sorted");

  gasnet_nodeinfo_t *info = calloc(n, sizeof *info);
  CHECK(gasnet_getNodeInfo(info, (int)n) == GASNET_OK, "gasnet_getNodeInfo failed");
  for (gex_Rank_t r = 0; r < n; ++r) {
    int in_nb = 0, in_hs = 0;
    for (gex_Rank_t i = 0; i < nb_count; ++i) in_nb |= nb[i].gex_jobrank == r;
    for (gex_Rank_t i = 0; i < hs_count; ++i) in_hs |= hs[i].gex_jobrank == r;
    CHECK(in_nb == (info[r].supernode == info[me].supernode), "rank %u: supernode disagrees",
          (unsigned)r);
    CHECK(in_hs == (info[r].host == info[me].host), "rank %u: host disagrees", (unsigned)r);
    CHECK(info[r].supernode < nb_sets && info[r].host < hs_sets, "rank %u: id out of range",
          (unsigned)r);
  }
  CHECK(info[me].supernode == nb_idx && info[me].host == hs_idx, "my position disagrees");

  /* Shared memory within the neighbourhood: write where the offset says. */
  gasnet_seginfo_t *segs = calloc(n, sizeof *segs);
  gasnet_getSegmentInfo(segs, (int)n);
  uint64_t *mine = (uint64_t *)segs[me].addr;
  memset(mine, 0, n * sizeof(uint64_t));
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  for (gex_Rank_t i = 0; i < nb_count; ++i) {
    gex_Rank_t r = nb[i].gex_jobrank;
    uint64_t *slot = (uint64_t *)((char *)segs[r].addr + info[r].offset) + me;
    *slot = 0x70700000ull + me * 1000 + r;
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  for (gex_Rank_t r = 0; r < n; ++r) {
    int in_nb = info[r].supernode == info[me].supernode;
    uint64_t want = in_nb ? 0x70700000ull + r * 1000 + me : 0;
    CHECK(mine[r] == want, "slot of rank %u holds %llx, not %llx", (unsigned)r,
          (unsigned long long)mine[r], (unsigned long long)want);
  }

  char hl[512], nl[512];
  list(hl, sizeof hl, hs, hs_count);
  list(nl, sizeof nl, nb, nb_count);
  printf("topo rank %u: host %u of %u %s nbrhd %u of %u %s\n", (unsigned)me, (unsigned)hs_idx,
         (unsigned)hs_sets, hl, (unsigned)nb_idx, (unsigned)nb_sets, nl);
  if (!failures) printf("topocheck rank %u of %u: PASS\n", (unsigned)me, (unsigned)n);
  fflush(stdout);
  gasnet_exit(failures ? 1 : 0);
  return 0;
}
