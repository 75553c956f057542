// The environment variables of remote atomics (docs/atomics.md).
#include "util/config.hpp"

using gexx::config::Kind;

GEXX_KNOB_GROUP_DEFINE(
    atomics,
    {
        {"GASNET_AD_PATH", Kind::List, "auto",
         "How atomic domains reach their targets: auto (CPU atomics when every member's "
         "segment is mapped here; else the network's native atomics for every member "
         "when the provider's NIC performs each operation of the domain (cxi, verbs, "
         "efa, opx); else a CPU atomic where mapped and an active message performed by "
         "the target elsewhere), native (as auto, but native atomics whenever the "
         "provider offers every operation, even one it emulates in software: tcp, "
         "sockets; never shm's), cpu-am (never native atomics) or am (every operation as an "
         "active message, even to this rank; for testing that path on one host).",
         true, INT64_MIN, INT64_MAX, "auto,native,cpu-am,am"},
    });
