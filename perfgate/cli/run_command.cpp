// SPDX-License-Identifier: Apache-2.0
// perfgate run [gate options] -- PROGRAM [ARGS...]: collect, predict, gate, report; where the
// verdict against a baseline is undecided, the deciding layer (perfgate/decide) runs more.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "cli/shared.hpp"
#include "collectors/collectors.hpp"
#include "collectors/device_identity_probe.hpp"
#include "decide/decide.hpp"
#include "gate/hardware_check.hpp"
#include "importers/csv_reader.hpp"
#include "report/finding_text.hpp"
#include "report/writers/suite_summary.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

namespace perfgate::cli {

namespace {
struct run_options {
  decide::program_collection collection;
  gate_policy policy; ///< the thresholds given as options; the rest from the options below
  std::string profile_file;
  std::vector<std::string> devices;
  std::string expect_bound;
  std::string baseline_file;
  std::string hull_species;
  std::optional<double> hull_f;
  double hull_tolerance = 0.25;
  double hull_element_bytes = 4;
  std::string report_file;
  double confirm_budget_s = 60;
  double ab_budget_s = 300;
  std::string gpu_calibrations;
  std::vector<std::string> idg_files;
  std::string latencies_file;
};

// The first run: the program under its collector, or a recorded profile (the program, when
// given, run plainly first: it writes the profile).
profile collect(const run_options& o) {
  const decide::program_collection& c = o.collection;
  decide::check_flush_l2(c.flush_l2, c.collector);
  if (c.target_ci && c.collector == "profile") {
    throw usage_error("--target-ci: adaptive repetitions need a Google Benchmark binary to "
                      "repeat (the gbench collector), not a recorded profile");
  }
  if (c.collector != "profile") {
    return decide::collect_program(c);
  }
  if (o.profile_file.empty()) {
    throw usage_error("--collector profile needs --profile FILE");
  }
  if (!c.program.empty()) {
    detail::collect_request request;
    request.program = c.program;
    request.timeout_s = c.timeout_s;
    detail::run_plain(request);
  }
  return import_profile(o.profile_file);
}

// The quoted kernel names of the profiler's "Failed to profile \"NAME\"" errors.
std::vector<std::string> kernels_the_profiler_failed_on(const profile& p) {
  std::vector<std::string> names;
  for (const auto& e : p.tool_errors) {
    const auto at = e.find("Failed to profile \"");
    if (at == std::string::npos) {
      continue;
    }
    const auto begin = at + std::string_view("Failed to profile \"").size();
    const auto end = e.find('"', begin);
    if (end != std::string::npos) {
      names.push_back(e.substr(begin, end - begin));
    }
  }
  return names;
}

// A kernel the user gates must be in the profile: one the profiler failed on is exit 3 with the
// profiler's words; a --kernels that matches nothing is a gate failure (1). 0 when all is well.
// --kernels compiled: usage_error when it is not a regular expression.
std::regex kernels_selector(const std::string& regex) {
  try {
    return std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw usage_error("--kernels '" + regex + "' is not a valid regular expression: " + e.what());
  }
}

int check_gated_kernels_present(const profile& p, const std::string& regex) {
  const std::regex selector = kernels_selector(regex);
  const auto gated = [&](const std::string& name) {
    return regex.empty() || std::regex_search(name, selector);
  };
  for (const auto& name : kernels_the_profiler_failed_on(p)) {
    const bool present = std::any_of(p.kernels.begin(), p.kernels.end(), [&](const auto& k) {
      return k.name.find(name) != std::string::npos;
    });
    if (gated(name) && !present) {
      throw target_error("gated kernel '" + name + "' is missing from the profile " +
                         p.source_file + ": the profiler failed on it" +
                         detail::quote_tool_errors(p.tool_errors));
    }
  }
  if (!regex.empty() && std::none_of(p.kernels.begin(), p.kernels.end(),
                                     [&](const kernel_profile& k) { return gated(k.name); })) {
    std::cout << "perfgate: FAIL: --kernels '" << regex << "' matches no kernel of the profile "
              << p.source_file << " (" << p.kernels.size() << " kernel"
              << (p.kernels.size() == 1 ? "" : "s") << " in it)"
              << detail::quote_tool_errors(p.tool_errors) << "\n";
    return static_cast<int>(exit_status::gate_failure);
  }
  return 0;
}

std::optional<bound_class> parse_bound(const std::string& s) {
  if (s.empty() || s == "latency") {
    return std::nullopt; // latency is the gate's class, not the roof's: expect_latency
  }
  return s == "memory" ? bound_class::memory : bound_class::compute;
}

void print_summary(const report& r) {
  const auto& local = r.devices.front();
  std::cout << "perfgate: " << r.kernels.size() << " kernel" << (r.kernels.size() == 1 ? "" : "s")
            << " gated on " << local.id << " (" << local.name << ", " << local.source << " peaks)";
  if (r.devices.size() > 1) {
    std::cout << ", predicted for " << r.devices.size() - 1 << " more device"
              << (r.devices.size() == 2 ? "" : "s");
  }
  std::cout << "\n" << (r.suite ? detail::suite_line(*r.suite) + "\n" : "");
  print_kernel_verdicts(r, true);
  for (const auto& k : r.kernels) {
    if (k.result.efficiency) {
      // CTest drops a measurement whose name holds < or &, and a " ends the attribute: the name
      // goes through the markup escaper like every other XML output.
      std::cout << "<CTestMeasurement type=\"numeric/double\" name=\""
                << detail::html_escape(k.name) << ".efficiency\">"
                << detail::fixed(*k.result.efficiency, 4) << "</CTestMeasurement>\n";
    }
  }
}

// What the kernels are held to: MIN_EFFICIENCY and its kin, the class, the hull band.
void add_criteria_options(CLI::App* cmd, run_options& o) {
  cmd->add_option("--min-efficiency", o.policy.min_efficiency,
                  "Fail when bound time / measured time falls below this")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-efficiency", o.policy.max_efficiency,
                  "Fail when the kernel beats its bound by more than this ratio")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--expect-bound", o.expect_bound,
                  "Fail when the class on the local device differs (memory or compute); "
                  "latency: met by a kernel latency-bound by duration, else a warning (the "
                  "pipeline model's class needs the kernel's instruction graph)")
      ->check(CLI::IsMember({"memory", "compute", "latency"}));
  cmd->add_option("--baseline", o.baseline_file,
                  "Fail on a class flip or an efficiency drop against this baseline or report");
  add_change_options(cmd, o.policy.max_efficiency_drop, o.policy.confidence);
  cmd->add_option("--hull-species", o.hull_species,
                  "Hold each kernel to the boat hull band of this class on the local device "
                  "(`perfgate hull --list-classes`); needs --hull-f");
  cmd->add_option("--hull-f", o.hull_f,
                  "The class's operations per operator application (an FMA counts 2)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--hull-tolerance", o.hull_tolerance,
                  "Allowed relative slowdown past the band's upper end")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--hull-element-bytes", o.hull_element_bytes,
                  "Bytes per element of the class's data (8 for double)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--idg", o.idg_files,
                  "A kernel's instruction dependence graph (perfgate pipeline idg): the pipeline "
                  "model simulates its launch on the local device; where it is latency-bound, "
                  "that is its class and MIN_EFFICIENCY applies against the model's time");
  cmd->add_option("--latencies", o.latencies_file,
                  "With --idg: the local device's latencies (perfgate calibrate --latencies, "
                  "perfgate pipeline fit)");
}

// How the program is run, beyond the options `perfgate ab` shares, and the runs that settle
// an undecided verdict.
void add_runs_options(CLI::App* cmd, run_options& o) {
  add_collection_options(cmd, o.collection, true);
  cmd->add_option("--profile", o.profile_file, "With --collector profile: the recorded profile");
  cmd->add_option("--target-ci", o.collection.target_ci,
                  "gbench: repeat in rounds of --repetitions (at least 6) until each median's "
                  "95% interval lies within +- this fraction of it (0.01: 1%)")
      ->check(CLI::Range(1e-4, 1.0));
  cmd->add_option("--time-budget", o.collection.time_budget_s,
                  "gbench with --target-ci: start no round that would end after this many "
                  "seconds")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--counter-cache", o.collection.counter_cache_dir,
                  "nvbench: keep each state's counter run in this folder and reuse it while the "
                  "program's files are unchanged (counters repeat, times do not; "
                  "add_perf_prediction gives its build tree's)");
  cmd->add_flag("--flush-l2", o.collection.flush_l2,
                "cupti: flush the GPU's L2 before every launch of the timing run (cold-cache "
                "times; ncu does so by default)");
  cmd->add_option("--confirm-budget", o.confirm_budget_s,
                  "With --baseline: while a kernel's verdict is AMBIGUOUS, run the program "
                  "again (a fresh process, only that benchmark for gbench) and judge all runs "
                  "by the floor rule, starting no run that would end after this many seconds; "
                  "0 turns it off. A recorded profile is never run again")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--ab-budget", o.ab_budget_s,
                  "Where the baseline keeps its build (baseline accept --keep-build) and a "
                  "kernel is slower than its stored runs or undecided: run that build and this "
                  "one alternately for this many seconds at most to decide, instead of "
                  "confirmation runs (0: confirm against the stored runs)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--gpu-calibrations", o.gpu_calibrations,
                  "When CTest gives this test a GPU (RESOURCE_GROUPS gpus:1 and a resource "
                  "specification, `perfgate resources`): gate on DIR/gpu-<id>.json instead of "
                  "the first --device, calibrating that GPU first when the file is missing or "
                  "older than perfgate");
}

// The policy's class and hull band from their options; a typo fails before the program runs.
gate_policy policy_of(const run_options& o) {
  gate_policy policy = o.policy;
  policy.expect_bound = parse_bound(o.expect_bound);
  policy.expect_latency = o.expect_bound == "latency";
  if (!o.hull_species.empty() || o.hull_f) {
    if (o.hull_species.empty() || !o.hull_f) {
      throw usage_error("--hull-species and --hull-f go together: the band needs the class and "
                        "its operator complexity");
    }
    (void)hull::parse_species(o.hull_species);
    policy.hull = hull_policy{o.hull_species, *o.hull_f, o.hull_tolerance, {}};
    policy.hull->assumed.element_bytes = o.hull_element_bytes;
  }
  return policy;
}

// Every argument that can be checked without the program, checked before it runs (a suite of
// 30 s was run, then "unknown device"): the kernels' regex, --idg with --latencies, and every
// device but a local device file that is not there yet (a GPU calibration that CTest's GPU
// or the run itself makes: a collector that cannot work here skips, 77, before its absence
// is an error).
void check_before_the_run(const run_options& o) {
  (void)kernels_selector(o.collection.kernels);
  if (o.idg_files.empty() != o.latencies_file.empty()) {
    throw usage_error("--idg and --latencies go together: the pipeline model needs the "
                      "kernel's graph and the device's latencies");
  }
  for (std::size_t i = 0; i < o.devices.size(); ++i) {
    std::error_code ec;
    const bool local_file_to_come =
        i == 0 && (!o.gpu_calibrations.empty() || (o.devices[i].find('/') != std::string::npos &&
                                                   !std::filesystem::exists(o.devices[i], ec)));
    if (!local_file_to_come) {
      (void)resolve_device(o.devices[i]);
    }
  }
}

int run_and_gate(run_options& o, const std::vector<std::string>& argv) {
  const auto begun = std::chrono::steady_clock::now();
  check_before_the_run(o);
  const gate_policy policy = policy_of(o);
  gate_measurements measured;
  if (!o.baseline_file.empty()) {
    measured.base = baseline_from_json(read_text_file(o.baseline_file), o.baseline_file);
    if (measured.base->build && o.ab_budget_s > 0) { // a bad copy fails before any run
      (void)decide::stored_build_of(o.baseline_file, *measured.base->build);
    }
  }
  pin_to_ctest_gpu(o.gpu_calibrations, o.devices, argv);
  // Collect first: a collector that cannot work here skips (77) before a missing local
  // device file (a GPU calibration that found no GPU) is an error.
  const profile p = collect(o);
  print_tool_errors(p);
  const std::vector<device> devices = resolve_devices(o.devices);
  if (const int missing = check_gated_kernels_present(p, o.collection.kernels); missing != 0) {
    return missing;
  }
  if (!o.idg_files.empty()) {
    auto estimates = pipeline_estimates(o.idg_files, o.latencies_file, p, devices.front());
    for (const auto& why : estimates.left_out) {
      std::cerr << "perfgate: " << why << "\n";
    }
    measured.pipeline = std::move(estimates.by_kernel);
  }
  report r = predict_report(p, devices, o.collection.kernels, true);
  r.meta = make_run_meta("run", argv);
  if (o.collection.collector != "profile") { // this machine's hardware against the baseline's
    measured.hardware =
        detail::check_hardware(r, detail::identify_local_device(devices.front(), o.devices.front()),
                               measured.base, o.ab_budget_s > 0);
    if (measured.hardware) {
      std::cerr << "perfgate: " << detail::hardware_notice(*measured.hardware) << "\n";
    }
  }
  apply_gate(r, policy, measured);
  const decide::further_runs further{o.collection, begun, o.confirm_budget_s, o.ab_budget_s,
                                     o.baseline_file};
  decide::confirm(r, policy, measured, further, devices);
  decide::decide_by_stored_build(r, policy, measured, further, devices);
  print_summary(r);
  if (!o.report_file.empty()) {
    write_report_files(r, o.report_file, true);
  }
  return static_cast<int>(gate_exit_status(r));
}
} // namespace

action add_run_command(CLI::App& app, const std::vector<std::string>& argv,
                       const std::vector<std::string>& program) {
  auto o = std::make_shared<run_options>();
  auto* cmd = app.add_subcommand(
      "run", "Run a program, profile its kernels, predict their bounds and gate on them");
  add_device_option(cmd, o->devices, "the program runs on, the others are predicted for too");
  add_runs_options(cmd, *o);
  add_criteria_options(cmd, *o);
  cmd->add_option("--report", o->report_file,
                  "Write the " + std::string(report_schema) + " JSON here (atomically)");
  cmd->footer("After --: PROGRAM [ARGS...], the program to run, its arguments passed untouched; "
              "--timeout holds all its runs together");
  return [o, argv, program]() {
    o->collection.program = program;
    return run_and_gate(*o, argv);
  };
}

} // namespace perfgate::cli
