// The GASNet-1 API, written on the GASNet-EX entry points (and, where EX
// has none, the entry layer's own services: capi/entry.hpp). Nothing here
// reaches below capi/.
#include <gasnet.h>

#include <cstdlib>

#include "capi/entry.hpp"
#include "util/log.hpp"

namespace {
bool g_attached = false;

// The job team (GASNet-1 node numbers are its ranks).
gex_TM_t job_tm(const char *api) {
  return gexx::capi::job_tm(api);
}

bool segment_attached(const char *api) {
  return gex_EP_QuerySegment(gex_TM_QueryEP(job_tm(api))) != nullptr;
}

void require_attached(const char *api) {
  if (!g_attached && !segment_attached(api)) {
    gexx::util::fatal("%s called before gasnet_attach (or gex_Segment_Attach)", api);
  }
}
// A gasnet_init client attaches before its first barrier (GASNet-1's
// rule); a gex_Client_Init client may use the barrier before it attaches.
void require_attached_for_barrier(const char *api) {
  if (gex_Client_QueryFlags(gex_TM_QueryClient(job_tm(api))) & GEX_FLAG_USES_GASNET1)
    require_attached(api);
}
}  // namespace

extern "C" {

const char *gasnet_ErrorName(int errval) {
  switch (errval) {
    case GASNET_OK:
      return "GASNET_OK";
    case GASNET_ERR_NOT_INIT:
      return "GASNET_ERR_NOT_INIT";
    case GASNET_ERR_RESOURCE:
      return "GASNET_ERR_RESOURCE";
    case GASNET_ERR_BAD_ARG:
      return "GASNET_ERR_BAD_ARG";
    case GASNET_ERR_NOT_READY:
      return "GASNET_ERR_NOT_READY";
    case GASNET_ERR_BARRIER_MISMATCH:
      return "GASNET_ERR_BARRIER_MISMATCH";
    default:
      return "GASNET_ERR_UNKNOWN";
  }
}

const char *gasnet_ErrorDesc(int errval) {
  switch (errval) {
    case GASNET_OK:
      return "no error";
    case GASNET_ERR_NOT_INIT:
      return "gexx is not initialised";
    case GASNET_ERR_RESOURCE:
      return "a resource was not available";
    case GASNET_ERR_BAD_ARG:
      return "an argument was invalid";
    case GASNET_ERR_NOT_READY:
      return "the operation has not completed yet";
    case GASNET_ERR_BARRIER_MISMATCH:
      return "the barrier's ids or flags did not match";
    default:
      return "unknown error code";
  }
}

}  // extern "C"

extern "C" {

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset) {
  (void)minheapoffset;  // segments are not aligned across ranks, so no heap to keep clear
  gex_TM_t tm = job_tm(__func__);
  if (g_attached) gexx::util::fatal("gasnet_attach called a second time");
  if (segsize % GASNET_PAGESIZE != 0) {
    gexx::util::fatal("gasnet_attach: segsize %lu is not a multiple of GASNET_PAGESIZE (%d)",
                      static_cast<unsigned long>(segsize), GASNET_PAGESIZE);
  }
  gexx::capi::register_legacy_handlers(__func__, table, numentries);
  gexx::capi::attach(__func__, tm, segsize);
  g_attached = true;
  return GASNET_OK;
}

void gasnet_exit(int exitcode) {
  gexx::capi::exit_job(exitcode);
}

gasnet_node_t gasnet_mynode(void) {
  return gex_System_QueryJobRank();
}
gasnet_node_t gasnet_nodes(void) {
  return gex_System_QueryJobSize();
}
uintptr_t gasnet_getMaxLocalSegmentSize(void) {
  return gexx::capi::max_local_segment(__func__);
}
uintptr_t gasnet_getMaxGlobalSegmentSize(void) {
  return gexx::capi::max_global_segment(__func__);
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries) {
  gex_TM_t tm = job_tm(__func__);
  require_attached(__func__);
  if (numentries > 0 && !seginfo_table) return GASNET_ERR_BAD_ARG;
  gex_Rank_t size = gex_TM_QuerySize(tm);
  for (int i = 0; i < numentries && static_cast<uint32_t>(i) < size; ++i) {
    void *owner = nullptr;
    uintptr_t bytes = 0;
    gex_Segment_QueryBound(tm, static_cast<gex_Rank_t>(i), &owner, nullptr, &bytes);
    seginfo_table[i].addr = owner;
    seginfo_table[i].size = bytes;
  }
  return GASNET_OK;
}

int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries) {
  gex_TM_t tm = job_tm(__func__);
  if (numentries > 0 && !nodeinfo_table) return GASNET_ERR_BAD_ARG;
  bool attached = segment_attached(__func__);
  gex_Rank_t size = gex_TM_QuerySize(tm);
  for (int i = 0; i < numentries && static_cast<uint32_t>(i) < size; ++i) {
    auto r = static_cast<gex_Rank_t>(i);
    gex_Rank_t host = 0, nbrhd = 0;
    gexx::capi::rank_location(__func__, r, &host, &nbrhd);
    nodeinfo_table[i].host = host;
    nodeinfo_table[i].supernode = nbrhd;
    nodeinfo_table[i].offset = 0;
    // Only for a segment mapped here (the rank's neighbourhood).
    void *owner = nullptr, *local = nullptr;
    if (attached && gex_Segment_QueryBound(tm, r, &owner, &local, nullptr) == GASNET_OK && local) {
      nodeinfo_table[i].offset =
          reinterpret_cast<intptr_t>(local) - reinterpret_cast<intptr_t>(owner);
    }
  }
  return GASNET_OK;
}

char *gasnet_getenv(const char *name) {
  job_tm(__func__);
  return name ? std::getenv(name) : nullptr;
}

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p) {
  gex_TM_t tm = job_tm(__func__);
  gex_EP_t ep = gex_TM_QueryEP(tm);
  if (client_p) *client_p = gex_TM_QueryClient(tm);
  if (endpoint_p) *endpoint_p = ep;
  if (tm_p) *tm_p = tm;
  if (segment_p) *segment_p = gex_EP_QuerySegment(ep);
}

void gasnet_barrier_notify(int id, int flags) {
  require_attached_for_barrier(__func__);
  gexx::capi::barrier_notify(__func__, id, flags);
}

int gasnet_barrier_wait(int id, int flags) {
  require_attached_for_barrier(__func__);
  return gexx::capi::barrier_wait(__func__, id, flags);
}

int gasnet_barrier_try(int id, int flags) {
  require_attached_for_barrier(__func__);
  return gexx::capi::barrier_try(__func__, id, flags);
}

int gasnet_barrier_result(int *id) {
  require_attached_for_barrier(__func__);
  return gexx::capi::barrier_result(__func__, id);
}

int gasnet_barrier(int id, int flags) {
  gasnet_barrier_notify(id, flags);
  return gasnet_barrier_wait(id, flags);
}

}  // extern "C"
