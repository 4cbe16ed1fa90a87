// SPDX-License-Identifier: Apache-2.0
// The run-level fields of a `perfgate-cupti/1` file: written by the injection library
// (kernel_book::to_json) and read back by `perfgate run` (cupti_run_from_json).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfgate::cupti {

struct run_info {
  std::string mode;          ///< "timing" or "counters"
  std::string status = "ok"; ///< "ok", "skipped" (a reason to exit 77) or "failed"
  std::string reason;
  std::string device_name;
  std::string chip;
  std::vector<std::string> metrics;
  std::uint64_t passes = 0;
  std::uint64_t ranges_dropped = 0;
};

} // namespace perfgate::cupti
