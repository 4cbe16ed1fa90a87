// SPDX-License-Identifier: Apache-2.0
// Grouping a kernel's launches by configuration and work (importers/launch_groups.hpp).
#include "importers/launch_groups.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace perfgate::detail {
namespace {

launch_shape shape(std::uint64_t grid, std::uint64_t shared = 0) {
  launch_shape s;
  s.grid = {grid, 1, 1};
  s.block = {128, 1, 1};
  s.shared_bytes = shared;
  return s;
}

TEST(LaunchGroups, ConfigurationAndWorkMakeAGroupInTheOrderFirstLaunched) {
  const auto g = group_launches({shape(64), shape(8, 4096), shape(64), shape(64), shape(8, 4096)},
                                {1000, 50, 1010, 2000, 50});
  ASSERT_EQ(g.size(), 3U);
  EXPECT_EQ(g[0].launches, (std::vector<std::size_t>{0, 2})); // 1% apart: the same work
  EXPECT_EQ(g[0].suffix, " [grid 64x1x1 block 128x1x1]");
  EXPECT_EQ(g[1].launches, (std::vector<std::size_t>{1, 4}));
  EXPECT_EQ(g[1].suffix, " [grid 8x1x1 block 128x1x1 shared 4096 B]");
  EXPECT_EQ(g[2].launches, (std::vector<std::size_t>{3})); // twice the work on the same grid
  EXPECT_EQ(g[2].suffix, " [grid 64x1x1 block 128x1x1 #2]");
}

TEST(LaunchGroups, WithoutWorkTheConfigurationAlone) {
  const auto g = group_launches({shape(64), shape(64), shape(32)}, {0, 0, 0});
  ASSERT_EQ(g.size(), 2U);
  EXPECT_EQ(g[0].launches.size(), 2U);
  EXPECT_THROW((void)group_launches({shape(1)}, {}), std::logic_error);
}

} // namespace
} // namespace perfgate::detail
