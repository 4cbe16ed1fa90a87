// SPDX-License-Identifier: Apache-2.0
// The `perfgate` subcommands. Each registers its options on the app and returns the action
// that runs once parsing succeeded; actions return the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <perfgate/profile.hpp>

#include <functional>
#include <string>
#include <vector>

namespace perfgate::cli {

using action = std::function<int()>;

action add_predict_command(CLI::App& app, const std::vector<std::string>& argv);
action add_devices_command(CLI::App& app);
action add_calibrate_command(CLI::App& app, const std::vector<std::string>& argv);
/// `program`: everything after the first `--`, split off before CLI11 parses the rest.
action add_run_command(CLI::App& app, const std::vector<std::string>& argv,
                       const std::vector<std::string>& program);
action add_baseline_command(CLI::App& app);
action add_report_command(CLI::App& app);
action add_compare_command(CLI::App& app);
action add_merge_command(CLI::App& app, const std::vector<std::string>& argv);
action add_metrics_command(CLI::App& app);
action add_pipeline_command(CLI::App& app);
action add_hull_command(CLI::App& app);
action add_resources_command(CLI::App& app);

/// One calibration: the first of `backends` (cuda, hip, cpu) that can run here measures the
/// device, written as a perfgate-device/1 file with its provenance. Throws skip_error when none
/// can run.
struct calibration_request {
  std::vector<std::string> backends = {"cuda", "hip", "cpu"};
  int device_index = 0;
  std::string id; ///< empty: local-cpu, local-cuda-N or local-hip-N
  bool quick = false;
  std::string output;            ///< written atomically
  std::vector<std::string> argv; ///< the command line recorded in the provenance
};
void calibrate_device(const calibration_request& request);

/// Print to stdout, or write atomically to `output` when it is not empty.
void emit(const std::string& text, const std::string& output);

/// Print the errors the profiler itself wrote into the profile (ncu's `==ERROR==` lines) to
/// stderr: a kernel it failed on is absent, and the user must see why.
void print_tool_errors(const profile& p);

} // namespace perfgate::cli
