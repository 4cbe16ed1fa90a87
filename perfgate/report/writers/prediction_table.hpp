// SPDX-License-Identifier: Apache-2.0
// The per-kernel content that the text and Markdown writers both show.
#pragma once

#include <perfgate/report.hpp>

#include "util/table.hpp"

#include <string>
#include <vector>

namespace perfgate::detail {
/// "fp64, quantitative model: W_comp 1.007 G op, W_traf 3.335 GB, O_krn 0.302 op/B, E_mix ..."
[[nodiscard]] std::string kernel_summary(const kernel_report& k);
/// "±2.5%": the median absolute error scripts/bench-accuracy.sh measured for the prediction's
/// predictor on kernels of its class (accuracy_of), "-" where it measured none.
[[nodiscard]] std::string typical_error(const prediction& p, const kernel_params& k);
/// A row per device: peaks, the adjusted roof, the class, the predicted time and its typical
/// error.
[[nodiscard]] table prediction_table(const kernel_report& k, const std::vector<device>& devices);
/// A line per prediction scaled from a measurement (predictor measured-scaling): "h200:
/// predicted from 1.203 ms measured on h100: 87.00% of it explained by dram (x0.710 here), the
/// rest by the SM clock (x1.000)"; empty for the model's own predictions.
[[nodiscard]] std::vector<std::string> scaling_notes(const kernel_report& k);

/// The kernels' indices, the largest measured time first (the kernels a reader should look at
/// first); kernels without a measurement follow in report order.
[[nodiscard]] std::vector<std::size_t> kernels_by_time(const report& r);
/// Each kernel's short name (util/kernel_names.hpp), unique within the report, by index.
[[nodiscard]] std::vector<std::string> kernel_short_names(const report& r);
/// True when some kernel was gated (a verdict on a device); false for `predict`'s reports.
[[nodiscard]] bool anything_gated(const report& r);
/// A row per kernel, the devices side by side: measured time, its share of all measured time,
/// and per device the roof and the predicted time. `order`: kernels_by_time.
[[nodiscard]] table overview_table(const report& r, const std::vector<std::size_t>& order,
                                   const std::vector<std::string>& names);
} // namespace perfgate::detail
