// The ofi conduit's GASNET_* variables, registered with the configuration
// registry (util/config.hpp). They carry no libfabric dependency, so every
// library and gasnetrun --help-env know them.
#include "util/config.hpp"

using gexx::config::Kind;

GEXX_KNOB_GROUP_DEFINE(
    ofi,
    {
        {"GASNET_OFI_PROVIDER", Kind::String, "",
         "ofi conduit: the libfabric provider to use ('net', 'tcp;ofi_rxm', 'shm', "
         "'verbs;ofi_rxm', "
         "...); unset, FI_PROVIDER's first match, or else a host's own network (verbs, cxi, efa, "
         "...) "
         "or on Ethernet the fastest we measured (net, then tcp, then tcp;ofi_rxm).",
         true},
        {"GASNET_SUPERNODE_MAXSIZE", Kind::Int, "0",
         "Network conduits: most ranks of one host that reach each other through shared memory; "
         "0 means all of them, 1 sends every peer through the network.",
         true, 0, 1 << 20},
        {"GASNET_NONBULKPUT_BOUNCE_LIMIT", Kind::Bytes, "64K",
         "ofi conduit: puts to network peers up to this size are copied into a bounce buffer, so "
         "their source is free when the call returns; larger ones are sent from the source.",
         false},
        {"GASNET_NETWORKDEPTH_TOTAL", Kind::Int, "256",
         "ofi conduit: most AM sends a rank has in flight on the network at once.", false, 1,
         1 << 20},
        {"GASNET_NETWORKDEPTH_PP", Kind::Int, "64",
         "ofi conduit: most AM sends a rank has in flight toward one peer at once.", false, 1,
         1 << 20},
        {"GASNET_OFI_DIRECTSEND_MIN", Kind::Bytes, "16K",
         "ofi conduit: AM Medium payloads from this size are sent from the client's buffer (the "
         "call returns when the provider has taken them) rather than copied into a send buffer; "
         "0 sends every non-empty payload that way.",
         false},
        {"GASNET_OFI_AM_RMA_MAX", Kind::Int, "-1",
         "ofi conduit: non-blocking (NB and NBI) puts and gets toward network peers of up to "
         "this many bytes that a thread issues in a burst travel as active messages, which "
         "leave bundled; -1: 16000 where the host's CPU performs the provider's RMA (net, tcp, "
         "shm, ...), 0 where the NIC does (verbs, cxi, efa, opx); 0: always libfabric RMA.",
         false, -1, 16000},
        {"GASNET_INLINESEND_LIMIT", Kind::Int, "-1",
         "ofi conduit: largest AM (header, arguments and payload, in bytes) sent inline (the "
         "provider copies it at once); -1: the provider's inject size, 0: none.",
         false, -1, 1 << 20},
    });
