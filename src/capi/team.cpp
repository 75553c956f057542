// GASNet-EX team entry points (gex_TM_*): argument checks, then the team's
// rank map (core/team.hpp).
#include <gasnetex.h>

#include "core/objects.hpp"
#include "util/log.hpp"

namespace {

gex_TM_t checked(gex_TM_t tm, const char *api) {
  if (!tm) gexx::util::fatal("%s: the team argument is invalid (null)", api);
  return tm;
}

[[noreturn]] void not_built(const char *api) {
  gexx::util::fatal(
      "%s is not implemented in gexx yet; it ends the job rather than silently "
      "doing nothing",
      api);
}

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

size_t gex_TM_Split(gex_TM_t *, gex_TM_t, int, int, void *, size_t, gex_Flags_t) {
  not_built(__func__);
}

}  // extern "C"
