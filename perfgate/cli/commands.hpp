// SPDX-License-Identifier: Apache-2.0
// The `perfgate` subcommands. Each registers its options on the app and returns the action
// that runs once parsing succeeded; actions return the process exit code.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/profile.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
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
action add_history_command(CLI::App& app);
/// `program`: as for run, the arguments both builds get.
action add_ab_command(CLI::App& app, const std::vector<std::string>& argv,
                      const std::vector<std::string>& program);

/// `program`: as for ab, the arguments every commit's build is run with.
action add_bisect_command(CLI::App& app, const std::vector<std::string>& program);
action add_report_command(CLI::App& app);
action add_compare_command(CLI::App& app);
action add_merge_command(CLI::App& app, const std::vector<std::string>& argv);
action add_metrics_command(CLI::App& app);
action add_pipeline_command(CLI::App& app);
/// `perfgate pipeline idg`, a subcommand of `pipeline`.
action add_pipeline_idg_command(CLI::App& pipeline);
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
  /// cuda, hip: also the latency chains, fitted into this perfgate-latencies/1 file.
  std::string latencies_output;
  /// A perfgate-microbench/1 file to read instead of running the micro-benchmarks (a run taken
  /// elsewhere, or one kept to replay).
  std::string from_microbench;
};
void calibrate_device(const calibration_request& request);

/// `perfgate run`'s decide::measure_device_again: where `device_arg` is a CPU calibration
/// perfgate took on this host (is_cpu_calibration_of), the CPU micro-benchmarks run again and
/// each peak is the higher of the file's and this run's (keep_highest_rates); the file is not
/// written. Empty for anything else (a built-in entry, a GPU, another host's file).
[[nodiscard]] std::optional<device> measure_local_cpu_again(const device& d,
                                                            const std::string& device_arg);

/// The GPU CTest gave this test (a resource specification listing GPUs), if any: the program
/// and the calibration see that one GPU only (its environment set here), and with
/// `gpu_calibrations` (a folder) the first of `devices` becomes DIR/gpu-<id>.json, calibrated
/// first when missing or older than this perfgate.
void pin_to_ctest_gpu(const std::string& gpu_calibrations, std::vector<std::string>& devices,
                      const std::vector<std::string>& argv);

/// Print to stdout, or write atomically to `output` when it is not empty.
void emit(const std::string& text, const std::string& output);

/// Print the errors the profiler itself wrote into the profile (ncu's `==ERROR==` lines) to
/// stderr: a kernel it failed on is absent, and the user must see why.
void print_tool_errors(const profile& p);

} // namespace perfgate::cli
