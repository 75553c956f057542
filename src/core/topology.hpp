// Where the ranks of the job are: hosts and shared-memory neighbourhoods,
// numbered in the order of their lowest job rank.
#pragma once

#include <gasnetex.h>

#include <cstdint>
#include <vector>

#include "transport/transport.hpp"

namespace gexx::core {

class Topology {
 public:
  // From every rank's locality (gathered by the caller, in one start-up
  // exchange with what else the ranks tell each other); `me` is this rank.
  Topology(uint32_t me, const std::vector<transport::Transport::Locality> &all);

  uint32_t host_of(uint32_t rank) const { return host_id_[rank]; }
  uint32_t nbrhd_of(uint32_t rank) const { return nbrhd_id_[rank]; }
  uint32_t hosts() const { return hosts_; }
  uint32_t nbrhds() const { return nbrhds_; }

  // The members of this rank's neighbourhood or host, by job rank, and this
  // rank's index among them.
  struct Set {
    std::vector<gex_Rank_t> ranks;
    gex_Rank_t mine = 0;
  };
  const Set &my_nbrhd() const { return nbrhd_; }
  const Set &my_host() const { return host_; }

 private:
  std::vector<uint32_t> host_id_, nbrhd_id_;
  uint32_t hosts_ = 0, nbrhds_ = 0;
  Set nbrhd_, host_;
};

}  // namespace gexx::core
