// SPDX-License-Identifier: Apache-2.0
// The report as a JUnit XML file (what GitLab's `artifacts:reports:junit` and most CI systems
// show as tests): one test case per kernel, its verdict's reasons as the failure message or the
// skip reason, warnings and passes with their reasons in system-out. A comparison's suite figure
// opens the file twice: as testsuite properties (Jenkins keeps them with keepProperties; GitLab
// ignores properties) and as a passing test case whose system-out is the figure's line (GitLab's
// and Jenkins' test views show test cases, so that is where a reader sees it). Its name stays the
// same from run to run: both tools follow a test case by name. The subset written is described
// by tests/data/junit/junit.xsd.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "report/writers/suite_summary.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <charconv>
#include <string>

namespace perfgate {
namespace {

// Attributes and text through the writers' one markup escaper (util/table.hpp: invalid UTF-8
// and the control characters XML 1.0 cannot hold never reach the file).
std::string xml(const std::string& v) { return detail::html_escape(v); }

std::string seconds(double x) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, 6);
  return ec == std::errc{} ? std::string(buf, end) : std::string("0");
}

// The reasons one a line: each escaped alone, as the escaper turns line feeds into spaces.
std::string escaped_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += (out.empty() ? "" : "\n") + xml(l);
  }
  return out;
}

std::string test_case(const report& r, const kernel_report& k) {
  const std::string device = k.result.device.empty() ? r.local_device : k.result.device;
  std::string c = "    <testcase classname=\"perfgate." +
                  xml(device.empty() ? "predicted" : device) + "\" name=\"" + xml(k.name) +
                  "\" time=\"" + seconds(k.measured ? k.measured->time_s : 0) + "\">\n";
  const std::string reasons = escaped_lines(k.result.reasons);
  const std::string first = k.result.reasons.empty() ? "" : k.result.reasons.front();
  switch (k.result.status) {
  case verdict_status::fail:
    c += "      <failure type=\"perfgate.fail\" message=\"" + xml(first) + "\">" + reasons +
         "</failure>\n";
    break;
  case verdict_status::skip:
    c +=
        "      <skipped message=\"" + xml(k.skip_reason.empty() ? first : k.skip_reason) + "\"/>\n";
    break;
  case verdict_status::warn:
  case verdict_status::pass:
    if (!reasons.empty()) {
      c += "      <system-out>" + std::string(to_string(k.result.status)) + ": " + reasons +
           "</system-out>\n";
    }
    break;
  }
  return c + "    </testcase>\n";
}

// The suite's figure as testsuite properties, each number as the report's JSON has it.
std::string suite_properties(const stats::suite_summary& s) {
  std::string p = "    <properties>\n";
  const auto add = [&](const std::string& name, const std::string& value) {
    p += "      <property name=\"perfgate.suite." + name + "\" value=\"" + value + "\"/>\n";
  };
  add("time_ratio", detail::shortest(s.geomean.estimate));
  add("time_ratio_low", detail::shortest(s.geomean.lo));
  add("time_ratio_high", detail::shortest(s.geomean.hi));
  add("confidence", detail::shortest(s.confidence));
  add("kernels", std::to_string(s.kernels));
  add("SLOWER", std::to_string(s.slower));
  add("FASTER", std::to_string(s.faster));
  add("SAME", std::to_string(s.same));
  add("AMBIGUOUS", std::to_string(s.ambiguous));
  add("unjudged", std::to_string(s.unjudged));
  return p + "    </properties>\n";
}

// Informational: the gate judges kernels, never the suite's figure, so this case passes.
std::string suite_case(const stats::suite_summary& s) {
  return "    <testcase classname=\"perfgate.suite\" name=\"geometric mean time ratio "
         "head/base\" time=\"0.000000\">\n      <system-out>" +
         xml(detail::suite_line(s)) + "</system-out>\n    </testcase>\n";
}

} // namespace

std::string report_to_junit(const report& r) {
  std::size_t failures = 0, skipped = 0;
  double time_s = 0;
  std::string cases = r.suite ? suite_properties(*r.suite) + suite_case(*r.suite) : "";
  for (const auto& k : r.kernels) {
    failures += k.result.status == verdict_status::fail ? 1 : 0;
    skipped += k.result.status == verdict_status::skip ? 1 : 0;
    time_s += k.measured ? k.measured->time_s : 0;
    cases += test_case(r, k);
  }
  const std::size_t tests = r.kernels.size() + (r.suite ? 1 : 0);
  const std::string counts = "tests=\"" + std::to_string(tests) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" skipped=\"" +
                             std::to_string(skipped) + "\" time=\"" + seconds(time_s) + "\"";
  const std::string suite = r.profile_file.empty() ? "perfgate" : "perfgate: " + r.profile_file;
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"perfgate\" " + counts +
         ">\n  <testsuite name=\"" + xml(suite) + "\" " + counts + ">\n" + cases +
         "  </testsuite>\n</testsuites>\n";
}

} // namespace perfgate
