// SPDX-License-Identifier: Apache-2.0
// What the CPU micro-benchmarks need to know about the machine, read from Linux.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::microbench {

struct cpu_facts {
  std::string model;         ///< "AMD EPYC 9B14" (/proc/cpuinfo "model name")
  std::string vendor;        ///< "amd", "intel", "arm"
  std::vector<int> cpus;     ///< CPUs this process may run on (sched_getaffinity)
  std::size_t llc_bytes = 0; ///< largest cache level (sysfs), 0 when unknown
  std::size_t l1d_bytes = 0; ///< level-1 data cache of the first CPU, 0 when unknown
  std::size_t l2_bytes = 0;  ///< level-2 cache of the first CPU, 0 when unknown
  std::optional<double> mhz; ///< mean current clock over the allowed CPUs, when reported
};

[[nodiscard]] cpu_facts read_cpu_facts();
[[nodiscard]] std::optional<double> mean_cpu_mhz(const std::vector<int>& cpus);

/// Runs body(t) on threads t = 0..cpus.size()-1, thread t pinned to cpus[t], all released at
/// once; returns the wall time in seconds from the release to the last thread's end.
double run_pinned(const std::vector<int>& cpus, const std::function<void(std::size_t)>& body);

} // namespace perfgate::microbench
