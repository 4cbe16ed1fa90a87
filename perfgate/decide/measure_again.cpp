// SPDX-License-Identifier: Apache-2.0
#include "decide/measure_again.hpp"

#include "util/number_format.hpp"

#include <algorithm>

namespace perfgate::decide {

namespace {

const kernel_report* kernel_named(const report& r, const std::string& name) {
  const auto k = std::find_if(r.kernels.begin(), r.kernels.end(),
                              [&](const kernel_report& x) { return x.name == name; });
  return k == r.kernels.end() ? nullptr : &*k;
}

// The kernel's roof on the report's local device, when it has one.
const roof_bound* local_roof(const report& r, const kernel_report& k) {
  for (const auto& p : k.predictions) {
    if (p.device == r.local_device && p.roof) {
      return &*p.roof;
    }
  }
  return nullptr;
}

// The rate of the roof's limiting term (1e9/s), 0 when it has none.
double limiting_rate(const roof_bound& roof) {
  for (const auto& t : roof.terms) {
    if (t.resource == roof.limiter) {
      return t.rate;
    }
  }
  return 0;
}

std::string rate_text(const roof_bound& before, const roof_bound& after) {
  const double was = limiting_rate(before), now = limiting_rate(after);
  if (!(was > 0) || !(now > 0)) {
    return "";
  }
  const auto pair = detail::told_apart(was, now, 1);
  const char* unit = after.bound == bound_class::memory ? " GB/s" : " G/s";
  return before.limiter == after.limiter
             ? " (" + after.limiter + " " + pair.first + " -> " + pair.second + unit + ")"
             : " (" + before.limiter + " " + pair.first + unit + " -> " + after.limiter + " " +
                   pair.second + unit + ")";
}

} // namespace

std::map<std::string, beaten_roof, std::less<>> roofs_beaten(const report& r) {
  std::map<std::string, beaten_roof, std::less<>> beaten;
  for (const auto& k : r.kernels) {
    if (k.result.device != r.local_device) {
      continue;
    }
    for (const auto& f : k.result.findings) {
      if (f.code == "efficiency_above_max" && f.severity == verdict_status::fail) {
        beaten[k.name] = {f.numbers.at("roof_s"), f.numbers.at("efficiency")};
      }
    }
  }
  return beaten;
}

std::vector<std::string> kernels_beating_roof(const report& r) {
  std::vector<std::string> names;
  for (const auto& [name, roof] : roofs_beaten(r)) {
    names.push_back(name);
  }
  return names;
}

std::vector<std::string> measured_again_lines(const report& before, const report& after,
                                              const std::vector<std::string>& names) {
  std::vector<std::string> lines;
  for (const auto& name : names) {
    const kernel_report* was = kernel_named(before, name);
    const kernel_report* now = kernel_named(after, name);
    if (was == nullptr || now == nullptr) {
      continue;
    }
    const roof_bound* roof_was = local_roof(before, *was);
    const roof_bound* roof_now = local_roof(after, *now);
    if (roof_was == nullptr || roof_now == nullptr) {
      continue;
    }
    std::string line = name + ": roof " + detail::duration(roof_was->time_s) + " -> " +
                       detail::duration(roof_now->time_s) + rate_text(*roof_was, *roof_now);
    if (now->result.efficiency) {
      line += ", efficiency " + detail::with_digits(*now->result.efficiency, 2) + " (was " +
              detail::with_digits(was->result.efficiency.value_or(0), 2) + ")";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace perfgate::decide
