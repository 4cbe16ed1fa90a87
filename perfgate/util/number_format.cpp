// SPDX-License-Identifier: Apache-2.0
#include "util/number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

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
