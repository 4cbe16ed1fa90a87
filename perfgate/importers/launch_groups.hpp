// SPDX-License-Identifier: Apache-2.0
// A kernel's launches grouped so that work and time always come from the same launches: one
// kernel name launched at several sizes (a grid per problem size, or one grid-stride grid over
// different element counts) is several kernels to judge. A launch's group is its configuration
// (grid, block, dynamic shared memory) and its work (warp instructions executed, within 2%).
// The CUPTI collector groups by both; the ncu importer, whose rows are launches, by the
// configuration (its suffixes, for the same names in both).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace perfgate::detail {

struct launch_shape {
  std::array<std::uint64_t, 3> grid{1, 1, 1};
  std::array<std::uint64_t, 3> block{1, 1, 1};
  std::uint64_t shared_bytes = 0; ///< dynamic shared memory
  friend bool operator==(const launch_shape&, const launch_shape&) = default;
};

struct launch_group {
  launch_shape shape;
  double work = 0;                   ///< the first launch's work signature
  std::vector<std::size_t> launches; ///< indices in launch order
  /// " [grid 1024x1x1 block 256x1x1]", with " shared 4096 B" when the launch asks for dynamic
  /// shared memory and " #2" for the second group of one shape (another size of work).
  std::string suffix;
};

/// Work signatures within this relative distance are the same work: a data-dependent kernel
/// (a sort, a search) varies a little between launches of one size, two sizes by far more.
inline constexpr double same_work_tolerance = 0.02;

/// The groups of launches `shapes[i]` with work `work[i]` (same length, launch order), in the
/// order their first launch was made. `work` may be all zero (no counter): shapes alone.
[[nodiscard]] std::vector<launch_group> group_launches(const std::vector<launch_shape>& shapes,
                                                       const std::vector<double>& work);

} // namespace perfgate::detail
