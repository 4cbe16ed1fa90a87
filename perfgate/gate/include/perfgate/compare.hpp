// SPDX-License-Identifier: Apache-2.0
/// \file
/// Comparing two reports (`perfgate compare BASE HEAD`): per kernel, the efficiency change on
/// the local device, class changes on every device, and changes in the counters themselves
/// (W_comp, W_traf, instruction mix). Counters are deterministic: they catch regressions that
/// timing noise hides (more DRAM traffic, a worse mix) even where efficiency looks the same.
#pragma once

#include <perfgate/report.hpp>
#include <perfgate/statistics.hpp>

#include <optional>
#include <string>
#include <vector>

namespace perfgate {

struct compare_policy {
  double max_efficiency_drop = 0.10; ///< relative drop of the local device's efficiency
  double max_work_increase = 0.05;   ///< relative growth of W_comp or W_traf
  double ridge_margin = 0.10;        ///< class changes this close to the ridge only warn
  double confidence = 0.95;          ///< of the statistical efficiency verdict
  double run_spread = 0;             ///< gate_policy::run_spread: reports are one run each
};

struct class_change {
  std::string device;
  bound_class before = bound_class::memory;
  bound_class after = bound_class::memory;
  bool near_ridge = false;
};

struct kernel_comparison {
  std::string name;
  bool in_base = true;
  bool in_head = true;
  std::optional<double> base_efficiency, head_efficiency; ///< on the same local device
  std::string device;                                     ///< that local device
  /// Relative: (head - base) / base; empty where either side declared no operations (bytes
  /// alone), whose W_comp is unknown.
  std::optional<double> W_comp_change;
  double W_traf_change = 0;
  std::optional<double> D_ops_change, D_ldst_change, E_mix_change; ///< absolute, in fractions
  std::vector<class_change> class_changes;
  /// The statistical verdict on the efficiency samples (time ratio head / base), when both
  /// reports kept enough samples.
  std::optional<stats::change_verdict> change;
  std::vector<std::string> failures, warnings;
  std::vector<std::string> notes; ///< the efficiency verdict when it passes (SAME, FASTER...)

  [[nodiscard]] bool failed() const { return !failures.empty(); }
};

struct comparison {
  std::string base_file, head_file;
  std::vector<kernel_comparison> kernels; ///< failures first, then warnings, then the rest
  /// The kernels whose efficiencies were compared, in one figure (stats::summarize_suite).
  std::optional<stats::suite_summary> suite;
  [[nodiscard]] bool failed() const;
};

[[nodiscard]] comparison compare_reports(const report& base, const report& head,
                                         const compare_policy& policy = {});

[[nodiscard]] std::string comparison_to_markdown(const comparison& c);
[[nodiscard]] std::string comparison_to_json(const comparison& c);

} // namespace perfgate
