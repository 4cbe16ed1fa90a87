// SPDX-License-Identifier: Apache-2.0
// What a verdict against a baseline says about the work, and how a profiler's launches become
// per-sample efficiencies.
#include "gate/efficiency_change.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

TEST(WorkChange, ChangedBeyondOnePercentOfEitherTerm) {
  EXPECT_FALSE(work_changed({1e9, 4e9}, {1.009e9, 3.99e9}));
  EXPECT_TRUE(work_changed({1e9, 3.1e9}, {1e9, 4.278e9}));
  EXPECT_TRUE(work_changed({0, 1e6}, {5e6, 1e6})); // from nothing
}

TEST(EfficiencySamples, EachLaunchAgainstTheRoofOfOneLaunch) {
  // 4 launches of 1, 2, 1 and 4 ms (8 ms in all) at efficiency 0.5: the roof of one launch is
  // 0.5 x 2 ms = 1 ms, so the samples' efficiencies are 1, 0.5, 1 and 0.25.
  kernel_report k;
  k.invocations = 4;
  measurement m;
  m.time_s = 8e-3;
  m.stats = duration_stats::from_samples({1e-3, 2e-3, 1e-3, 4e-3});
  k.measured = m;
  EXPECT_EQ(efficiency_samples(k, 0.5), (std::vector<double>{1.0, 0.5, 1.0, 0.25}));
  k.measured->stats->samples_s.clear();
  EXPECT_TRUE(efficiency_samples(k, 0.5).empty());
}

TEST(CompareABClocks, WarnsBeyondTwoPercentNotesOtherwise) {
  // An H200 under its power cap: the head's runs at 1710 MHz, the base's at 1980 (13.6% apart).
  const auto apart = compare_ab_clocks({1980, 1975, 1985}, {1710, 1700, 1720});
  ASSERT_EQ(apart.warnings.size(), 1U);
  EXPECT_EQ(apart.warnings[0].code, "ab_clocks_differ");
  EXPECT_EQ(apart.warnings[0].numbers.at("mhz"), 1710);
  EXPECT_EQ(apart.warnings[0].numbers.at("base_mhz"), 1980);
  // The run counts its sentence names ("medians of 3 and 3 runs").
  EXPECT_EQ(apart.warnings[0].context.figures.at("runs"), 3);
  EXPECT_EQ(apart.warnings[0].context.figures.at("base_runs"), 3);
  EXPECT_TRUE(apart.notes.empty());
  EXPECT_TRUE(apart.failures.empty());
  // 1.5% apart: equal enough.
  const auto close = compare_ab_clocks({1980, 1980}, {1950, 1951});
  EXPECT_TRUE(close.warnings.empty());
  ASSERT_EQ(close.notes.size(), 1U);
  EXPECT_EQ(close.notes[0].code, "ab_clocks_equal");
  EXPECT_EQ(close.notes[0].context.figures.at("clock_tolerance"), clock_tolerance);
  // A CPU benchmark, or one side without clocks: nothing to compare.
  const auto none = compare_ab_clocks({}, {1700});
  EXPECT_TRUE(none.warnings.empty() && none.notes.empty());
}

TEST(JudgeInterleaved, FailsOnlyASlowdownBeyondTheAllowance) {
  // Run times 1.3x the base's in every round: SLOWER beyond a 10% drop; within a 25% one, SAME.
  const std::vector<double> base(6, 1.0), head(6, 1.3);
  finding_context said;
  said.words = {{"device", "gpu"}, {"base", "base"}};
  const auto slower = judge_interleaved(base, head, 0.25, 0.19, 0.10, 0.95, said);
  ASSERT_EQ(slower.failures.size(), 1U);
  EXPECT_EQ(slower.failures[0].code, "slower_than_base");
  EXPECT_DOUBLE_EQ(slower.failures[0].numbers.at("time_ratio"), 1.3);
  EXPECT_EQ(slower.failures[0].numbers.at("rounds"), 6);
  EXPECT_EQ(slower.ab->kind, stats::change::slower);
  // The finding carries what its sentence names: the device, the base, MAX_EFFICIENCY_DROP.
  EXPECT_EQ(slower.failures[0].context.words.at("device"), "gpu");
  EXPECT_EQ(slower.failures[0].context.figures.at("max_efficiency_drop"), 0.10);
  const auto same = judge_interleaved(base, head, 0.25, 0.19, 0.25, 0.95, said);
  EXPECT_TRUE(same.failures.empty() && same.warnings.empty());
  EXPECT_EQ(same.ab->kind, stats::change::same);
}

} // namespace
} // namespace perfgate::detail
