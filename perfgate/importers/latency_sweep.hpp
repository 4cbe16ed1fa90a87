// SPDX-License-Identifier: Apache-2.0
// A latency sweep of dependent chains (CSV, `perfgate pipeline fit`, `perfgate calibrate`) read
// and fitted: lambda and Lambda per instruction class, as perfgate-latencies/1 (MODEL.md
// section 5).
#pragma once

#include <cstdint>
#include <string>

namespace perfgate::detail {

/// A sweep to fit: CSV with the columns op, warps_per_sm, n_dependent, cycles_max (and pipe,
/// sm_clock_attr_khz where the micro-benchmark wrote them).
struct latency_fit_request {
  std::string csv_text;
  std::string file; ///< named in errors and in each op's provenance
  std::string device;
  std::uint64_t n = 0; ///< the chain length when the CSV has no n_dependent column
  int warp_size = 32;
};

struct latency_sweep_fit {
  std::string json;  ///< perfgate-latencies/1
  std::string table; ///< each op's fit, for a terminal
};

/// Fits every op of the sweep. Throws input_error naming the file and the line, usage_error
/// when the sweep has no n_dependent column and `n` is 0.
[[nodiscard]] latency_sweep_fit fit_latency_sweep(const latency_fit_request& request);

} // namespace perfgate::detail
