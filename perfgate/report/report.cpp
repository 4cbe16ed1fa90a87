// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/report.hpp>

#include "report/finding_text.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <regex>

namespace perfgate {

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

namespace {

// The kernel on the local device at the SM clock it ran at, when that clock is known and
// differs from the one the device's peaks hold at.
prediction predict_local(const kernel_params& params, const kernel_profile& k, const device& d,
                         bool one_core) {
  if (k.sm_clock_mhz && d.sm_clock_mhz) {
    const double scale = *k.sm_clock_mhz / *d.sm_clock_mhz;
    const bool peak_off_clock =
        std::any_of(d.peak_clocks_mhz.begin(), d.peak_clocks_mhz.end(), [&](const auto& c) {
          return std::fabs(*k.sm_clock_mhz / c.second - 1.0) > clock_reading_noise;
        });
    if (std::fabs(scale - 1.0) > clock_reading_noise || peak_off_clock) {
      prediction q = predict(params, at_sm_clock(d, *k.sm_clock_mhz), one_core);
      q.clock_scale = scale;
      return q;
    }
  }
  return predict(params, d, one_core);
}
} // namespace

namespace {
bool contains_run(const std::vector<std::string>& hay, const std::vector<std::string>& needle) {
  return !needle.empty() &&
         std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

} // namespace

std::string local_device_named(std::string_view profile_device,
                               const std::vector<device>& devices) {
  if (profile_device.empty()) {
    return "";
  }
  // nvprof appends the device number: "GeForce GTX 480 (0)".
  std::string_view named = profile_device;
  if (const auto open = named.rfind(" (");
      open != std::string_view::npos && named.back() == ')' && named.size() > open + 3 &&
      std::all_of(named.begin() + static_cast<std::ptrdiff_t>(open) + 2, named.end() - 1,
                  [](char c) { return c >= '0' && c <= '9'; })) {
    named = named.substr(0, open);
  }
  const auto where = detail::lower_words(named);
  for (const auto& d : devices) {
    if (contains_run(where, detail::lower_words(d.id)) ||
        contains_run(detail::lower_words(d.name), where)) {
      return d.id;
    }
  }
  return "";
}

namespace {
// The finding of a device the kernel cannot run on (no path for one of its precisions).
finding cannot_run_on(const std::string& device_id, const std::string& why) {
  finding f{"cannot_be_judged", verdict_status::skip, {}, {}};
  f.context.words["device"] = device_id;
  f.context.words["skip_reason"] = "on " + device_id + ": " + why;
  return f;
}
} // namespace

report predict_report(const profile& p, const std::vector<device>& devices,
                      const std::string& kernel_regex, bool scale_local_clock,
                      const device* measured_on) {
  std::regex selector;
  try {
    selector = std::regex(kernel_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw usage_error("kernel_regex",
                      "'" + kernel_regex + "' is not a valid regular expression: " + e.what());
  }
  if (devices.empty()) {
    throw usage_error("devices", "no device to predict for: give at least one");
  }
  report r;
  r.profile_file = p.source_file;
  r.profile_format = to_string(p.format);
  r.profile_device = p.device_name;
  r.profile_warp_size = p.warp_size;
  r.devices = devices;
  r.local_device =
      scale_local_clock ? devices.front().id : local_device_named(p.device_name, devices);
  std::exception_ptr first_skip; // the first kernel that cannot be judged, and why
  std::size_t predicted = 0;
  for (const auto& k : p.kernels) {
    if (!kernel_regex.empty() && !std::regex_search(k.name, selector)) {
      continue;
    }
    kernel_report kr;
    kr.name = detail::valid_utf8(k.name); // a report and its baselines are JSON: UTF-8 only
    kr.invocations = k.invocations;
    if (k.time_s) {
      measurement m;
      m.time_s = *k.time_s;
      m.stats = k.duration; // absent where the source kept no statistics: never zeros
      m.samples = k.duration ? std::optional<std::uint64_t>(k.duration->samples) : k.sample_count;
      m.noise = k.relative_noise;
      m.device = k.device_name;
      m.sm_clock_mhz = k.sm_clock_mhz;
      m.real_time_s = k.real_time_s;
      m.clock_limits = k.clock_limits;
      kr.measured = std::move(m);
    }
    if (!k.device_name.empty()) { // a profile of several GPUs: each kernel on its own
      kr.result.device = local_device_named(k.device_name, devices);
    }
    try {
      kr.params = kernel_params_from_profile(p, k);
    } catch (const input_error& e) {
      if (!first_skip) {
        first_skip = std::current_exception();
      }
      kr.skip_reason = e.detail();
      kr.result.status = verdict_status::skip;
      finding skipped{"cannot_be_judged", verdict_status::skip, {}, {}};
      skipped.context.words["skip_reason"] = kr.skip_reason;
      detail::add_finding(kr.result, std::move(skipped));
      r.kernels.push_back(std::move(kr));
      continue;
    }
    const bool one_core = k.threads == 1;
    // A device without one of the kernel's precisions (a BF16 kernel on a V100) cannot run it:
    // the kernel cannot be judged there, and is predicted on the others.
    std::vector<finding> cannot_run;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      try {
        if (measured_on != nullptr && k.time_s) {
          kr.predictions.push_back(predict_from_measurement(kr.params, *k.time_s, k.sm_clock_mhz,
                                                            *measured_on, devices[i], one_core));
        } else {
          kr.predictions.push_back(i == 0 && scale_local_clock
                                       ? predict_local(kr.params, k, devices[i], one_core)
                                       : predict(kr.params, devices[i], one_core));
        }
      } catch (const no_path_error& e) {
        cannot_run.push_back(cannot_run_on(devices[i].id, e.what()));
      } catch (const usage_error& e) {
        throw usage_error("kernel '" + kr.name + "': " + e.what());
      }
    }
    if (kr.predictions.empty()) { // no device given can run it: not predicted at all
      kr.params = {};
      for (const auto& f : cannot_run) {
        kr.skip_reason += (kr.skip_reason.empty() ? "" : "; ") + f.context.words.at("skip_reason");
      }
      if (!first_skip) {
        first_skip = std::make_exception_ptr(
            input_error(p.source_file, "kernel '" + kr.name + "'", kr.skip_reason));
      }
      finding skipped{"cannot_be_judged", verdict_status::skip, {}, {}};
      skipped.context.words["skip_reason"] = kr.skip_reason;
      detail::add_finding(kr.result, std::move(skipped));
      r.kernels.push_back(std::move(kr));
      continue;
    }
    ++predicted;
    kr.result.status = verdict_status::skip;
    detail::add_finding(kr.result, {"prediction_only", verdict_status::skip, {}, {}});
    for (auto& f : cannot_run) {
      detail::add_finding(kr.result, std::move(f));
    }
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
    if (kernel_regex.empty()) {
      throw usage_error("the profile " + p.source_file + " holds no kernels");
    }
    throw usage_error("kernel_regex",
                      "'" + kernel_regex + "' matches no kernel of " + p.source_file + "; its " +
                          std::to_string(p.kernels.size()) + " kernels are:" + names);
  }
  if (predicted == 0 && first_skip) {
    std::rethrow_exception(first_skip); // nothing left to judge: the error, not a silent pass
  }
  return r;
}

} // namespace perfgate
