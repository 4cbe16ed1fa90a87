// SPDX-License-Identifier: Apache-2.0
// SVG charts of a report (MODEL.md sections 1 and 2). Self-contained SVG 1.1 (no scripts, no
// external fonts, no ids) with fixed number formatting and no timestamps: the same report always
// gives the same bytes. Kernels and devices are keyed by number and colour in a legend, so the
// labels at the points stay short; full kernel names are in <title> tooltips.
#pragma once

#include <perfgate/report.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace perfgate::detail {

/// Roofline of one device (log-log): x = operational intensity (op/B), y = performance (1e9 op/s).
/// Draws at most k_max_roofline_kernels kernels (kernels_to_draw), the legend counting the
/// rest. Draws the memory roof B_mem*x, the compute roof of each kernel type present, each kernel's
/// adjusted roof T'_op (a dashed horizontal segment in the kernel's colour), each kernel as a point
/// at (O_krn, measured performance W_comp/measured time) when measured, else at (O_krn, T_pred)
/// drawn hollow, the ridge point(s) marked, a legend, title, axis labels with units.
/// A measurement counts as taken on this device when the verdict names it, else when the
/// profile's device names it, else (neither says) always. Throws usage_error for a bad index.
[[nodiscard]] std::string roofline_svg(const report& r, std::size_t device_index);

/// Charts stay readable and fast with thousands of kernels by drawing at most this many.
inline constexpr std::size_t k_max_roofline_kernels = 200;

/// The indices of at most `max` kernels of `r` to draw: failures, then warnings, then the rest,
/// each group in report order; the result in report order. Linear in the number of kernels.
[[nodiscard]] std::vector<std::size_t> kernels_to_draw(const report& r, std::size_t max);

/// Why kernels are left out of the chart, a line each (the legend's rows): "19800 kernels not
/// drawn (12 failed, 3 warned):", then each reason with its count (bytes alone: no intensity;
/// not judged; beyond the chart's kernels), then "the report lists them all"; empty when none is.
[[nodiscard]] std::vector<std::string>
kernels_left_out_lines(const report& r, const std::vector<std::size_t>& drawn);

/// The same lines as one sentence: "19800 kernels not drawn (12 failed, 3 warned): 19800 beyond
/// the 200 drawn; the report lists them all", or empty.
[[nodiscard]] std::string kernels_left_out(const report& r, const std::vector<std::size_t>& drawn);

/// Quadrant-split view of one kernel (MODEL.md section 2): x = memory bandwidth (GB/s), y = compute
/// throughput (GFLOPS or GIOPS); each device a point (B_mem, T'_op for this kernel), the kernel a
/// half-line from the origin with slope O_krn; devices above the line are memory-bound, below
/// compute-bound (label the two regions); each device's predicted performance marked where its
/// point moved horizontally (compute-bound) or vertically (memory-bound) meets the line.
/// The axes are logarithmic (devices span decades), so the half-line is a straight diagonal.
/// Throws usage_error for a bad index.
[[nodiscard]] std::string quadrant_svg(const report& r, std::size_t kernel_index);

} // namespace perfgate::detail
