// GASNet-EX team entry points (gex_TM_*): argument checks, then the team's
// rank map (core/team.hpp).
#include <gasnetex.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "coll/engine.hpp"
#include "core/objects.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"

namespace {

gex_TM_t checked(gex_TM_t tm, const char *api) {
  if (!tm) gexx::util::fatal("%s: the team argument is invalid (null)", api);
  return tm;
}

// A new team over `members` (job ranks, team order) with the id that the
// member listed first gave: its job rank and the counter value it sent in
// the exchange. No other team of any member has that id (a rank never
// sends the same counter value twice).
gex_TM_t make_team(gex_TM_t parent, std::vector<gex_Rank_t> members, uint32_t counter,
                   void *scratch, size_t scratch_size) {
  gexx::core::Runtime &rt = gexx::core::Runtime::get("gex_TM_Split");
  auto *tm = new gexx_tm_s;
  tm->client = parent->client;
  tm->ep = parent->ep;
  tm->flags = 0;
  uint64_t id = (uint64_t{members[0]} << 32) | counter;
  tm->team = gexx::core::Team::list(std::move(members), rt.rank());
  tm->team.coll_id = id;
  tm->team.scratch_addr = scratch;
  tm->team.scratch_size = scratch_size;
  return tm;
}

// Every member of `parent` learns every member's `fields` values: a
// reduce-to-all (bitwise or) of a table with one row per parent rank, in
// which each rank fills its own row.
std::vector<uint32_t> exchange(const char *api, gex_TM_t parent,
                               const std::vector<uint32_t> &mine) {
  const gexx::core::Team &team = parent->team;
  size_t fields = mine.size();
  std::vector<uint32_t> table(fields * team.size(), 0);
  std::copy(mine.begin(), mine.end(), table.begin() + fields * team.rank());
  gexx::coll::Reduction red;
  red.dt = GEX_DT_U32;
  red.dt_size = 4;
  red.op = GEX_OP_OR;
  gexx::coll::OpRef op =
      gexx::coll::reduce(api, parent->team, true, 0, table.data(), table.data(), red, table.size());
  gexx::coll::wait(*op);
  return table;
}

constexpr gex_Flags_t kScratchQuery =
    GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED;
// What the scratch queries answer. gexx's collectives use no scratch, but
// clients treat 0 as a failed query (UPC++ asserts the size of its local
// team's scratch is non-zero), as GASNet always asks for some: one page,
// which the client gives and gex_TM_Destroy hands back unused.
constexpr size_t kScratchAnswer = 4096;

}  // namespace

extern "C" {

gex_Rank_t gex_TM_QueryRank(gex_TM_t tm) {
  return checked(tm, __func__)->team.rank();
}
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm) {
  return checked(tm, __func__)->team.size();
}
gex_Client_t gex_TM_QueryClient(gex_TM_t tm) {
  return checked(tm, __func__)->client;
}
gex_EP_t gex_TM_QueryEP(gex_TM_t tm) {
  return checked(tm, __func__)->ep;
}
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm) {
  return checked(tm, __func__)->flags;
}
void gex_TM_SetCData(gex_TM_t tm, const void *v) {
  checked(tm, __func__)->cdata = const_cast<void *>(v);
}
void *gex_TM_QueryCData(gex_TM_t tm) {
  return checked(tm, __func__)->cdata;
}

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank) {
  return checked(tm, __func__)->team.job_rank(__func__, rank, 0);
}

gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank) {
  return checked(tm, __func__)->team.from_job(jobrank);
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags) {
  gex_EP_Location_t loc{};
  loc.gex_rank = checked(tm, __func__)->team.job_rank(__func__, rank, flags);
  loc.gex_ep_index = 0;
  return loc;
}

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index) {
  gexx::core::Runtime &rt = gexx::core::Runtime::get(__func__);
  if (local_ep != rt.ep())
    gexx::util::fatal("%s: the endpoint argument is not this process's", __func__);
  if (remote_ep_index != 0) {
    gexx::util::fatal("%s: endpoint index %u does not exist (gexx has one endpoint per process)",
                      __func__, static_cast<unsigned>(remote_ep_index));
  }
  // The job team's ranks are job ranks: it serves as every pair.
  return rt.tm();
}

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key, void *scratch_addr,
                    size_t scratch_size, gex_Flags_t flags) {
  checked(parent_tm, __func__);
  // A caller that joins no team needs none (and GASNet's testsplit checks
  // that a null new_tm_p gets 0).
  if (flags & kScratchQuery) return new_tm_p && color >= 0 ? kScratchAnswer : 0;
  bool member = new_tm_p != nullptr && color >= 0;
  std::vector<uint32_t> mine = {member ? 1u : 0u, static_cast<uint32_t>(color),
                                static_cast<uint32_t>(key), gexx::coll::next_team_counter()};
  std::vector<uint32_t> table = exchange(__func__, parent_tm, mine);
  if (!new_tm_p) return 0;
  if (!member) {
    *new_tm_p = GEX_TM_INVALID;
    return 0;
  }
  const gexx::core::Team &parent = parent_tm->team;
  std::vector<gexx::core::Team::SplitRow> rows(parent.size());
  for (gex_Rank_t r = 0; r < parent.size(); ++r) {
    const uint32_t *row = &table[4 * static_cast<size_t>(r)];
    rows[r] = {row[0] == 1, static_cast<int>(row[1]), static_cast<int>(row[2])};
  }
  std::vector<gex_Rank_t> order = gexx::core::Team::split_members(rows, color);
  std::vector<gex_Rank_t> members;
  members.reserve(order.size());
  for (gex_Rank_t r : order) members.push_back(parent.to_job(r));
  uint32_t counter = table[4 * static_cast<size_t>(order.front()) + 3];
  *new_tm_p = make_team(parent_tm, std::move(members), counter, scratch_addr, scratch_size);
  return 0;
}

size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags) {
  checked(parent_tm, __func__);
  // Members ask with new_tms null too (UPC++ does): a caller not in the new
  // team (numargs 0) needs none.
  if (flags & kScratchQuery) return numargs ? kScratchAnswer : 0;
  if (num_new_tms != 1) {
    gexx::util::fatal("%s: num_new_tms is %zu; gexx creates one team per call", __func__,
                      num_new_tms);
  }
  std::vector<uint32_t> table = exchange(__func__, parent_tm, {gexx::coll::next_team_counter()});
  if (numargs == 0) return 0;
  if (!new_tms || !args)
    gexx::util::fatal("%s: new_tms or args is null with numargs %zu", __func__, numargs);
  const gexx::core::Team &parent = parent_tm->team;
  std::vector<gex_Rank_t> members;
  members.reserve(numargs);
  for (size_t i = 0; i < numargs; ++i) {
    if (args[i].gex_ep_index != 0) {
      gexx::util::fatal(
          "%s: args[%zu] names endpoint %u of job rank %u (gexx has one endpoint per process)",
          __func__, i, static_cast<unsigned>(args[i].gex_ep_index), args[i].gex_rank);
    }
    if (parent.from_job(args[i].gex_rank) == GEX_RANK_INVALID) {
      gexx::util::fatal("%s: args[%zu] names job rank %u, which is not in the parent team (%s)",
                        __func__, i, args[i].gex_rank, parent.describe().c_str());
    }
    members.push_back(args[i].gex_rank);
  }
  gex_Rank_t me = gexx::core::Runtime::get(__func__).rank();
  if (std::find(members.begin(), members.end(), me) == members.end()) {
    gexx::util::fatal("%s: this process (job rank %u) passed a member list without itself",
                      __func__, me);
  }
  uint32_t counter = table[parent.from_job(members[0])];
  new_tms[0] = make_team(parent_tm, std::move(members), counter,
                         scratch_addrs ? scratch_addrs[0] : nullptr, scratch_size);
  return 0;
}

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags) {
  gexx::core::Runtime &rt = gexx::core::Runtime::get(__func__);
  checked(tm, __func__);
  if (tm == rt.tm()) gexx::util::fatal("%s: the primordial team cannot be destroyed", __func__);
  if (!(flags & GEX_FLAG_GLOBALLY_QUIESCED))
    gexx::coll::wait(*gexx::coll::barrier(__func__, tm->team));
  int rc = 0;
  if (scratch_p) {
    scratch_p->gex_addr = tm->team.scratch_addr;
    scratch_p->gex_len = tm->team.scratch_size;
    rc = tm->team.scratch_addr != nullptr || tm->team.scratch_size != 0;
  }
  gexx::coll::forget_team(tm->team);
  delete tm;
  return rc;
}

}  // extern "C"
