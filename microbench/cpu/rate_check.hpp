// SPDX-License-Identifier: Apache-2.0
// The physics check of a CPU compute peak: no core issues more than max_vector_ops_per_cycle
// vector operations a cycle. The clock it divides by is the highest one the core can run (a
// measured clock only ever reads low on a busy machine: a neighbour's time slice inside a run
// reads as a slower clock), and a rate that still looks impossible is measured again, rate and
// clock together, before it is refused. So a busy machine gives lower or noisier numbers,
// never a refusal; a broken count (a folded loop, a wrong op count) is refused every time.
#pragma once

#include "cpu_kernels.hpp"

#include <functional>
#include <optional>
#include <string>

namespace perfgate::microbench {

/// No x86-64 or Arm core issues more than 4 vector operations a cycle (Zen 4 and 5: 4 vector ALU
/// pipes, 2 of them FMA; Intel: 3 at most): a rate above that at the core's highest clock is a
/// broken measurement (a folded loop, a wrong count), not a peak.
inline constexpr double max_vector_ops_per_cycle = 4;

/// The clocks (MHz) a rate is checked against.
struct clock_bounds {
  std::optional<double> system_max_mhz; ///< the system's maximum: cpufreq, CPUID leaf 0x16
  std::optional<double> reported_mhz;   ///< /proc/cpuinfo's (or cpufreq's) current clock
  double highest_measured_mhz = 0;      ///< the highest clock measured in this run so far

  /// Raises highest_measured_mhz to `mhz` when higher.
  void measured(double mhz);
  /// The clock a rate is checked against: the highest of the three (0 when none is known).
  [[nodiscard]] double check_mhz() const;
  /// "measured 2596 MHz at most in this run; the system's maximum 4500 MHz" (each clock named).
  [[nodiscard]] std::string describe() const;
};

/// Vector operations of `v`'s width a cycle that `per_core_rate` (1e9 counted ops/s on one
/// core) is at `clock_mhz`.
[[nodiscard]] double vector_ops_per_cycle(double per_core_rate, const compute_variant& v,
                                          compute_kind kind, double clock_mhz);

/// Why a compute rate (1e9 counted ops/s on one core) of variant `v` cannot be, at `clock_mhz`:
/// more vector operations a cycle than any core issues. Empty when physics allows it.
[[nodiscard]] std::optional<std::string> implausible_rate(double per_core_rate,
                                                          const compute_variant& v,
                                                          compute_kind kind, double clock_mhz);

/// One measurement taken again: the rate (1e9 counted ops/s a core) and the highest clock (MHz)
/// measured beside it, in the same few milliseconds.
struct rate_and_clock {
  double per_core_rate = 0;
  double clock_mhz = 0;
};

/// What the check kept: the rate (the run's own, or a re-measured one where the run's was a
/// glitch) or, where every measurement stayed impossible, the refusal naming both clocks.
struct checked_rate {
  std::optional<double> per_core_rate;
  std::optional<std::string> refusal;
};

/// Checks a compute peak. `rate` is the run's best (1e9/s a core); `bounds` the clocks known so
/// far (each clock measured again raises it). Where `rate` is impossible at bounds.check_mhz(),
/// `again` measures rate and clock together, up to `retries` times: the run's rate is kept as
/// soon as the highest clock allows it; else the best rate measured again, where the clock
/// allows that one; only when every one stays impossible is the peak refused.
[[nodiscard]] checked_rate check_compute_rate(double rate, const compute_variant& v,
                                              compute_kind kind, clock_bounds& bounds,
                                              const std::function<rate_and_clock()>& again,
                                              int retries = 3);

} // namespace perfgate::microbench
