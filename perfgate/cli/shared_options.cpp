// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>

#include "cli/shared.hpp"

#include <cmath>

namespace perfgate::cli {

CLI::Validator finite_seconds() {
  return CLI::Validator(
      [](const std::string& text) {
        // CLI::PositiveNumber lets nan and inf through.
        double v = 0;
        const bool number = CLI::detail::lexical_cast(text, v);
        return number && std::isfinite(v) && v > 0
                   ? std::string()
                   : "expected a finite number of seconds > 0, got '" + text + "'";
      },
      "SECONDS > 0");
}

void add_collection_options(CLI::App* cmd, decide::program_collection& c, bool recorded_profile) {
  std::vector<std::string> names(decide::program_collectors.begin(),
                                 decide::program_collectors.end());
  if (recorded_profile) {
    names.emplace_back("profile");
  }
  cmd->add_option("--collector", c.collector,
                  std::string("How kernels are measured: auto (by what the program is and the "
                              "machine has: nvbench, gbench, cupti for CUDA, rocprof for HIP; "
                              "else it says so), cupti, ncu, rocprof, gbench, nvbench (an nvbench "
                              "program: its times, CUPTI's counters)") +
                      (recorded_profile ? ", or profile (a recorded --profile)" : ""))
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  cmd->add_option("--kernels", c.kernels, "Only kernels / benchmarks matching this regex");
  cmd->add_option("--repetitions", c.repetitions,
                  "gbench: repetitions per benchmark and run, sharing the time one plain run "
                  "measures a benchmark for (its --benchmark_min_time, else 0.5 s)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--timeout", c.timeout_s,
                  "Kill the program after this many seconds (exit 3)")
      ->check(finite_seconds());
  cmd->add_flag("--keep-warm-up", c.keep_warm_up,
                "cupti, ncu, rocprof: keep each kernel's first launch (left out by default when "
                "a kernel is launched more than once: its warm-up)");
}

void add_change_options(CLI::App* cmd, double& max_efficiency_drop, double& confidence) {
  // Below 1: the allowed time ratio is 1 / (1 - drop), which a drop of 1 makes infinite.
  cmd->add_option("--max-efficiency-drop", max_efficiency_drop,
                  "Allowed relative efficiency drop on the local device against the baseline, "
                  "the base build or the base report (below 1)")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  cmd->add_option("--confidence", confidence,
                  "A drop beyond --max-efficiency-drop fails only with this confidence (a "
                  "statistical verdict needs at least 5 samples a side)")
      ->check(CLI::Range(0.5, 0.9999))
      ->capture_default_str();
}

void add_run_spread_option(CLI::App* cmd, double& run_spread) {
  cmd->add_option("--run-spread", run_spread,
                  "How far runs of unchanged code spread on this runner (the log standard "
                  "deviation of their medians, 0.05: about 5%; scripts/bench-drift.py measures "
                  "it): a comparison with one stored run carries it, one with several no less "
                  "than theirs")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

void add_device_option(CLI::App* cmd, std::vector<std::string>& ids, const std::string& what) {
  cmd->add_option("--device", ids,
                  "Device (built-in id or perfgate-device/1 file); the first is the local device " +
                      what)
      ->required();
}

std::vector<device> resolve_devices(const std::vector<std::string>& ids) {
  std::vector<device> devices;
  for (const auto& d : ids) {
    devices.push_back(resolve_device(d));
  }
  return devices;
}

} // namespace perfgate::cli
