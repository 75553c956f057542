// GASNet-1's VIS forms (gasnet_vis.h), each a call of its gex_VIS_*
// counterpart on the primordial team (a node is a job rank there).
// GASNet-1 strided metadata: count[0] is the bytes of one contiguous
// element and count[1..stridelevels] the counts; strides are unsigned.
#include <gasnet.h>
#include <gasnet_vis.h>

#include "capi/entry.hpp"

namespace {

const gex_Memvec_t *ex(const gasnet_memvec_t *list) {
  static_assert(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t));
  return reinterpret_cast<const gex_Memvec_t *>(list);
}
const ptrdiff_t *ex(const size_t *strides) {
  static_assert(sizeof(size_t) == sizeof(ptrdiff_t));
  return reinterpret_cast<const ptrdiff_t *>(strides);
}
gex_TM_t job(const char *api) {
  return gexx::capi::job_tm(api);
}
// count[0] (the element's bytes) of GASNet-1 strided metadata; null count is
// the EX call's to report.
size_t elem(const size_t *count) {
  return count ? count[0] : 0;
}
const size_t *counts(const size_t *count) {
  return count ? count + 1 : nullptr;
}

}  // namespace

extern "C" {

void gasnet_putv_bulk(gasnet_node_t node, size_t dstcount, gasnet_memvec_t const dstlist[],
                      size_t srccount, gasnet_memvec_t const srclist[]) {
  gex_VIS_VectorPutBlocking(job(__func__), node, dstcount, ex(dstlist), srccount, ex(srclist), 0);
}
void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[], gasnet_node_t node,
                      size_t srccount, gasnet_memvec_t const srclist[]) {
  gex_VIS_VectorGetBlocking(job(__func__), dstcount, ex(dstlist), node, srccount, ex(srclist), 0);
}
gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t node, size_t dstcount,
                                    gasnet_memvec_t const dstlist[], size_t srccount,
                                    gasnet_memvec_t const srclist[]) {
  return gex_VIS_VectorPutNB(job(__func__), node, dstcount, ex(dstlist), srccount, ex(srclist), 0);
}
gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                    gasnet_node_t node, size_t srccount,
                                    gasnet_memvec_t const srclist[]) {
  return gex_VIS_VectorGetNB(job(__func__), dstcount, ex(dstlist), node, srccount, ex(srclist), 0);
}
void gasnet_putv_nbi_bulk(gasnet_node_t node, size_t dstcount, gasnet_memvec_t const dstlist[],
                          size_t srccount, gasnet_memvec_t const srclist[]) {
  gex_VIS_VectorPutNBI(job(__func__), node, dstcount, ex(dstlist), srccount, ex(srclist), 0);
}
void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[], gasnet_node_t node,
                          size_t srccount, gasnet_memvec_t const srclist[]) {
  gex_VIS_VectorGetNBI(job(__func__), dstcount, ex(dstlist), node, srccount, ex(srclist), 0);
}

void gasnet_puti_bulk(gasnet_node_t node, size_t dstcount, void *const dstlist[], size_t dstlen,
                      size_t srccount, void *const srclist[], size_t srclen) {
  gex_VIS_IndexedPutBlocking(job(__func__), node, dstcount, dstlist, dstlen, srccount, srclist,
                             srclen, 0);
}
void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen, gasnet_node_t node,
                      size_t srccount, void *const srclist[], size_t srclen) {
  gex_VIS_IndexedGetBlocking(job(__func__), dstcount, dstlist, dstlen, node, srccount, srclist,
                             srclen, 0);
}
gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t node, size_t dstcount, void *const dstlist[],
                                    size_t dstlen, size_t srccount, void *const srclist[],
                                    size_t srclen) {
  return gex_VIS_IndexedPutNB(job(__func__), node, dstcount, dstlist, dstlen, srccount, srclist,
                              srclen, 0);
}
gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                    gasnet_node_t node, size_t srccount, void *const srclist[],
                                    size_t srclen) {
  return gex_VIS_IndexedGetNB(job(__func__), dstcount, dstlist, dstlen, node, srccount, srclist,
                              srclen, 0);
}
void gasnet_puti_nbi_bulk(gasnet_node_t node, size_t dstcount, void *const dstlist[], size_t dstlen,
                          size_t srccount, void *const srclist[], size_t srclen) {
  gex_VIS_IndexedPutNBI(job(__func__), node, dstcount, dstlist, dstlen, srccount, srclist, srclen,
                        0);
}
void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen, gasnet_node_t node,
                          size_t srccount, void *const srclist[], size_t srclen) {
  gex_VIS_IndexedGetNBI(job(__func__), dstcount, dstlist, dstlen, node, srccount, srclist, srclen,
                        0);
}

void gasnet_puts_bulk(gasnet_node_t node, void *dstaddr, const size_t dststrides[], void *srcaddr,
                      const size_t srcstrides[], const size_t count[], size_t stridelevels) {
  gex_VIS_StridedPutBlocking(job(__func__), node, dstaddr, ex(dststrides), srcaddr, ex(srcstrides),
                             elem(count), counts(count), stridelevels, 0);
}
void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t node, void *srcaddr,
                      const size_t srcstrides[], const size_t count[], size_t stridelevels) {
  gex_VIS_StridedGetBlocking(job(__func__), dstaddr, ex(dststrides), node, srcaddr, ex(srcstrides),
                             elem(count), counts(count), stridelevels, 0);
}
gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t node, void *dstaddr, const size_t dststrides[],
                                    void *srcaddr, const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels) {
  return gex_VIS_StridedPutNB(job(__func__), node, dstaddr, ex(dststrides), srcaddr, ex(srcstrides),
                              elem(count), counts(count), stridelevels, 0);
}
gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t node,
                                    void *srcaddr, const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels) {
  return gex_VIS_StridedGetNB(job(__func__), dstaddr, ex(dststrides), node, srcaddr, ex(srcstrides),
                              elem(count), counts(count), stridelevels, 0);
}
void gasnet_puts_nbi_bulk(gasnet_node_t node, void *dstaddr, const size_t dststrides[],
                          void *srcaddr, const size_t srcstrides[], const size_t count[],
                          size_t stridelevels) {
  gex_VIS_StridedPutNBI(job(__func__), node, dstaddr, ex(dststrides), srcaddr, ex(srcstrides),
                        elem(count), counts(count), stridelevels, 0);
}
void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t node,
                          void *srcaddr, const size_t srcstrides[], const size_t count[],
                          size_t stridelevels) {
  gex_VIS_StridedGetNBI(job(__func__), dstaddr, ex(dststrides), node, srcaddr, ex(srcstrides),
                        elem(count), counts(count), stridelevels, 0);
}

}  // extern "C"
