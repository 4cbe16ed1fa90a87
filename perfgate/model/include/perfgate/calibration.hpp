// SPDX-License-Identifier: Apache-2.0
/// \file
/// Micro-benchmark results (`perfgate-microbench/1`) and how `perfgate calibrate` turns them
/// into a measured device (`perfgate-device/1`). The GPU micro-benchmarks are separate
/// executables that print this format; the CPU ones run in-process and fill the same types.
#pragma once

#include <perfgate/device.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// One benchmark: the rates of its timed repetitions (after a warm-up), in 1e9 per second.
struct microbench_result {
  std::string key;   ///< the peak it measures: "fp32_gflops", "dram_triad_gbs", ...
  std::string scope; ///< "all" (every core / the whole GPU) or "one" (one CPU core)
  std::uint64_t threads = 0;
  std::uint64_t repetitions = 0;
  double best = 0; ///< highest rate: the peak
  double median = 0;
  double min = 0;
  double max = 0;
  std::string note; ///< how the work is counted ("FMA = 2 flops"), or why it was not measured
  /// false for a "not measured" entry (the benchmark has no path on this device: repetitions 0,
  /// every statistic null, the reason in `note`); it is reported and never becomes a peak.
  bool measured = true;
  /// The SM clock the best repetition ran at (MHz: SM cycles over its elapsed time), where the
  /// micro-benchmark measured it; a compute peak is that clock's rate, not the nominal one's.
  std::optional<double> sm_clock_mhz;

  /// (max - min) / max: how much the repetitions disagree.
  [[nodiscard]] double spread() const { return max > 0 ? (max - min) / max : 0; }
};

/// One point of the operational-intensity sweep (the measured roofline).
struct microbench_sweep_point {
  double fma_per_element = 0;
  double intensity_flop_per_byte = 0;
  double gflops = 0;
  double gbs = 0;
};

/// The device a run measured.
struct microbench_device {
  std::string name;
  std::string vendor; ///< "nvidia", "amd", "intel", "arm"
  std::string kind;   ///< "gpu" or "cpu"
  std::string arch;   ///< "sm_90", "gfx90a", "x86-64 avx512f", "x86-64 avx2+fma", ...
  std::uint64_t index = 0;
  std::uint64_t compute_units = 0; ///< SMs, CUs or CPU cores used
  double memory_bytes = 0;         ///< GPU: the device memory the runtime reports; 0 unknown
  int warp_size = 1;
  std::optional<double> clock_mhz_before;
  std::optional<double> clock_mhz_after;
  std::string throttle_reasons;
  /// GPU: the card's UUID as nvidia-smi / rocminfo print it ("GPU-8f3a9c1e-52b4-...") and the
  /// driver's version (NVML's "550.54.15", else the runtime's "CUDA 12.4"); empty where the run
  /// did not say (captures before they were written have neither).
  std::string uuid;
  std::string driver;
  /// CPU: cache capacities one core sees, bytes ("l1", "l2", "llc"), as device::cache_bytes.
  std::map<std::string, double, std::less<>> cache_bytes;
};

/// A whole micro-benchmark run.
struct microbench_run {
  std::string backend; ///< "cuda", "hip", "cpu"
  bool quick = false;  ///< a smoke run at tiny sizes: its numbers are not peaks
  microbench_device dev;
  std::vector<microbench_result> results;
  std::vector<microbench_sweep_point> sweep;

  /// The result for `key` in `scope`, if measured.
  [[nodiscard]] const microbench_result* find(std::string_view key,
                                              std::string_view scope = "all") const;
};

/// Parse `perfgate-microbench/1` JSON (what the GPU micro-benchmark executables print).
[[nodiscard]] microbench_run microbench_run_from_json(std::string_view text,
                                                      const std::string& file);

/// The SIMD width (bits) a micro-benchmark arch string names: "x86-64 avx512f" 512,
/// "x86-64 avx2+fma" 256, "x86-64 sse2" / "aarch64 neon" (the portable kernels) 128; empty for
/// anything else (a GPU's "sm_90").
[[nodiscard]] std::optional<int> vector_bits_of_arch(std::string_view arch);

/// The SM clock (MHz) a GPU result's rate belongs to, and how that was decided: the clock the
/// micro-benchmark measured while it ran; else (a run without per-benchmark clocks) the clock
/// read after the run, lowered to best / the datasheet's per-clock rate where that is lower: a
/// rate measured under a power cap at an unknown clock is attributed to the lowest clock
/// physics allows, so a roof scaled from it to a kernel's clock cannot be beaten.
struct peak_clock {
  double mhz = 0;
  std::string how; ///< empty when measured with the peak
};
[[nodiscard]] std::optional<peak_clock>
clock_of_result(const microbench_run& run, const microbench_result& r, const device* datasheet);

/// The measured device: peaks are the best rates (B_mem = mean of read, write and copy, as the
/// thesis defines it); every other measured key becomes an optional peak of its scope
/// (`uncoalesced_gbs`, `bus_gbs`, ...); CPU runs also get one-core peaks, `vector_bits` from
/// the arch string and `hardware_threads` from the threads of the all-core benchmarks. A GPU
/// gets its datasheet entry (datasheet_device_for: name, memory, architecture, SMs) and the
/// clock of each compute peak (clock_of_result) where it differs from the run's. Not-measured
/// entries are left out. Throws
/// input_error naming the missing benchmark when a required peak was not measured.
[[nodiscard]] device device_from_microbench(const microbench_run& run, const std::string& id);

/// The `perfgate-device/1` file `perfgate calibrate` writes: the device, plus the raw results
/// with their spread, the sweep, clocks, date, perfgate's version and the command used.
[[nodiscard]] std::string calibration_to_json(const device& d, const microbench_run& run,
                                              const std::vector<std::string>& argv);

/// Whether `text` is a CPU calibration perfgate took on `host`: a perfgate-device/1 document
/// with its measurements and provenance backend "cpu" and that host (a file this machine's
/// rates may be set beside).
[[nodiscard]] bool is_cpu_calibration_of(std::string_view text, std::string_view host);

/// A CPU's rates as the highest this machine has shown (a shared runner's memory rate moves by a
/// quarter within minutes, and a roof must hold on its best minute): each measured result of
/// `run` is raised to the `best` of the same benchmark (key, scope, threads) in the earlier
/// calibration `previous_text` (perfgate-device/1, `previous_file` for messages), when that
/// calibration was taken by perfgate on this machine: the same host, backend "cpu" and device
/// name (a VM moved to another CPU model starts afresh). Returns a line per raised result, for
/// the log; nothing for a GPU run (its peaks belong to the clocks they ran at), a quick run, or a
/// previous file that is not such a calibration.
std::vector<std::string> keep_highest_rates(microbench_run& run, std::string_view previous_text,
                                            const std::string& previous_file,
                                            std::string_view host);

} // namespace perfgate
