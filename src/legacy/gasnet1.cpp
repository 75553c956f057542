// The GASNet-1 API, written on the GASNet-EX entry points and core objects.
#include <gasnet.h>

#include <cstdlib>
#include <vector>

#include "core/exit.hpp"
#include "core/runtime.hpp"
#include "mode/entry.hpp"
#include "util/log.hpp"

using gexx::core::Runtime;

namespace {
bool g_attached = false;

void require_attached(const char *api) {
  if (!g_attached && !Runtime::get(api).attached()) {
    gexx::util::fatal("%s called before gasnet_attach (or gex_Segment_Attach)", api);
  }
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

int gexx::mode::gasnet1_init(int thread_mode) {
  Runtime::init("gasnet_init", "GASNET1", GEX_FLAG_USES_GASNET1, thread_mode);
  return GASNET_OK;
}

extern "C" {

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset) {
  (void)minheapoffset;  // segments are not aligned across ranks, so no heap to keep clear
  Runtime &rt = Runtime::get(__func__);
  if (g_attached) gexx::util::fatal("gasnet_attach called a second time");
  if (numentries < 0 || (numentries > 0 && !table)) {
    gexx::util::fatal("gasnet_attach: the handler table has %d entries but its pointer is %p",
                      numentries, static_cast<void *>(table));
  }
  if (segsize % GASNET_PAGESIZE != 0) {
    gexx::util::fatal("gasnet_attach: segsize %lu is not a multiple of GASNET_PAGESIZE (%d)",
                      static_cast<unsigned long>(segsize), GASNET_PAGESIZE);
  }
  std::vector<gexx::core::HandlerTable::LegacyEntry> entries;
  for (int i = 0; i < numentries; ++i) entries.push_back({&table[i].index, table[i].fnptr});
  std::string error = rt.handlers().register_legacy(entries.data(), numentries);
  if (!error.empty()) gexx::util::fatal("gasnet_attach: %s", error.c_str());
  rt.attach(__func__, segsize);
  g_attached = true;
  return GASNET_OK;
}

void gasnet_exit(int exitcode) {
  if (!Runtime::initialized()) {
    std::fflush(nullptr);
    std::_Exit(exitcode);
  }
  gexx::core::leave_job(exitcode);
}

gasnet_node_t gasnet_mynode(void) {
  return Runtime::get(__func__).rank();
}
gasnet_node_t gasnet_nodes(void) {
  return Runtime::get(__func__).size();
}
uintptr_t gasnet_getMaxLocalSegmentSize(void) {
  return Runtime::get(__func__).max_local_segment();
}
uintptr_t gasnet_getMaxGlobalSegmentSize(void) {
  return Runtime::get(__func__).max_global_segment();
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries) {
  Runtime &rt = Runtime::get(__func__);
  require_attached(__func__);
  if (numentries > 0 && !seginfo_table) return GASNET_ERR_BAD_ARG;
  for (int i = 0; i < numentries && static_cast<uint32_t>(i) < rt.size(); ++i) {
    const auto &seg = rt.transport().segment(static_cast<uint32_t>(i));
    seginfo_table[i].addr = reinterpret_cast<void *>(seg.owner_base);
    seginfo_table[i].size = seg.size;
  }
  return GASNET_OK;
}

int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries) {
  Runtime &rt = Runtime::get(__func__);
  if (numentries > 0 && !nodeinfo_table) return GASNET_ERR_BAD_ARG;
  for (int i = 0; i < numentries && static_cast<uint32_t>(i) < rt.size(); ++i) {
    auto r = static_cast<uint32_t>(i);
    nodeinfo_table[i].host = rt.topology().host_of(r);
    nodeinfo_table[i].supernode = rt.topology().nbrhd_of(r);
    nodeinfo_table[i].offset = 0;
    // Only for a segment mapped here (the rank's neighbourhood).
    const gexx::transport::PeerSegment *seg = rt.attached() ? &rt.transport().segment(r) : nullptr;
    if (seg && seg->local) {
      nodeinfo_table[i].offset =
          reinterpret_cast<intptr_t>(seg->local) - static_cast<intptr_t>(seg->owner_base);
    }
  }
  return GASNET_OK;
}

char *gasnet_getenv(const char *name) {
  Runtime::get(__func__);
  return name ? std::getenv(name) : nullptr;
}

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p) {
  Runtime &rt = Runtime::get(__func__);
  if (client_p) *client_p = rt.client();
  if (endpoint_p) *endpoint_p = rt.ep();
  if (tm_p) *tm_p = rt.tm();
  if (segment_p) *segment_p = rt.segment();
}

void gasnet_barrier_notify(int id, int flags) {
  require_attached(__func__);
  Runtime::get(__func__).barrier().notify(id, flags);
}

int gasnet_barrier_wait(int id, int flags) {
  require_attached(__func__);
  return Runtime::get(__func__).barrier().wait(id, flags);
}

int gasnet_barrier_try(int id, int flags) {
  require_attached(__func__);
  return Runtime::get(__func__).barrier().try_finish(id, flags);
}

int gasnet_barrier_result(int *id) {
  require_attached(__func__);
  return Runtime::get(__func__).barrier().last_result(id);
}

int gasnet_barrier(int id, int flags) {
  gasnet_barrier_notify(id, flags);
  return gasnet_barrier_wait(id, flags);
}

}  // extern "C"
