// SPDX-License-Identifier: Apache-2.0
// The report as OpenMetrics text (what GitLab's `artifacts:reports:metrics` shows on a merge
// request, and what Prometheus' parsers read): one gauge family per quantity, a sample per
// kernel and device, and where the report compared a suite its one figure (the geometric mean
// time ratio, its interval, the kernels per verdict). A number the report does not hold is no
// sample, never a 0. Labels and numbers as every writer for other tools has them
// (tool_names.hpp): `kernel` and `device`, and `test` (the CTest test) for a merged report's
// kernels, unique, bounded, escaped for GitLab's parser too; numbers at 4 significant digits.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "report/writers/tool_names.hpp"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace perfgate {
namespace {

std::string label(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + detail::openmetrics_label_value(value) + "\"";
}

struct family {
  std::string name;
  std::string unit; // empty: none (the name then ends without one)
  std::string help;
  std::string samples;
  std::set<std::string> series{}; // one sample a label set (a device predicted twice: once)

  void add(const std::string& labels, const std::string& value) {
    if (series.insert(labels).second) {
      samples += name + (labels.empty() ? "" : "{" + labels + "}") + " " + value + "\n";
    }
  }
  void add(const std::string& labels, double value) { add(labels, detail::tool_number(value)); }
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
  const std::string confidence = label("confidence", detail::tool_number(s.confidence));
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
    kernels.add(label("verdict", verdict), std::to_string(count));
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
  const auto names = detail::tool_kernels(r);
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const auto& k = r.kernels[i];
    const auto at = [&](const std::string& device) {
      return label("kernel", names[i].kernel) + "," + label("device", device) +
             (names[i].test.empty() ? "" : "," + label("test", names[i].test));
    };
    const std::string at_local = at(names[i].device);
    if (k.result.efficiency) {
      efficiency.add(at_local, *k.result.efficiency);
    }
    if (k.measured && k.measured->time_s > 0) {
      measured.add(at_local, k.measured->time_s);
    }
    if (k.result.status != verdict_status::skip) {
      status.add(at_local, k.result.status == verdict_status::fail ? "1" : "0");
    }
    for (const auto& p : k.predictions) {
      const std::string at_device = at(detail::tool_name(p.device));
      if (p.roof && p.roof->time_s > 0) {
        roof.add(at_device, p.roof->time_s);
      }
      if (p.predicted_time_s > 0) {
        predicted.add(at_device, p.predicted_time_s);
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
