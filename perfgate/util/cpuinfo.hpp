// SPDX-License-Identifier: Apache-2.0
// /proc/cpuinfo's "key : value" lines, read once for the CPU micro-benchmarks' topology and the
// run's hardware identity.
#pragma once

#include "util/strings.hpp"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>

namespace perfgate::detail {

struct cpuinfo_fields {
  std::string model;         ///< the first "model name"
  std::string vendor_id;     ///< the first "vendor_id" (x86: GenuineIntel, AuthenticAMD)
  std::string implementer;   ///< the first "CPU implementer" (Arm)
  std::optional<double> mhz; ///< the first "cpu MHz" (a positive number)
};

/// The first value of each field in /proc/cpuinfo's text; empty or absent where it lacks one
/// (other architectures name the model differently).
[[nodiscard]] inline cpuinfo_fields parse_cpuinfo(std::string_view text) {
  cpuinfo_fields out;
  for (const auto& line : split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      continue;
    }
    const std::string_view key = trim(std::string_view(line).substr(0, colon));
    const std::string value(trim(std::string_view(line).substr(colon + 1)));
    if (key == "model name" && out.model.empty()) {
      out.model = value;
    } else if (key == "vendor_id" && out.vendor_id.empty()) {
      out.vendor_id = value;
    } else if (key == "CPU implementer" && out.implementer.empty()) {
      out.implementer = value;
    } else if (key == "cpu MHz" && !out.mhz) {
      double v = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec == std::errc() && end == value.data() + value.size() && v > 0) {
        out.mhz = v;
      }
    }
  }
  return out;
}

} // namespace perfgate::detail
