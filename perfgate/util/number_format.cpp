// SPDX-License-Identifier: Apache-2.0
#include "util/number_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace perfgate::detail {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string percent(std::optional<double> fraction, int digits) {
  return fraction ? fixed(*fraction * 100.0, digits) + "%" : "-";
}

std::string signed_percent(double fraction, int digits) {
  return (fraction >= 0 ? "+" : "") + fixed(fraction * 100.0, digits) + "%";
}

std::string fixed_or_dash(std::optional<double> v, int digits) {
  return v ? fixed(*v, digits) : "-";
}

std::string duration(double seconds) {
  const double a = std::fabs(seconds);
  if (a >= 1.0) {
    return fixed(seconds, 3) + " s";
  }
  if (a >= 1e-3) {
    return fixed(seconds * 1e3, 3) + " ms";
  }
  if (a >= 1e-6) {
    return fixed(seconds * 1e6, 3) + " us";
  }
  return fixed(seconds * 1e9, 1) + " ns";
}

namespace {

// The decimals that show two significant digits of `v` (0 for |v| >= 10; none for 0).
int decimals_for_two_digits(double v) {
  if (v == 0 || !std::isfinite(v)) {
    return 0;
  }
  return std::max(0, 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
}

// The decimals that show `digits` significant digits of the larger of two.
int decimals_cap(double a, double b, int digits) {
  const double larger = std::max(std::fabs(a), std::fabs(b));
  const int leading = larger > 0 && std::isfinite(larger)
                          ? static_cast<int>(std::floor(std::log10(larger)))
                          : 0;
  return std::max(0, digits - 1 - leading);
}

// The fewest decimals, at least `from`, that print `t` exactly with at most six significant
// digits; `from` where it has more (a computed threshold such as 1 / 0.9).
int exact_decimals(double t, int from) {
  if (t == 0 || !std::isfinite(t)) {
    return from;
  }
  const int leading = static_cast<int>(std::floor(std::log10(std::fabs(t))));
  for (int d = from; d <= std::max(from, 5 - leading); ++d) {
    // Within rounding of the last bits: 0.0149 * 100 is 1.4900000000000002.
    if (std::fabs(std::stod(fixed(t, d)) - t) <= 1e-12 * std::fabs(t)) {
      return d;
    }
  }
  return from;
}

// The smaller magnitude of two, leaving a zero out (its two digits are any decimals').
double smaller_nonzero(double a, double b) {
  if (a == 0 || b == 0) {
    return a == 0 ? b : a;
  }
  return std::fabs(a) < std::fabs(b) ? a : b;
}

// The decimals, from `decimals`, at which `a` and `b` print apart where they differ, showing at
// most `digits` significant digits.
int decimals_apart(double a, double b, int decimals, int digits) {
  const int cap = std::max(decimals, decimals_cap(a, b, digits));
  while (a != b && fixed(a, decimals) == fixed(b, decimals) && decimals < cap) {
    ++decimals;
  }
  return decimals;
}

} // namespace

std::string with_digits(double v, int min_decimals) {
  return fixed(v, std::max(min_decimals, decimals_for_two_digits(v)));
}

std::string threshold_text(double threshold, int min_decimals) {
  return fixed(threshold, exact_decimals(threshold, min_decimals));
}

number_pair told_apart(double a, double b, int min_decimals) {
  // Four digits at most: two values that agree to four are alike for a reader of a sentence.
  const int least = std::max(min_decimals, decimals_for_two_digits(smaller_nonzero(a, b)));
  int d = decimals_apart(a, b, least, 4);
  if (fixed(a, d) == fixed(b, d)) {
    d = least; // alike at four digits too: no decimals that show nothing
  }
  return {fixed(a, d), fixed(b, d)};
}

int decimals_beside(double value, double threshold, int min_decimals) {
  const int decimals =
      std::max(min_decimals, decimals_for_two_digits(smaller_nonzero(value, threshold)));
  return decimals_apart(value, threshold, exact_decimals(threshold, decimals), 15);
}

number_pair beside_threshold(double value, double threshold, int min_decimals) {
  const int d = decimals_beside(value, threshold, min_decimals);
  return {fixed(value, d), fixed(threshold, d)};
}

std::string significant(double v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string si_count(double v) {
  const char* suffix[] = {"", " k", " M", " G", " T", " P"};
  int i = 0;
  while (std::fabs(v) >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  return i == 0 ? fixed(v, 0) : fixed(v, 3) + suffix[i];
}

std::string shortest(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, end) : std::string("NaN");
}

} // namespace perfgate::detail
