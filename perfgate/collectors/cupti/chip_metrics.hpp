// SPDX-License-Identifier: Apache-2.0
// The per-chip metric table: for one chip CUPTI's Range Profiler supports, which metric names
// supply each model input (the first alternative of the ncu/CUPTI counter table that is valid
// on that chip), what the whole set costs in replay passes, and what the chip cannot give.
// Computed offline with the Profiler Host API: no GPU needed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace perfgate::detail {

struct metric_choice {
  std::string input; ///< canonical counter ("dram_read_bytes"), or "sm_clock_hz" / "gpu_time_ns"
  /// "model" (a model input), "tensor" (operations of a tensor precision: the second run),
  /// "tensor_evidence" (tensor pipe instructions and HFMA2: the first run), "hierarchy", "clock"
  /// or "time"
  std::string role;
  std::vector<std::string> metrics;     ///< the chosen alternative, summed; empty: none is valid
  double scale = 1.0;                   ///< applied to the sum
  std::string approximation;            ///< non-empty when the choice only approximates the input
  std::vector<std::string> unavailable; ///< preferred names this chip does not have
};

/// Two counter runs: every kernel gets `metrics` (the model inputs, the hierarchy counters and
/// the tensor pipe's instruction count, in at most 2 replay passes where the chip allows); the
/// tensor operations counters cost about one pass each (CUPTI 13: 6 to 9 more on GA100 to
/// GB202), so they form a second run, made only when a kernel of the first executed matrix
/// instructions.
struct chip_metric_plan {
  std::string chip;
  std::vector<metric_choice> inputs;
  std::vector<std::string> metrics; ///< every chosen metric of the first run once
  std::size_t passes = 0;           ///< replay passes per kernel of the first run
  std::size_t config_image_bytes = 0;
  std::vector<std::string> tensor_metrics; ///< the tensor-operations run; empty: none on chip
  std::size_t tensor_passes = 0;           ///< its replay passes per kernel

  /// Model inputs no valid metric supplies on this chip.
  [[nodiscard]] std::vector<std::string> missing_model_inputs() const;
};

/// The metric whose per-range value is the SM clock in Hz, and the one giving kernel time in ns.
inline constexpr const char* sm_clock_metric = "sm__cycles_elapsed.avg.per_second";
inline constexpr const char* gpu_time_metric = "gpu__time_duration.sum";

/// The chips CUPTI's Range Profiler host side lists. skip_error where libcupti cannot be loaded.
[[nodiscard]] std::vector<std::string> cupti_chips();

/// The plan for `chip` (exact, case-sensitive CUPTI name such as "GH100"). Throws usage_error
/// for a name CUPTI does not list (naming the chips it does), skip_error for a listed chip the
/// Range Profiler cannot configure or where libcupti cannot be loaded (saying what was tried),
/// error for other CUPTI failures.
[[nodiscard]] chip_metric_plan plan_chip_metrics(const std::string& chip);

/// `perfgate-metrics/1` JSON and a table for a terminal.
[[nodiscard]] std::string chip_metric_plan_to_json(const chip_metric_plan& plan);
[[nodiscard]] std::string chip_metric_plan_to_text(const chip_metric_plan& plan);

} // namespace perfgate::detail
