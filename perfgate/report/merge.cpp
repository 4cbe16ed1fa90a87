// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/report.hpp>

namespace perfgate {

report merge_reports(const std::vector<report>& parts, const std::vector<std::string>& files) {
  if (parts.empty()) {
    throw usage_error("nothing to merge: give at least one report");
  }
  report merged;
  merged.profile_format = "merged";
  merged.profile_warp_size = parts.front().profile_warp_size;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const report& part = parts[i];
    const std::string file = i < files.size() ? files[i] : "report " + std::to_string(i + 1);
    merged.profile_file += (merged.profile_file.empty() ? "" : ", ") + file;
    if (merged.profile_device.empty()) {
      merged.profile_device = part.profile_device;
    }
    // One local device only when every part was measured on the same one.
    merged.local_device =
        i == 0 || merged.local_device == part.local_device ? part.local_device : "";
    for (const auto& d : part.devices) {
      if (merged.find_device(d.id) == nullptr) {
        merged.devices.push_back(d);
      }
    }
    for (auto k : part.kernels) {
      if (k.origin.empty()) {
        k.origin = file + (part.meta.host.empty() ? "" : " (" + part.meta.host + ")");
      }
      merged.kernels.push_back(std::move(k));
    }
  }
  return merged;
}

} // namespace perfgate
