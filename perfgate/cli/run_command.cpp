// SPDX-License-Identifier: Apache-2.0
// perfgate run [gate options] -- PROGRAM [ARGS...]: the options, then decide::gate_program (the
// program measured, predicted, gated, and run again where a verdict is undecided), then the
// verdicts printed and the report written.
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "cli/shared.hpp"
#include "decide/gate_program.hpp"
#include "report/writers/suite_summary.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <iostream>
#include <memory>

namespace perfgate::cli {

namespace {
struct run_options {
  decide::program_gate gate; ///< the program, its devices, baseline and further runs
  gate_policy policy;        ///< the thresholds given as options; the rest from the options below
  std::string expect_bound;
  std::string hull_species;
  std::optional<double> hull_f;
  double hull_tolerance = 0.25;
  double hull_element_bytes = 4;
  std::string report_file;
  std::string gpu_calibrations;
};

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
  cmd->add_option("--baseline", o.gate.baseline_file,
                  "Fail on a class flip or an efficiency drop against this baseline or report");
  add_change_options(cmd, o.policy.max_efficiency_drop, o.policy.confidence);
  add_run_spread_option(cmd, o.policy.run_spread);
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
  cmd->add_option("--idg", o.gate.idg_files,
                  "A kernel's instruction dependence graph (perfgate pipeline idg): the pipeline "
                  "model simulates its launch on the local device; where it is latency-bound, "
                  "that is its class and MIN_EFFICIENCY applies against the model's time");
  cmd->add_option("--latencies", o.gate.latencies_file,
                  "With --idg: the local device's latencies (perfgate calibrate --latencies, "
                  "perfgate pipeline fit)");
}

// How the program is run, beyond the options `perfgate ab` shares, and the runs that settle
// an undecided verdict.
void add_runs_options(CLI::App* cmd, run_options& o) {
  add_collection_options(cmd, o.gate.collection, true);
  cmd->add_option("--profile", o.gate.profile_file, "With --collector profile: the recorded profile");
  cmd->add_option("--target-ci", o.gate.collection.target_ci,
                  "gbench: repeat in rounds of --repetitions (at least 6) until each median's "
                  "95% interval lies within +- this fraction of it (0.01: 1%)")
      ->check(CLI::Range(1e-4, 1.0));
  cmd->add_option("--time-budget", o.gate.collection.time_budget_s,
                  "gbench with --target-ci: start no round that would end after this many "
                  "seconds")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--counter-cache", o.gate.collection.counter_cache_dir,
                  "nvbench: keep each state's counter run in this folder and reuse it while the "
                  "program's files are unchanged (counters repeat, times do not; "
                  "add_perf_prediction gives its build tree's)");
  cmd->add_flag("--flush-l2", o.gate.collection.flush_l2,
                "cupti: flush the GPU's L2 before every launch of the timing run (cold-cache "
                "times; ncu does so by default)");
  cmd->add_option("--confirm-budget", o.gate.confirm_budget_s,
                  "With --baseline: while a kernel's verdict is AMBIGUOUS, run the program "
                  "again (a fresh process, only that benchmark for gbench) and judge all runs "
                  "by the floor rule, starting no run that would end after this many seconds; "
                  "0 turns it off. A recorded profile is never run again")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--ab-budget", o.gate.ab_budget_s,
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

int run_and_gate(run_options& o, const std::vector<std::string>& argv) {
  // Every argument is checked before the program (or a GPU calibration) runs.
  decide::check_program_gate(o.gate, !o.gpu_calibrations.empty());
  const gate_policy policy = policy_of(o);
  pin_to_ctest_gpu(o.gpu_calibrations, o.gate.devices, argv);
  o.gate.measure_again = measure_local_cpu_again;
  const auto gated = decide::gate_program(o.gate, policy, make_run_meta("run", argv),
                                          [](const profile& p) { print_tool_errors(p); });
  if (!gated.judged) {
    std::cout << "perfgate: FAIL: " << gated.nothing_gated << "\n";
    return static_cast<int>(exit_status::gate_failure);
  }
  const report& r = *gated.judged;
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
  add_device_option(cmd, o->gate.devices, "the program runs on, the others are predicted for too");
  add_runs_options(cmd, *o);
  add_criteria_options(cmd, *o);
  cmd->add_option("--report", o->report_file,
                  "Write the " + std::string(report_schema) + " JSON here (atomically)");
  cmd->footer("After --: PROGRAM [ARGS...], the program to run, its arguments passed untouched; "
              "--timeout holds all its runs together");
  return [o, argv, program]() {
    o->gate.collection.program = program;
    return run_and_gate(*o, argv);
  };
}

} // namespace perfgate::cli
