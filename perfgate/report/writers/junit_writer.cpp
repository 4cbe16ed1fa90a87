// SPDX-License-Identifier: Apache-2.0
// The report as a JUnit XML file that Jenkins (the xunit plugin validates against its
// junit-10.xsd), Apache Ant's JUnit schema and GitLab's `artifacts:reports:junit` all accept
// (tests/data/junit/ holds both schemas): a bare <testsuites> (Ant allows it no attribute), one
// <testsuite> per report a merged report was made of (a CTest test on a runner), else one, with
// what Ant requires of it (name, package, id, timestamp, hostname, the counts, <properties>,
// <system-out>, <system-err>, in that order). A test case per kernel, named as every writer for
// other tools names it (tool_names.hpp: unique, bounded, stable): a failure whose message is the
// first reason and whose text is all of them, a skip with its reason, or nothing (a pass or a
// warning). Ant allows no <system-out> in a test case, so the reasons of passes and warnings are
// lines of the suite's. A comparison's suite figure opens the first suite twice: as properties
// (Jenkins keeps them with keepProperties; GitLab ignores properties) and as a passing test case
// of a name that stays the same from run to run, its line in the suite's system-out.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "report/origin.hpp"
#include "report/writers/suite_summary.hpp"
#include "report/writers/tool_names.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"

#include <algorithm>
#include <charconv>
#include <regex>
#include <string>
#include <vector>

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

// The lines one a line: each escaped alone, as the escaper turns line feeds into spaces.
std::string escaped_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += (out.empty() ? "" : "\n") + xml(l);
  }
  return out;
}

// Ant's timestamp is a UTC time without a zone ("2026-11-23T12:00:00"): the report's own time
// (perfgate writes "...Z"), or the epoch for a report that does not say (Ant requires one).
std::string ant_timestamp(const std::string& iso) {
  static const std::regex pattern(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})");
  std::smatch m;
  return std::regex_search(iso, m, pattern) ? m.str() : "1970-01-01T00:00:00";
}

// The kernels of one report of a merge (one origin), or of the report itself.
struct junit_suite {
  std::string name;
  std::string origin;
  std::vector<std::size_t> kernels;
};

std::vector<junit_suite> suites_of(const report& r, const std::vector<detail::tool_kernel>& names) {
  std::vector<junit_suite> suites;
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const std::string& origin = r.kernels[i].origin;
    auto it = std::find_if(suites.begin(), suites.end(),
                           [&](const junit_suite& s) { return s.origin == origin; });
    if (it == suites.end()) {
      suites.push_back({names[i].suite, origin, {}});
      it = suites.end() - 1;
    }
    it->kernels.push_back(i);
  }
  if (suites.empty()) { // a report without kernels is still one suite (Ant: zero test cases)
    suites.push_back({"perfgate", "", {}});
  }
  return suites;
}

std::string test_case(const kernel_report& k, const detail::tool_kernel& name) {
  std::string c = "    <testcase classname=\"" + xml(name.classname) + "\" name=\"" +
                  xml(name.kernel) + "\" time=\"" + seconds(k.measured ? k.measured->time_s : 0) +
                  "\"";
  const std::string first = k.result.reasons.empty() ? "" : k.result.reasons.front();
  switch (k.result.status) {
  case verdict_status::fail:
    return c + ">\n      <failure type=\"perfgate.fail\" message=\"" + xml(first) + "\">" +
           escaped_lines(k.result.reasons) + "</failure>\n    </testcase>\n";
  case verdict_status::skip:
    return c + ">\n      <skipped message=\"" + xml(k.skip_reason.empty() ? first : k.skip_reason) +
           "\"/>\n    </testcase>\n";
  case verdict_status::warn:
  case verdict_status::pass: break;
  }
  return c + "/>\n";
}

// A pass's or a warning's reasons, for the suite's system-out: "<kernel>: warn: <reason>".
std::vector<std::string> output_lines(const kernel_report& k, const detail::tool_kernel& name) {
  std::vector<std::string> lines;
  if (k.result.status == verdict_status::pass || k.result.status == verdict_status::warn) {
    for (const auto& reason : k.result.reasons) {
      lines.push_back(name.kernel + ": " + std::string(to_string(k.result.status)) + ": " + reason);
    }
  }
  return lines;
}

// The suite's figure as testsuite properties, at the digits of every writer for other tools.
std::string suite_properties(const stats::suite_summary& s) {
  std::string p;
  const auto add = [&](const std::string& name, const std::string& value) {
    p += "      <property name=\"perfgate.suite." + name + "\" value=\"" + value + "\"/>\n";
  };
  add("time_ratio", detail::tool_number(s.geomean.estimate));
  add("time_ratio_low", detail::tool_number(s.geomean.lo));
  add("time_ratio_high", detail::tool_number(s.geomean.hi));
  add("confidence", detail::tool_number(s.confidence));
  add("kernels", std::to_string(s.kernels));
  add("SLOWER", std::to_string(s.slower));
  add("FASTER", std::to_string(s.faster));
  add("SAME", std::to_string(s.same));
  add("AMBIGUOUS", std::to_string(s.ambiguous));
  add("unjudged", std::to_string(s.unjudged));
  return p;
}

// Informational: the gate judges kernels, never the suite's figure, so this case passes.
const char* const suite_case = "    <testcase classname=\"perfgate.suite\" name=\"geometric mean "
                               "time ratio head/base\" time=\"0.000000\"/>\n";

std::string suite_xml(const report& r, const junit_suite& s, std::size_t id,
                      const std::vector<detail::tool_kernel>& names) {
  const bool figure = id == 0 && r.suite.has_value();
  std::size_t failures = 0, skipped = 0;
  double time_s = 0;
  std::string properties = figure ? suite_properties(*r.suite) : "";
  if (!s.origin.empty()) {
    properties += "      <property name=\"perfgate.origin\" value=\"" + xml(s.origin) + "\"/>\n";
  }
  std::string cases = figure ? suite_case : "";
  std::vector<std::string> output;
  if (figure) {
    output.push_back(detail::suite_line(*r.suite));
  }
  for (const std::size_t i : s.kernels) {
    const auto& k = r.kernels[i];
    failures += k.result.status == verdict_status::fail ? 1 : 0;
    skipped += k.result.status == verdict_status::skip ? 1 : 0;
    time_s += k.measured ? k.measured->time_s : 0;
    cases += test_case(k, names[i]);
    for (auto& line : output_lines(k, names[i])) {
      output.push_back(std::move(line));
    }
  }
  const std::string host = detail::split_origin(s.origin).host;
  const std::string hostname = !host.empty() ? host : r.meta.host;
  return "  <testsuite name=\"" + xml(s.name) + "\" package=\"perfgate\" id=\"" +
         std::to_string(id) + "\" timestamp=\"" + ant_timestamp(r.meta.timestamp) +
         "\" hostname=\"" + xml(detail::trim(hostname).empty() ? "localhost" : hostname) +
         "\" tests=\"" + std::to_string(s.kernels.size() + (figure ? 1 : 0)) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) +
         "\" time=\"" + seconds(time_s) + "\">\n" +
         (properties.empty() ? "    <properties/>\n"
                             : "    <properties>\n" + properties + "    </properties>\n") +
         cases + "    <system-out>" + escaped_lines(output) + "</system-out>\n" +
         "    <system-err/>\n  </testsuite>\n";
}

} // namespace

std::string report_to_junit(const report& r) {
  const auto names = detail::tool_kernels(r);
  const auto suites = suites_of(r, names);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  for (std::size_t id = 0; id < suites.size(); ++id) {
    out += suite_xml(r, suites[id], id, names);
  }
  return out + "</testsuites>\n";
}

} // namespace perfgate
