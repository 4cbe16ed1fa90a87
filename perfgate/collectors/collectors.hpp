// SPDX-License-Identifier: Apache-2.0
// Collectors: run the user's program and turn what was measured into a profile. Each throws
// skip_error (exit 77) when it cannot work on this machine, target_error (exit 3) when the
// program fails, and input_error (exit 2) when the program's output cannot be read.
#pragma once

#include <perfgate/profile.hpp>

#include <optional>
#include <string>
#include <vector>

namespace perfgate::detail {

struct collect_request {
  std::vector<std::string> program; ///< argv of the program to profile
  std::optional<double> timeout_s;
  int repetitions = 5; ///< gbench: --benchmark_repetitions
};

/// A Google Benchmark binary run with JSON output and repetitions.
[[nodiscard]] profile collect_gbench(const collect_request& request);

/// Any CUDA program run under `ncu --csv --page raw` with the model's metrics.
[[nodiscard]] profile collect_ncu(const collect_request& request);

/// Any HIP program run under rocprofv3, one run per counter pass the architecture needs, plus
/// the kernel trace for times. Skips (77) without rocprofv3 or an AMD GPU.
[[nodiscard]] profile collect_rocprof(const collect_request& request);

/// Runs the program once, as it is (for recorded-profile gates): exit 3 when it fails.
void run_plain(const collect_request& request);

/// Why no NVIDIA GPU can be profiled here (no driver, cuInit fails, no device), or nothing.
/// Only the driver API is touched, through dlopen: no target-side CUPTI before this says yes.
[[nodiscard]] std::optional<std::string> nvidia_gpu_unavailable();

/// True when the executable carries Google Benchmark's flags or links libbenchmark.
[[nodiscard]] bool is_gbench_binary(const std::string& program);

} // namespace perfgate::detail
