// SPDX-License-Identifier: Apache-2.0
// perfgate predict --profile FILE [--kernel REGEX] --device ID|FILE... [--at-measured-clock]
//                  [--measured-on SRC] [--device-clock MHZ] [--format F] [-o FILE]
#include <perfgate/device.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "cli/commands.hpp"

#include <memory>
#include <optional>

namespace perfgate::cli {

action add_predict_command(CLI::App& app, const std::vector<std::string>& argv) {
  struct options {
    std::string profile_file;
    std::string kernel_regex;
    std::vector<std::string> devices;
    std::string format = "text";
    std::string output;
    bool at_measured_clock = false;
    std::string measured_on;
    std::optional<double> device_clock_mhz;
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
  cmd->add_option("--measured-on", opt->measured_on,
                  "The device the profile's times were measured on (a built-in id or a "
                  "perfgate-device/1 file): each --device's predicted time is then that "
                  "measurement scaled by what limits the kernel (predictor measured-scaling, "
                  "docs/model.md); kernels without a time keep the model's prediction");
  cmd->add_option("--device-clock", opt->device_clock_mhz,
                  "The SM clock (MHz) the --device GPUs will run at, when it is not the one their "
                  "peaks hold at: a clock locked with nvidia-smi -lgc or by a profiler (ncu locks "
                  "it at base). Their compute peaks are scaled to it")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", opt->output, "Write to this file (atomically) instead of stdout");
  return [opt, argv]() {
    const report_writer& writer = find_report_writer(opt->format);
    std::vector<device> devices;
    for (const auto& d : opt->devices) {
      devices.push_back(opt->device_clock_mhz ? at_sm_clock(resolve_device(d), *opt->device_clock_mhz)
                                              : resolve_device(d));
    }
    std::optional<device> measured_on;
    if (!opt->measured_on.empty()) {
      measured_on = resolve_device(opt->measured_on);
    }
    const profile p = import_profile(opt->profile_file);
    print_tool_errors(p);
    report r = predict_report(p, devices, opt->kernel_regex, opt->at_measured_clock,
                              measured_on ? &*measured_on : nullptr);
    r.meta = make_run_meta("predict", argv);
    emit(writer.render(r, {}), opt->output);
    return 0;
  };
}

} // namespace perfgate::cli
