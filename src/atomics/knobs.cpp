// The environment variables of remote atomics (docs/atomics.md).
#include "util/config.hpp"

using gexx::config::Kind;

GEXX_KNOB_GROUP_DEFINE(
    atomics, {
                 {"GASNET_AD_PATH", Kind::List, "auto",
                  "How atomic domains reach their targets: auto (a CPU atomic where the target's "
                  "segment is mapped here, an active message performed by the target elsewhere) "
                  "or am (every operation as an active message, even to this rank; for testing "
                  "that path on one host).",
                  true, INT64_MIN, INT64_MAX, "auto,am"},
             });
