// SPDX-License-Identifier: Apache-2.0
/// \file
/// perfgate's version and the versions of the JSON formats it writes. A format's major number
/// changes only when a reader of the old format would misread the new one; readers accept their
/// own major version and reject any other.
#pragma once

#include <string_view>

namespace perfgate {
[[nodiscard]] std::string_view version(); ///< perfgate's own version, "0.1.0"
// Every JSON format perfgate reads or writes, by its "schema" id (the JSON Schemas of the
// documented ones are in perfgate/schema/).
inline constexpr std::string_view profile_schema = "perfgate-profile/1";
inline constexpr std::string_view device_schema = "perfgate-device/1";
/// Version 2 added each prediction's `roof` and made the verdict's efficiency roof time /
/// measured time (version 1: the model's predicted time / measured time).
inline constexpr std::string_view report_schema = "perfgate-report/2";
inline constexpr std::string_view report_schema_v1 = "perfgate-report/1";
/// Version 2: efficiencies against the roof (version 1: against the model's predicted time).
inline constexpr std::string_view baseline_schema = "perfgate-baseline/2";
inline constexpr std::string_view baseline_schema_v1 = "perfgate-baseline/1";
inline constexpr std::string_view comparison_schema = "perfgate-comparison/1";
/// What `perfgate-microbench-*` prints for `perfgate calibrate`.
inline constexpr std::string_view microbench_schema = "perfgate-microbench/1";
/// What the CUPTI injection library leaves for `perfgate run --collector cupti`.
inline constexpr std::string_view cupti_run_schema = "perfgate-cupti/1";
/// `perfgate metrics --format json`: a chip's counter plan.
inline constexpr std::string_view metrics_schema = "perfgate-metrics/1";
/// `perfgate history`: the history's JSON lines, and the change points found in it.
inline constexpr std::string_view history_schema = "perfgate-history/1";
inline constexpr std::string_view history_changes_schema = "perfgate-history-changes/1";
/// `perfgate pipeline eq1 --format json`: Eq. 1 over a warp sweep.
inline constexpr std::string_view pipeline_eq1_schema = "perfgate-eq1/1";
/// `perfgate pipeline fit`: issue and completion latencies per instruction class.
inline constexpr std::string_view latencies_schema = "perfgate-latencies/1";
/// A kernel's instruction dependence graph for the pipeline simulator.
inline constexpr std::string_view idg_schema = "perfgate-idg/1";
/// `perfgate pipeline simulate --format json`.
inline constexpr std::string_view pipeline_simulation_schema = "perfgate-pipeline-simulation/1";
/// `perfgate hull`: the boat hull band of an algorithm class (or an application) per device.
inline constexpr std::string_view hull_schema = "perfgate-hull/1";
/// The application file `perfgate hull --app` reads: primitives and one transfer volume.
inline constexpr std::string_view hull_app_schema = "perfgate-hull-app/1";
/// `perfgate hull --list-classes --format json`: Table 1.
inline constexpr std::string_view hull_classes_schema = "perfgate-hull-classes/1";
/// NVML's and ROCm SMI's answers `perfgate resources --record` writes and `--replay` reads.
inline constexpr std::string_view gpu_answers_schema = "perfgate-gpu-answers/1";
} // namespace perfgate
