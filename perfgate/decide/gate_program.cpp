// SPDX-License-Identifier: Apache-2.0
#include "decide/gate_program.hpp"

#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>
#include <perfgate/pipeline.hpp>

#include "collectors/collectors.hpp"
#include "collectors/device_identity_probe.hpp"
#include "decide/decide.hpp"
#include "decide/measure_again.hpp"
#include "gate/hardware_check.hpp"
#include "importers/csv_reader.hpp"
#include "report/finding_text.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <regex>

namespace perfgate::decide {

namespace {

// The kernels' regex compiled: usage_error("kernel_regex") when it is not one.
std::regex kernels_selector(const std::string& regex) {
  try {
    return std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw usage_error("kernel_regex",
                      "'" + regex + "' is not a valid regular expression: " + e.what());
  }
}

// The first run: the program under its collector, or a recorded profile (the program, when
// given, run plainly first: it writes the profile).
profile first_run(const program_gate& g) {
  const program_collection& c = g.collection;
  check_flush_l2(c.flush_l2, c.collector);
  if (c.target_ci && c.collector == "profile") {
    throw usage_error("--target-ci: adaptive repetitions need a Google Benchmark binary to "
                      "repeat (the gbench collector), not a recorded profile");
  }
  if (c.collector != "profile") {
    return collect_program(c);
  }
  if (g.profile_file.empty()) {
    throw usage_error("--collector profile needs --profile FILE");
  }
  if (!c.program.empty()) {
    detail::collect_request request;
    request.program = c.program;
    request.timeout_s = c.timeout_s;
    detail::run_plain(request);
  }
  return import_profile(g.profile_file);
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

// A kernel the user gates must be in the profile: one the profiler failed on is target_error
// (exit 3) with the profiler's words; a regex that matches nothing is why nothing was gated
// (a gate failure). Empty when all is well.
std::string check_gated_kernels_present(const profile& p, const std::string& regex) {
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
    return "--kernels '" + regex + "' matches no kernel of the profile " + p.source_file + " (" +
           std::to_string(p.kernels.size()) + " kernel" + (p.kernels.size() == 1 ? "" : "s") +
           " in it)" + detail::quote_tool_errors(p.tool_errors);
  }
  return "";
}

// The baseline and its kept build, read before any run: a bad copy fails first.
std::optional<baseline> read_baseline(const program_gate& g) {
  if (g.baseline_file.empty()) {
    return std::nullopt;
  }
  auto b = baseline_from_json(read_text_file(g.baseline_file), g.baseline_file);
  if (b.build && g.ab_budget_s > 0) {
    (void)stored_build_of(g.baseline_file, *b.build);
  }
  return b;
}

// Every kernel predicted on every device and the gate asked: the hardware this run measured on
// set beside the baseline's (a live run's), then the verdicts.
report judged_report(const profile& p, const std::vector<device>& devices, const program_gate& g,
                     const gate_policy& policy, const run_meta& meta,
                     gate_measurements& measured) {
  report r = predict_report(p, devices, g.collection.kernels, true);
  r.meta = meta;
  if (g.collection.collector != "profile") { // this machine's hardware against the baseline's
    measured.hardware =
        detail::check_hardware(r, detail::identify_local_device(devices.front(), g.devices.front()),
                               measured.base, g.ab_budget_s > 0);
  }
  (void)ask_gate(r, policy, measured);
  return r;
}

// A kernel beat a roof of the local device: where that device is this machine's calibration,
// measured again now and the report judged against the higher peaks (measure_again.hpp).
void measure_beaten_roofs_again(report& r, const profile& p, std::vector<device>& devices,
                                const program_gate& g, const gate_policy& policy,
                                const run_meta& meta, gate_measurements& measured) {
  auto beaten = roofs_beaten(r);
  if (beaten.empty() || !g.measure_again) {
    return;
  }
  const auto begun = std::chrono::steady_clock::now();
  std::optional<device> again = g.measure_again(devices.front(), g.devices.front());
  if (!again) {
    return; // no calibration of this machine: the failure stands as found
  }
  const std::vector<std::string> names = kernels_beating_roof(r);
  measured.roofs_measured_again = std::move(beaten);
  devices.front() = std::move(*again);
  report rejudged = judged_report(p, devices, g, policy, meta, measured);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begun;
  std::cerr << "perfgate: " << devices.front().id << " measured again ("
            << detail::fixed(took.count(), 1) << " s), each peak the higher of both runs', for the "
            << (names.size() == 1 ? "kernel" : "kernels") << " that beat its roof:\n";
  for (const auto& line : measured_again_lines(r, rejudged, names)) {
    std::cerr << "  " << line << "\n";
  }
  r = std::move(rejudged);
}

} // namespace

void check_program_gate(const program_gate& g, bool local_file_to_come) {
  (void)kernels_selector(g.collection.kernels);
  if (g.idg_files.empty() != g.latencies_file.empty()) {
    throw usage_error("--idg and --latencies go together: the pipeline model needs the "
                      "kernel's graph and the device's latencies");
  }
  for (std::size_t i = 0; i < g.devices.size(); ++i) {
    std::error_code ec;
    const bool to_come = i == 0 && (local_file_to_come ||
                                    (g.devices[i].find('/') != std::string::npos &&
                                     !std::filesystem::exists(g.devices[i], ec)));
    if (!to_come) {
      (void)resolve_device(g.devices[i]);
    }
  }
  (void)read_baseline(g);
}

gated_program gate_program(const program_gate& g, const gate_policy& policy, const run_meta& meta,
                           const std::function<void(const profile&)>& collected) {
  const auto begun = std::chrono::steady_clock::now();
  gate_measurements measured;
  measured.base = read_baseline(g);
  // Collect first: a collector that cannot work here skips (77) before a missing local
  // device file (a GPU calibration that found no GPU) is an error.
  const profile p = first_run(g);
  collected(p);
  std::vector<device> devices;
  for (const auto& d : g.devices) {
    devices.push_back(resolve_device(d));
  }
  if (auto none = check_gated_kernels_present(p, g.collection.kernels); !none.empty()) {
    return {std::nullopt, std::move(none)};
  }
  if (!g.idg_files.empty()) {
    auto estimates = pipeline_estimates(g.idg_files, g.latencies_file, p, devices.front());
    for (const auto& why : estimates.left_out) {
      std::cerr << "perfgate: " << why << "\n";
    }
    measured.pipeline = std::move(estimates.by_kernel);
  }
  report r = judged_report(p, devices, g, policy, meta, measured);
  if (measured.hardware) {
    std::cerr << "perfgate: " << detail::hardware_notice(*measured.hardware) << "\n";
  }
  measure_beaten_roofs_again(r, p, devices, g, policy, meta, measured);
  const further_runs further{g.collection, begun, g.confirm_budget_s, g.ab_budget_s,
                             g.baseline_file};
  confirm(r, policy, measured, further);
  decide_by_stored_build(r, policy, measured, further, devices);
  return {std::move(r), ""};
}

} // namespace perfgate::decide
