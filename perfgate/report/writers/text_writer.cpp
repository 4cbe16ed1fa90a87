// SPDX-License-Identifier: Apache-2.0
// The terminal view of a report: a block per kernel, a row per device.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "report/writers/prediction_table.hpp"
#include "report/writers/suite_summary.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <algorithm>

namespace perfgate {

namespace {
std::string clock_limits_list(const measurement& m) {
  std::string s;
  for (const auto& why : m.clock_limits) {
    s += (s.empty() ? "" : ", ") + why;
  }
  return s;
}
// The GPUs of a profile whose kernels ran on several, in the order first met.
std::vector<std::string> measured_devices(const report& r) {
  std::vector<std::string> gpus;
  for (const auto& k : r.kernels) {
    if (k.measured && !k.measured->device.empty() &&
        std::find(gpus.begin(), gpus.end(), k.measured->device) == gpus.end()) {
      gpus.push_back(k.measured->device);
    }
  }
  return gpus;
}

// Where and how often the kernel was measured, as far as the source said: a count it did not
// give is "unknown", never 0. A CPU benchmark's profile names its host, not a GPU.
std::string measured_line(const report& r, const measurement& m) {
  using namespace detail;
  const std::string& on = m.device.empty() ? r.profile_device : m.device;
  std::string out = "  measured";
  if (!on.empty()) {
    out += (r.profile_warp_size == 1 ? " on host " : " on ") + on;
  }
  out += ": " + duration(m.time_s);
  out += m.samples ? " over " + std::to_string(*m.samples) + " timed invocations"
                   : ", sample count unknown";
  if (m.noise) {
    out += ", noise " + percent(*m.noise, 2);
  }
  return out;
}
} // namespace

std::string report_to_text(const report& r) {
  using namespace detail;
  std::string out;
  if (r.suite) { // the suite in one figure opens a comparison
    out += suite_line(*r.suite) + "\n\n";
  }
  out += "profile: " + r.profile_file + " (" + r.profile_format;
  if (!r.profile_device.empty()) {
    out += ", taken on " + r.profile_device;
  } else if (const auto gpus = measured_devices(r); gpus.size() > 1) {
    out += ", taken on " + std::to_string(gpus.size()) + " GPUs:";
    for (const auto& g : gpus) {
      out += " " + g + (&g == &gpus.back() ? "" : ",");
    }
  }
  out += ", warp size " + std::to_string(r.profile_warp_size) + ")\n";
  for (const auto& k : r.kernels) {
    out += "\nkernel " + k.name + "\n";
    out += "  " + kernel_summary(k) + "\n";
    if (k.measured) {
      out += measured_line(r, *k.measured);
      if (k.measured->sm_clock_mhz) {
        out += ", SM clock " + fixed(*k.measured->sm_clock_mhz, 0) + " MHz";
      }
      out += "\n";
      if (!k.measured->clock_limits.empty()) {
        out += "  clocks held down by: " + clock_limits_list(*k.measured) + "\n";
      }
    }
    if (!k.predictions.empty()) {
      out += "\n" + render_text(prediction_table(k, r.devices));
    }
    for (const auto& note : scaling_notes(k)) {
      out += "  " + note + "\n";
    }
    for (const auto& p : k.predictions) {
      if (p.clock_scale) {
        out += "  " + p.device + ": compute peaks scaled by " + fixed(*p.clock_scale, 3) +
               " to the SM clock the kernel ran at\n";
      }
    }
    for (const auto& reason : k.result.reasons) {
      out += "  " + std::string(to_string(k.result.status)) + ": " + reason + "\n";
    }
  }
  return out;
}

} // namespace perfgate
