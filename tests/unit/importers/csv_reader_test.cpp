// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>

#include "importers/csv_reader.hpp"

#include <gtest/gtest.h>

using perfgate::detail::parse_profiler_number;
using perfgate::detail::read_csv;

TEST(CsvReader, QuotedFieldsKeepCommasQuotesAndParentheses) {
  const auto rows =
      read_csv("\"a\",\"void f<int, 2>(float*, \"\"x\"\")\",3\n\"b\",\"\",4\n", "t.csv");
  ASSERT_EQ(rows.size(), 2U);
  ASSERT_EQ(rows[0].fields.size(), 3U);
  EXPECT_EQ(rows[0].fields[1], "void f<int, 2>(float*, \"x\")");
  EXPECT_EQ(rows[1].fields[1], "");
  EXPECT_EQ(rows[1].line, 2U);
}

TEST(CsvReader, SkipsProfilerChatterAndBlankLinesAndKeepsLineNumbers) {
  const auto rows = read_csv("==123== NVPROF is profiling\r\n\r\n==PROF== Connected\r\n"
                             "\"h1\",\"h2\"\r\n1,2\r\n",
                             "t.csv");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].line, 4U);
  EXPECT_EQ(rows[1].fields[1], "2"); // CR dropped
  EXPECT_EQ(rows[1].line, 5U);
}

TEST(CsvReader, LastLineWithoutNewline) {
  const auto rows = read_csv("a,b\n1,2", "t.csv");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[1].fields[1], "2");
}

TEST(CsvReader, UnterminatedQuoteNamesFileAndLine) {
  try {
    (void)read_csv("\"a\",\"b\"\n\"x\",\"never closed\n", "cut.csv");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(e.file(), "cut.csv");
    EXPECT_EQ(e.where(), "2");
    EXPECT_NE(std::string(e.what()).find("cut.csv:2:"), std::string::npos);
  }
}

TEST(ProfilerNumber, FormatsToolsPrint) {
  EXPECT_EQ(parse_profiler_number("80937000"), 80937000.0);
  EXPECT_EQ(parse_profiler_number("2,000,000,000"), 2e9);
  EXPECT_EQ(parse_profiler_number("34.636350%"), 34.63635);
  EXPECT_EQ(parse_profiler_number("1.5e+03"), 1500.0);
  EXPECT_EQ(parse_profiler_number("-3"), -3.0);
  EXPECT_EQ(parse_profiler_number(" 7 "), 7.0);
}

TEST(ProfilerNumber, RejectsWhatIsNotANumber) {
  EXPECT_FALSE(parse_profiler_number(""));
  EXPECT_FALSE(parse_profiler_number("n/a"));
  EXPECT_FALSE(parse_profiler_number("abc"));
  EXPECT_FALSE(parse_profiler_number("12abc"));
  EXPECT_FALSE(parse_profiler_number("1.2GB/s"));
  EXPECT_FALSE(parse_profiler_number("inf"));
  EXPECT_FALSE(parse_profiler_number("%"));
}
