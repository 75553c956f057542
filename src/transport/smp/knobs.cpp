// The smp conduit's GASNET_* variables (its shared-memory backing, which
// every conduit's same-host peers use), registered with the configuration
// registry (util/config.hpp).
#include "util/config.hpp"

using gexx::config::Kind;

GEXX_KNOB_GROUP_DEFINE(
    smp, {
             {"GASNET_SHM_BACKING", Kind::List, "memfd,shm,file",
              "Shared-memory backings to try, in order: memfd (anonymous memory), shm (an unnamed "
              "file in /dev/shm), file (an unnamed file in GASNET_TMPDIR).",
              false, INT64_MIN, INT64_MAX, "memfd,shm,file"},
             {"GASNET_TMPDIR", Kind::String, "",
              "Folder for the 'file' shared-memory backing (default: $TMPDIR, else /tmp).", false},
         });
