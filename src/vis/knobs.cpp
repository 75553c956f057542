// VIS's GASNET_* variables (src/vis/vis.cpp reads them), registered with the
// configuration registry (util/config.hpp).
#include "util/config.hpp"

using gexx::config::Kind;

GEXX_KNOB_GROUP_DEFINE(
    vis,
    {
        {"GASNET_VIS_AMPIPE", Kind::Bool, "1",
         "VIS toward network peers: pack small pieces into AM Medium messages that the target "
         "unpacks (1), or move every piece with an RMA operation of its own (0).",
         false},
        {"GASNET_VIS_MAXCHUNK", Kind::Bytes, "0",
         "VIS toward network peers: most bytes of one packed AM message (0: what the provider "
         "moves best, 64 KiB over net, 12 KiB over tcp and others, at most the conduit's largest "
         "Medium payload; larger values are clamped to it). Pieces longer than a quarter of it, or "
         "than 4 KiB, go by RMA.",
         false, 0, INT64_MAX},
        {"GASNET_VIS_REMOTECONTIG", Kind::Bool, "1",
         "VIS toward network peers: when the remote side is one contiguous range and the local "
         "side is not, gather or scatter locally through a bounce buffer and move the bytes "
         "with one RMA operation.",
         false},
    });
