// SPDX-License-Identifier: Apache-2.0
/// \file
/// Telling a change from noise: distribution-free statistics over timed samples (benchmark
/// repetitions, kernel launches). Timings are skewed and heavy-tailed (a preempted repetition
/// is 2x slower, never 2x faster), so nothing here assumes a normal distribution: medians,
/// ranks, order statistics and the bootstrap. Every random choice comes from a fixed seed, so a
/// verdict is a function of its samples. docs/statistics.md states the method and its error
/// rates.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::stats {

/// The bootstrap's defaults: resamples, the fixed seed (a verdict is a function of its
/// samples), and the longest side resampled before thinning.
inline constexpr int default_resamples = 2000;
inline constexpr std::uint64_t default_seed = 0x5eedULL;
inline constexpr std::size_t default_max_samples = 2000;

/// An estimate and its confidence interval (lo <= estimate <= hi).
struct interval {
  double lo = 0;
  double estimate = 0;
  double hi = 0;
  [[nodiscard]] bool contains(double v) const { return lo <= v && v <= hi; }
};

/// The median of a non-empty list (the mean of the two middle values for an even count).
[[nodiscard]] double median(std::vector<double> values);

/// A distribution-free confidence interval of the median: the order statistics x_(j) and
/// x_(n+1-j) with the largest j for which Binomial(n, 1/2) puts at most (1 - confidence) / 2
/// below j. Exact for any continuous distribution. Empty below the smallest n that has such an
/// interval (6 samples at 95%): the median of fewer samples cannot be bounded at that level.
[[nodiscard]] std::optional<interval> median_interval(std::span<const double> values,
                                                      double confidence = 0.95);

/// The Mann-Whitney U test of `head` against `base` (two independent samples).
struct rank_test {
  double u = 0; ///< U of head: pairs (head_i, base_j) with head_i > base_j, ties count 1/2
  /// P(U >= u) when both come from one distribution: small when head tends to be larger
  /// (slower, for times). Exact without ties for n_base + n_head <= 60, else the normal
  /// approximation with the tie and continuity corrections.
  double p_greater = 1;
  double p_less = 1;  ///< P(U <= u): small when head tends to be smaller
  bool exact = false; ///< whether the p values come from the exact distribution
  [[nodiscard]] double p_two_sided() const;
};

/// Throws std::invalid_argument when either sample is empty.
[[nodiscard]] rank_test mann_whitney(std::span<const double> base, std::span<const double> head);

/// A percentile-bootstrap interval of median(head) / median(base): `resamples` times, each
/// sample is resampled with replacement and the ratio of the two medians recorded; the interval
/// holds the central `confidence` of those ratios. Samples longer than max_samples are thinned
/// to every k-th value in measurement order (the interval gets wider, never narrower, than
/// all of them would give). Throws std::invalid_argument for an empty sample or a non-positive
/// median.
[[nodiscard]] interval bootstrap_median_ratio(std::span<const double> base,
                                              std::span<const double> head,
                                              double confidence = 0.95,
                                              int resamples = default_resamples,
                                              std::uint64_t seed = default_seed,
                                              std::size_t max_samples = default_max_samples);

/// Samples grouped by the run they were measured in (a process, a CI job). Samples of one run
/// share its machine state (the neighbours on a shared VM, the clocks, where its memory landed),
/// which can move the whole run by more than its own spread: on the 2-core development VM one
/// run's median triad time sat 3-13% below twenty later runs'.
using runs = std::vector<std::vector<double>>;

/// Per-sample efficiencies as relative times (1 / efficiency: time over the roof's, larger is
/// slower, like the times themselves), run by run; an empty run is left out. How the gate, A/B
/// and history compare efficiencies measured at different times.
[[nodiscard]] runs relative_times(const runs& efficiencies);

/// The bootstrap of median(head) / median(base) over runs. With one run a side it is the plain
/// bootstrap above. One run against several (a run against a baseline of k runs): each run's
/// samples are resampled as they are, and the one run's unknown run effect is drawn for a new
/// run of the same runner class: the log spread s of the k run medians, s sqrt(1 + 1/k) times
/// Student's t with k - 1 degrees of freedom (normal run effects; with 2 runs the interval is
/// very wide, honestly). Several runs a side: runs, then their samples, with replacement.
/// `run_spread` (a log standard deviation, 0: none) is what the runner's runs of unchanged code
/// are known to spread by: one run against one then carries both runs' unknown run effects,
/// run_spread sqrt(2) times a standard normal, and one run against several a spread no
/// smaller than it. Throws std::invalid_argument for an empty side or run or a negative spread.
[[nodiscard]] interval
bootstrap_median_ratio(const runs& base, const runs& head, double confidence = 0.95,
                       int resamples = default_resamples, std::uint64_t seed = default_seed,
                       std::size_t max_samples = default_max_samples, double run_spread = 0);

enum class change { same, slower, faster, ambiguous };
/// "SAME", "SLOWER", "FASTER", "AMBIGUOUS"
[[nodiscard]] std::string_view to_string(change c);

/// What two samples of the same quantity (times, or anything where larger is worse) say about
/// a change from `base` to `head`, against an allowed slowdown.
struct change_verdict {
  change kind = change::ambiguous;
  /// median(head) / median(base) with its bootstrap interval: 1.2 is 20% slower.
  interval ratio;
  rank_test test;
  double allowed = 1; ///< the largest ratio that is no regression
  /// SLOWER whose whole interval lies above `allowed`: a regression with confidence.
  bool beyond_allowed = false;
  /// AMBIGUOUS with one run a side: about how many samples per side would settle it at the
  /// same spread (the interval's width shrinks as 1/sqrt(n)); 0 when more samples of one run
  /// cannot (the estimate sits on the threshold itself, or the spread is between runs).
  std::size_t samples_to_settle = 0;
  double confidence = 0.95;
};

/// The decision rule (docs/statistics.md), with R the interval of median(head)/median(base),
/// A = `allowed` (> 1) and p the Mann-Whitney p values at significance 1 - confidence:
///   SLOWER  R.lo > 1 and head significantly larger; beyond_allowed when R.lo > A as well.
///   FASTER  R.hi < 1 and head significantly smaller.
///   SAME    R.hi <= A (no slowdown past the allowance is compatible with the samples), and
///           neither of the above.
///   AMBIGUOUS  otherwise: R straddles A, so the samples allow both a regression and none.
/// A SLOWER that is not beyond_allowed but whose interval reaches past A is AMBIGUOUS. Throws
/// std::invalid_argument for fewer than 2 samples per side or allowed < 1.
[[nodiscard]] change_verdict judge_change(std::span<const double> base,
                                          std::span<const double> head, double allowed,
                                          double confidence = 0.95);

/// judge_change over runs: the interval from the run-aware bootstrap (with `run_spread`, as
/// there), the Mann-Whitney test over all samples of each side. samples_to_settle counts
/// samples of one run; where the runs disagree, more runs (or a quieter runner) settle it
/// instead. With a run spread the rank test, which sees samples only, is not asked: the
/// interval alone decides (SLOWER needs R.lo > 1, FASTER R.hi < 1).
[[nodiscard]] change_verdict judge_change(const runs& base, const runs& head, double allowed,
                                          double confidence = 0.95, double run_spread = 0);

/// The floor rule, for a head measured again in fresh runs (the gate's confirmation). On a
/// shared machine interference only ever slows a run down (a neighbour's traffic, a page
/// placement, a preemption), so the run medians of one build spread upwards from the
/// machine's undisturbed time, and the fastest run of each side estimates it far more
/// steadily than their mean or median does (on the 2-core VM: run medians 7% log spread, the
/// fastest of five within 1.3%). The minimum estimator of Chen & Revels, "Robust benchmarking
/// in noisy environments" (2016).
struct floor_verdict {
  change kind = change::ambiguous;
  double base_floor = 0;  ///< the lowest run median of the base
  double head_floor = 0;  ///< the lowest run median of the head
  double ratio = 0;       ///< head_floor / base_floor: 1.2 is 20% slower
  double allowed = 1;     ///< the largest ratio that is no regression
  bool beyond_allowed = false;
  std::size_t base_runs = 0, head_runs = 0;
  /// The estimated chance that one run lands within `allowed` of its side's floor: the runs
  /// that did, both sides together, over all runs plus one.
  double p_within = 0;
  /// (1 - p_within)^head_runs: how likely it is that every head run of a build no slower than
  /// the base missed the allowance by interference alone. A regression is declared only when
  /// this is at most (1 - confidence) / 2.
  double false_alarm = 1;
  /// AMBIGUOUS: how many head runs in all would settle it at this p_within.
  std::size_t runs_to_settle = 0;
  double confidence = 0.95;
};

/// The fewest head runs the floor rule declares a regression on: p_within is estimated from the
/// runs themselves, and from fewer it is too often too high (simulated one-sided interference
/// like the 2-core VM's: 1.4% false alarms at a 10% allowance with 5 runs, 4% with 1).
inline constexpr std::size_t floor_min_head_runs = 5;

/// Judges `head` against `base` by the floor rule, over runs of larger-is-worse values (times):
///   SAME or FASTER  ratio <= allowed (FASTER below 1 / allowed): a head run within the
///                   allowance of the base's floor exists, and more head runs only lower it;
///   SLOWER          ratio > allowed with false_alarm <= (1 - confidence) / 2 and at least
///                   floor_min_head_runs head runs: beyond_allowed;
///   AMBIGUOUS       ratio > allowed, too few head runs to tell a regression from bad luck.
/// It trusts the base's floor: a base whose every run was slowed down hides a regression of
/// that size (more baseline runs make that unlikely). Throws std::invalid_argument for an empty
/// side or run, a non-positive value or allowed < 1.
[[nodiscard]] floor_verdict judge_floor(const runs& base, const runs& head, double allowed,
                                        double confidence = 0.95);

/// The Hodges-Lehmann estimate of the ratio head / base (the median of every head_i / base_j)
/// with its distribution-free interval (Moses: the k-th smallest and largest of those ratios,
/// k from the exact null distribution of Mann-Whitney's U, normal beyond 120 values). Assumes
/// the two samples differ by a factor only. Empty when the samples are too small for any
/// interval at `confidence` (4 and 4 at 95%). Throws std::invalid_argument for an empty side
/// or a non-positive value.
[[nodiscard]] std::optional<interval> shift_ratio_interval(std::span<const double> base,
                                                           std::span<const double> head,
                                                           double confidence = 0.95);

/// Two builds run alternately in one session (perfgate ab), in rounds of a run of each, the
/// order alternating (ABBA). Measured on the 2-core VM (2026-11-26): a run's median depends on
/// the process far more than on the minute (BM_triad run medians 7-8% log spread, no
/// correlation between a run and another benchmark's run right after it), and the second run
/// of a round ran 4-5% slower whichever build it was. So the runs are judged as two samples,
/// head against base, by the Hodges-Lehmann ratio with its Moses interval over every run, on
/// whole ABBA pairs of rounds (each build as often first as second, and a drift over the
/// session falls on both alike). Simulated by resampling the measured run medians, that
/// fails a 5% slowdown against a 2% allowance in 96% and 83% of sessions of at most 60 rounds
/// (two measured sets), where the median of per-quad ratios it replaced failed 73% and 51%
/// (docs/statistics.md).
struct ab_verdict {
  change kind = change::ambiguous;
  /// The Hodges-Lehmann ratio head / base of the run medians with its interval (larger is
  /// slower): 1.05 is 5% slower.
  interval ratio;
  double allowed = 1;
  double confidence = 0.95;
  bool beyond_allowed = false;
  std::size_t rounds = 0; ///< complete rounds used (an odd last one waits for its pair)
  /// AMBIGUOUS: about how many rounds in all would settle it at this spread (0 when the
  /// estimate sits on the allowance itself).
  std::size_t rounds_to_settle = 0;
};

/// The fewest rounds an A/B verdict is given on: three ABBA pairs of rounds.
inline constexpr std::size_t ab_min_rounds = 6;

/// Judges `head` against `base`, one value per round (a run's median time; larger is worse):
/// SLOWER beyond_allowed when the interval lies above `allowed`, FASTER when it lies below 1,
/// SAME when its top is at most `allowed`, AMBIGUOUS otherwise or below ab_min_rounds rounds.
/// Throws std::invalid_argument for sides of different lengths, a non-positive value or
/// allowed < 1.
[[nodiscard]] ab_verdict judge_ab(std::span<const double> base, std::span<const double> head,
                                  double allowed, double confidence = 0.95);

/// One kernel's part in a suite's figure: the time ratio head / base its verdict gave (larger
/// is slower), that verdict, and the larger-is-worse values (times relative to the roof) the
/// ratio came from, where they were kept.
struct kernel_ratio {
  double ratio = 1;
  /// The verdict's kind; empty where the kernel had too few samples for one (a point
  /// comparison): it counts in the geometric mean, not among the verdicts.
  std::optional<change> kind;
  std::vector<double> base, head; ///< may be empty: the ratio is then taken as it is
};

/// What a comparison of two runs of a suite says in one figure: the geometric mean of its
/// kernels' time ratios head / base (1.03: the suite 3% slower) with a bootstrap interval, and
/// how many kernels each verdict got.
struct suite_summary {
  interval geomean;
  double confidence = 0.95;
  int resamples = default_resamples;
  std::size_t kernels = 0; ///< in the geometric mean
  std::size_t slower = 0, faster = 0, same = 0, ambiguous = 0;
  std::size_t unjudged = 0; ///< kernels with no verdict kind (too few samples)
};

/// The geometric mean of the kernels' ratios, exp(mean(log ratio)), with a percentile-bootstrap
/// interval: each of `resamples` resamples draws as many kernels as there are, with
/// replacement, and for each drawn kernel with samples on both sides resamples those too (each
/// side with replacement, thinned to `max_samples` like bootstrap_median_ratio): its ratio
/// then moves by median(head*) / median(base*) over median(head) / median(base), so the point
/// estimate stays its verdict's ratio whatever estimator that was. The interval holds the
/// central `confidence` of the resampled geometric means, widened to contain the estimate.
/// Identical ratios without samples give a zero-width interval. Throws std::invalid_argument for
/// no kernel, a ratio that is not positive and finite, or resamples < 100.
[[nodiscard]] interval bootstrap_geomean_ratio(std::span<const kernel_ratio> kernels,
                                               double confidence = 0.95,
                                               int resamples = default_resamples,
                                               std::uint64_t seed = default_seed,
                                               std::size_t max_samples = 200);

/// bootstrap_geomean_ratio's interval and the count of each verdict kind. Throws as it does.
[[nodiscard]] suite_summary summarize_suite(std::span<const kernel_ratio> kernels,
                                            double confidence = 0.95,
                                            int resamples = default_resamples,
                                            std::uint64_t seed = default_seed);

} // namespace perfgate::stats
