// SPDX-License-Identifier: Apache-2.0
// Every registered writer against its golden file in tests/data/golden/writers/. A change to a
// writer's output is approved by regenerating the files and reviewing them in the diff:
//   PERFGATE_UPDATE_GOLDEN=1 ctest --test-dir build -R WritersGolden   (writes, and fails)
//   ctest --test-dir build -R WritersGolden                            (passes on the new files)
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/writers.hpp>

#include "unknown_zeros.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace {
const std::string golden_dir = PERFGATE_TEST_DATA_DIR "/golden/writers/";

// The thesis's SGEMM (quantitative model, gtx-480 counters) passing at 0.75 of its roof, a
// memory-bound kernel with declared work failing at 0.49, a compute-bound one passing at 0.91,
// one whose declared work cannot feed the model, and one that declares bytes alone (its
// compute side absent from every writer's output, issue 43); gated on the gtx-480
// (MIN_EFFICIENCY 0.5), predicted for the gtx-660 (the SGEMM from its measured time).
perfgate::report golden_report() {
  auto p = perfgate::import_profile(PERFGATE_SOURCE_DIR
                                    "/examples/profiles/sgemm_32x32.gtx-480.nvprof.csv");
  p.source_file = "examples/profiles/sgemm_32x32.gtx-480.nvprof.csv"; // not this machine's path
  p.kernels.front().time_s = 3.9827e-3;
  const auto declared = [](std::string name, perfgate::declared_work w, double time_s) {
    perfgate::kernel_profile k;
    k.name = std::move(name);
    k.invocations = 3;
    k.work = w;
    k.time_s = time_s;
    return k;
  };
  p.kernels.push_back(
      declared("triad<double>(double*, double const*, int)", {0, 2e8, 0, 2.4e9}, 0.03));
  p.kernels.push_back(declared("fma_chain", {4e11, 0, 0, 1e6}, 0.3));
  p.kernels.push_back(declared("no_bytes", {1e9, 0, 0, 0}, 0.01));
  p.kernels.push_back(declared("BM_memcpy/67108864", {0, 0, 0, 1.2e9}, 0.01));
  auto r = perfgate::predict_report(
      p, {perfgate::resolve_device("gtx-480"), perfgate::resolve_device("gtx-660")});
  // The SGEMM on the gtx-660 from its time on the gtx-480 (predictor measured-scaling).
  auto& sgemm = r.kernels.front();
  sgemm.predictions[1] = perfgate::predict_from_measurement(sgemm.params, 3.9827e-3, std::nullopt,
                                                            perfgate::resolve_device("gtx-480"),
                                                            perfgate::resolve_device("gtx-660"));
  perfgate::gate_policy policy;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy);
  r.meta = {"0.1.0", "predict", {"perfgate", "predict"}, "2026-11-23T12:00:00Z", "golden-host"};
  // The suite's figure as a gate against a baseline leaves it (the writers only render it):
  // three kernels at 1.10x SLOWER, 0.95x FASTER and 1.02x SAME, their samples not kept.
  using perfgate::stats::change;
  const std::vector<perfgate::stats::kernel_ratio> suite = {
      {1.10, change::slower, {}, {}}, {0.95, change::faster, {}, {}}, {1.02, change::same, {}, {}}};
  r.suite = perfgate::stats::summarize_suite(suite);
  return r;
}

std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) {
      return "same lines, different bytes (line endings?)";
    }
    if (la != lb || more_a != more_b) {
      return "line " + std::to_string(line) + ":\n  golden: " + (more_a ? la : "<end>") +
             "\n  now:    " + (more_b ? lb : "<end>");
    }
  }
}

void expect_golden(const std::string& file, const std::string& got) {
  const std::string path = golden_dir + file;
  if (std::getenv("PERFGATE_UPDATE_GOLDEN") != nullptr) {
    // Written, and failed all the same: a run with the variable set (a leaked environment
    // included) can never pass, so a golden file is only ever approved by a run after it.
    perfgate::write_file_atomically(path, got);
    ADD_FAILURE() << path << " written (PERFGATE_UPDATE_GOLDEN is set): review the diff, then "
                  << "run again without the variable";
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " is missing: run with PERFGATE_UPDATE_GOLDEN=1 and review the new file";
  const std::string want = perfgate::read_text_file(path);
  EXPECT_TRUE(want == got) << file << " differs from its golden file, first at "
                           << first_difference(want, got)
                           << "\n(approve a wanted change with PERFGATE_UPDATE_GOLDEN=1)";
}
} // namespace

TEST(WritersGolden, EveryRegisteredWriterMatchesItsGoldenFile) {
  const auto r = golden_report();
  ASSERT_EQ(r.kernels.size(), 5U);
  ASSERT_FALSE(r.kernels[3].skip_reason.empty());
  ASSERT_FALSE(r.kernels[4].params.compute_declared);
  for (const auto& w : perfgate::report_writers()) {
    expect_golden("report" + std::string(w.extension), w.render(r, {}));
  }
}

TEST(WritersGolden, QuadrantChartMatchesItsGoldenFile) {
  perfgate::writer_options o;
  o.chart = perfgate::writer_options::chart_kind::quadrant;
  o.kernel_index = 0;
  expect_golden("report.quadrant.svg", perfgate::render_report(golden_report(), "svg", o));
}

TEST(WritersGolden, JsonGoldenReadsBackToItself) {
  const std::string json = perfgate::render_report(golden_report(), "json");
  EXPECT_EQ(perfgate::report_to_json(perfgate::report_from_json(json, "report.json")), json);
}

// Issue 43's property: the nvprof SGEMM has a time but no statistics; none is written as 0.
TEST(WritersGolden, NoFieldIsZeroForAnUnknownValue) {
  const auto json = nlohmann::json::parse(perfgate::render_report(golden_report(), "json"));
  EXPECT_EQ(perfgate::test::zeros_standing_for_unknown(json), std::vector<std::string>{});
  EXPECT_FALSE(json.at("kernels").at(0).at("measured").contains("samples"));
}

// The README's synopsis of `perfgate report --format` lists every writer, in order (issue 52).
std::string readme_report_formats() {
  const std::string readme = perfgate::read_text_file(PERFGATE_SOURCE_DIR "/README.md");
  const std::string line = "\nperfgate report    REPORT.json --format ";
  const auto at = readme.find(line);
  if (at == std::string::npos) {
    return "";
  }
  const auto from = at + line.size();
  return readme.substr(from, readme.find(' ', from) - from);
}

TEST(WritersGolden, EveryWriterIsInTheDocsAndFindsByItsNames) {
  const std::string docs = perfgate::read_text_file(PERFGATE_SOURCE_DIR "/docs/formats.md");
  std::string synopsis;
  for (const auto& w : perfgate::report_writers()) {
    synopsis += (synopsis.empty() ? "" : "|") + std::string(w.name);
  }
  EXPECT_EQ(readme_report_formats(), synopsis) << "README.md's synopsis of perfgate report";
  for (const auto& w : perfgate::report_writers()) {
    EXPECT_NE(docs.find("| `" + std::string(w.name) + "` |"), std::string::npos)
        << "docs/formats.md's table of report formats lacks `" << w.name << "`";
    EXPECT_EQ(&perfgate::find_report_writer(w.name), &w);
    if (!w.alias.empty()) {
      EXPECT_EQ(&perfgate::find_report_writer(w.alias), &w);
    }
  }
  try {
    (void)perfgate::find_report_writer("xml");
    FAIL() << "expected usage_error";
  } catch (const perfgate::usage_error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown format 'xml': expected text, json, md, html, svg, openmetrics or junit");
  }
}

// The suite's figure is the first thing every writer but the charts shows where the report
// compared a suite (the golden files), and nothing of it appears where it did not: no zeros
// standing for a comparison that never happened.
TEST(WritersGolden, SuiteFigureOnlyWhereTheReportComparedASuite) {
  const auto with = golden_report();
  auto without = with;
  without.suite.reset();
  const std::map<std::string, std::string> marker = {
      {"text", "geometric mean time ratio"}, {"md", "geometric mean time ratio"},
      {"html", "geometric mean time ratio"}, {"json", "\"suite\""},
      {"openmetrics", "perfgate_suite_"},    {"junit", "perfgate.suite"}};
  for (const auto& [format, text] : marker) {
    EXPECT_NE(perfgate::render_report(with, format).find(text), std::string::npos) << format;
    EXPECT_EQ(perfgate::render_report(without, format).find(text), std::string::npos) << format;
  }
  const std::string junit = perfgate::render_report(without, "junit");
  EXPECT_NE(junit.find("tests=\"5\""), std::string::npos); // the kernels alone
  EXPECT_EQ(junit.find("<properties>"), std::string::npos);
  const std::string junit_suite = perfgate::render_report(with, "junit");
  EXPECT_NE(junit_suite.find("tests=\"6\""), std::string::npos); // and the suite's case
  EXPECT_LT(junit_suite.find("perfgate.suite"),
            junit_suite.find("<testcase classname=\"perfgate.gtx"));
}
