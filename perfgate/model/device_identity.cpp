// SPDX-License-Identifier: Apache-2.0
#include <perfgate/device_identity.hpp>

#include "util/number_format.hpp"

#include <algorithm>
#include <cmath>

namespace perfgate {

std::vector<identity_difference> compare_identities(const device_identity& stored,
                                                    const device_identity& now, double tolerance) {
  std::vector<identity_difference> out;
  const auto text = [&](const char* field, const std::string& a, const std::string& b,
                        bool matters) {
    if (!a.empty() && !b.empty() && a != b) {
      out.push_back({field, a, b, matters});
    }
  };
  text("kind", stored.kind, now.kind, true);
  text("device", stored.device, now.device, true);
  text("name", stored.name, now.name, true);
  text("uuid", stored.uuid, now.uuid, true); // the same model's cards differ (up to 38%)
  text("driver", stored.driver, now.driver, false);
  if (stored.clock_mhz && now.clock_mhz && *stored.clock_mhz > 0 &&
      std::fabs(*now.clock_mhz / *stored.clock_mhz - 1) > tolerance) {
    out.push_back(
        {"clock_mhz", detail::fixed(*stored.clock_mhz, 0), detail::fixed(*now.clock_mhz, 0), true});
  }
  text("calibration", stored.calibration_fnv1a64, now.calibration_fnv1a64, true);
  return out;
}

bool hardware_changed(const std::vector<identity_difference>& differences) {
  return std::any_of(differences.begin(), differences.end(),
                     [](const identity_difference& d) { return d.matters; });
}

std::string describe(const device_identity& id) {
  std::string details = id.device;
  const auto add = [&](const std::string& s) {
    if (!s.empty()) {
      details += (details.empty() ? "" : ", ") + s;
    }
  };
  add(id.uuid);
  add(id.driver.empty() ? "" : "driver " + id.driver);
  add(id.clock_mhz ? detail::fixed(*id.clock_mhz, 0) + " MHz" : "");
  add(id.calibration_fnv1a64.empty() ? "" : "calibration " + id.calibration_fnv1a64);
  const std::string name = id.name.empty() ? "unknown hardware" : id.name;
  return details.empty() ? name : name + " (" + details + ")";
}

} // namespace perfgate
