// SPDX-License-Identifier: Apache-2.0
// The trip counts of a kernel's loops, which its SASS alone does not say (`perfgate pipeline
// idg`): given as HEAD=N, read from a CSV file, or settled from a profile's executed warp
// instructions.
#pragma once

#include "importers/sass_importer.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace perfgate::detail {

/// "0x01e0=32" -> {0x1e0, 32}: the loop's first offset and how many times its body runs.
/// Throws usage_error (naming --trip-count) for anything else.
[[nodiscard]] std::pair<std::uint32_t, std::uint64_t> parse_trip_count(const std::string& text);

/// A CSV file with the columns head (the loop's first offset, 0x01e0) and trips, into `out`.
/// Throws input_error naming the file and the line.
void read_trip_counts(const std::string& file, std::map<std::uint32_t, std::uint64_t>& out);

/// The loop a profile settled, and from what.
struct profiled_trip_count {
  std::uint32_t head = 0;  ///< the loop's first offset
  std::uint64_t trips = 0; ///< how many times its body runs
  double per_warp = 0;     ///< warp instructions executed per warp in the profile
};

/// The trip count of the one loop of `f` that `trips` leaves out, from the kernel's executed
/// warp instructions (Nsight Compute's inst_executed, CUPTI's) in the profile `file` over its
/// launches' warps; added to `trips`. Throws usage_error (naming --profile) when the profile
/// lacks the kernel, its executed instructions or its launch configuration.
profiled_trip_count trip_count_from_profile(const std::string& file, const sass_function& f,
                                            std::map<std::uint32_t, std::uint64_t>& trips);

} // namespace perfgate::detail
