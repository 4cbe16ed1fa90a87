// SPDX-License-Identifier: Apache-2.0
// The adaptive repetitions' bookkeeping: how settled a median is, and how a round's repetitions
// join the earlier ones.
#include "collectors/collectors.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace perfgate::detail {
namespace {

kernel_profile benchmark(const std::string& name, std::vector<double> seconds) {
  kernel_profile k;
  k.name = name;
  k.duration = duration_stats::from_samples(std::move(seconds));
  k.time_s = k.duration->median_s;
  return k;
}

TEST(GbenchRounds, MedianHalfWidthIsTheWiderSideOfItsInterval) {
  // 6 samples: the 95% interval is [x_1, x_6] = [0.9, 1.2] around the median 1.0: the wider
  // side is 0.2, 20% of the median.
  EXPECT_NEAR(median_half_width({1.0, 0.9, 1.2, 1.0, 1.0, 1.0}), 0.2, 1e-12);
  EXPECT_TRUE(std::isinf(median_half_width({1.0, 1.0, 1.0, 1.0, 1.0}))); // no 95% interval
}

TEST(GbenchRounds, ARoundsRepetitionsJoinTheSameBenchmark) {
  profile p;
  p.kernels.push_back(benchmark("BM_a", {1.0, 2.0, 3.0}));
  p.kernels.push_back(benchmark("BM_b", {5.0}));
  p.tool_errors.push_back("Failed to profile \"BM_c\": NaN");
  profile round;
  round.kernels.push_back(benchmark("BM_a", {4.0, 5.0}));
  round.kernels.push_back(benchmark("BM_new", {9.0})); // not asked for: left out
  round.tool_errors.push_back("Failed to profile \"BM_c\": NaN");
  add_repetitions(p, round);
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].duration->samples_s, (std::vector<double>{1.0, 2.0, 3.0, 4.0, 5.0}));
  EXPECT_EQ(*p.kernels[0].time_s, 3.0); // the median of all five
  EXPECT_EQ(p.kernels[1].duration->samples, 1U);
  EXPECT_EQ(p.tool_errors.size(), 1U); // the same error of every round, said once
}

} // namespace
} // namespace perfgate::detail
