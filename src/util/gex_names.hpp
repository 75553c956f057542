// The names a client writes for gex_DT_t, gex_OP_t and gex_TI_t bits
// ("GEX_OP_FADD"), for messages and for the gasnett_format_* calls: one
// table each, shared by the collectives, the atomics and the C API.
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <string>

namespace gexx::util {

// The name of a value that is exactly one known bit; null otherwise.
const char *dt_name(gex_DT_t dt);
const char *op_name(gex_OP_t op);

// The names of the bits set, joined by '|' ("GEX_OP_ADD|GEX_OP_FADD"),
// bits without a name in hex; `none` when no bit is set.
std::string dt_set_name(gex_DT_t dts, const char *none);
std::string op_set_name(gex_OP_t ops, const char *none);
std::string ti_set_name(gex_TI_t tis, const char *none);

}  // namespace gexx::util
