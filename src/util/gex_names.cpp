#include "util/gex_names.hpp"

#include <cstdio>
#include <iterator>
#include <span>

namespace gexx::util {

namespace {
struct BitName {
  uint32_t bit;
  const char *name;
};

#define GEXX_BIT(name) \
  { name, #name }
constexpr BitName kDtNames[] = {GEXX_BIT(GEX_DT_I32), GEXX_BIT(GEX_DT_U32), GEXX_BIT(GEX_DT_I64),
                                GEXX_BIT(GEX_DT_U64), GEXX_BIT(GEX_DT_FLT), GEXX_BIT(GEX_DT_DBL),
                                GEXX_BIT(GEX_DT_USER)};
constexpr BitName kOpNames[] = {
    GEXX_BIT(GEX_OP_AND),  GEXX_BIT(GEX_OP_OR),    GEXX_BIT(GEX_OP_XOR),    GEXX_BIT(GEX_OP_ADD),
    GEXX_BIT(GEX_OP_SUB),  GEXX_BIT(GEX_OP_MULT),  GEXX_BIT(GEX_OP_MIN),    GEXX_BIT(GEX_OP_MAX),
    GEXX_BIT(GEX_OP_INC),  GEXX_BIT(GEX_OP_DEC),   GEXX_BIT(GEX_OP_SET),    GEXX_BIT(GEX_OP_CAS),
    GEXX_BIT(GEX_OP_FAND), GEXX_BIT(GEX_OP_FOR),   GEXX_BIT(GEX_OP_FXOR),   GEXX_BIT(GEX_OP_FADD),
    GEXX_BIT(GEX_OP_FSUB), GEXX_BIT(GEX_OP_FMULT), GEXX_BIT(GEX_OP_FMIN),   GEXX_BIT(GEX_OP_FMAX),
    GEXX_BIT(GEX_OP_FINC), GEXX_BIT(GEX_OP_FDEC),  GEXX_BIT(GEX_OP_SWAP),   GEXX_BIT(GEX_OP_FCAS),
    GEXX_BIT(GEX_OP_GET),  GEXX_BIT(GEX_OP_USER),  GEXX_BIT(GEX_OP_USER_NC)};
constexpr BitName kTiNames[] = {GEXX_BIT(GEX_TI_SRCRANK), GEXX_BIT(GEX_TI_EP),
                                GEXX_BIT(GEX_TI_ENTRY), GEXX_BIT(GEX_TI_IS_REQ),
                                GEXX_BIT(GEX_TI_IS_LONG)};
#undef GEXX_BIT

const char *name_of(uint32_t value, std::span<const BitName> names) {
  for (const BitName &n : names)
    if (value == n.bit) return n.name;
  return nullptr;
}

std::string set_name(uint32_t bits, std::span<const BitName> names, const char *none) {
  std::string s;
  for (const BitName &n : names) {
    if (!(bits & n.bit)) continue;
    if (!s.empty()) s += '|';
    s += n.name;
    bits &= ~n.bit;
  }
  if (bits) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", static_cast<unsigned>(bits));
    if (!s.empty()) s += '|';
    s += hex;
  }
  return s.empty() ? none : s;
}
}  // namespace

const char *dt_name(gex_DT_t dt) {
  return name_of(dt, kDtNames);
}
const char *op_name(gex_OP_t op) {
  return name_of(op, kOpNames);
}
std::string dt_set_name(gex_DT_t dts, const char *none) {
  return set_name(dts, kDtNames, none);
}
std::string op_set_name(gex_OP_t ops, const char *none) {
  return set_name(ops, kOpNames, none);
}
std::string ti_set_name(gex_TI_t tis, const char *none) {
  return set_name(tis, kTiNames, none);
}

}  // namespace gexx::util
