// SPDX-License-Identifier: Apache-2.0
// The hull's and the history's formats are registries of the same format_writer as a report's:
// `--format` takes their names, an unknown name is refused listing them all.
#include <perfgate/error.hpp>
#include <perfgate/hull_report.hpp>
#include <perfgate/writers.hpp>

#include "history/history.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace {

template <class Writer> void expect_a_registry(const std::vector<Writer>& writers) {
  std::set<std::string> names;
  for (const auto& w : writers) {
    EXPECT_TRUE(names.insert(std::string(w.name)).second) << w.name << " twice";
    EXPECT_EQ(&perfgate::find_writer(writers, w.name), &w);
    EXPECT_TRUE(w.extension.starts_with(".")) << w.name;
    EXPECT_FALSE(w.description.empty()) << w.name;
    EXPECT_NE(w.render, nullptr) << w.name;
  }
}

TEST(FormatWriters, HullFormatsAreTextJsonMdSvg) {
  const auto& writers = perfgate::hull::hull_writers();
  expect_a_registry(writers);
  EXPECT_EQ(perfgate::writer_names(writers),
            (std::vector<std::string>{"text", "json", "md", "svg"}));
  EXPECT_EQ(perfgate::find_writer(writers, "svg").render, &perfgate::hull::hull_to_svg);
  try {
    (void)perfgate::find_writer(writers, "html");
    FAIL() << "expected usage_error";
  } catch (const perfgate::usage_error& e) {
    EXPECT_STREQ(e.what(), "unknown format 'html': expected text, json, md or svg");
  }
}

TEST(FormatWriters, TrendFormatsAreMdHtmlJsonAndTextIsTheMarkdown) {
  const auto& writers = perfgate::history::trend_writers();
  expect_a_registry(writers);
  EXPECT_EQ(perfgate::writer_names(writers),
            (std::vector<std::string>{"md", "html", "json", "text"}));
  EXPECT_EQ(perfgate::find_writer(writers, "text").render, &perfgate::history::trends_to_markdown);
  EXPECT_EQ(perfgate::find_writer(writers, "json").render, &perfgate::history::trends_to_json);
}

TEST(FormatWriters, ReportNamesIncludeAliases) {
  const auto names = perfgate::writer_names(perfgate::report_writers());
  EXPECT_NE(std::find(names.begin(), names.end(), "markdown"), names.end());
  EXPECT_EQ(names.front(), "text");
}

} // namespace
