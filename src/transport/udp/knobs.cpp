// The udp conduit's GASNET_* variables, registered with the configuration
// registry (util/config.hpp), so every library and gasnetrun --help-env know
// them. GASNET_SUPERNODE_MAXSIZE and GASNET_NONBULKPUT_BOUNCE_LIMIT are
// shared with the ofi conduit (transport/ofi/knobs.cpp).
#include "util/config.hpp"

using gexx::config::Kind;

GEXX_KNOB_GROUP_DEFINE(
    udp,
    {
        {"GASNET_UDP_WINDOW", Kind::Bytes, "512K",
         "udp conduit: most bytes of datagrams one rank has unacknowledged toward one peer on "
         "each of its two streams (requests; replies and RMA); the rest wait their turn.",
         false},
        {"GASNET_UDP_SOCKETBUF", Kind::Bytes, "4M",
         "udp conduit: the socket's receive and send buffer sizes asked of the kernel (it caps "
         "them at net.core.rmem_max and wmem_max); datagrams arriving at a full buffer are lost "
         "and sent again.",
         false},
        {"GASNET_WORKERIP", Kind::String, "",
         "udp conduit, jobs on several hosts: the IPv4 address, or the start of one (\"10.1.\"), "
         "of the interface other hosts reach this rank at; empty: the host name's address.",
         false},
        {"GASNET_UDP_TEST_DROP", Kind::Int, "0",
         "udp conduit, for tests: drop every Nth datagram this rank reads, as a lossy network "
         "would (0: none); the conduit sends them again.",
         false, 0, 1 << 30},
    });
