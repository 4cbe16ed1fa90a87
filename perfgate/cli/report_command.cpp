// SPDX-License-Identifier: Apache-2.0
// perfgate report | compare | merge: reading reports back for people and for CI.
#include <perfgate/compare.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>
#include <perfgate/writers.hpp>

#include "cli/commands.hpp"
#include "cli/shared.hpp"

#include <memory>
#include <regex>

namespace perfgate::cli {

namespace {
report load_report(const std::string& file) { return report_from_json(read_text_file(file), file); }
} // namespace

action add_report_command(CLI::App& app) {
  struct options {
    std::string file;
    std::string format = "md";
    std::string chart = "roofline";
    std::string device;
    std::string kernel;
    std::string output;
  };
  auto o = std::make_shared<options>();
  auto* cmd =
      app.add_subcommand("report", "Render a " + std::string(report_schema) + " file for people");
  cmd->add_option("report", o->file, std::string(report_schema) + " file (or /1)")->required();
  cmd->add_option("--format", o->format, report_writer_help())->capture_default_str();
  cmd->add_option("--chart", o->chart,
                  "svg: roofline (one device, every kernel) or quadrant (one kernel, every device)")
      ->check(CLI::IsMember({"roofline", "quadrant"}))
      ->capture_default_str();
  cmd->add_option("--device", o->device, "svg roofline: the device id (default: the first)");
  cmd->add_option("--kernel", o->kernel,
                  "svg quadrant: the first kernel matching this regex (default: the first)");
  cmd->add_option("-o,--output", o->output, "Write here (atomically) instead of stdout");
  return [o]() {
    const report_writer& writer = find_report_writer(o->format); // before reading: fail fast
    const report r = load_report(o->file);
    writer_options options;
    if (o->chart == "roofline" && !o->device.empty()) {
      const device* d = r.find_device(o->device);
      if (d == nullptr) {
        throw usage_error("--device " + o->device + ": not a device of " + o->file);
      }
      options.device_index = static_cast<std::size_t>(d - r.devices.data());
    }
    if (o->chart == "quadrant") {
      options.chart = writer_options::chart_kind::quadrant;
      if (!o->kernel.empty()) {
        const std::regex re(o->kernel);
        std::size_t& index = options.kernel_index;
        while (index < r.kernels.size() && !std::regex_search(r.kernels[index].name, re)) {
          ++index;
        }
        if (index == r.kernels.size()) {
          throw usage_error("--kernel '" + o->kernel + "' matches no kernel of " + o->file);
        }
      }
    }
    emit(writer.render(r, options), o->output);
    return 0;
  };
}

action add_compare_command(CLI::App& app) {
  struct options {
    std::string base, head;
    std::string format = "md";
    compare_policy policy;
    std::string output;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare two reports: efficiency, class and counter changes; exit 1 on a "
                 "regression");
  cmd->add_option("base", o->base, "The report before (e.g. of the main branch)")->required();
  cmd->add_option("head", o->head, "The report after (e.g. of the pull request)")->required();
  cmd->add_option("--format", o->format, "md or json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  add_change_options(cmd, o->policy.max_efficiency_drop, o->policy.confidence);
  add_run_spread_option(cmd, o->policy.run_spread);
  cmd->add_option("--max-work-increase", o->policy.max_work_increase,
                  "Allowed relative growth of W_comp or W_traf")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Write here (atomically) instead of stdout");
  return [o]() {
    const comparison c = compare_reports(load_report(o->base), load_report(o->head), o->policy);
    emit(o->format == "json" ? comparison_to_json(c) : comparison_to_markdown(c), o->output);
    return static_cast<int>(c.failed() ? exit_status::gate_failure : exit_status::pass);
  };
}

action add_merge_command(CLI::App& app, const std::vector<std::string>& argv) {
  struct options {
    std::vector<std::string> files;
    std::string output;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "merge", "Merge reports of several runners or tests into one, keeping where each came from");
  cmd->add_option("reports", o->files, std::string(report_schema) + " files (or /1)")->required();
  cmd->add_option("-o,--output", o->output, "The merged report (written atomically)")->required();
  return [o, argv]() {
    std::vector<report> parts;
    for (const auto& f : o->files) {
      parts.push_back(load_report(f));
    }
    report merged = merge_reports(parts, o->files);
    merged.meta = make_run_meta("merge", argv);
    emit(report_to_json(merged), o->output);
    return 0;
  };
}

} // namespace perfgate::cli
