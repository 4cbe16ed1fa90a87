// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/report.hpp>

#include "report/origin.hpp"

#include <algorithm>
#include <map>

namespace perfgate {

namespace {

// A merged part names each kernel's host in its origin; a runner's own report in its meta.
std::string host_of(const report& part, std::string_view id) {
  for (const auto& k : part.kernels) {
    if (k.result.device == id && !k.origin.empty()) {
      if (std::string host = detail::split_origin(k.origin).host; !host.empty()) {
        return host;
      }
    }
  }
  return part.meta.host;
}

struct placed_device {
  device d;
  std::string host;
};

// An id alone is no identity: a calibration's default id (`local-cuda-0`) names another GPU on
// every machine. One host's devices of one id are one GPU (recalibrated between runs, whose
// spread a baseline keeps); on two hosts, equal content (all a report holds of a device) is the
// same roof wherever it ran (a built-in, a device file the runners share). An unknown host (a
// report without meta) is taken as the same, as before hosts were compared.
bool same_device(const placed_device& a, const placed_device& b) {
  if (a.host.empty() || b.host.empty() || a.host == b.host) {
    return true;
  }
  return a.d.name == b.d.name && a.d.vendor == b.d.vendor && a.d.source == b.d.source &&
         a.d.peaks == b.d.peaks;
}

// The id `p` gets beside `seen`: its own, else <id>@<host> (numbered should that clash too).
std::string distinct_id(const std::vector<placed_device>& seen, placed_device p) {
  const std::string own = p.d.id;
  for (int n = 1;; ++n) {
    const auto clash = std::find_if(seen.begin(), seen.end(),
                                    [&](const placed_device& s) { return s.d.id == p.d.id; });
    if (clash == seen.end() || same_device(*clash, p)) {
      return p.d.id;
    }
    p.d.id = device_id_on_host(own, p.host) + (n > 1 ? "#" + std::to_string(n) : "");
  }
}

void rename_devices(report& part, const std::map<std::string, std::string, std::less<>>& to) {
  const auto rename = [&](std::string& id) {
    if (const auto it = to.find(id); it != to.end()) {
      id = it->second;
    }
  };
  for (auto& d : part.devices) {
    rename(d.id);
  }
  rename(part.local_device);
  if (part.identity) { // the hardware of the runs on that device, under the device's new id
    rename(part.identity->device);
  }
  for (auto& k : part.kernels) {
    rename(k.result.device);
    for (auto& p : k.predictions) {
      rename(p.device);
    }
  }
}

} // namespace

std::string device_id_on_host(std::string_view id, std::string_view host) {
  return std::string(id) + "@" + std::string(host);
}

std::vector<report> with_distinct_device_ids(std::vector<report> parts) {
  std::vector<placed_device> seen;
  for (auto& part : parts) {
    std::map<std::string, std::string, std::less<>> renamed;
    for (const auto& d : part.devices) {
      placed_device p{d, host_of(part, d.id)};
      p.d.id = distinct_id(seen, p);
      if (p.d.id != d.id) {
        renamed[d.id] = p.d.id;
      }
      seen.push_back(std::move(p));
    }
    rename_devices(part, renamed);
  }
  return parts;
}

report merge_reports(const std::vector<report>& reports, const std::vector<std::string>& files) {
  if (reports.empty()) {
    throw usage_error("nothing to merge: give at least one report");
  }
  const std::vector<report> parts = with_distinct_device_ids(reports);
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
