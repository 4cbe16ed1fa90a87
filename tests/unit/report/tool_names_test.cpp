// SPDX-License-Identifier: Apache-2.0
// The one place that names kernels and prints numbers for other tools' reports (JUnit,
// OpenMetrics): names bounded and stable, unique across a merged report, label values that
// GitLab's parser reads whole, numbers at 4 significant digits. tests/cli/check_tool_names.py
// is the property test through the real parsers and schemas.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "report/writers/tool_names.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>

namespace {

using perfgate::detail::k_tool_name_max;
using perfgate::detail::tool_name;

TEST(ToolNames, FnvIsTheStandardFnv1a64) {
  // The published FNV-1a 64-bit test vectors (offset basis for "", "a").
  EXPECT_EQ(perfgate::detail::fnv1a64_hex(""), "cbf29ce484222325");
  EXPECT_EQ(perfgate::detail::fnv1a64_hex("a"), "af63dc4c8601ec8c");
}

TEST(ToolNames, ShortNamesStayAsTheyAreOnOneLine) {
  EXPECT_EQ(tool_name("BM_copy<float, \"a&b\">/64 #1"), "BM_copy<float, \"a&b\">/64 #1");
  EXPECT_EQ(tool_name("a\nb\tc\rd\x7f"), "a b c d ");
  EXPECT_EQ(tool_name("caf\xc3\xa9 \xff!"), "caf\xc3\xa9 \xef\xbf\xbd!"); // a bad byte: U+FFFD
}

TEST(ToolNames, LongNamesKeepTheirHeadAndAHashOfTheWhole) {
  const std::string base(200, 'k');
  const std::string a = tool_name(base + "a"), b = tool_name(base + "b");
  EXPECT_EQ(a.size(), k_tool_name_max);
  EXPECT_EQ(a, std::string(k_tool_name_max - 9, 'k') + "~" +
                   perfgate::detail::fnv1a64_hex(base + "a").substr(0, 8));
  EXPECT_NE(a, b);                     // names differing past the head stay apart
  EXPECT_EQ(a, tool_name(base + "a")); // and read the same every time
  // Cut between characters: 100 two-byte characters keep 55 (110 bytes) and the tail.
  std::string accents;
  for (int i = 0; i < 100; ++i) {
    accents += "\xc3\xa9";
  }
  const std::string cut = tool_name(accents);
  EXPECT_EQ(cut.size(), 110U + 9U);
  EXPECT_EQ(perfgate::detail::valid_utf8(cut), cut);
  EXPECT_EQ(tool_name(std::string(k_tool_name_max, 'x')), std::string(k_tool_name_max, 'x'));
}

TEST(ToolNames, LabelValuesAreEscapedForOpenMetricsAndGitLab) {
  EXPECT_EQ(perfgate::detail::openmetrics_label_value("a\\b\"c\nd#e%f{lambda(int)#1}"),
            "a\\\\b\\\"c\\nd%23e%25f{lambda(int)%231}");
  EXPECT_EQ(perfgate::detail::openmetrics_label_value("%23"), "%2523"); // one to one
}

TEST(ToolNames, NumbersHaveFourSignificantDigits) {
  using perfgate::detail::tool_number;
  EXPECT_EQ(tool_number(0.7498900059121584), "0.7499");
  EXPECT_EQ(tool_number(0.0039827), "0.003983");
  EXPECT_EQ(tool_number(1.2e-5), "1.2e-05");
  EXPECT_EQ(tool_number(1.0), "1");
  EXPECT_EQ(tool_number(1.021501057895345), "1.022");
  EXPECT_EQ(tool_number(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(tool_number(std::numeric_limits<double>::infinity()), "+Inf");
}

perfgate::kernel_report kernel(std::string name, std::string origin, std::string device) {
  perfgate::kernel_report k;
  k.name = std::move(name);
  k.origin = std::move(origin);
  k.result.device = std::move(device);
  return k;
}

TEST(ToolNames, MergedKernelsAreToldApartByTestThenHostThenNumber) {
  perfgate::report r;
  r.kernels = {kernel("BM_triad", "a/perf.triad.json (runner-1)", "h100"),
               kernel("BM_triad", "a/perf.triad_small.json (runner-1)", "h100"),
               kernel("BM_triad", "b/perf.triad.json (runner-2)", "h100"),
               kernel("BM_triad", "a/perf.triad.json (runner-1)", "h100"),
               kernel("k", "x/a.b.json (h)", "c"),
               kernel("k", "x/a.json", "b.c")};
  const auto names = perfgate::detail::tool_kernels(r);
  ASSERT_EQ(names.size(), 6U);
  EXPECT_EQ(names[0].test, "perf.triad");
  EXPECT_EQ(names[0].kernel, "BM_triad");
  EXPECT_EQ(names[0].classname, "perfgate.perf.triad.h100");
  EXPECT_EQ(names[0].suite, "perf.triad");
  EXPECT_EQ(names[1].test, "perf.triad_small");    // two tests gating one kernel on one device
  EXPECT_EQ(names[2].test, "perf.triad@runner-2"); // the same test on another runner
  EXPECT_EQ(names[2].classname, "perfgate.perf.triad@runner-2.h100");
  EXPECT_EQ(names[2].suite, "perf.triad");
  EXPECT_EQ(names[3].test, "perf.triad"); // the same kernel twice in one report: numbered
  EXPECT_EQ(names[3].kernel, "BM_triad (2)");
  // "perfgate.a.b.c" twice, no host to name: the second kernel is numbered.
  EXPECT_EQ(names[4].classname, names[5].classname);
  EXPECT_EQ(names[4].kernel, "k");
  EXPECT_EQ(names[5].kernel, "k (2)");
  std::set<std::pair<std::string, std::string>> series, cases;
  for (const auto& n : names) {
    EXPECT_TRUE(series.emplace(n.test, n.kernel).second) << n.test << " " << n.kernel;
    EXPECT_TRUE(cases.emplace(n.classname, n.kernel).second) << n.classname << " " << n.kernel;
  }
}

TEST(ToolNames, TheTestIsTheOriginsFileNameWithoutJson) {
  perfgate::report r;
  r.kernels = {kernel("k", "/b/perf.x.json (h)", "d"), kernel("k", "b/back\\slash.json", "d")};
  const auto names = perfgate::detail::tool_kernels(r);
  EXPECT_EQ(names[0].test, "perf.x");
  EXPECT_EQ(names[1].test, "back\\slash"); // a backslash is no folder on Linux
}

TEST(ToolNames, AReportNotMergedHasNoTestAndNumbersARepeatedName) {
  perfgate::report r;
  r.local_device = "local-cpu";
  r.kernels = {kernel("BM_x", "", ""), kernel("BM_x", "", ""), kernel("BM_y", "", "")};
  const auto names = perfgate::detail::tool_kernels(r);
  EXPECT_EQ(names[0].test, "");
  EXPECT_EQ(names[0].device, "local-cpu");
  EXPECT_EQ(names[0].classname, "perfgate.local-cpu");
  EXPECT_EQ(names[0].suite, "perfgate");
  EXPECT_EQ(names[1].kernel, "BM_x (2)");
  EXPECT_EQ(names[2].kernel, "BM_y");
  r.local_device.clear();
  EXPECT_EQ(perfgate::detail::tool_kernels(r)[0].classname, "perfgate.predicted");
}

// Both writers take their names from tool_kernels: the OpenMetrics series and the JUnit test
// cases of a merged report's same kernel on the same device in two tests are distinct.
TEST(ToolNames, WritersUseTheNames) {
  perfgate::report r;
  r.kernels = {kernel("f{lambda(int)#1}", "a/perf.one.json (h)", "d"),
               kernel("f{lambda(int)#1}", "a/perf.two.json (h)", "d")};
  for (auto& k : r.kernels) {
    k.result.status = perfgate::verdict_status::pass;
    k.result.efficiency = 0.51234567;
  }
  const std::string metrics = perfgate::render_report(r, "openmetrics");
  EXPECT_NE(metrics.find("perfgate_kernel_efficiency{kernel=\"f{lambda(int)%231}\",device=\"d\","
                         "test=\"perf.one\"} 0.5123\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("test=\"perf.two\"} 0.5123\n"), std::string::npos) << metrics;
  const std::string junit = perfgate::render_report(r, "junit");
  EXPECT_NE(junit.find("classname=\"perfgate.perf.one.d\" name=\"f{lambda(int)#1}\""),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("classname=\"perfgate.perf.two.d\" name=\"f{lambda(int)#1}\""),
            std::string::npos)
      << junit;
}

} // namespace
