// SPDX-License-Identifier: Apache-2.0
// How each profiler's metrics supply the model's canonical counters. One table per tool; a
// canonical counter may have alternatives (e.g. DRAM bytes, or DRAM sectors x 32), tried in
// order, each a sum of metrics times a scale.
#pragma once

#include <perfgate/profile.hpp>

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

struct metric_sum {
  std::vector<std::string_view> metrics; ///< summed
  double scale = 1.0;                    ///< applied to the sum (32 for 32-byte transactions)
  /// Non-empty when this alternative only approximates the counter: says how.
  std::string_view approximation = {};
};

struct counter_source {
  std::string_view canonical;
  std::vector<metric_sum> alternatives; ///< the first whose metrics are all present wins
};

/// `nvprof --metrics` names (Fermi to Pascal; MODEL.md section 3).
[[nodiscard]] std::span<const counter_source> nvprof_counter_sources();
/// Nsight Compute / CUPTI Range Profiler names (Volta and later): the model inputs, then the
/// hierarchy counters (L2 and shared-memory bytes).
[[nodiscard]] std::span<const counter_source> ncu_counter_sources();

/// Every metric name any alternative of `sources` mentions.
[[nodiscard]] std::vector<std::string_view> metrics_used(std::span<const counter_source> sources);

/// Canonical counters from a kernel's metric totals (tool names, base units); counters with no
/// complete alternative are left out, so the model can name them as missing.
[[nodiscard]] std::map<std::string, double, std::less<>>
resolve_counters(std::span<const counter_source> sources,
                 const std::map<std::string, double, std::less<>>& metric_totals);

/// The tool's preferred name for each canonical counter, for messages.
[[nodiscard]] std::map<std::string, std::string, std::less<>>
native_names(std::span<const counter_source> sources);

} // namespace perfgate::detail
