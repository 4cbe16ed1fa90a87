// SPDX-License-Identifier: Apache-2.0
// perfgate ab --base BIN --head BIN --device DEV... [-- ARGS...]: the base build and the head
// build of one program measured alternately on this machine in one session (ABBA), and the
// head's run medians judged against the base's by the gate (docs/statistics.md).
// What moves a shared runner over minutes (its neighbours, its clocks) moves both sides
// alike, so it cancels where a stored baseline from another hour cannot.
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/run_meta.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "cli/shared.hpp"
#include "decide/ab_session.hpp"
#include "report/writers/suite_summary.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

namespace perfgate::cli {

action add_ab_command(CLI::App& app, const std::vector<std::string>& argv,
                      const std::vector<std::string>& program) {
  auto o = std::make_shared<decide::ab_session>();
  auto policy = std::make_shared<gate_policy>();
  auto report_file = std::make_shared<std::string>();
  auto device_ids = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand(
      "ab", "Run a base build and a head build of a program alternately on this machine and "
            "gate the head against the base (an interleaved A/B comparison)");
  cmd->add_option("--base", o->base_binary, "The base build's executable")->required();
  cmd->add_option("--head", o->head_binary, "The head build's executable")->required();
  add_device_option(cmd, *device_ids, "both builds run on");
  add_collection_options(cmd, o->collection, false);
  add_change_options(cmd, policy->max_efficiency_drop, policy->confidence);
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
  cmd->add_option("--report", *report_file,
                  "Write the head's " + std::string(report_schema) +
                      " JSON, judged against the base, here");
  cmd->footer("After --: ARGS..., the arguments both builds are run with; --timeout holds "
              "each run of either build");
  return [o, policy, report_file, device_ids, argv, program]() {
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
    const std::vector<device> devices = resolve_devices(*device_ids);
    const run_meta meta = make_run_meta("ab", argv);
    const report judged =
        decide::judge_ab_outcome(decide::run_ab_session(*o, *policy, devices, meta), *policy);
    std::cout << "perfgate ab: " << judged.kernels.size() << " kernel"
              << (judged.kernels.size() == 1 ? "" : "s") << ", head against base on "
              << judged.devices.front().id << "\n"
              << (judged.suite ? detail::suite_line(*judged.suite) + "\n" : "");
    print_kernel_verdicts(judged, false);
    if (!report_file->empty()) {
      write_report_files(judged, *report_file, false);
    }
    return static_cast<int>(gate_exit_status(judged));
  };
}

} // namespace perfgate::cli
