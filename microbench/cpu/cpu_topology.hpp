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
  std::string model;             ///< "AMD EPYC 9B14" (/proc/cpuinfo "model name")
  std::string vendor;            ///< "amd", "intel", "arm"
  std::vector<int> cpus;         ///< CPUs this process may run on (sched_getaffinity)
  std::size_t llc_bytes = 0;     ///< largest cache level, 0 when unknown
  std::size_t l1d_bytes = 0;     ///< level-1 data cache of the first CPU, 0 when unknown
  std::size_t l2_bytes = 0;      ///< level-2 cache of the first CPU, 0 when unknown
  std::string cache_source;      ///< where the sizes came from (cache_sizes::source)
  std::optional<double> mhz;     ///< mean current clock over the allowed CPUs, when reported
  std::optional<double> max_mhz; ///< the highest clock a core may run, when the system says
};

/// The cache sizes of one CPU (bytes, 0 where unknown) and where they were read.
struct cache_sizes {
  std::size_t l1d = 0;
  std::size_t l2 = 0;
  std::size_t largest = 0; ///< the largest level of any type
  std::string source;      ///< "sysfs", "cpuid" (x86), or "" when neither said
};

/// `cpu`'s caches from sysfs's cache/index* under `sysfs_cpu`; where that tree is missing (a
/// chroot or container without /sys), on x86 from CPUID's cache leaves (of the CPU this thread
/// runs on: the caches of one machine's cores are alike). A calibration without them would hold
/// cache-resident kernels to DRAM.
[[nodiscard]] cache_sizes
read_cache_sizes(int cpu, const std::string& sysfs_cpu = "/sys/devices/system/cpu");

[[nodiscard]] cpu_facts read_cpu_facts();
[[nodiscard]] std::optional<double> mean_cpu_mhz(const std::vector<int>& cpus);

/// The highest clock (MHz) any of `cpus` may run at, as the system states it: cpufreq's
/// cpuinfo_max_freq under `sysfs_cpu` (the boost clock where the driver knows it), else CPUID
/// leaf 0x16's maximum frequency (Intel); empty where neither says (most VMs, AMD without
/// cpufreq).
[[nodiscard]] std::optional<double>
system_max_mhz(const std::vector<int>& cpus,
               const std::string& sysfs_cpu = "/sys/devices/system/cpu");

/// The times of one run_pinned_times call.
struct pinned_times {
  double wall_s = 0;         ///< from the release to the last thread's end
  std::vector<double> cpu_s; ///< per thread, the CPU time its body took (CLOCK_THREAD_CPUTIME_ID)
};

/// Runs body(t) on threads t = 0..cpus.size()-1, thread t pinned to cpus[t], all released at
/// once. The wall time measures what the threads did together (a shared cache's or DRAM's
/// bandwidth); a thread's CPU time counts only the time it held its core, so a rate of a
/// resource each core has alone (its pipes, its L1, its clock) divided by it is the same on a
/// busy machine, whose other tasks take the core away between slices, as on an idle one.
pinned_times run_pinned_times(const std::vector<int>& cpus,
                              const std::function<void(std::size_t)>& body);
/// run_pinned_times' wall time, in seconds.
double run_pinned(const std::vector<int>& cpus, const std::function<void(std::size_t)>& body);

} // namespace perfgate::microbench
