#include "core/topology.hpp"

#include <map>

namespace gexx::core {

namespace {
// Numbers groups named by their first rank, in the order of that rank.
uint32_t number(const std::vector<uint32_t> &first, std::vector<uint32_t> &id) {
  std::map<uint32_t, uint32_t> index;
  for (uint32_t f : first) index.emplace(f, 0);
  uint32_t next = 0;
  for (auto &[f, i] : index) i = next++;
  id.resize(first.size());
  for (size_t r = 0; r < first.size(); ++r) id[r] = index[first[r]];
  return next;
}

Topology::Set members(const std::vector<uint32_t> &id, uint32_t me) {
  Topology::Set s;
  for (uint32_t r = 0; r < id.size(); ++r) {
    if (id[r] != id[me]) continue;
    if (r == me) s.mine = static_cast<gex_Rank_t>(s.ranks.size());
    s.ranks.push_back(r);
  }
  return s;
}
}  // namespace

Topology::Topology(uint32_t me, const std::vector<transport::Transport::Locality> &all) {
  std::vector<uint32_t> host_first, nbrhd_first;
  for (const auto &l : all) {
    host_first.push_back(l.host_first);
    nbrhd_first.push_back(l.nbrhd_first);
  }
  hosts_ = number(host_first, host_id_);
  nbrhds_ = number(nbrhd_first, nbrhd_id_);
  host_ = members(host_id_, me);
  nbrhd_ = members(nbrhd_id_, me);
}

}  // namespace gexx::core
