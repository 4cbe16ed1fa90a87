// SPDX-License-Identifier: Apache-2.0
// Numbers a sentence sets side by side (util/number_format.hpp): enough digits to tell them
// apart, a threshold as it was set, two significant digits of a small value.
#include "util/number_format.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

TEST(NumberFormat, ASmallValueKeepsTwoSignificantDigits) {
  EXPECT_EQ(with_digits(0.0149, 2), "0.015");
  EXPECT_EQ(with_digits(0.75, 2), "0.75");
  EXPECT_EQ(with_digits(0.00074, 2), "0.00074");
  EXPECT_EQ(with_digits(12.5, 2), "12.50");
}

TEST(NumberFormat, AThresholdPrintsAsItWasSet) {
  EXPECT_EQ(threshold_text(1.49, 1), "1.49");
  EXPECT_EQ(threshold_text(0.0149 * 100, 1), "1.49"); // 1.4900000000000002 in binary
  EXPECT_EQ(threshold_text(10, 1), "10.0");
  // A computed threshold (1 / 0.9) keeps the decimals asked for.
  EXPECT_EQ(threshold_text(1 / 0.9, 3), "1.111");
}

// "first | second", to compare a pair in one assertion.
std::string both(const number_pair& p) { return p.first + " | " + p.second; }

TEST(NumberFormat, TwoValuesThatDifferNeverPrintAlike) {
  EXPECT_EQ(both(told_apart(0.0149, 0.0151, 2)), "0.0149 | 0.0151");
  EXPECT_EQ(both(told_apart(0.91, 0.89, 2)), "0.91 | 0.89");
  // Alike to four significant digits: alike for a reader.
  EXPECT_EQ(both(told_apart(0.800001, 0.8, 2)), "0.80 | 0.80");
}

TEST(NumberFormat, AValueBesideItsThresholdPrintsApart) {
  EXPECT_EQ(both(beside_threshold(0.0123, 0.0149, 2)), "0.0123 | 0.0149");
  EXPECT_EQ(both(beside_threshold(0.49999, 0.5, 2)), "0.49999 | 0.50000");
  EXPECT_EQ(both(beside_threshold(0.2, 0.5, 2)), "0.20 | 0.50");
}

} // namespace
} // namespace perfgate::detail
