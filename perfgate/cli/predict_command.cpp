// SPDX-License-Identifier: Apache-2.0
// perfgate predict --profile FILE [--kernel REGEX] --device ID|FILE... [--at-measured-clock]
//                  [--format F] [-o FILE]
#include <perfgate/device.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "cli/commands.hpp"

#include <memory>

namespace perfgate::cli {

action add_predict_command(CLI::App& app, const std::vector<std::string>& argv) {
  struct options {
    std::string profile_file;
    std::string kernel_regex;
    std::vector<std::string> devices;
    std::string format = "text";
    std::string output;
    bool at_measured_clock = false;
  };
  auto opt = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "predict", "Predict the performance bound of every kernel of a profile on each device");
  cmd->add_option("--profile", opt->profile_file,
                  "Profile to read: nvprof CSV, Nsight Compute CSV (raw or details page) or "
                  "perfgate-profile/1 JSON; the format is detected from the content")
      ->required();
  cmd->add_option("--kernel", opt->kernel_regex,
                  "Only kernels whose full name matches this regular expression (ECMAScript, "
                  "matched anywhere in the name)");
  cmd->add_option("--device", opt->devices,
                  "Device to predict for: a built-in id (`perfgate devices`) or a "
                  "perfgate-device/1 file; repeat for several")
      ->required();
  cmd->add_option("--format", opt->format, report_writer_help())->capture_default_str();
  cmd->add_flag("--at-measured-clock", opt->at_measured_clock,
                "The profile was taken on the first --device: hold each kernel there to compute "
                "peaks scaled to the SM clock it ran at (Nsight Compute locks it at base clock)");
  cmd->add_option("-o,--output", opt->output, "Write to this file (atomically) instead of stdout");
  return [opt, argv]() {
    const report_writer& writer = find_report_writer(opt->format);
    std::vector<device> devices;
    for (const auto& d : opt->devices) {
      devices.push_back(resolve_device(d));
    }
    const profile p = import_profile(opt->profile_file);
    print_tool_errors(p);
    report r = predict_report(p, devices, opt->kernel_regex, opt->at_measured_clock);
    r.meta = make_run_meta("predict", argv);
    emit(writer.render(r, {}), opt->output);
    return 0;
  };
}

} // namespace perfgate::cli
