// A team: an ordered set of job ranks. Team rank r is job rank member(r);
// every entry point that takes a gex_TM_t translates its rank argument
// through the team before anything below core sees it (the layers below
// speak job ranks only).
//
// Three shapes, so the common ones cost no table: the identity (the job
// team), a strided run (first + r * stride) and an arbitrary member list
// (with a sorted reverse index for job rank -> team rank).
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gexx::core {

class Team {
 public:
  enum class Shape : uint8_t { Identity, Strided, List };

  Team() = default;
  // The job of `size` ranks, seen from job rank `me`.
  static Team identity(gex_Rank_t size, gex_Rank_t me);
  // Job ranks first, first + stride, ... (`size` of them); `me` is a job rank.
  static Team strided(gex_Rank_t first, gex_Rank_t stride, gex_Rank_t size, gex_Rank_t me);
  // Job ranks in team order; they must be distinct. `me` is a job rank.
  static Team list(std::vector<gex_Rank_t> members, gex_Rank_t me);

  Shape shape() const { return shape_; }
  gex_Rank_t size() const { return size_; }
  // This process's rank in the team (GEX_RANK_INVALID when not a member).
  gex_Rank_t rank() const { return rank_; }

  // Job rank of team rank `r` (< size(): callers check with contains()).
  gex_Rank_t to_job(gex_Rank_t r) const {
    if (shape_ == Shape::Identity) [[likely]]
      return r;
    if (shape_ == Shape::Strided) return first_ + r * stride_;
    return members_[r];
  }
  // Team rank of job rank `j`, or GEX_RANK_INVALID if `j` is not a member.
  gex_Rank_t from_job(gex_Rank_t j) const;
  bool contains(gex_Rank_t r) const { return r < size_; }

  // The rank argument of an entry point: a team rank, or a job rank when
  // `flags` has GEX_FLAG_RANK_IS_JOBRANK. Fatal (naming `api`) when it names
  // no member; inline: it is on every put, get and AM.
  gex_Rank_t job_rank(const char *api, gex_Rank_t r, gex_Flags_t flags) const {
    if (!(flags & GEX_FLAG_RANK_IS_JOBRANK)) [[likely]] {
      if (r < size_) [[likely]]
        return to_job(r);
      bad_rank(api, r);
    }
    if (shape_ == Shape::Identity ? r < size_ : from_job(r) != GEX_RANK_INVALID) return r;
    bad_jobrank(api, r);
  }

  std::string describe() const;

  // gex_TM_Split's rule: what each parent rank said in the split exchange,
  // and the parent ranks that form the team of `color`, ordered by key,
  // then by parent rank.
  struct SplitRow {
    bool member;  // a non-null new_tm_p and a color >= 0
    int color, key;
  };
  static std::vector<gex_Rank_t> split_members(const std::vector<SplitRow> &rows, int color);

  // For the collectives (coll/engine.hpp): an id that is the same on every
  // member and differs from every other team any member belongs to, and the
  // sequence number of this rank's next collective on the team (members
  // call a team's collectives in the same order, so the numbers agree).
  static constexpr uint64_t kJobTeamId = ~uint64_t{0};
  uint64_t coll_id = kJobTeamId;
  uint32_t coll_seq = 0;
  // The collectives' shared-memory area (coll/host_area.hpp), looked up at
  // the team's first collective: kHostUnknown until then; kHostArea when
  // every member shares this host's area and the team has one (host_base);
  // kHostNoArea when it would but every area was taken; kHostNone when some
  // member is elsewhere (the AM algorithms serve).
  enum HostMode : uint8_t { kHostUnknown, kHostArea, kHostNoArea, kHostNone };
  HostMode host_mode = kHostUnknown;
  char *host_base = nullptr;
  // The scratch space the team was created with (handed back by gex_TM_Destroy).
  void *scratch_addr = nullptr;
  size_t scratch_size = 0;

 private:
  [[noreturn]] void bad_rank(const char *api, gex_Rank_t r) const;
  [[noreturn]] void bad_jobrank(const char *api, gex_Rank_t j) const;
  void find_me(gex_Rank_t me);

  Shape shape_ = Shape::Identity;
  gex_Rank_t size_ = 0;
  gex_Rank_t rank_ = GEX_RANK_INVALID;
  gex_Rank_t first_ = 0, stride_ = 1;
  std::vector<gex_Rank_t> members_;                        // List: team order
  std::vector<std::pair<gex_Rank_t, gex_Rank_t>> by_job_;  // List: (job, team) sorted
};

}  // namespace gexx::core
