// SPDX-License-Identifier: Apache-2.0
#include "rate_check.hpp"

#include <algorithm>
#include <cstdio>

namespace perfgate::microbench {

void clock_bounds::measured(double mhz) {
  if (mhz > highest_measured_mhz) {
    highest_measured_mhz = mhz;
  }
}

double clock_bounds::check_mhz() const {
  return std::max({highest_measured_mhz, system_max_mhz.value_or(0.0), reported_mhz.value_or(0.0)});
}

std::string clock_bounds::describe() const {
  char text[200];
  std::snprintf(text, sizeof text, "measured %.0f MHz at most in this run; ", highest_measured_mhz);
  std::string out = text;
  if (system_max_mhz) {
    std::snprintf(text, sizeof text, "the system's maximum %.0f MHz", *system_max_mhz);
    out += text;
  } else {
    out += "no maximum reported by the system (cpufreq, CPUID leaf 0x16)";
  }
  if (reported_mhz) {
    std::snprintf(text, sizeof text, "; reported current %.0f MHz", *reported_mhz);
    out += text;
  }
  return out;
}

double vector_ops_per_cycle(double per_core_rate, const compute_variant& v, compute_kind kind,
                            double clock_mhz) {
  return per_core_rate * 1e9 / v.ops_per_iteration * v.vector_ops_per_iteration(kind) /
         (clock_mhz * 1e6);
}

std::optional<std::string> implausible_rate(double per_core_rate, const compute_variant& v,
                                            compute_kind kind, double clock_mhz) {
  const double per_cycle = vector_ops_per_cycle(per_core_rate, v, kind, clock_mhz);
  // 25% for the clock moving between its measurement and the rate's (where no maximum is
  // reported, the highest measured clock may still read a little low): a broken count is off
  // by far more.
  if (!(per_cycle <= 1.25 * max_vector_ops_per_cycle)) {
    char why[300];
    std::snprintf(why, sizeof why,
                  "%.1f 1e9/s a core is %.2f %d-bit vector operations a cycle at %.0f MHz, above "
                  "the %.0f any core issues",
                  per_core_rate, per_cycle, v.vector_bits, clock_mhz, max_vector_ops_per_cycle);
    return std::string(why);
  }
  return std::nullopt;
}

checked_rate check_compute_rate(double rate, const compute_variant& v, compute_kind kind,
                                clock_bounds& bounds, const std::function<rate_and_clock()>& again,
                                int retries) {
  if (!implausible_rate(rate, v, kind, bounds.check_mhz())) {
    return {rate, std::nullopt};
  }
  rate_and_clock best_again;
  for (int attempt = 0; attempt < retries; ++attempt) {
    const rate_and_clock m = again();
    bounds.measured(m.clock_mhz);
    // The run's rate, at the highest clock now known: a clock read low under load is the usual
    // reason a true rate looked impossible.
    if (!implausible_rate(rate, v, kind, bounds.check_mhz())) {
      return {rate, std::nullopt};
    }
    best_again = m.per_core_rate > best_again.per_core_rate ? m : best_again;
  }
  // The run's rate stays impossible but one measured again is not: the first was a glitch (a
  // timer read across a migration), and the best rate measured again is the peak.
  if (best_again.per_core_rate > 0 &&
      !implausible_rate(best_again.per_core_rate, v, kind, bounds.check_mhz())) {
    return {best_again.per_core_rate, std::nullopt};
  }
  const auto why = implausible_rate(rate, v, kind, bounds.check_mhz());
  char again_text[200];
  std::snprintf(again_text, sizeof again_text,
                "; measured again %d times with the clock, at best %.1f 1e9/s beside %.0f MHz",
                retries, best_again.per_core_rate, best_again.clock_mhz);
  return {std::nullopt, *why + " (" + bounds.describe() + ")" + again_text +
                            ": the measurement is wrong (a broken count, not a busy machine)"};
}

} // namespace perfgate::microbench
