// SPDX-License-Identifier: Apache-2.0
// perfgate ab --base BIN --head BIN --device DEV... [-- ARGS...]: the base build and the head
// build of one program measured alternately on this machine in one session (ABBA), and the
// head's run medians judged against the base's (stats::judge_ab, docs/statistics.md).
// What moves a shared runner over minutes (its neighbours, its clocks) moves both sides
// alike, so it cancels where a stored baseline from another hour cannot.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/run_meta.hpp>
#include <perfgate/version.hpp>
#include <perfgate/writers.hpp>

#include "cli/ab_session.hpp"
#include "cli/commands.hpp"
#include "gate/efficiency_change.hpp"
#include "report/writers/suite_summary.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

namespace perfgate::cli {

report judge_ab_outcome(const ab_session& s, const ab_outcome& outcome) {
  report r = outcome.head_first;
  const std::string on = " on " + r.devices.front().id;
  std::vector<stats::kernel_ratio> suite;
  for (auto& k : r.kernels) {
    const auto runs = outcome.runs.find(k.name);
    if (runs == outcome.runs.end()) {
      continue; // skipped or unmeasured: its own verdict says why
    }
    const auto judged = detail::judge_ab_runs(runs->second, s.max_efficiency_drop, s.confidence, on,
                                              "the base build " + s.base_binary);
    k.result.ab = judged.ab;
    if (judged.suite_part) {
      suite.push_back(*judged.suite_part);
    }
    k.result.baseline_efficiency = 1 / stats::median(runs->second.base);
    auto& reasons = k.result.reasons;
    reasons.insert(reasons.begin(), judged.notes.begin(), judged.notes.end());
    reasons.insert(reasons.begin(), judged.warnings.begin(), judged.warnings.end());
    reasons.insert(reasons.begin(), judged.failures.begin(), judged.failures.end());
    if (!judged.failures.empty()) {
      k.result.status = verdict_status::fail;
    } else if (!judged.warnings.empty() && k.result.status != verdict_status::fail) {
      k.result.status = verdict_status::warn;
    }
  }
  if (!suite.empty()) {
    r.suite = stats::summarize_suite(suite, s.confidence);
  }
  return r;
}

namespace {

void print_verdicts(const report& r) {
  std::cout << "perfgate ab: " << r.kernels.size() << " kernel"
            << (r.kernels.size() == 1 ? "" : "s") << ", head against base on "
            << r.devices.front().id << "\n";
  if (r.suite) {
    std::cout << detail::suite_line(*r.suite) << "\n";
  }
  for (const auto& k : r.kernels) {
    std::string status(to_string(k.result.status));
    std::transform(status.begin(), status.end(), status.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    std::cout << "  " << status << "  " << k.name << "\n";
    for (const auto& reason : k.result.reasons) {
      std::cout << "        " << reason << "\n";
    }
  }
}

} // namespace

action add_ab_command(CLI::App& app, const std::vector<std::string>& argv,
                      const std::vector<std::string>& program) {
  auto o = std::make_shared<ab_session>();
  auto report_file = std::make_shared<std::string>();
  auto device_ids = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand(
      "ab", "Run a base build and a head build of a program alternately on this machine and "
            "gate the head against the base (an interleaved A/B comparison)");
  cmd->add_option("--base", o->base_binary, "The base build's executable")->required();
  cmd->add_option("--head", o->head_binary, "The head build's executable")->required();
  cmd->add_option("--device", *device_ids,
                  "Device (built-in id or perfgate-device/1 file); the first is the local device "
                  "both builds run on")
      ->required();
  cmd->add_option("--collector", o->collector,
                  "How kernels are measured: auto (by what the program is and the machine "
                  "has: nvbench, gbench, cupti for CUDA, rocprof for HIP; else it says so), "
                  "cupti, ncu, rocprof, gbench, nvbench")
      ->check(CLI::IsMember({"auto", "cupti", "ncu", "rocprof", "gbench", "nvbench"}))
      ->capture_default_str();
  cmd->add_option("--kernels", o->kernels, "Only kernels / benchmarks matching this regex");
  cmd->add_option("--max-efficiency-drop", o->max_efficiency_drop,
                  "Allowed relative efficiency drop of the head against the base")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  cmd->add_option("--confidence", o->confidence,
                  "A drop beyond --max-efficiency-drop fails only with this confidence")
      ->check(CLI::Range(0.5, 0.9999))
      ->capture_default_str();
  cmd->add_option("--repetitions", o->repetitions, "gbench: repetitions per benchmark and run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--min-rounds", o->min_rounds,
                  "Rounds (a run of each build, the order alternating) before the first verdict")
      ->check(CLI::Range(6, 1000))
      ->capture_default_str();
  cmd->add_option("--max-rounds", o->max_rounds,
                  "Rounds at most: a kernel still undecided then is AMBIGUOUS (a warning)")
      ->check(CLI::Range(6, 1000))
      ->capture_default_str();
  cmd->add_option("--time-budget", o->time_budget_s,
                  "Start no round that would end after this many seconds (the first "
                  "--min-rounds rounds always run)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s,
                  "Kill a run of either build after this many seconds (exit 3)")
      ->check(finite_seconds());
  cmd->add_flag("--keep-warm-up", o->keep_warm_up,
                "cupti, ncu, rocprof: keep each kernel's first launch");
  cmd->add_option("--report", *report_file,
                  "Write the head's " + std::string(report_schema) +
                      " JSON, judged against the base, here");
  cmd->footer("After --: ARGS..., the arguments both builds are run with");
  return [o, report_file, device_ids, argv, program]() {
    o->args = program;
    if (o->max_rounds < o->min_rounds) {
      throw usage_error("--max-rounds " + std::to_string(o->max_rounds) +
                        " is below --min-rounds " + std::to_string(o->min_rounds));
    }
    for (const auto* binary : {&o->base_binary, &o->head_binary}) {
      if (!std::filesystem::exists(*binary)) {
        throw usage_error(*binary + ": no such file (--base and --head name executables)");
      }
    }
    std::vector<device> devices;
    for (const auto& d : *device_ids) {
      devices.push_back(resolve_device(d));
    }
    const run_meta meta = make_run_meta("ab", argv);
    const report judged = judge_ab_outcome(*o, run_ab_session(*o, devices, meta));
    print_verdicts(judged);
    if (!report_file->empty()) {
      const std::filesystem::path path(*report_file);
      create_parent_directories(path);
      write_files_atomically({{path, report_to_json(judged)}});
      std::cout << "perfgate: report " << *report_file << "\n";
    }
    return static_cast<int>(gate_exit_status(judged));
  };
}

} // namespace perfgate::cli
