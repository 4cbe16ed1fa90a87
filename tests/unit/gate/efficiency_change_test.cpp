// SPDX-License-Identifier: Apache-2.0
// What a verdict against a baseline says about the work, and how a profiler's launches become
// per-sample efficiencies.
#include "gate/efficiency_change.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

TEST(WorkChange, SameWorkWithinOnePercent) {
  EXPECT_FALSE(work_changed({1e9, 4e9}, {1.009e9, 3.99e9}));
  EXPECT_EQ(work_change_text({1e9, 4e9}, {1.009e9, 3.99e9}),
            "same work (W_comp and W_traf within 1%)");
}

TEST(WorkChange, NamesEachChangedTermWithBothValues) {
  EXPECT_TRUE(work_changed({1e9, 3.1e9}, {1e9, 4.278e9}));
  EXPECT_EQ(work_change_text({1e9, 3.1e9}, {1e9, 4.278e9}), "W_traf +38.0% (3.100 GB -> 4.278 GB)");
  EXPECT_EQ(work_change_text({2e9, 3.1e9}, {1e9, 1.55e9}),
            "W_comp -50.0% (2.000 Gop -> 1.000 Gop), W_traf -50.0% (3.100 GB -> 1.550 GB)");
  // From nothing: no percentage to give.
  EXPECT_EQ(work_change_text({0, 1e6}, {5e6, 1e6}), "W_comp (0 op -> 5.000 Mop)");
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
  k.measured->stats.samples_s.clear();
  EXPECT_TRUE(efficiency_samples(k, 0.5).empty());
}

} // namespace
} // namespace perfgate::detail
