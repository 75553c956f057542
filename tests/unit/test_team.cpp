// core::Team: rank maps and translation for the three shapes.
#include <gtest/gtest.h>

#include <vector>

#include "core/team.hpp"

using gexx::core::Team;

namespace {

// Every team rank maps to its job rank and back; job ranks outside map to
// GEX_RANK_INVALID.
void expect_round_trip(const Team &t, const std::vector<gex_Rank_t> &members, gex_Rank_t job) {
  ASSERT_EQ(t.size(), members.size());
  std::vector<gex_Rank_t> team_of(job, GEX_RANK_INVALID);
  for (gex_Rank_t r = 0; r < t.size(); ++r) {
    EXPECT_EQ(t.to_job(r), members[r]) << "team rank " << r;
    EXPECT_EQ(t.job_rank("test", r, 0), members[r]);
    EXPECT_EQ(t.job_rank("test", members[r], GEX_FLAG_RANK_IS_JOBRANK), members[r]);
    team_of[members[r]] = r;
  }
  for (gex_Rank_t j = 0; j < job; ++j) EXPECT_EQ(t.from_job(j), team_of[j]) << "job rank " << j;
  EXPECT_EQ(t.from_job(job + 7), GEX_RANK_INVALID);
}

}  // namespace

TEST(Team, IdentityIsTheJob) {
  Team t = Team::identity(5, 3);
  EXPECT_EQ(t.shape(), Team::Shape::Identity);
  EXPECT_EQ(t.rank(), 3u);
  expect_round_trip(t, {0, 1, 2, 3, 4}, 5);
  EXPECT_FALSE(t.contains(5));
}

TEST(Team, StridedMapsEveryOtherRank) {
  Team t = Team::strided(1, 2, 4, 5);  // job ranks 1 3 5 7 of 9
  EXPECT_EQ(t.shape(), Team::Shape::Strided);
  EXPECT_EQ(t.rank(), 2u);
  expect_round_trip(t, {1, 3, 5, 7}, 9);
  EXPECT_EQ(Team::strided(1, 2, 4, 4).rank(), GEX_RANK_INVALID);  // not a member
}

TEST(Team, ArbitraryListKeepsTeamOrder) {
  std::vector<gex_Rank_t> members{6, 0, 4, 9, 2};
  Team t = Team::list(members, 9);
  EXPECT_EQ(t.shape(), Team::Shape::List);
  EXPECT_EQ(t.rank(), 3u);
  expect_round_trip(t, members, 10);
  EXPECT_EQ(Team::list(members, 1).rank(), GEX_RANK_INVALID);
}

TEST(Team, SingletonAndEmpty) {
  Team one = Team::list({4}, 4);
  EXPECT_EQ(one.rank(), 0u);
  expect_round_trip(one, {4}, 5);
  Team none = Team::list({}, 0);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.rank(), GEX_RANK_INVALID);
  EXPECT_EQ(none.from_job(0), GEX_RANK_INVALID);
}

TEST(TeamDeathTest, RankOutsideTheTeamIsFatal) {
  Team t = Team::strided(0, 3, 3, 0);
  EXPECT_DEATH(t.job_rank("gex_RMA_PutBlocking", 3, 0),
               "gex_RMA_PutBlocking: rank 3 is not in this team of 3");
  EXPECT_DEATH(t.job_rank("gex_RMA_PutBlocking", 4, GEX_FLAG_RANK_IS_JOBRANK),
               "gex_RMA_PutBlocking: job rank 4 \\(GEX_FLAG_RANK_IS_JOBRANK\\) is not a member");
}

TEST(TeamDeathTest, DuplicateMemberIsFatal) {
  EXPECT_DEATH(Team::list({1, 2, 1}, 1), "names job rank 1 twice");
}
