// SPDX-License-Identifier: Apache-2.0
// The suite's one figure (stats::suite_summary) as every output shows it: a report's JSON and
// compare's share its fields, the text, Markdown and A/B outputs open with its line.
#pragma once

#include <perfgate/statistics.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace perfgate::detail {

/// {"time_ratio": {lo, estimate, hi}, "confidence", "resamples", "kernels", "counts"}
[[nodiscard]] nlohmann::json suite_json(const stats::suite_summary& s);

/// "suite: geometric mean time ratio head/base 1.032x, 95% interval 1.010x .. 1.055x over 12
/// kernels: 1 SLOWER, 0 FASTER, 10 SAME, 1 AMBIGUOUS"
[[nodiscard]] std::string suite_line(const stats::suite_summary& s);

} // namespace perfgate::detail
