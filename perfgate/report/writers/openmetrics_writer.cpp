// SPDX-License-Identifier: Apache-2.0
// The report as OpenMetrics text (what GitLab's `artifacts:reports:metrics` shows on a merge
// request, and what Prometheus' parsers read): one gauge family per quantity, a sample per
// kernel and device, and where the report compared a suite its one figure (the geometric mean
// time ratio, its interval, the kernels per verdict). A number the report does not hold is no
// sample, never a 0.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "util/number_format.hpp"

#include <string>
#include <utility>
#include <vector>

namespace perfgate {
namespace {

// A label value: backslash, double quote and line feed escaped (OpenMetrics' ABNF).
std::string label_value(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

struct family {
  std::string name;
  std::string unit; // empty: none (the name then ends without one)
  std::string help;
  std::string samples;

  void add(const std::string& labels, double value) {
    samples +=
        name + (labels.empty() ? "" : "{" + labels + "}") + " " + detail::shortest(value) + "\n";
  }
  [[nodiscard]] std::string text() const {
    std::string t = "# TYPE " + name + " gauge\n";
    if (!unit.empty()) {
      t += "# UNIT " + name + " " + unit + "\n";
    }
    return t + "# HELP " + name + " " + help + "\n" + samples;
  }
};

// The suite's figure (report::suite): absent without a comparison, never zeros.
std::vector<family> suite_families(const stats::suite_summary& s) {
  const std::string confidence = "confidence=\"" + detail::shortest(s.confidence) + "\"";
  family ratio{"perfgate_suite_time_ratio", "",
               "Geometric mean over the compared kernels of time head/base (1.03: 3% slower).", ""};
  family low{"perfgate_suite_time_ratio_low", "",
             "Lower end of the bootstrap interval of perfgate_suite_time_ratio.", ""};
  family high{"perfgate_suite_time_ratio_high", "",
              "Upper end of the bootstrap interval of perfgate_suite_time_ratio.", ""};
  family kernels{"perfgate_suite_kernels", "",
                 "Compared kernels per verdict against the base (unjudged: too few samples).", ""};
  ratio.add("", s.geomean.estimate);
  low.add(confidence, s.geomean.lo);
  high.add(confidence, s.geomean.hi);
  for (const auto& [verdict, count] : {std::pair{"SLOWER", s.slower},
                                       {"FASTER", s.faster},
                                       {"SAME", s.same},
                                       {"AMBIGUOUS", s.ambiguous},
                                       {"unjudged", s.unjudged}}) {
    kernels.add("verdict=\"" + std::string(verdict) + "\"", static_cast<double>(count));
  }
  return {ratio, low, high, kernels};
}

} // namespace

std::string report_to_openmetrics(const report& r) {
  family efficiency{"perfgate_kernel_efficiency", "",
                    "Roof time over measured time on the local device (1: at the roof).", ""};
  family measured{"perfgate_kernel_measured_seconds", "seconds",
                  "Measured time of the kernel's timed invocations together.", ""};
  family roof{"perfgate_kernel_roof_seconds", "seconds",
              "Speed-of-light time on the device: no correct run is faster.", ""};
  family predicted{"perfgate_kernel_predicted_seconds", "seconds",
                   "The model's predicted time on the device.", ""};
  family status{"perfgate_kernel_failed", "",
                "1 where the gate failed the kernel, 0 where it passed or warned.", ""};
  for (const auto& k : r.kernels) {
    const std::string kernel = "kernel=\"" + label_value(k.name) + "\"";
    const std::string local = k.result.device.empty() ? r.local_device : k.result.device;
    const std::string at_local = kernel + ",device=\"" + label_value(local) + "\"";
    if (k.result.efficiency) {
      efficiency.add(at_local, *k.result.efficiency);
    }
    if (k.measured && k.measured->time_s > 0) {
      measured.add(at_local, k.measured->time_s);
    }
    if (k.result.status != verdict_status::skip) {
      status.add(at_local, k.result.status == verdict_status::fail ? 1 : 0);
    }
    for (const auto& p : k.predictions) {
      const std::string at = kernel + ",device=\"" + label_value(p.device) + "\"";
      if (p.roof && p.roof->time_s > 0) {
        roof.add(at, p.roof->time_s);
      }
      if (p.predicted_time_s > 0) {
        predicted.add(at, p.predicted_time_s);
      }
    }
  }
  std::string out;
  for (const auto* f : {&efficiency, &measured, &roof, &predicted, &status}) {
    if (!f->samples.empty()) {
      out += f->text();
    }
  }
  if (r.suite) {
    for (const auto& f : suite_families(*r.suite)) {
      out += f.text();
    }
  }
  return out + "# EOF\n";
}

} // namespace perfgate
