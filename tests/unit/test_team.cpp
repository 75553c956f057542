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

// gex_TM_Split's ordering: members of one color by key, ties by parent rank;
// non-members (null new_tm_p or a negative color) are left out.
TEST(TeamSplit, OrdersByKeyThenParentRank) {
  std::vector<Team::SplitRow> rows = {
      {true, 0, 5}, {true, 1, 0}, {true, 0, 2}, {false, 0, 0}, {true, 0, 2}, {true, 1, -3},
  };
  EXPECT_EQ(Team::split_members(rows, 0), (std::vector<gex_Rank_t>{2, 4, 0}));
  EXPECT_EQ(Team::split_members(rows, 1), (std::vector<gex_Rank_t>{5, 1}));
  EXPECT_TRUE(Team::split_members(rows, 7).empty());
}

TEST(TeamSplit, GridRowsAndColumnsMapBack) {
  // A 3x4 grid of 12 job ranks split into rows (key = column) and columns
  // (key = -row: reversed); each result, as a team, maps ranks both ways.
  const gex_Rank_t n = 12, cols = 4;
  std::vector<Team::SplitRow> by_row(n), by_col(n);
  for (gex_Rank_t j = 0; j < n; ++j) {
    by_row[j] = {true, static_cast<int>(j / cols), static_cast<int>(j % cols)};
    by_col[j] = {true, static_cast<int>(j % cols), -static_cast<int>(j / cols)};
  }
  for (gex_Rank_t j = 0; j < n; ++j) {
    std::vector<gex_Rank_t> row = Team::split_members(by_row, static_cast<int>(j / cols));
    Team t = Team::list(row, j);
    EXPECT_EQ(t.rank(), j % cols);
    expect_round_trip(t, row, n);
    std::vector<gex_Rank_t> col = Team::split_members(by_col, static_cast<int>(j % cols));
    ASSERT_EQ(col.size(), 3u);
    EXPECT_EQ(col.front(), 8 + j % cols);  // the last row first
    Team c = Team::list(col, j);
    EXPECT_EQ(c.rank(), 2 - j / cols);
    expect_round_trip(c, col, n);
  }
}

TEST(TeamSplit, NestedSplitTranslatesThroughTheParent) {
  // The odd job ranks of 9, then the upper half of those by key.
  std::vector<Team::SplitRow> first(9);
  for (gex_Rank_t j = 0; j < 9; ++j) first[j] = {j % 2 == 1, 0, 0};
  std::vector<gex_Rank_t> odd = Team::split_members(first, 0);
  Team parent = Team::list(odd, 5);
  ASSERT_EQ(parent.size(), 4u);
  std::vector<Team::SplitRow> second(parent.size());
  for (gex_Rank_t r = 0; r < parent.size(); ++r)
    second[r] = {true, r >= 2 ? 1 : 0, -static_cast<int>(r)};
  std::vector<gex_Rank_t> upper = Team::split_members(second, 1);  // parent ranks 3, 2
  std::vector<gex_Rank_t> jobs;
  for (gex_Rank_t r : upper) jobs.push_back(parent.to_job(r));
  EXPECT_EQ(jobs, (std::vector<gex_Rank_t>{7, 5}));
  Team child = Team::list(jobs, 5);
  EXPECT_EQ(child.rank(), 1u);
  EXPECT_EQ(child.job_rank("test", 7, GEX_FLAG_RANK_IS_JOBRANK), 7u);
  EXPECT_EQ(child.from_job(1), GEX_RANK_INVALID);
}
