// SPDX-License-Identifier: Apache-2.0
/// \file
/// Change points in a kernel's history: where its level shifted, found by binary segmentation
/// with a permutation test (docs/statistics.md, "History"). Distribution-free like the rest of
/// stats: the split statistic is a rank statistic, its significance the share of random
/// reorderings of the same points that split at least as well, from a fixed seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace perfgate::stats {

struct change_point {
  std::size_t index = 0; ///< the first point of the new level
  /// median of the points from `index` to the next change point over the median of those from
  /// the previous change point to `index`: for times, 1.05 is 5% slower
  double ratio = 1;
  double p_value = 1; ///< the permutation test's, for this split within its segment
};

struct change_point_options {
  double significance = 0.05; ///< a split is kept when its p value is at most this
  /// A significant shift smaller than this (relative) is not reported (still split at): a
  /// 0.3% step over 200 points can be real and still not worth an alert.
  double min_shift = 0.02;
  std::size_t min_segment = 3; ///< points on either side of a split, at least
  int permutations = 999;
  std::uint64_t seed = 0x5eedULL;
};

/// The change points of `series` (in time order), in index order. Binary segmentation: in a
/// segment, the split with the largest standardized Mann-Whitney statistic between its two
/// sides; kept when random permutations of the segment reach that statistic at most a
/// `significance` share of the time; then both sides the same way. Throws
/// std::invalid_argument for a non-finite point, min_segment 0 or fewer than 99 permutations.
[[nodiscard]] std::vector<change_point> find_change_points(std::span<const double> series,
                                                           const change_point_options& options = {});

} // namespace perfgate::stats
