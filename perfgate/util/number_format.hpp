// SPDX-License-Identifier: Apache-2.0
// Number formatting shared by the human-readable writers (text and Markdown).
#pragma once

#include <optional>
#include <string>

namespace perfgate::detail {
/// Fixed-point with `digits` decimals ("28.92").
[[nodiscard]] std::string fixed(double v, int digits);
/// A fraction as a percentage ("55.89%"), or "-" when absent.
[[nodiscard]] std::string percent(std::optional<double> fraction, int digits = 2);
/// A relative change as a signed percentage ("+38.0%", "-50.0%").
[[nodiscard]] std::string signed_percent(double fraction, int digits);
/// A value or "-" when absent.
[[nodiscard]] std::string fixed_or_dash(std::optional<double> v, int digits);
/// A duration with a unit chosen for its size ("34.803 ms", "12.5 us", "1.204 s").
[[nodiscard]] std::string duration(double seconds);
/// A value with at least `min_decimals` decimals and at least two significant digits: an
/// efficiency of 0.0149 reads "0.015", not "0.01"; 0.75 stays "0.75".
[[nodiscard]] std::string with_digits(double v, int min_decimals);
/// Two numbers a sentence sets side by side (a base and a head), with one number of decimals:
/// at least `min_decimals`, two significant digits of the smaller, and more while they differ
/// yet would print alike (up to four significant digits: "0.0149 -> 0.0151", "0.91 -> 0.89").
struct number_pair {
  std::string first, second;
};
[[nodiscard]] number_pair told_apart(double a, double b, int min_decimals);
/// A value and the threshold it is judged against (MIN_EFFICIENCY, an allowed ratio), as
/// told_apart, with enough decimals besides for the threshold as it was set where it has at most
/// six significant digits (MIN_EFFICIENCY 0.0149 reads "0.0149", 0.5 reads "0.50"), and up to 15
/// significant digits to tell them apart: a value and its threshold never print alike when they
/// differ ("efficiency 0.0123 below MIN_EFFICIENCY 0.0149", never "0.01 below 0.01").
[[nodiscard]] number_pair beside_threshold(double value, double threshold, int min_decimals);
/// A threshold as it was set: the fewest decimals, at least `min_decimals`, that print it exactly
/// where it has at most six significant digits (MAX_EFFICIENCY_DROP 1.49%, not 1.5%).
[[nodiscard]] std::string threshold_text(double threshold, int min_decimals);
/// The decimals beside_threshold prints both with.
[[nodiscard]] int decimals_beside(double value, double threshold, int min_decimals);
/// `digits` significant digits, printf's %g ("1.5e+06", "0.25", "3").
[[nodiscard]] std::string significant(double v, int digits);
/// A large count with an SI suffix ("1.007 G", "42.26 M").
[[nodiscard]] std::string si_count(double v);
/// The shortest text that reads back as the same double (std::to_chars: "1.0999", "0.95"),
/// for machine-read outputs that must carry the JSON's numbers exactly (OpenMetrics, JUnit).
[[nodiscard]] std::string shortest(double v);
} // namespace perfgate::detail
