// SPDX-License-Identifier: Apache-2.0
/// \file
/// A report (`perfgate-report/2`): for each kernel its parameters, its measurement, a
/// prediction (with its roof) per device and a verdict. Reports only carry values the models computed; the
/// writers never compute model values themselves.
#pragma once

#include <perfgate/model.hpp>
#include <perfgate/profile.hpp>

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// A kernel's measured time (all invocations modelled together).
struct measurement {
  double time_s = 0; ///< total over the invocations
  duration_stats stats;
  std::optional<double> sm_clock_mhz;    ///< mean SM clock while the kernel ran, when measured
  std::vector<std::string> clock_limits; ///< why the clocks were held down (NVML reasons)
};

enum class verdict_status { pass, fail, warn, skip };
[[nodiscard]] std::string_view to_string(verdict_status s); ///< "pass", "fail", "warn", "skip"

struct verdict {
  verdict_status status = verdict_status::skip;
  std::vector<std::string> reasons;
  std::optional<double> efficiency; ///< roof time / measured time on the local device, 0..1
  std::optional<double> baseline_efficiency; ///< the baseline's, when gated against one
  std::string device; ///< the local device the verdict is about (empty: none)
};

struct kernel_report {
  std::string name;
  std::uint64_t invocations = 1;
  kernel_params params;
  std::optional<measurement> measured;
  std::vector<prediction> predictions; ///< one per device, in the order the devices were given
  verdict result;
  std::string origin; ///< merged reports: the report (and host) this kernel came from
};

/// Where the report came from (the `meta` block).
struct report_meta {
  std::string perfgate_version;
  std::string command; ///< "predict", "run", ...
  std::vector<std::string> argv;
  std::string timestamp; ///< UTC, ISO 8601
  std::string host;
};

struct report {
  /// The device with this id, or null (a merged report's kernels may cover different devices).
  [[nodiscard]] const device* find_device(std::string_view id) const;

  report_meta meta;
  std::string profile_file;
  std::string profile_format;
  std::string profile_device; ///< the GPU the profile was taken on
  int profile_warp_size = 32;
  std::vector<device> devices; ///< the devices predicted for, in order
  std::vector<kernel_report> kernels;
  /// The major version of the format it was read from: 1 has no roofs, and its efficiencies
  /// were the model's predicted time / measured time.
  int schema_version = 2;
};

/// Kernels whose full name matches `kernel_regex` (ECMAScript, search anywhere in the name),
/// predicted on every device, with a `skip` verdict ("prediction only"). A kernel that ran on one
/// CPU thread is predicted on a CPU device's one-core peaks when the device has them. Throws
/// input_error for a kernel that lacks model inputs (tensor instructions whose operations no
/// counter measured included), and usage_error when the regex selects no kernel or a device
/// lacks a kernel's tensor path (no peak for its precision: "no such path", never a fallback).
///
/// With `scale_local_clock` (the profile was taken on devices.front() itself), a kernel whose
/// SM clock was measured is held, on that first device only, to compute peaks scaled to that
/// clock (at_sm_clock), and its prediction records clock_scale; a clock within 0.5% of the
/// device's is left alone. The other devices are predicted at their own clocks.
[[nodiscard]] report predict_report(const profile& p, const std::vector<device>& devices,
                                    const std::string& kernel_regex = "",
                                    bool scale_local_clock = false);

/// One report from several (CI runners, one test per GPU): kernels are kept side by side, each
/// with its origin ("file (host)"), devices are united by id. Throws usage_error for no parts.
[[nodiscard]] report merge_reports(const std::vector<report>& parts,
                                   const std::vector<std::string>& files);

/// A `meta` block for this process: version, command, argv, current UTC time and host name.
[[nodiscard]] report_meta make_report_meta(std::string command, std::vector<std::string> argv);

/// Output formats of a report.
enum class report_format { text, json, markdown, html };
/// "text", "json", "md" (or "markdown"), "html"; throws usage_error listing the valid names
/// otherwise.
[[nodiscard]] report_format parse_report_format(std::string_view name);

[[nodiscard]] std::string report_to_json(const report& r); ///< `perfgate-report/1`
/// Parse `perfgate-report/1` (what compare, merge and baseline read). Throws input_error naming
/// the file and key.
[[nodiscard]] report report_from_json(std::string_view text, const std::string& file);
[[nodiscard]] std::string report_to_text(const report& r);     ///< tables for a terminal
[[nodiscard]] std::string report_to_markdown(const report& r); ///< GitHub-flavoured Markdown
/// One self-contained HTML page: verdicts, model values, a roofline per device and a
/// quadrant-split chart per kernel (inline SVG).
[[nodiscard]] std::string report_to_html(const report& r);
/// SVG charts: the roofline of devices[device_index], or the quadrant-split view of
/// kernels[kernel_index]. Throw usage_error for an index out of range.
[[nodiscard]] std::string report_roofline_svg(const report& r, std::size_t device_index);
[[nodiscard]] std::string report_quadrant_svg(const report& r, std::size_t kernel_index);
[[nodiscard]] std::string render_report(const report& r, report_format f);

} // namespace perfgate
