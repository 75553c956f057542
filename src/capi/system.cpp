// GASNet-EX system entry points: client, endpoint and segment objects,
// init and the gex_System_* queries; and the entry layer's own system,
// progress and exit services (capi/entry.hpp).
#include <gasnetex.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "capi/entry.hpp"
#include "core/exit.hpp"
#include "core/objects.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "mode/entry.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"

using gexx::core::Runtime;

namespace {

int g_verbose_errors = 1;

template <typename T>
T *checked(T *object, const char *api, const char *what) {
  if (!object) gexx::util::fatal("%s: the %s argument is invalid (null)", api, what);
  return object;
}

bool valid_client_name(const char *name) {
  if (!name || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (const char *p = name; *p; ++p)
    if (!std::isalnum(static_cast<unsigned char>(*p)) && *p != '_') return false;
  return true;
}

// gex_RankInfo_t is a const struct of one gex_Rank_t: a set's rank vector
// has its layout.
static_assert(sizeof(gex_RankInfo_t) == sizeof(gex_Rank_t));
void query_set(const gexx::core::Topology::Set &set, gex_RankInfo_t **info_p,
               gex_Rank_t *info_count_p, gex_Rank_t *my_info_index_p) {
  if (info_p) *info_p = reinterpret_cast<gex_RankInfo_t *>(set.ranks.data());
  if (info_count_p) *info_count_p = static_cast<gex_Rank_t>(set.ranks.size());
  if (my_info_index_p) *my_info_index_p = set.mine;
}

}  // namespace

extern "C" {

gex_Rank_t gex_System_QueryJobRank(void) {
  return Runtime::get(__func__).rank();
}
gex_Rank_t gex_System_QueryJobSize(void) {
  return Runtime::get(__func__).size();
}
void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p) {
  query_set(Runtime::get(__func__).topology().my_nbrhd(), info_p, info_count_p, my_info_index_p);
}
void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p) {
  query_set(Runtime::get(__func__).topology().my_host(), info_p, info_count_p, my_info_index_p);
}
void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank,
                                gex_Rank_t *host_set_size, gex_Rank_t *host_set_rank) {
  Runtime &rt = Runtime::get(__func__);
  const auto &t = rt.topology();
  if (nbrhd_set_size) *nbrhd_set_size = t.nbrhds();
  if (nbrhd_set_rank) *nbrhd_set_rank = t.nbrhd_of(rt.rank());
  if (host_set_size) *host_set_size = t.hosts();
  if (host_set_rank) *host_set_rank = t.host_of(rt.rank());
}
int gex_System_GetVerboseErrors(void) {
  return g_verbose_errors;
}
void gex_System_SetVerboseErrors(int enable) {
  g_verbose_errors = enable ? 1 : 0;
}

}  // extern "C"

int gexx::mode::client_init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                            const char *clientName, gex_Flags_t flags, int thread_mode) {
  if (!client_p || !ep_p || !tm_p) {
    gexx::util::fatal(
        "gex_Client_Init: client_p, ep_p and tm_p must all point to storage for "
        "the results");
  }
  if (!valid_client_name(clientName)) {
    gexx::util::fatal(
        "gex_Client_Init: client name '%s' is not valid: use letters, digits and "
        "'_', starting with a letter",
        clientName ? clientName : "(null)");
  }
  Runtime &rt = Runtime::init("gex_Client_Init", clientName, flags, thread_mode);
  rt.barrier().finish_anonymous(rt.barrier().start_anonymous());
  *client_p = rt.client();
  *ep_p = rt.ep();
  *tm_p = rt.tm();
  return GASNET_OK;
}

extern "C" {

const char *gex_Client_QueryName(gex_Client_t c) {
  return checked(c, __func__, "client")->name.c_str();
}
gex_Flags_t gex_Client_QueryFlags(gex_Client_t c) {
  return checked(c, __func__, "client")->flags;
}
void gex_Client_SetCData(gex_Client_t c, const void *v) {
  checked(c, __func__, "client")->cdata = const_cast<void *>(v);
}
void *gex_Client_QueryCData(gex_Client_t c) {
  return checked(c, __func__, "client")->cdata;
}

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) {
  return checked(ep, __func__, "endpoint")->client;
}
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) {
  return checked(ep, __func__, "endpoint")->flags;
}
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) {
  return checked(ep, __func__, "endpoint")->segment;
}
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) {
  return checked(ep, __func__, "endpoint")->index;
}
void gex_EP_SetCData(gex_EP_t ep, const void *v) {
  checked(ep, __func__, "endpoint")->cdata = const_cast<void *>(v);
}
void *gex_EP_QueryCData(gex_EP_t ep) {
  return checked(ep, __func__, "endpoint")->cdata;
}

int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t length) {
  checked(segment_p, __func__, "segment_p");
  *segment_p = gexx::capi::attach(__func__, tm, length);
  return GASNET_OK;
}

void *gex_Segment_QueryAddr(gex_Segment_t s) {
  return checked(s, __func__, "segment")->addr;
}
uintptr_t gex_Segment_QuerySize(gex_Segment_t s) {
  return checked(s, __func__, "segment")->size;
}
gex_Client_t gex_Segment_QueryClient(gex_Segment_t s) {
  return checked(s, __func__, "segment")->client;
}
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t s) {
  return checked(s, __func__, "segment")->flags;
}
void gex_Segment_SetCData(gex_Segment_t s, const void *v) {
  checked(s, __func__, "segment")->cdata = const_cast<void *>(v);
}
void *gex_Segment_QueryCData(gex_Segment_t s) {
  return checked(s, __func__, "segment")->cdata;
}

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p) {
  Runtime &rt = Runtime::get(__func__);
  gex_Rank_t jr = checked(tm, __func__, "team")->team.job_rank(__func__, rank, 0);
  if (!rt.attached()) return GASNET_ERR_BAD_ARG;
  const auto &seg = rt.transport().segment(jr);
  if (owneraddr_p) *owneraddr_p = reinterpret_cast<void *>(seg.owner_base);
  if (localaddr_p) *localaddr_p = seg.local;
  if (size_p) *size_p = seg.size;
  return GASNET_OK;
}

}  // extern "C"

int gexx::mode::gasnet1_init(int thread_mode) {
  Runtime::init("gasnet_init", "GASNET1", GEX_FLAG_USES_GASNET1, thread_mode);
  return GASNET_OK;
}

namespace gexx::capi {

bool initialized() {
  return Runtime::initialized();
}

namespace detail {
std::atomic<gex_TM_t> g_job_tm{nullptr};

gex_TM_t job_tm_slow(const char *api) {
  gex_TM_t tm = Runtime::get(api).tm();
  g_job_tm.store(tm, std::memory_order_release);
  return tm;
}
}  // namespace detail

gex_Segment_t attach(const char *api, gex_TM_t tm, uintptr_t length) {
  Runtime &rt = Runtime::get(api);
  if (checked(tm, api, "team") != rt.tm()) {
    util::fatal("%s: segments attach over the primordial team only", api);
  }
  return rt.attach(api, length);
}

uintptr_t max_local_segment(const char *api) {
  return Runtime::get(api).max_local_segment();
}
uintptr_t max_global_segment(const char *api) {
  return Runtime::get(api).max_global_segment();
}

void rank_location(const char *api, gex_Rank_t rank, gex_Rank_t *host, gex_Rank_t *nbrhd) {
  Runtime &rt = Runtime::get(api);
  if (rank >= rt.size())
    util::fatal("%s: rank %u is not in this job of %u ranks", api, rank, rt.size());
  *host = rt.topology().host_of(rank);
  *nbrhd = rt.topology().nbrhd_of(rank);
}

void exit_job(int exitcode) {
  if (!Runtime::initialized()) {
    std::fflush(nullptr);
    std::_Exit(exitcode);
  }
  Runtime::get("gasnet_exit").transport().drain();
  core::leave_job(exitcode);
}

void poll(const char *api) {
  core::poll(api);
}
void relax(uint32_t &spins) {
  core::relax(spins);
}
void set_wait_mode(int mode) {
  core::set_wait_mode(static_cast<core::WaitMode>(mode));
}

}  // namespace gexx::capi
