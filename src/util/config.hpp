// The registry of every GASNET_* environment variable gexx reads.
//
// Each variable is declared once, with its type, default and help text;
// typed getters parse it and stop the job with a message naming the variable,
// the value and what is accepted when the value is malformed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gexx::config {

enum class Kind { Int, Bool, Size, Seconds, String, List };

struct Var {
  const char *name;
  Kind kind;
  const char *default_value;  // as a user would write it; "" when unset means "not used"
  const char *help;
  bool must_agree;  // must hold the same value on every rank
};

const std::vector<Var> &registry();
const Var *find(std::string_view name);

// Pure parsers (unit tested). They return nullopt on malformed input.
struct SizeSpec {
  bool fraction = false;  // true: `share` of physical memory, false: `bytes`
  double share = 0;
  uint64_t bytes = 0;
};
std::optional<uint64_t> parse_bytes(std::string_view text);
std::optional<SizeSpec> parse_size_spec(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);
std::optional<int64_t> parse_int(std::string_view text);
std::optional<double> parse_seconds(std::string_view text);

// Typed getters: the environment value, else the registered default.
std::string get_string(const char *name);
bool get_bool(const char *name);
int64_t get_int(const char *name, int64_t min, int64_t max);
double get_seconds(const char *name);
SizeSpec get_size_spec(const char *name);
std::vector<std::string> get_list(const char *name, const std::vector<std::string> &allowed);

// "NAME  default  help" lines for `gasnetrun --help-env`.
std::string describe_all();

}  // namespace gexx::config
