// SPDX-License-Identifier: Apache-2.0
// CPU peak-rate micro-benchmarks for `perfgate calibrate --backend cpu`: FMA and add peaks for
// fp32, fp64 and 32-bit integers in the widest vector ISA the CPU has (chosen at run time),
// load/store throughput from L1, DRAM read, write, copy and triad bandwidth, and random 4-byte
// gather and scatter bandwidth, each on one core and on every allowed core with threads pinned.
#pragma once

#include <perfgate/calibration.hpp>

#include "cpu_kernels.hpp"

#include <functional>
#include <optional>
#include <string>

namespace perfgate::microbench {

struct cpu_options {
  bool quick = false; ///< tiny sizes and few repetitions: a smoke run, not a measurement
  std::function<void(const std::string&)> progress; ///< one line per benchmark, when set
};

/// No x86-64 or Arm core issues more than 4 vector operations a cycle (Zen 4 and 5: 4 vector ALU
/// pipes, 2 of them FMA; Intel: 3 at most): a rate above that at the measured clock is a broken
/// measurement (a folded loop, a wrong count), not a peak.
inline constexpr double max_vector_ops_per_cycle = 4;

/// Why a compute rate (1e9 counted ops/s on one core) of variant `v` cannot be, at `clock_mhz`:
/// more vector operations a cycle than any core issues. Empty when physics allows it.
[[nodiscard]] std::optional<std::string> implausible_rate(double per_core_rate,
                                                          const compute_variant& v,
                                                          compute_kind kind, double clock_mhz);

/// Runs every CPU benchmark (about 20-30 s on a 2-core machine; `quick`: well under 1 s).
[[nodiscard]] microbench_run run_cpu_microbench(const cpu_options& options);

} // namespace perfgate::microbench
