// SPDX-License-Identifier: Apache-2.0
// Leaving the warm-up launch out of a profiler's profile: the time, the launch count and the
// counter totals then describe the other launches alike.
#include "collectors/collectors.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

kernel_profile launched(std::vector<double> seconds, double bytes_per_launch) {
  kernel_profile k;
  k.name = "saxpy";
  k.invocations = seconds.size();
  k.duration = duration_stats::from_samples(std::move(seconds));
  k.time_s = k.duration->total_s;
  k.counters[std::string(counter::dram_read_bytes)] =
      bytes_per_launch * static_cast<double>(k.invocations);
  return k;
}

TEST(WarmUp, TheFirstLaunchIsLeftOutWithItsShareOfTheCounters) {
  profile p;
  p.kernels.push_back(launched({9e-3, 1e-3, 1.2e-3, 0.8e-3}, 1e6)); // a slow first launch
  EXPECT_EQ(leave_out_first_launch(p), 1U);
  const auto& k = p.kernels[0];
  EXPECT_EQ(k.invocations, 3U);
  EXPECT_DOUBLE_EQ(*k.time_s, 3e-3);
  EXPECT_EQ(k.duration->samples_s, (std::vector<double>{1e-3, 1.2e-3, 0.8e-3}));
  EXPECT_DOUBLE_EQ(k.duration->max_s, 1.2e-3);
  EXPECT_DOUBLE_EQ(*k.counter(counter::dram_read_bytes), 3e6);
}

TEST(WarmUp, OneLaunchOrUntimedLaunchesStayAsTheyAre) {
  profile p;
  p.kernels.push_back(launched({5e-3}, 1e6)); // launched once: nothing else to judge it on
  auto untimed = launched({1e-3, 1e-3}, 1e6);
  untimed.invocations = 10; // counted 10 launches, timed 2: no launch order to go by
  p.kernels.push_back(untimed);
  kernel_profile no_times;
  no_times.name = "no_times";
  no_times.invocations = 4;
  p.kernels.push_back(no_times);
  EXPECT_EQ(leave_out_first_launch(p), 0U);
  EXPECT_EQ(p.kernels[0].invocations, 1U);
  EXPECT_EQ(p.kernels[1].invocations, 10U);
  EXPECT_EQ(p.kernels[2].invocations, 4U);
}

} // namespace
} // namespace perfgate::detail
