// GASNet-EX remote atomics entry points (gex_AD_*): the domain queries here,
// the rest in atomics/domain.hpp. The header's inline forms are for clients:
// here the names are the functions.
#define GEXX_AD_NO_INLINE
#include <gasnet_ratomic.h>

#include "atomics/domain.hpp"

using gexx::atomics::checked;

extern "C" {

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags) {
  gexx::atomics::create(__func__, ad_p, tm, dt, ops, flags);
}
void gex_AD_Destroy(gex_AD_t ad) {
  gexx::atomics::destroy(__func__, ad);
}
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) {
  return checked(__func__, ad)->tm;
}
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) {
  return checked(__func__, ad)->dt;
}
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) {
  return checked(__func__, ad)->head.ops;
}
gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) {
  return checked(__func__, ad)->flags;
}
void gex_AD_SetCData(gex_AD_t ad, const void *val) {
  checked(__func__, ad)->cdata = const_cast<void *>(val);
}
void *gex_AD_QueryCData(gex_AD_t ad) {
  return checked(__func__, ad)->cdata;
}

#define GEXX_AD_DEFINE(tcode, type)                                                               \
  gex_Event_t gex_AD_OpNB_##tcode(gex_AD_t ad, type *result_p, gex_Rank_t tgt_rank,               \
                                  void *tgt_addr, gex_OP_t opcode, type operand1, type operand2,  \
                                  gex_Flags_t flags) {                                            \
    return gexx::atomics::op<gexx::atomics::Form::kNB, type>(                                     \
        __func__, ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags);           \
  }                                                                                               \
  int gex_AD_OpNBI_##tcode(gex_AD_t ad, type *result_p, gex_Rank_t tgt_rank, void *tgt_addr,      \
                           gex_OP_t opcode, type operand1, type operand2, gex_Flags_t flags) {    \
    return gexx::atomics::op<gexx::atomics::Form::kNBI, type>(                                    \
        __func__, ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags);           \
  }                                                                                               \
  int gex_AD_OpBlocking_##tcode(gex_AD_t ad, type *result_p, gex_Rank_t tgt_rank, void *tgt_addr, \
                                gex_OP_t opcode, type operand1, type operand2,                    \
                                gex_Flags_t flags) {                                              \
    return gexx::atomics::op<gexx::atomics::Form::kBlocking, type>(                               \
        __func__, ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags);           \
  }
GEXX_AD_DEFINE(I32, int32_t)
GEXX_AD_DEFINE(U32, uint32_t)
GEXX_AD_DEFINE(I64, int64_t)
GEXX_AD_DEFINE(U64, uint64_t)
GEXX_AD_DEFINE(FLT, float)
GEXX_AD_DEFINE(DBL, double)

}  // extern "C"
