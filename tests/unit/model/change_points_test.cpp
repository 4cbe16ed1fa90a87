// SPDX-License-Identifier: Apache-2.0
// Change points in a kernel's history: exact cases, and planted steps in series drawn with the
// noise measured on the 2-core development VM (fixed seeds: every count below is deterministic).
#include <perfgate/change_points.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace perfgate::stats {
namespace {

TEST(ChangePoints, OneCleanStep) {
  std::vector<double> series;
  for (int i = 0; i < 20; ++i) {
    series.push_back((i < 12 ? 1.0 : 1.1) * (1 + 0.001 * (i % 3)));
  }
  const auto found = find_change_points(series);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].index, 12U);
  EXPECT_NEAR(found[0].ratio, 1.1, 0.002);
  EXPECT_LE(found[0].p_value, 0.01);
}

TEST(ChangePoints, TwoStepsAndTheShiftBackEachAgainstItsNeighbours) {
  std::vector<double> series;
  for (int i = 0; i < 30; ++i) {
    const double level = i < 10 ? 1.0 : i < 20 ? 1.2 : 1.0;
    series.push_back(level * (1 + 0.002 * (i % 4)));
  }
  const auto found = find_change_points(series);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].index, 10U);
  EXPECT_NEAR(found[0].ratio, 1.2, 0.005);
  EXPECT_EQ(found[1].index, 20U);
  EXPECT_NEAR(found[1].ratio, 1 / 1.2, 0.005);
}

TEST(ChangePoints, ASignificantShiftBelowMinShiftIsNotReported) {
  std::vector<double> series;
  for (int i = 0; i < 20; ++i) {
    series.push_back((i < 10 ? 1.0 : 1.01) + 0.0001 * (i % 2));
  }
  EXPECT_TRUE(find_change_points(series).empty()); // 1% < the default 2%
  change_point_options o;
  o.min_shift = 0.005;
  EXPECT_EQ(find_change_points(series, o).size(), 1U);
}

TEST(ChangePoints, RefusesNonFinitePointsAndTooFewPermutations) {
  const std::vector<double> bad = {1, 2, NAN, 4};
  EXPECT_THROW((void)find_change_points(bad), std::invalid_argument);
  change_point_options o;
  o.permutations = 10;
  EXPECT_THROW((void)find_change_points(std::vector<double>{1, 2, 3}, o), std::invalid_argument);
  EXPECT_TRUE(find_change_points(std::vector<double>{1, 2}).empty()); // too short to split
}

// BM_triad's run medians (ms, 5 repetitions each) of twenty runs in a row on the development VM
// (AMD EPYC, 2 cores, 2026-11-26): 7.4% log spread, seven within 1.3% of the fastest.
constexpr std::array<double, 20> vm_run_medians = {
    16.368, 14.518, 15.908, 14.508, 15.695, 14.476, 15.283, 17.267, 19.138, 14.44,
    15.458, 14.377, 15.246, 14.39,  16.214, 14.571, 15.837, 16.444, 14.953, 16.43};

// One commit's point as `perfgate history` makes it: the floor (fastest run median) of `runs`
// runs, each drawn from the measured medians with a 0.3% jitter.
double commit_point(std::mt19937_64& rng, int runs, double level) {
  double floor = INFINITY;
  for (int r = 0; r < runs; ++r) {
    const double jitter = 1 + 0.003 * (static_cast<double>(rng() % 2001) / 1000 - 1);
    floor = std::min(floor, level * jitter * vm_run_medians[rng() % vm_run_medians.size()]);
  }
  return floor;
}

struct located {
  int within_one = 0; ///< series with a change point (slower) within one commit of the step
  int spurious = 0;   ///< change points further than one commit from the planted step
};

// Ten 30-commit series with a step of `step` planted at a commit between 8 and 22 (1.0: none,
// every change point then spurious).
located planted(double step, int runs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  located out;
  for (int s = 0; s < 10; ++s) {
    const auto at = static_cast<std::size_t>(8 + rng() % 15);
    std::vector<double> series;
    for (std::size_t c = 0; c < 30; ++c) {
      series.push_back(commit_point(rng, runs, c < at ? 1.0 : step));
    }
    bool found = false;
    for (const auto& cp : find_change_points(series)) {
      const auto distance = cp.index > at ? cp.index - at : at - cp.index;
      if (distance <= 1 && cp.ratio > 1) {
        found = true;
      } else {
        ++out.spurious;
      }
    }
    out.within_one += found ? 1 : 0;
  }
  return out;
}

// Issue 34's target: a 5% step located within one commit in 9 of 10 series, and no change
// point in 10 unchanged ones, with this VM's noise. A commit's point is the floor of 8 runs:
// with 5, 11% of the points miss the floor by 4-30% (0.65^5 of all runs missing it), and 7 or
// 8 steps of 10 are located (scripts/bench-history.py measures the table).
TEST(ChangePoints, AFivePercentStepIsLocatedWithinOneCommitWithEightRunsACommit) {
  EXPECT_GE(planted(1.05, 8, 2026).within_one, 9);
}

TEST(ChangePoints, NoChangePointInUnchangedSeries) {
  EXPECT_EQ(planted(1.0, 8, 2027).spurious, 0);
  EXPECT_EQ(planted(1.0, 8, 2028).spurious, 0);
}

} // namespace
} // namespace perfgate::stats
