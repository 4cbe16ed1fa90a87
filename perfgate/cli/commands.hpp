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

namespace perfgate::detail {
struct cupti_run; // collectors/collectors.hpp
} // namespace perfgate::detail

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

/// One measurement of a program by a collector (`perfgate run`'s, `perfgate ab`'s runs).
struct program_collection {
  std::string collector = "auto"; ///< auto, cupti, ncu, rocprof, gbench, nvbench
  std::vector<std::string> program;
  std::string kernels; ///< regex, empty for all
  int repetitions = 5;
  std::optional<double> timeout_s;
  std::optional<double> target_ci;
  double time_budget_s = 60;
  bool flush_l2 = false;
  bool keep_warm_up = false;
  std::vector<std::string> only_benchmarks; ///< gbench: exact names, empty for all
  /// cupti: counter runs to reuse across collections of the same program (the A/B session's);
  /// null for none.
  std::map<std::string, detail::cupti_run>* counter_runs = nullptr;
  /// nvbench: the folder of counter runs kept between runs (empty: none).
  std::string counter_cache_dir;
};
/// `--timeout`'s check, one for every command that runs a program: a finite number of seconds
/// above 0 (CLI::PositiveNumber lets nan and inf through).
[[nodiscard]] CLI::Validator finite_seconds();
/// Throws usage_error when --flush-l2 is asked of a collector that cannot flush.
void check_flush_l2(bool flush_l2, const std::string& collector);
/// "auto" resolved for `program` (detail::choose_collector): skip_error where nothing decides.
[[nodiscard]] std::string resolved_collector(const std::string& collector,
                                             const std::vector<std::string>& program);
/// Runs the program under its collector; each collector's errors and skips as documented in
/// collectors.hpp. A profiler's first launch of a kernel launched more than once is left out
/// unless keep_warm_up.
[[nodiscard]] profile collect_program(const program_collection& c);
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
  /// cuda, hip: also the latency chains, fitted into this perfgate-latencies/1 file.
  std::string latencies_output;
  /// A perfgate-microbench/1 file to read instead of running the micro-benchmarks (a run taken
  /// elsewhere, or one kept to replay).
  std::string from_microbench;
};
void calibrate_device(const calibration_request& request);

/// perfgate-latencies/1 fitted from a latency sweep (CSV: op, warps_per_sm, n_dependent,
/// cycles_max; `perfgate pipeline fit`); the fit's table goes to stderr. Throws input_error
/// naming `file` and the line.
struct latency_fit_request {
  std::string csv_text;
  std::string file; ///< named in errors and in each op's provenance
  std::string device;
  std::uint64_t n = 0; ///< the chain length when the CSV has no n_dependent column
  int warp_size = 32;
};
[[nodiscard]] std::string fit_latencies(const latency_fit_request& request);

/// The resident groups of a perfgate-idg/1 graph's launch: from its arch and resources
/// (`perfgate pipeline idg`), `threads_per_group` and the launch's dynamic shared memory.
[[nodiscard]] pipeline::occupancy graph_occupancy(const std::string& idg_text,
                                                  const std::string& file,
                                                  std::uint64_t threads_per_group,
                                                  std::uint64_t dynamic_shared);

/// `run --idg FILE... --latencies FILE`: each graph's kernel of the profile simulated at its
/// launch (grid, block) on the local device's compute units, at the occupancy its registers and
/// shared memory allow, in order with 4 dispatches per cycle; by kernel name. A graph whose
/// kernel is not in the profile is an error; a kernel without its launch configuration is
/// left out, saying so.
[[nodiscard]] std::map<std::string, pipeline::launch_estimate, std::less<>>
pipeline_estimates(const std::vector<std::string>& idg_files, const std::string& latencies_file,
                   const profile& p, const device& local);

/// Print to stdout, or write atomically to `output` when it is not empty.
void emit(const std::string& text, const std::string& output);

/// Print the errors the profiler itself wrote into the profile (ncu's `==ERROR==` lines) to
/// stderr: a kernel it failed on is absent, and the user must see why.
void print_tool_errors(const profile& p);

} // namespace perfgate::cli
