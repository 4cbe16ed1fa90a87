// SPDX-License-Identifier: Apache-2.0
#include "gate/hardware_check.hpp"

#include <perfgate/statistics.hpp>

#include "gate/efficiency_change.hpp"

#include <algorithm>
#include <vector>

namespace perfgate::detail {

std::vector<const device_identity*> runners_of(const baseline& base, const std::string& device,
                                               std::string_view host) {
  // baseline::find's order: a run's host finds the entries renamed apart for it first.
  for (const std::string& id :
       {host.empty() ? std::string() : device_id_on_host(device, host), device}) {
    std::vector<const device_identity*> out;
    for (const auto& stored : base.identities) {
      if (!id.empty() && stored.device == id) {
        out.push_back(&stored);
      }
    }
    if (!out.empty()) {
      return out;
    }
  }
  return {};
}

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
  if (!base) {
    return std::nullopt;
  }
  const auto runners = runners_of(*base, now.device, r.meta.host);
  if (runners.empty()) {
    return std::nullopt;
  }
  // One of the runners this run's entries came from: the same hardware. Else the nearest (the
  // fewest differences that matter, the first on ties) is named.
  const device_identity* nearest = nullptr;
  std::vector<identity_difference> nearest_differences;
  std::size_t fewest = 0;
  for (const auto* stored : runners) {
    // Its device is the run's by construction (the host's renamed id names the same GPU).
    device_identity same_id = *stored;
    same_id.device = now.device;
    auto differences = compare_identities(same_id, now, clock_tolerance);
    const auto matter = static_cast<std::size_t>(
        std::count_if(differences.begin(), differences.end(),
                      [](const identity_difference& d) { return d.matters; }));
    if (matter == 0) {
      return std::nullopt;
    }
    if (nearest == nullptr || matter < fewest) {
      nearest = stored;
      nearest_differences = std::move(differences);
      fewest = matter;
    }
  }
  hardware_change change{*nearest, std::move(now), std::move(nearest_differences),
                         kept_build_decides && base->build ? "ab" : "warn"};
  change.runners = runners.size();
  return change;
}

} // namespace perfgate::detail
