// SPDX-License-Identifier: Apache-2.0
// Test helper: a profile of one compute-bound fp32 kernel (declared 1e12 flops over 1e9 B, O_krn
// 1000 flop/B) measured at 25 ms with the SM at `clock_mhz`, held down for `limits` (NVML's
// throttle reasons): what the clock-scaling tests of the report and the gate start from.
#pragma once

#include <perfgate/profile.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfgate::test {

inline profile clocked_kernel(std::optional<double> clock_mhz, std::vector<std::string> limits) {
  profile p;
  p.format = profile_format::perfgate_json;
  p.source_file = "clocked.json";
  kernel_profile k;
  k.name = "gemm_like";
  k.work = declared_work{1e12, 0, 0, 1e9};
  k.time_s = 25e-3;
  k.sm_clock_mhz = clock_mhz;
  k.clock_limits = std::move(limits);
  p.kernels.push_back(k);
  return p;
}

} // namespace perfgate::test
