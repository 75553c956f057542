// Checks of the environment as a whole: unknown GASNET_* names, the report
// GASNET_VERBOSEENV prints, and the values every rank must agree on.
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "util/config.hpp"
#include "util/strings.hpp"

extern char **environ;

namespace gexx::config {

namespace {

// Variables of GASNet's other conduits, spawners and builds: a job script
// written for GASNet may set them, and gexx ignores them without a warning.
constexpr const char *kIgnoredGasnetNames[] = {
    "GASNET_BACKTRACE_MT",
    "GASNET_BACKTRACE_NODES",
    "GASNET_BACKTRACE_SIGNAL",
    "GASNET_CATCH_EXIT",
    "GASNET_COLL_ENABLE_SEARCH",
    "GASNET_COLL_GATHER_ALL_DISSEM_LIMIT",
    "GASNET_COLL_MIN_SCRATCH_SIZE",
    "GASNET_COLL_SCRATCH_SIZE",
    "GASNET_CSPAWN_CMD",
    "GASNET_CSPAWN_ROUTE_OUTPUT",
    "GASNET_DISABLE_ARGDECODE",
    "GASNET_DISABLE_ENVDECODE",
    "GASNET_FREEZE_SIGNAL",
    "GASNET_HOST_DETECT",
    "GASNET_MALLOCFILE",
    "GASNET_MALLOC_CLOBBER",
    "GASNET_MALLOC_CLOBBERVAL",
    "GASNET_MALLOC_EXTRACHECK",
    "GASNET_MALLOC_INIT",
    "GASNET_MALLOC_INITVAL",
    "GASNET_MALLOC_LEAKALL",
    "GASNET_MALLOC_SCANFREED",
    "GASNET_MAX_THREADS",
    "GASNET_MPI_CMD",
    "GASNET_NETWORKDEPTH",
    "GASNET_NETWORKDEPTH_SPACE",
    "GASNET_NODEFILE",
    "GASNET_NODEMAP_EXACT",
    "GASNET_PHYSMEM_MAX",
    "GASNET_PHYSMEM_NOPROBE",
    "GASNET_PHYSMEM_PROBE",
    "GASNET_PSHM_BARRIER_HIER",
    "GASNET_PSHM_BARRIER_RADIX",
    "GASNET_PSHM_NETWORK_DEPTH",
    "GASNET_PSHM_NETWORK_DEPTH_TOTAL",
    "GASNET_QUIET",
    "GASNET_REQUESTTIMEOUT_MAX",
    "GASNET_SPAWN_CONTROL",
    "GASNET_SSH_OUT_DEGREE",
    "GASNET_STATSNODES",
    "GASNET_TEST_POLITE_SYNC",
    "GASNET_THREAD_STACK_MIN",
    "GASNET_THREAD_STACK_PAD",
    "GASNET_TRACENODES",
    "GASNET_USE_XPMEM",
};

// Variables a GASNet client's build or launcher exports to the programs it
// runs (UPC++'s configure and upcxx-run, makefiles including a .mak
// fragment): they describe the GASNet tree, not the job, so no rank warns of
// them and none is offered as a correction for a typo.
constexpr const char *kClientBuildNames[] = {
    "GASNET_BLDDIR",
    "GASNET_BUILDDIR",
    "GASNET_CC",
    "GASNET_CC_FAMILY",
    "GASNET_CC_SUBFAMILY",
    "GASNET_CFLAGS",
    "GASNET_CODEMODE",
    "GASNET_CONDUIT",
    "GASNET_CONFIGURE_ARGS",
    "GASNET_CONFIG_FRAGMENT",
    "GASNET_CPPFLAGS",
    "GASNET_CXX",
    "GASNET_CXXCPPFLAGS",
    "GASNET_CXXFLAGS",
    "GASNET_CXX_FAMILY",
    "GASNET_CXX_SUBFAMILY",
    "GASNET_DEFINES",
    "GASNET_DIR",
    "GASNET_HOME",
    "GASNET_INCLUDES",
    "GASNET_INSTALL",
    "GASNET_LD",
    "GASNET_LDFLAGS",
    "GASNET_LIBS",
    "GASNET_MISC_CFLAGS",
    "GASNET_MISC_CPPFLAGS",
    "GASNET_MISC_CXXCPPFLAGS",
    "GASNET_MISC_CXXFLAGS",
    "GASNET_OPT_CFLAGS",
    "GASNET_OPT_CXXFLAGS",
    "GASNET_PREFIX",
    "GASNET_ROOT",
    "GASNET_SRCDIR",
    "GASNET_THREADMODE",
    "GASNET_THREAD_MODEL",
    "GASNET_TYPE",
    "GASNET_UNPACKED",
};

constexpr std::string_view kPrefix = "GASNET_";

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string value_in_effect(const Var &v, const std::map<std::string, std::string> &env) {
  auto it = env.find(v.name);
  return it != env.end() ? it->second : std::string(v.default_value);
}

}  // namespace

bool is_client_build_name(std::string_view name) {
  for (const char *n : kClientBuildNames)
    if (name == n) return true;
  return false;
}

bool is_ignored_gasnet_name(std::string_view name) {
  for (const char *n : kIgnoredGasnetNames)
    if (name == n) return true;
  return false;
}

std::string nearest_name(std::string_view name) {
  std::vector<std::string_view> known(std::begin(kIgnoredGasnetNames),
                                      std::end(kIgnoredGasnetNames));
  for (const auto &v : registry()) known.emplace_back(v.name);
  std::string_view best;
  size_t best_distance = SIZE_MAX;
  for (std::string_view k : known) {
    size_t d = edit_distance(name, k);
    if (d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  // Close means a typo or two, not a different word.
  size_t suffix = name.size() > kPrefix.size() ? name.size() - kPrefix.size() : name.size();
  if (best_distance > std::max<size_t>(2, suffix / 3)) return "";
  return std::string(best);
}

std::map<std::string, std::string> gasnet_environment() {
  std::map<std::string, std::string> out;
  for (char **e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || entry.substr(0, kPrefix.size()) != kPrefix) continue;
    out.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return out;
}

std::vector<std::string> unknown_variable_warnings(const std::map<std::string, std::string> &env) {
  std::vector<std::string> out;
  for (const auto &[name, value] : env) {
    if (find(name) || is_ignored_gasnet_name(name) || is_client_build_name(name)) continue;
    std::string text = util::format("%s is not a variable gexx knows; it is ignored", name.c_str());
    std::string near = nearest_name(name);
    if (!near.empty()) {
      text += util::format(" (did you mean %s?%s)", near.c_str(),
                           find(near) ? "" : " gexx ignores that one too");
    }
    out.push_back(text + "; gasnetrun --help-env lists the variables gexx reads");
  }
  return out;
}

std::vector<std::string> describe_in_effect(const std::map<std::string, std::string> &env) {
  std::vector<std::string> out;
  for (const auto &v : registry()) {
    bool set = env.count(v.name) > 0;
    std::string value = value_in_effect(v, env);
    if (!set && value.empty())
      out.push_back(util::format("%s unset", v.name));
    else
      out.push_back(
          util::format("%s=%s (%s)", v.name, value.c_str(), set ? "environment" : "default"));
  }
  for (const auto &[name, value] : env) {
    if (is_ignored_gasnet_name(name) && !find(name))
      out.push_back(name + "=" + value + " (environment; a GASNet variable gexx does not use)");
  }
  return out;
}

std::string agreement_key(const std::map<std::string, std::string> &env) {
  std::string key;
  for (const auto &v : registry()) {
    if (!v.must_agree) continue;
    key += v.name;
    key += '=';
    key += value_in_effect(v, env);
    key += '\0';  // no environment value holds one
  }
  return key;
}

std::optional<std::string> disagreement(const std::vector<std::string> &keys) {
  auto entries = [](const std::string &key) {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t at = 0; at < key.size();) {
      size_t end = key.find('\0', at);
      if (end == std::string::npos) end = key.size();
      std::string entry = key.substr(at, end - at);
      size_t eq = entry.find('=');
      out.emplace_back(entry.substr(0, eq), eq == std::string::npos ? "" : entry.substr(eq + 1));
      at = end + 1;
    }
    return out;
  };
  if (keys.empty()) return std::nullopt;
  auto first = entries(keys[0]);
  for (size_t r = 1; r < keys.size(); ++r) {
    if (keys[r] == keys[0]) continue;
    auto other = entries(keys[r]);
    for (size_t i = 0; i < std::max(first.size(), other.size()); ++i) {
      std::string name = i < first.size() ? first[i].first : other[i].first;
      std::string a = i < first.size() ? first[i].second : "(not known)";
      std::string b = i < other.size() ? other[i].second : "(not known)";
      if (a == b && i < first.size() && i < other.size() && first[i].first == other[i].first)
        continue;
      return util::format(
          "%s must be the same on every rank, but rank 0 has '%s' and rank %zu has '%s'; set it "
          "once for the whole job",
          name.c_str(), a.c_str(), r, b.c_str());
    }
  }
  return std::nullopt;
}

}  // namespace gexx::config
