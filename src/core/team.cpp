#include "core/team.hpp"

#include <algorithm>

#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::core {

Team Team::identity(gex_Rank_t size, gex_Rank_t me) {
  Team t;
  t.shape_ = Shape::Identity;
  t.size_ = size;
  t.rank_ = me < size ? me : GEX_RANK_INVALID;
  return t;
}

Team Team::strided(gex_Rank_t first, gex_Rank_t stride, gex_Rank_t size, gex_Rank_t me) {
  if (stride == 0 && size > 1)
    util::fatal("a strided team of %u ranks needs a stride of 1 or more", size);
  Team t;
  t.shape_ = Shape::Strided;
  t.first_ = first;
  t.stride_ = stride;
  t.size_ = size;
  t.find_me(me);
  return t;
}

Team Team::list(std::vector<gex_Rank_t> members, gex_Rank_t me) {
  Team t;
  t.shape_ = Shape::List;
  t.size_ = static_cast<gex_Rank_t>(members.size());
  t.by_job_.reserve(members.size());
  for (gex_Rank_t r = 0; r < t.size_; ++r) t.by_job_.emplace_back(members[r], r);
  std::sort(t.by_job_.begin(), t.by_job_.end());
  for (size_t i = 1; i < t.by_job_.size(); ++i) {
    if (t.by_job_[i].first == t.by_job_[i - 1].first) {
      util::fatal("a team's member list names job rank %u twice (team ranks %u and %u)",
                  t.by_job_[i].first, t.by_job_[i - 1].second, t.by_job_[i].second);
    }
  }
  t.members_ = std::move(members);
  t.find_me(me);
  return t;
}

void Team::find_me(gex_Rank_t me) {
  rank_ = from_job(me);
}

gex_Rank_t Team::from_job(gex_Rank_t j) const {
  switch (shape_) {
    case Shape::Identity:
      return j < size_ ? j : GEX_RANK_INVALID;
    case Shape::Strided: {
      if (j < first_) return GEX_RANK_INVALID;
      gex_Rank_t off = j - first_;
      if (stride_ == 0) return off == 0 && size_ > 0 ? 0 : GEX_RANK_INVALID;
      if (off % stride_ != 0) return GEX_RANK_INVALID;
      gex_Rank_t r = off / stride_;
      return r < size_ ? r : GEX_RANK_INVALID;
    }
    case Shape::List: {
      auto it = std::lower_bound(by_job_.begin(), by_job_.end(), std::make_pair(j, gex_Rank_t{0}));
      return it != by_job_.end() && it->first == j ? it->second : GEX_RANK_INVALID;
    }
  }
  return GEX_RANK_INVALID;
}

std::vector<gex_Rank_t> Team::split_members(const std::vector<SplitRow> &rows, int color) {
  std::vector<std::pair<int, gex_Rank_t>> order;  // (key, parent rank)
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].member && rows[r].color == color)
      order.emplace_back(rows[r].key, static_cast<gex_Rank_t>(r));
  }
  std::sort(order.begin(), order.end());
  std::vector<gex_Rank_t> out;
  out.reserve(order.size());
  for (const auto &o : order) out.push_back(o.second);
  return out;
}

std::string Team::describe() const {
  switch (shape_) {
    case Shape::Identity:
      return util::format("the job (%u ranks)", size_);
    case Shape::Strided:
      return util::format("%u ranks from job rank %u by %u", size_, first_, stride_);
    case Shape::List:
      return util::format("%u listed ranks", size_);
  }
  return "?";
}

void Team::bad_rank(const char *api, gex_Rank_t r) const {
  util::fatal("%s: rank %u is not in this team of %u", api, r, size_);
}

void Team::bad_jobrank(const char *api, gex_Rank_t j) const {
  util::fatal("%s: job rank %u (GEX_FLAG_RANK_IS_JOBRANK) is not a member of this team (%s)", api,
              j, describe().c_str());
}

}  // namespace gexx::core
