#include "core/nbi.hpp"

#include "util/log.hpp"

namespace gexx::core {

namespace {
thread_local bool t_in_region = false;
}

void begin_access_region(const char *api) {
  if (t_in_region) {
    util::fatal(
        "%s: this thread is already in an NBI access region (regions do not nest; end "
        "it first)",
        api);
  }
  t_in_region = true;
}

void end_access_region(const char *api) {
  if (!t_in_region) util::fatal("%s: this thread has no NBI access region to end", api);
  t_in_region = false;
}

}  // namespace gexx::core
