#include "transport/pshm/routes.hpp"

#include <algorithm>

#include "transport/pshm/router.hpp"
#include "util/log.hpp"

namespace gexx::transport::pshm {

Routes Routes::compute(uint32_t job_size, const std::vector<uint32_t> &host_ranks, uint32_t me,
                       uint64_t supernode_max) {
  auto at = std::find(host_ranks.begin(), host_ranks.end(), me);
  if (at == host_ranks.end())
    util::fatal("internal error: rank %u is not among the ranks of its own host", me);
  const size_t mine = static_cast<size_t>(at - host_ranks.begin());
  const size_t group = supernode_max > 0 && supernode_max < host_ranks.size()
                           ? static_cast<size_t>(supernode_max)
                           : host_ranks.size();
  Routes r;
  r.network.assign(job_size, 1);
  for (size_t i = 0; i < host_ranks.size(); ++i)
    r.network[host_ranks[i]] = i / group != mine / group;
  r.locality.host_first = host_ranks[0];
  r.locality.nbrhd_first = host_ranks[mine / group * group];
  r.any_network = std::find(r.network.begin(), r.network.end(), 1) != r.network.end();
  return r;
}

void no_network(const char *conduit, uint32_t peer) {
  util::fatal(
      "internal error: RMA toward rank %u through the %s conduit, which maps every peer's "
      "segment in this job",
      peer, conduit);
}

}  // namespace gexx::transport::pshm
