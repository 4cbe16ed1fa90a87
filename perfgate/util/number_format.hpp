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
/// `digits` significant digits, printf's %g ("1.5e+06", "0.25", "3").
[[nodiscard]] std::string significant(double v, int digits);
/// A large count with an SI suffix ("1.007 G", "42.26 M").
[[nodiscard]] std::string si_count(double v);
/// The shortest text that reads back as the same double (std::to_chars: "1.0999", "0.95"),
/// for machine-read outputs that must carry the JSON's numbers exactly (OpenMetrics, JUnit).
[[nodiscard]] std::string shortest(double v);
} // namespace perfgate::detail
