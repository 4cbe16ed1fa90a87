// SPDX-License-Identifier: Apache-2.0
// The report as OpenMetrics text (what GitLab's `artifacts:reports:metrics` shows on a merge
// request, and what Prometheus' parsers read): one gauge family per quantity, a sample per
// kernel and device. A number the report does not hold is no sample, never a 0.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include <charconv>
#include <string>

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

// The shortest text that reads back as the same double.
std::string number(double x) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc{} ? std::string(buf, end) : std::string("NaN");
}

struct family {
  std::string name;
  std::string unit; // empty: none (the name then ends without one)
  std::string help;
  std::string samples;

  void add(const std::string& labels, double value) {
    samples += name + "{" + labels + "} " + number(value) + "\n";
  }
  [[nodiscard]] std::string text() const {
    std::string t = "# TYPE " + name + " gauge\n";
    if (!unit.empty()) {
      t += "# UNIT " + name + " " + unit + "\n";
    }
    return t + "# HELP " + name + " " + help + "\n" + samples;
  }
};

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
  return out + "# EOF\n";
}

} // namespace perfgate
