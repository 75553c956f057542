// The registry of every GASNET_* environment variable gexx reads.
//
// Each variable is declared once, with its type, default, range and help
// text, in a knob group next to the code that reads it: util/config.cpp holds
// the core's, each conduit registers its own from its folder
// (transport/<conduit>/knobs.cpp) with a static KnobGroup. Typed getters
// parse a value, check it against the declared range or choices, and stop
// the job with a message naming the variable, the value and what is
// accepted when it is malformed.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gexx::config {

// Size: bytes or a fraction of memory; Bytes: a byte count (0 allowed).
enum class Kind { Int, Bool, Size, Bytes, Seconds, String, List };

struct Var {
  const char *name;
  Kind kind;
  const char *default_value;  // as a user would write it; "" when unset means "not used"
  const char *help;
  bool must_agree;          // must hold the same value on every rank
  int64_t min = INT64_MIN;  // Int and Bytes: the range accepted; Seconds: the floor in ms
  int64_t max = INT64_MAX;
  const char *choices = nullptr;  // List: the names accepted, comma separated
};

// A group of variables, registered with the registry when it is constructed
// (a namespace-scope object: static registration). Define one per folder with
// GEXX_KNOB_GROUP_DEFINE; name it in util/config_check.cpp's anchor list with
// GEXX_KNOB_GROUP_USE so that a static link keeps it.
class KnobGroup {
 public:
  KnobGroup(const char *name, std::initializer_list<Var> vars);
  KnobGroup(const KnobGroup &) = delete;
  KnobGroup &operator=(const KnobGroup &) = delete;
};

#define GEXX_KNOB_GROUP_USE(group) extern const ::gexx::config::KnobGroup gexx_knob_group_##group
#define GEXX_KNOB_GROUP_DEFINE(group, ...) \
  GEXX_KNOB_GROUP_USE(group);              \
  const ::gexx::config::KnobGroup gexx_knob_group_##group(#group, __VA_ARGS__)

// Every registered variable: the "core" group first, then the others by
// group name, each in its declared order.
const std::vector<Var> &registry();
const Var *find(std::string_view name);
// The group that declared `name` ("core", "smp", "ofi", ...), or nullptr.
const char *group_of(std::string_view name);

// Pure parsers (unit tested). They return nullopt on malformed input.
// GASNET_MAX_SEGSIZE's syntax, GASNet's: SIZE[/P|/H], where SIZE is bytes
// (decimals and K/KB/M/MB/G/GB/T suffixes: 2GB, 128.0MB) or a fraction of
// physical memory (0.85, 5/8). /P: the limit of each process; /H: the limit
// of the host, shared by its processes. Without a suffix the limit is each
// process's, a fraction as well as bytes (GASNet's README: "empty, which
// means P"); the letter may also follow SIZE without the slash (2GBp).
struct SizeSpec {
  enum class Scope { Unstated, PerProcess, PerHost };
  bool fraction = false;  // true: `share` of physical memory, false: `bytes`
  double share = 0;
  uint64_t bytes = 0;
  Scope scope = Scope::Unstated;
  // Whether the amount is shared by the processes of a host.
  bool per_host() const { return scope == Scope::PerHost; }
};
std::optional<uint64_t> parse_bytes(std::string_view text);
std::optional<SizeSpec> parse_size_spec(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);
std::optional<int64_t> parse_int(std::string_view text);
std::optional<double> parse_seconds(std::string_view text);

// Typed getters: the environment value, else the registered default. Each
// checks the value against what the registry declares (an Int's range, a
// Bytes' range, a List's choices) and stops the job naming the variable, the
// value and what is allowed; callers restate no range.
std::string get_string(const char *name);
bool get_bool(const char *name);
int64_t get_int(const char *name);
double get_seconds(const char *name);
SizeSpec get_size_spec(const char *name);
uint64_t get_bytes(const char *name);
// The items, lower-cased.
std::vector<std::string> get_list(const char *name);

// "NAME  default  help" lines for `gasnetrun --help-env`.
std::string describe_all();

// What is wrong with `value` for v ("use a whole number from 1 to 8"), or
// nullopt when v accepts it.
std::optional<std::string> check_value(const Var &v, std::string_view value);
// "NAME='value' is not valid: <what is accepted>" for the first registered
// variable whose environment value v does not accept, or nullopt.
std::optional<std::string> first_invalid();
// Stops the job with first_invalid()'s message, if there is one.
void validate_environment();

// GASNet variables gexx accepts without using them (spawner, tracing, ...
// settings of GASNet's other conduits and builds).
bool is_ignored_gasnet_name(std::string_view name);
// A variable a GASNet client's build exports (GASNET_PREFIX, GASNET_TYPE, ...):
// never warned of.
bool is_client_build_name(std::string_view name);
// The known name (registered or ignored) nearest to `name` by edit distance,
// or "" when none is close.
std::string nearest_name(std::string_view name);
// The GASNET_* variables set in this process's environment, with values.
std::map<std::string, std::string> gasnet_environment();
// One warning per variable of `env` gexx neither reads nor knows.
std::vector<std::string> unknown_variable_warnings(const std::map<std::string, std::string> &env);
// "NAME=value (environment|default)" for every registered variable, then the
// ignored GASNet variables that are set.
std::vector<std::string> describe_in_effect(const std::map<std::string, std::string> &env);

// The values in effect of the must-agree variables, encoded for exchange.
std::string agreement_key(const std::map<std::string, std::string> &env);
// Names the first must-agree variable whose value differs between two ranks
// (rank 0 and the first that differs), from every rank's agreement_key.
std::optional<std::string> disagreement(const std::vector<std::string> &keys);

}  // namespace gexx::config
