// SPDX-License-Identifier: Apache-2.0
#include "gate/hardware_check.hpp"

#include <perfgate/statistics.hpp>

#include "gate/efficiency_change.hpp"

#include <vector>

namespace perfgate::detail {

std::optional<hardware_change> check_hardware(report& r, device_identity now,
                                              const std::optional<baseline>& base,
                                              bool kept_build_decides) {
  if (!now.clock_mhz) {
    std::vector<double> clocks;
    for (const auto& k : r.kernels) {
      if (k.measured && k.measured->sm_clock_mhz) {
        clocks.push_back(*k.measured->sm_clock_mhz);
      }
    }
    if (!clocks.empty()) {
      now.clock_mhz = stats::median(clocks);
    }
  }
  r.identity = now;
  // The identity is of the runs on its own local device: a run on another device id is judged
  // against that device's entries (another runner's, in a baseline of several), if any.
  if (!base || !base->identity || base->identity->device != now.device) {
    return std::nullopt;
  }
  auto differences = compare_identities(*base->identity, now, clock_tolerance);
  if (!hardware_changed(differences)) {
    return std::nullopt;
  }
  return hardware_change{*base->identity, std::move(now), std::move(differences),
                         kept_build_decides && base->build ? "ab" : "warn"};
}

std::string differences_text(const hardware_change& h) {
  std::string fields;
  for (const auto& d : h.differences) {
    fields += (fields.empty() ? "" : ", ") + d.field + " " + d.stored + " -> " + d.now +
              (d.matters ? "" : " (noted only)");
  }
  return fields;
}

std::string hardware_notice(const hardware_change& h) {
  return "the baseline was measured on " + describe(h.stored) + ", this run is on " +
         describe(h.now) + " (" + differences_text(h) + "): " +
         (h.action == "ab" ? "its stored runs are not compared; its kept build and this one "
                             "run alternately here and decide every kernel"
                           : "no kept build to measure here, so the stored runs are compared "
                             "and every verdict against them warns");
}

} // namespace perfgate::detail
