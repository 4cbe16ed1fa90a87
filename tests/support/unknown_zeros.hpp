// SPDX-License-Identifier: Apache-2.0
// The property every report keeps (issue 43): no field is 0 because its value was unknown. A
// statistic the source did not hold is absent, so in a kernel's `measured` block a sample count
// is at least 1, every time is above 0, and a standard deviation stands only beside two samples
// or more. Checked on the reports of the golden tests and in the fuzz harnesses.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace perfgate::test {

/// The fields of `report` (perfgate-report/2 JSON) that are 0 where the value was unknown, as
/// "kernels[3].measured.samples"; empty when none is.
inline std::vector<std::string> zeros_standing_for_unknown(const nlohmann::json& report) {
  std::vector<std::string> found;
  if (!report.contains("kernels") || !report.at("kernels").is_array()) {
    return found;
  }
  const auto& kernels = report.at("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    if (!k.is_object() || !k.contains("measured") || !k.at("measured").is_object()) {
      continue;
    }
    const auto& m = k.at("measured");
    const std::string at = "kernels[" + std::to_string(i) + "].measured.";
    const auto number = [&](const char* key) {
      return m.contains(key) && m.at(key).is_number() ? m.at(key).get<double>() : -1.0;
    };
    for (const char* key : {"samples", "time_s", "mean_s", "median_s", "min_s", "max_s"}) {
      if (number(key) == 0) {
        found.push_back(at + key);
      }
    }
    if (m.contains("stddev_s") && number("samples") < 2) {
      found.push_back(at + "stddev_s"); // of fewer than two samples: undefined
    }
  }
  return found;
}

} // namespace perfgate::test
