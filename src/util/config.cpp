#include "util/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "util/log.hpp"
#include "util/strings.hpp"

using gexx::config::Kind;

// The core's variables; each conduit declares its own in transport/<conduit>/knobs.cpp.
GEXX_KNOB_GROUP_DEFINE(
    core,
    {
        {"GASNET_PSHM_NODES", Kind::Int, "1",
         "Ranks to start when an smp-conduit program runs without gasnetrun "
         "(GASNET_PSHM_NODES=4 ./prog runs 4 ranks).",
         true, 1, 1 << 20},
        {"GASNET_MAX_SEGSIZE", Kind::Size, "0.5/H",
         "Largest segment a rank may attach, in GASNet's syntax SIZE[/P|/H]: SIZE is bytes "
         "(decimals, K/KB, M/MB, G/GB, T suffixes: 512M, 2GB, 128.0MB) or a fraction of physical "
         "memory (0.85, 5/8); /P (or no suffix) makes it each rank's limit, /H the host's, "
         "divided among its ranks. 128.0MB and 128.0MB/P: 128 MiB per rank; 0.25: a quarter of "
         "memory per rank; 0.5/H and 4GB/H: half of memory, 4 GiB, shared by the host's ranks.",
         false},
        {"GASNET_VERBOSEENV", Kind::Bool, "0",
         "Print every variable's value in effect, the conduit, the spawner, the segment sizes and "
         "the shared-memory backing, once, from rank 0.",
         false},
        {"GASNET_BARRIER", Kind::List, "auto",
         "Barrier algorithm among the ranks of a host: auto (dissem when every rank has a core, "
         "central when the host is oversubscribed), dissem (dissemination, one cache-line transfer "
         "per round) or central (one shared word; the last rank to arrive releases the others). A "
         "job with peers over the network (the ofi conduit's network peers, several hosts) ignores "
         "it: its barrier is a dissemination over active messages (am-dissem).",
         true, INT64_MIN, INT64_MAX, "auto,dissem,central"},
        {"GASNET_COLL_SLICES", Kind::List, "auto",
         "Large reductions among the ranks of a host: fold them in slices, each rank 1/n of the "
         "vector (auto: when every member's source is in its segment, on teams of 3 or more, and "
         "through the members' buffers when every rank of the host has a core of its own), always "
         "(in slices wherever the members' buffers allow, oversubscribed hosts too) or never "
         "(every member, or the root, folds the whole vector). docs/collectives.md.",
         true, INT64_MIN, INT64_MAX, "auto,always,never"},
        {"GASNET_SPREAD_RANKS", Kind::Bool, "1",
         "When a rank may run on at least as many CPUs as its host has ranks, move it onto the "
         "CPU of that set its place among the host's ranks names, at the end of start-up and of "
         "the segment attach, without binding it (the scheduler may move it later). Ranks woken "
         "from the start-up exchanges often share one CPU until the kernel spreads them, tens of "
         "milliseconds in which every wait of one on the other costs a time slice. 0 leaves the "
         "placement to the kernel.",
         false},
        {"GASNET_EXITTIMEOUT", Kind::Seconds, "",
         "Seconds ranks get to end once the job is ending (after a gasnet_exit, an exit, or a "
         "signal to the launcher) before they are killed, and that the others get to finish after "
         "a rank ends with status 0 unannounced. Unset: min(GASNET_EXITTIMEOUT_MAX, "
         "GASNET_EXITTIMEOUT_MIN + ranks x GASNET_EXITTIMEOUT_FACTOR). At least 0.5.",
         false, 500},
        {"GASNET_EXITTIMEOUT_MAX", Kind::Seconds, "360",
         "Upper bound of the exit timeout computed when GASNET_EXITTIMEOUT is unset. At least "
         "0.5.",
         false, 500},
        {"GASNET_EXITTIMEOUT_MIN", Kind::Seconds, "2",
         "Base of the exit timeout computed when GASNET_EXITTIMEOUT is unset. At least 0.5.", false,
         500},
        {"GASNET_INIT_TIMEOUT", Kind::Seconds, "120",
         "Seconds every rank of a job gets, from its start, to join the job (gasnet_init or "
         "gex_Client_Init); the launcher then names the ranks that did not and ends the job with "
         "status 1. 0: no deadline.",
         false},
        {"GASNET_EXITTIMEOUT_FACTOR", Kind::Seconds, "0.25",
         "Seconds per rank added to GASNET_EXITTIMEOUT_MIN when GASNET_EXITTIMEOUT is unset.",
         false},
        // threads (core/progress_thread.cpp)
        {"GASNET_RCV_THREAD", Kind::Bool, "0",
         "Start a progress thread per rank at attach that runs incoming AM handlers while the "
         "application computes without polling; handlers then run concurrently with the client's "
         "threads in every thread mode (docs/threads.md).",
         false},
        {"GASNET_RCV_THREAD_RATE", Kind::Int, "10000",
         "Most polls per second of an idle progress thread (GASNET_RCV_THREAD): it sleeps up to "
         "1/RATE seconds between polls once idle; 0 never sleeps (it yields the CPU instead).",
         false, 0, 1000000000},
        {"GASNET_AM_CREDITS_PP", Kind::Int, "256",
         "AM requests a rank may have outstanding toward one peer (each takes a credit the reply "
         "returns).",
         true, 1, 1 << 20},
        {"GASNET_AM_CREDITS_TOTAL", Kind::Int, "0",
         "Most AM credits a rank holds over all its peers (shared evenly, at least 1 each); 0: no "
         "bound beyond GASNET_AM_CREDITS_PP.",
         true, 0, INT32_MAX},
        {"GASNET_AM_CREDITS_SLACK", Kind::Int, "64",
         "Credits of requests answered without a reply that a rank banks before returning them in "
         "a message of their own (at most the credits per peer).",
         true, 1, 1 << 20},
        {"GASNET_PACKEDLONG_LIMIT", Kind::Bytes, "64K",
         "ofi conduit: Long AM payloads up to this size travel in the AM message itself; larger "
         "ones are written into the target's segment first.",
         false},
        // the launcher and its ssh spawner (launcher/ssh_hosts.cpp, ssh_job.cpp)
        {"GASNET_SSH_SERVERS", Kind::String, "",
         "Hosts of an ssh-spawned job, separated by commas or spaces; GASNET_SSH_NODEFILE wins "
         "when both are set.",
         false},
        {"GASNET_SSH_NODEFILE", Kind::String, "",
         "File naming the hosts of an ssh-spawned job, one per line; blank lines and text after "
         "'#' are ignored.",
         false},
        {"GASNET_SSH_KEEPDUP", Kind::Bool, "0",
         "Keep a host named more than once in the host list (each entry then takes its own "
         "ranks); by default later repeats are dropped.",
         false},
        {"GASNET_SPAWNFN", Kind::String, "L",
         "How gasnetrun starts ranks: L (local: fork them on this host), S (ssh: through an "
         "agent on each host of GASNET_SSH_SERVERS), M (mpirun) or P (srun, PMIx); gasnetrun "
         "--spawner overrides it. In a rank, M or P makes it join through PMIx or fail.",
         false},
        {"GASNET_MPIRUN_CMD", Kind::String, "",
         "Command of gasnetrun's mpi spawner (default: mpirun, else mpiexec); gasnetrun adds "
         "-n N, and for Open MPI --oversubscribe and -x for the GASNET_/GEXX_ variables.",
         false},
        {"GASNET_PMI_LAUNCHER", Kind::String, "",
         "Command of gasnetrun's pmi spawner (default: srun); gasnetrun adds -n N, and for srun "
         "--mpi=pmix unless the command sets --mpi.",
         false},
        {"GASNET_SSH_CMD", Kind::String, "ssh",
         "Remote shell command of the ssh spawner (split into words as a shell would, nothing "
         "expanded).",
         false},
        {"GASNET_SSH_OPTIONS", Kind::String, "",
         "Extra options for GASNET_SSH_CMD, before the host name. gexx adds -o BatchMode=yes, "
         "ConnectTimeout=5, ServerAliveInterval=1 and ServerAliveCountMax=3 unless these set them.",
         false},
        {"GASNET_SSH_REMOTE_PATH", Kind::String, "",
         "Working directory of the ranks on the other hosts (default: the launcher's own).", false},
        {"GASNET_MASTERIP", Kind::String, "",
         "Address (numeric IPv4 or IPv6) of this host where ranks on other hosts reach the "
         "launcher (default: this host's address on the route to the first other host).",
         false},
        // crash diagnostics (util/debug.cpp)
        {"GASNET_BACKTRACE", Kind::Bool, "0",
         "Print a backtrace of a rank that dies of a fatal signal (SIGSEGV, SIGBUS, SIGILL, "
         "SIGFPE, SIGABRT) or stops on a fatal error.",
         false},
        {"GASNET_BACKTRACE_TYPE", Kind::List, "addr2line,gdb,execinfo",
         "Ways to produce a backtrace, tried in order: addr2line (function, file and line of each "
         "frame), gdb (gdb's own backtrace of the thread), execinfo (symbols only, always works).",
         false, INT64_MIN, INT64_MAX, "addr2line,gdb,execinfo"},
        {"GASNET_FREEZE", Kind::Bool, "0",
         "Stop every rank at startup until a debugger releases it; each rank prints how to attach.",
         false},
        {"GASNET_FREEZE_ON_ERROR", Kind::Bool, "0",
         "Stop a rank that hits a fatal signal or a fatal error until a debugger releases it; the "
         "rank prints how to attach.",
         false},
        // tracing and statistics
        {"GASNET_TRACEFILE", Kind::String, "",
         "File for the trace, one line per operation: '%' in the name becomes the rank, '-' is "
         "standard error; unset, nothing is traced.",
         false},
        {"GASNET_TRACEMASK", Kind::String, "GPRSWBLAXIOCDNHU",
         "Categories to trace, as letters: G gets, P puts, S syncs, B barriers, A active messages, "
         "X AMPoll, D details, N source lines, H client lines, ... (docs/tracing.md).",
         false},
        {"GASNET_STATSFILE", Kind::String, "",
         "File for the statistics printed at exit (counts, bytes, latencies per operation kind); "
         "'%' becomes the rank, '-' is standard error; unset, nothing is counted.",
         false},
        {"GASNET_STATSMASK", Kind::String, "GPRSWBLAXIOCDNHU",
         "Categories to count, with the letters of GASNET_TRACEMASK.", false},
        {"GASNET_TRACEFLUSH", Kind::Bool, "0",
         "Flush the trace file after every line (slow; keeps the last lines of a rank that "
         "crashes).",
         false},
        {"GASNET_TRACELOCAL", Kind::Bool, "1",
         "Trace puts and gets whose peer is the calling rank itself (set 0 to leave them out).",
         false},
    });

// Every conduit's knob group (declared in transport/<conduit>/knobs.cpp),
// named here, in the one file every user of the registry links, so that a
// static link keeps the objects that register them: --help-env and the
// unknown-name check know every conduit's variables, whichever conduit the
// program links. A new conduit adds its knobs.cpp and one name here.
GEXX_KNOB_GROUP_USE(smp);
GEXX_KNOB_GROUP_USE(ofi);
GEXX_KNOB_GROUP_USE(udp);
GEXX_KNOB_GROUP_USE(atomics);
GEXX_KNOB_GROUP_USE(vis);
extern const void *const gexx_knob_group_anchors[];
const void *const gexx_knob_group_anchors[] = {&gexx_knob_group_smp, &gexx_knob_group_ofi,
                                               &gexx_knob_group_udp, &gexx_knob_group_atomics,
                                               &gexx_knob_group_vis};

namespace gexx::config {

namespace {

struct Group {
  const char *name;
  std::vector<Var> vars;
};

// Filled during static initialisation, before main; read-only afterwards.
std::vector<Group> &groups() {
  static std::vector<Group> all;
  return all;
}

// The registry in its fixed order: core, then the other groups by name.
struct Assembled {
  std::vector<Var> vars;
  std::vector<const char *> group;  // the group of each entry of vars
};

const Assembled &assembled() {
  static const Assembled all = [] {
    std::vector<const Group *> order;
    for (const auto &g : groups()) order.push_back(&g);
    std::stable_sort(order.begin(), order.end(), [](const Group *a, const Group *b) {
      bool a_core = std::strcmp(a->name, "core") == 0, b_core = std::strcmp(b->name, "core") == 0;
      if (a_core != b_core) return a_core;
      return std::strcmp(a->name, b->name) < 0;
    });
    Assembled out;
    for (const Group *g : order) {
      for (const Var &v : g->vars) {
        for (const Var &seen : out.vars) {
          if (std::strcmp(seen.name, v.name) == 0)
            util::fatal("internal error: %s is declared twice (knob groups)", v.name);
        }
        out.vars.push_back(v);
        out.group.push_back(g->name);
      }
    }
    return out;
  }();
  return all;
}

using util::trim;

std::string lower(std::string s) {
  for (auto &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<double> parse_double(std::string_view text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

const Var &lookup(const char *name) {
  const Var *v = find(name);
  if (!v) util::fatal("internal error: environment variable %s is not in the registry", name);
  return *v;
}

std::string raw_value(const Var &v) {
  const char *env = std::getenv(v.name);
  return env ? std::string(env) : std::string(v.default_value);
}

std::string invalid_message(const Var &v, std::string_view value, const std::string &accepted) {
  return util::format("%s='%.*s' is not valid: %s", v.name, static_cast<int>(value.size()),
                      value.data(), accepted.c_str());
}

[[noreturn]] void bad_value(const Var &v, const std::string &value, const std::string &accepted) {
  util::fatal("%s", invalid_message(v, value, accepted).c_str());
}

constexpr const char *kBoolAccepted = "use 1 or 0 (also yes/no, true/false, on/off)";
constexpr const char *kSecondsAccepted = "use a number of seconds, such as 2 or 0.5";
constexpr const char *kSizeAccepted =
    "use a size with an optional K, M, G or T suffix (512M, 2G), or a fraction of physical "
    "memory (0.5, 5/8), then optionally /P (per rank, the default) or /H (per host)";
constexpr const char *kBytesAccepted =
    "use a number of bytes with an optional K, M, G or T suffix (0, 4096, 64K)";

std::optional<std::string> int_problem(std::string_view value, int64_t min, int64_t max) {
  auto i = parse_int(value);
  if (i && *i >= min && *i <= max) return std::nullopt;
  if (min == INT64_MIN && max == INT64_MAX) return std::string("use a whole number");
  return util::format("use a whole number from %lld to %lld", static_cast<long long>(min),
                      static_cast<long long>(max));
}

bool bytes_bounded(const Var &v) {
  return v.min > 0 || v.max != INT64_MAX;
}

std::optional<std::string> bytes_problem(const Var &v, std::string_view value) {
  auto b = parse_bytes(value);
  int64_t lo = std::max<int64_t>(v.min, 0);
  if (b && (!bytes_bounded(v) ||
            (*b >= static_cast<uint64_t>(lo) && *b <= static_cast<uint64_t>(v.max))))
    return std::nullopt;
  if (!bytes_bounded(v)) return std::string(kBytesAccepted);
  return util::format(
      "use a number of bytes from %lld to %lld, with an optional K, M, G or T "
      "suffix",
      static_cast<long long>(lo), static_cast<long long>(v.max));
}

std::vector<std::string> choices_of(const Var &v) {
  return v.choices ? util::split(v.choices, ",") : std::vector<std::string>{};
}

std::optional<std::string> list_problem(std::string_view value,
                                        const std::vector<std::string> &allowed) {
  auto items = util::split(std::string(value), ", ");
  std::string accepted;
  for (const auto &a : allowed) accepted += (accepted.empty() ? "" : ", ") + a;
  if (items.empty()) return "list one or more of: " + accepted;
  for (const auto &item : items) {
    bool ok = allowed.empty();
    for (const auto &a : allowed) ok = ok || lower(item) == a;
    if (!ok) return "'" + item + "' is not one of: " + accepted + " (separate them with commas)";
  }
  return std::nullopt;
}

}  // namespace

// A Seconds variable with a floor (`min`, in milliseconds) refuses less.
std::optional<std::string> seconds_floor_problem(const Var &v, double seconds) {
  if (v.min == INT64_MIN || seconds * 1000.0 >= static_cast<double>(v.min)) return std::nullopt;
  return util::format("use at least %g seconds: less would end healthy ranks",
                      static_cast<double>(v.min) / 1000.0);
}

std::optional<std::string> check_value(const Var &v, std::string_view value) {
  switch (v.kind) {
    case Kind::Int:
      return int_problem(value, v.min, v.max);
    case Kind::Bool:
      if (!parse_bool(value)) return std::string(kBoolAccepted);
      return std::nullopt;
    case Kind::Size:
      if (!parse_size_spec(value)) return std::string(kSizeAccepted);
      return std::nullopt;
    case Kind::Bytes:
      return bytes_problem(v, value);
    case Kind::Seconds:
      // An empty default means "unset": the value is then computed.
      if (value.empty() && !*v.default_value) return std::nullopt;
      if (!parse_seconds(value)) return std::string(kSecondsAccepted);
      return seconds_floor_problem(v, *parse_seconds(value));
    case Kind::List:
      return list_problem(value, choices_of(v));
    case Kind::String:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> first_invalid() {
  for (const auto &v : registry()) {
    const char *env = std::getenv(v.name);
    if (!env) continue;
    if (auto problem = check_value(v, env)) return invalid_message(v, env, *problem);
  }
  return std::nullopt;
}

void validate_environment() {
  if (auto message = first_invalid()) util::fatal("%s", message->c_str());
}

KnobGroup::KnobGroup(const char *name, std::initializer_list<Var> vars) {
  groups().push_back(Group{name, std::vector<Var>(vars)});
}

const std::vector<Var> &registry() {
  return assembled().vars;
}

const Var *find(std::string_view name) {
  for (const auto &v : registry())
    if (name == v.name) return &v;
  return nullptr;
}

const char *group_of(std::string_view name) {
  const auto &all = assembled();
  for (size_t i = 0; i < all.vars.size(); ++i)
    if (name == all.vars[i].name) return all.group[i];
  return nullptr;
}

std::optional<uint64_t> parse_bytes(std::string_view text) {
  std::string t = lower(trim(text));
  if (t.empty()) return std::nullopt;
  uint64_t mult = 1;
  // Accept "64m", "64mb", "64mib".
  if (t.size() > 2 && t.compare(t.size() - 2, 2, "ib") == 0)
    t.resize(t.size() - 2);
  else if (t.size() > 1 && t.back() == 'b' &&
           !std::isdigit(static_cast<unsigned char>(t[t.size() - 2])))
    t.pop_back();
  switch (t.empty() ? '\0' : t.back()) {
    case 'k':
      mult = 1ull << 10;
      break;
    case 'm':
      mult = 1ull << 20;
      break;
    case 'g':
      mult = 1ull << 30;
      break;
    case 't':
      mult = 1ull << 40;
      break;
    default:
      break;
  }
  if (mult != 1) t.pop_back();
  if (t.empty() || t[0] == '-' || t[0] == '+') return std::nullopt;
  auto v = parse_double(t);
  if (!v || *v < 0) return std::nullopt;
  double bytes = *v * static_cast<double>(mult);
  if (bytes >= 18446744073709551616.0) return std::nullopt;
  if (mult == 1 && *v != std::floor(*v)) return std::nullopt;  // "1.5" bytes is no size
  return static_cast<uint64_t>(bytes);
}

// SIZE of GASNET_MAX_SEGSIZE without its scope suffix.
static std::optional<SizeSpec> parse_size_amount(const std::string &t) {
  size_t slash = t.find('/');
  if (slash != std::string::npos) {
    auto num = parse_int(t.substr(0, slash));
    auto den = parse_int(t.substr(slash + 1));
    if (!num || !den || *num <= 0 || *den <= 0 || *num > *den) return std::nullopt;
    return SizeSpec{true, static_cast<double>(*num) / static_cast<double>(*den), 0};
  }
  // A bare number below 1 with a decimal point is a fraction of memory.
  if (t.find('.') != std::string::npos && t.find_first_not_of("0123456789.") == std::string::npos) {
    auto v = parse_double(t);
    if (v && *v > 0 && *v <= 1.0) return SizeSpec{true, *v, 0};
  }
  auto b = parse_bytes(t);
  if (!b || *b == 0) return std::nullopt;
  return SizeSpec{false, 0, *b};
}

std::optional<SizeSpec> parse_size_spec(std::string_view text) {
  std::string t = trim(text);
  // GASNet's scope suffix: /P (per process) or /H (per host), either case.
  SizeSpec::Scope scope = SizeSpec::Scope::Unstated;
  // GASNet also takes the letter without the slash (2GBp, 0.85H).
  char c = t.empty() ? '\0' : static_cast<char>(std::tolower(static_cast<unsigned char>(t.back())));
  if (c == 'p' || c == 'h') {
    scope = c == 'p' ? SizeSpec::Scope::PerProcess : SizeSpec::Scope::PerHost;
    t = trim(t.substr(0, t.size() - 1));
    if (!t.empty() && t.back() == '/') t = trim(t.substr(0, t.size() - 1));
  }
  auto spec = parse_size_amount(t);
  if (spec) spec->scope = scope;
  return spec;
}

std::optional<bool> parse_bool(std::string_view text) {
  std::string t = lower(trim(text));
  if (t == "1" || t == "yes" || t == "y" || t == "true" || t == "on") return true;
  if (t == "0" || t == "no" || t == "n" || t == "false" || t == "off" || t.empty()) return false;
  return std::nullopt;
}

std::optional<int64_t> parse_int(std::string_view text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_seconds(std::string_view text) {
  auto v = parse_double(text);
  if (!v || *v < 0) return std::nullopt;
  return v;
}

std::string get_string(const char *name) {
  return raw_value(lookup(name));
}

bool get_bool(const char *name) {
  const Var &v = lookup(name);
  std::string value = raw_value(v);
  auto b = parse_bool(value);
  if (!b) bad_value(v, value, kBoolAccepted);
  return *b;
}

int64_t get_int(const char *name) {
  const Var &v = lookup(name);
  if (v.kind != Kind::Int) util::fatal("internal error: %s is not a whole-number variable", name);
  std::string value = raw_value(v);
  if (auto problem = int_problem(value, v.min, v.max)) bad_value(v, value, *problem);
  return *parse_int(value);
}

double get_seconds(const char *name) {
  const Var &v = lookup(name);
  std::string value = raw_value(v);
  auto s = parse_seconds(value);
  if (!s) bad_value(v, value, kSecondsAccepted);
  if (auto problem = seconds_floor_problem(v, *s)) bad_value(v, value, *problem);
  return *s;
}

SizeSpec get_size_spec(const char *name) {
  const Var &v = lookup(name);
  std::string value = raw_value(v);
  auto s = parse_size_spec(value);
  if (!s) bad_value(v, value, kSizeAccepted);
  return *s;
}

uint64_t get_bytes(const char *name) {
  const Var &v = lookup(name);
  std::string value = raw_value(v);
  if (auto problem = bytes_problem(v, value)) bad_value(v, value, *problem);
  return *parse_bytes(value);
}

std::vector<std::string> get_list(const char *name) {
  const Var &v = lookup(name);
  std::string value = raw_value(v);
  if (auto problem = list_problem(value, choices_of(v))) bad_value(v, value, *problem);
  auto items = util::split(value, ", ");
  for (auto &item : items) item = lower(item);
  return items;
}

std::string describe_all() {
  std::string out;
  for (const auto &v : registry()) {
    out += util::format("%-22s default: %s%s\n    %s\n", v.name,
                        v.default_value[0] ? v.default_value : "(unset)",
                        v.must_agree ? "  [same on every rank]" : "", v.help);
  }
  return out;
}

}  // namespace gexx::config
