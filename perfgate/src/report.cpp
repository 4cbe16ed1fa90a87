// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>

#include "strings.hpp"
#include "writers/svg_writer.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <regex>

#include <unistd.h>

namespace perfgate {

std::string_view version() { return PERFGATE_VERSION; }

std::string_view to_string(verdict_status s) {
  switch (s) {
  case verdict_status::pass: return "pass";
  case verdict_status::fail: return "fail";
  case verdict_status::warn: return "warn";
  case verdict_status::skip: return "skip";
  }
  return "?";
}

const device* report::find_device(std::string_view id) const {
  for (const auto& d : devices) {
    if (d.id == id) {
      return &d;
    }
  }
  return nullptr;
}

report_meta make_report_meta(std::string command, std::vector<std::string> argv) {
  report_meta m;
  m.perfgate_version = std::string(version());
  m.command = std::move(command);
  m.argv = std::move(argv);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  m.timestamp = stamp;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) {
    m.host = host;
  }
  return m;
}

namespace {
// Clock readings (sampled, rounded to MHz, the datasheet's boost clock vs the one the driver
// reports) differ by a few MHz with nothing throttled; under this a scale would only add noise.
constexpr double clock_tolerance = 0.005;

// The kernel on the local device at the SM clock it ran at, when that clock is known and
// differs from the one the device's peaks hold at.
prediction predict_local(const kernel_params& params, const kernel_profile& k, const device& d,
                         bool one_core) {
  if (k.sm_clock_mhz && d.sm_clock_mhz) {
    const double scale = *k.sm_clock_mhz / *d.sm_clock_mhz;
    if (std::fabs(scale - 1.0) > clock_tolerance) {
      prediction q = predict(params, at_sm_clock(d, *k.sm_clock_mhz), one_core);
      q.clock_scale = scale;
      return q;
    }
  }
  return predict(params, d, one_core);
}
} // namespace

report predict_report(const profile& p, const std::vector<device>& devices,
                      const std::string& kernel_regex, bool scale_local_clock) {
  std::regex selector;
  try {
    selector = std::regex(kernel_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw usage_error("--kernel '" + kernel_regex +
                      "' is not a valid regular expression: " + e.what());
  }
  if (devices.empty()) {
    throw usage_error("no device to predict for: give at least one --device ID|FILE");
  }
  report r;
  r.profile_file = p.source_file;
  r.profile_format = p.format;
  r.profile_device = p.device_name;
  r.profile_warp_size = p.warp_size;
  r.devices = devices;
  for (const auto& k : p.kernels) {
    if (!kernel_regex.empty() && !std::regex_search(k.name, selector)) {
      continue;
    }
    kernel_report kr;
    kr.name = detail::valid_utf8(k.name); // a report and its baselines are JSON: UTF-8 only
    kr.invocations = k.invocations;
    kr.params = kernel_params_from_profile(p, k);
    if (k.time_s) {
      measurement m;
      m.time_s = *k.time_s;
      m.stats = k.duration.value_or(duration_stats{});
      m.sm_clock_mhz = k.sm_clock_mhz;
      m.clock_limits = k.clock_limits;
      kr.measured = std::move(m);
    }
    const bool one_core = k.threads == 1;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      try {
        kr.predictions.push_back(i == 0 && scale_local_clock
                                     ? predict_local(kr.params, k, devices[i], one_core)
                                     : predict(kr.params, devices[i], one_core));
      } catch (const usage_error& e) { // a device without the kernel's tensor path
        throw usage_error("kernel '" + kr.name + "': " + e.what());
      }
    }
    kr.result.status = verdict_status::skip;
    kr.result.reasons.push_back("prediction only: no gate applied");
    r.kernels.push_back(std::move(kr));
  }
  if (r.kernels.empty()) {
    // The first few names, enough to spot a wrong regex; a profile may hold thousands.
    constexpr std::size_t shown = 20;
    std::string names;
    for (std::size_t i = 0; i < p.kernels.size() && i < shown; ++i) {
      names += "\n  " + detail::valid_utf8(p.kernels[i].name);
    }
    if (p.kernels.size() > shown) {
      names += "\n  ... and " + std::to_string(p.kernels.size() - shown) + " more";
    }
    throw usage_error(kernel_regex.empty()
                          ? "the profile " + p.source_file + " holds no kernels"
                          : "--kernel '" + kernel_regex + "' matches no kernel of " +
                                p.source_file + "; its " + std::to_string(p.kernels.size()) +
                                " kernels are:" + names);
  }
  return r;
}

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

std::string report_roofline_svg(const report& r, std::size_t device_index) {
  return detail::roofline_svg(r, device_index);
}

std::string report_quadrant_svg(const report& r, std::size_t kernel_index) {
  return detail::quadrant_svg(r, kernel_index);
}

report_format parse_report_format(std::string_view name) {
  if (name == "text") {
    return report_format::text;
  }
  if (name == "json") {
    return report_format::json;
  }
  if (name == "md" || name == "markdown") {
    return report_format::markdown;
  }
  if (name == "html") {
    return report_format::html;
  }
  throw usage_error("unknown format '" + std::string(name) + "': expected text, json, md or html");
}

std::string render_report(const report& r, report_format f) {
  switch (f) {
  case report_format::text: return report_to_text(r);
  case report_format::json: return report_to_json(r);
  case report_format::markdown: return report_to_markdown(r);
  case report_format::html: return report_to_html(r);
  }
  return {};
}

} // namespace perfgate
