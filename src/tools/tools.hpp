// What the tools library's sources share: the public header seen from
// inside the library, and the one way they report a fatal misuse.
#pragma once

#define GEXX_BUILDING_TOOLS 1
#include <gasnet_tools.h>

#include <optional>
#include <string_view>

namespace gexx::tools {

// Parses an integer (mem_unit == 0: decimal or 0x hex, optionally negative)
// or a memory size (a possibly fractional number and an optional B, K, KB,
// M, MB, G, GB, T, TB, P, PB, E or EB suffix, any case; a bare number counts mem_unit
// bytes). nullopt when malformed or out of range.
std::optional<int64_t> parse_int(std::string_view text, uint64_t mem_unit);

// What parse_int accepts, for error messages.
const char *int_forms(uint64_t mem_unit);

}  // namespace gexx::tools
