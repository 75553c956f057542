// Which transport reaches each peer of a network conduit: the ranks of this
// host that share memory with us (our neighbourhood, or supernode) through
// the smp transport, every other peer through the network. Pure logic, so
// that it can be tested without a job.
#pragma once

#include <cstdint>
#include <vector>

#include "transport/transport.hpp"

namespace gexx::transport::pshm {

struct Routes {
  std::vector<uint8_t> network;  // by job rank: 1 when reached through the network
  Transport::Locality locality;
  bool any_network = false;  // some peer is reached through the network

  // `host_ranks`: the job ranks of this host, in order (bootstrap's
  // host_ranks()); `me` one of them. The host's ranks form consecutive
  // groups of at most `supernode_max` (0: one group, the whole host); our
  // group shares memory, every other rank goes through the network. Every
  // rank computes the same any_network when the knob agrees across the job.
  static Routes compute(uint32_t job_size, const std::vector<uint32_t> &host_ranks, uint32_t me,
                        uint64_t supernode_max);
  bool through_network(uint32_t peer) const { return network[peer] != 0; }
};

}  // namespace gexx::transport::pshm
