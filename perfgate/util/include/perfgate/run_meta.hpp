// SPDX-License-Identifier: Apache-2.0
/// \file
/// Where a file perfgate wrote came from: its version, command line, time and host (a report's
/// `meta` block, a calibrated device's `provenance`).
#pragma once

#include <string>
#include <vector>

namespace perfgate {

struct run_meta {
  std::string perfgate_version;
  std::string command; ///< "predict", "run", "calibrate", ...
  std::vector<std::string> argv;
  std::string timestamp; ///< UTC, ISO 8601
  std::string host;
};

/// This process now: version, command, argv, current UTC time and host name.
[[nodiscard]] run_meta make_run_meta(std::string command, std::vector<std::string> argv);

} // namespace perfgate
