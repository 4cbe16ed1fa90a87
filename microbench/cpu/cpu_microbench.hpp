// SPDX-License-Identifier: Apache-2.0
// CPU peak-rate micro-benchmarks for `perfgate calibrate --backend cpu`: FMA and add peaks for
// fp32, fp64 and 32-bit integers in the widest vector ISA the CPU has (chosen at run time),
// load/store throughput from L1, DRAM read, write, copy and triad bandwidth, and random 4-byte
// gather and scatter bandwidth, each on one core and on every allowed core with threads pinned.
#pragma once

#include <perfgate/calibration.hpp>

#include "cpu_kernels.hpp"
#include "rate_check.hpp"

#include <functional>
#include <optional>
#include <string>

namespace perfgate::microbench {

struct cpu_options {
  bool quick = false; ///< tiny sizes and few repetitions: a smoke run, not a measurement
  /// One line per benchmark, and one before them where the cache sizes are not sysfs's.
  std::function<void(const std::string&)> progress;
};

/// Runs every CPU benchmark (about 20-30 s on a 2-core machine; `quick`: well under 1 s).
[[nodiscard]] microbench_run run_cpu_microbench(const cpu_options& options);

} // namespace perfgate::microbench
