// SPDX-License-Identifier: Apache-2.0
// perfgate baseline accept REPORT... -o FILE [--keep-build EXE]: what a later run is compared
// with, and the build that measured it.
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>

#include "cli/commands.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

namespace perfgate::cli {

action add_baseline_command(CLI::App& app) {
  struct options {
    std::vector<std::string> report_files;
    std::string output;
    std::string keep_build;
  };
  auto o = std::make_shared<options>();
  auto* cmd =
      app.add_subcommand("baseline", "Record a report as the baseline later runs compare with");
  cmd->require_subcommand(1);
  auto* accept = cmd->add_subcommand(
      "accept", "Keep what a later comparison needs: per kernel, its class on every device, its "
                "efficiency on the local device and every sample's, by run");
  accept
      ->add_option("reports", o->report_files,
                   "perfgate-report files: one run, or several runs of the same tests (their "
                   "spread is what a later run is allowed)")
      ->required();
  accept->add_option("-o,--output", o->output, "perfgate-baseline/2 file to write (atomically)")
      ->required();
  accept->add_option("--keep-build", o->keep_build,
                     "The executable the reports measured: a copy is kept beside the baseline "
                     "(OUTPUT's name with .build/), so a later run slower than the stored runs "
                     "or undecided runs it alternately with itself to decide (run --ab-budget)");
  return [o]() {
    std::vector<report> runs;
    for (const auto& f : o->report_files) {
      runs.push_back(report_from_json(read_text_file(f), f));
    }
    std::string source = o->report_files.front();
    if (o->report_files.size() > 1) {
      source += " and " + std::to_string(o->report_files.size() - 1) + " more run" +
                (o->report_files.size() > 2 ? "s" : "");
    }
    baseline b = baseline_from_reports(runs, source);
    if (!o->keep_build.empty()) {
      // Beside the baseline, so the two travel together (a cache, an artifact, a commit).
      const std::filesystem::path out(o->output);
      const std::filesystem::path relative = std::filesystem::path(out.stem().string() + ".build") /
                                             std::filesystem::path(o->keep_build).filename();
      const std::filesystem::path copy = out.parent_path() / relative;
      copy_executable(o->keep_build, copy);
      b.build = stored_build{relative.string(), file_fnv1a64(copy)};
      std::cerr << "perfgate: kept " << o->keep_build << " as " << copy.string() << "\n";
    }
    emit(baseline_to_json(b), o->output);
    return 0;
  };
}

} // namespace perfgate::cli
