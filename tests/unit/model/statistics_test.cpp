// SPDX-License-Identifier: Apache-2.0
// The statistics behind the regression verdict, against exact combinatorics and against
// repeated draws from known distributions (fixed seeds: every rate below is deterministic).
// Rates are asserted with a margin of about 3 binomial standard deviations of the trial count,
// so a correct method passes on any standard library and a broken one (a one-sided interval, a
// p value off by a factor of 2, a shifted median) fails.
#include <perfgate/statistics.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace perfgate::stats {
namespace {

// Log-normal timings around `median` with log-spread `sigma`, from mt19937_64 (whose sequence
// the standard fixes) through Box-Muller (std::normal_distribution's is not fixed).
class timings {
public:
  explicit timings(std::uint64_t seed) : m_rng(seed) {}
  std::vector<double> draw(std::size_t n, double median, double sigma) {
    std::vector<double> v(n);
    for (double& x : v) {
      x = median * std::exp(sigma * normal());
    }
    return v;
  }

private:
  double normal() {
    const double u1 = (static_cast<double>(m_rng() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = static_cast<double>(m_rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }
  std::mt19937_64 m_rng;
};

TEST(Median, OddAndEvenCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_THROW((void)median({}), std::invalid_argument);
}

TEST(MedianInterval, OrderStatisticsOfTheBinomial) {
  // n = 20: P(B(20, 1/2) <= 5) = 0.0207 <= 0.025 < P(B <= 6) = 0.0577, so j = 6: [x_6, x_15].
  std::vector<double> v;
  for (int i = 20; i >= 1; --i) {
    v.push_back(i);
  }
  const auto ci = median_interval(v);
  ASSERT_TRUE(ci.has_value());
  EXPECT_EQ(ci->lo, 6);
  EXPECT_EQ(ci->hi, 15);
  EXPECT_EQ(ci->estimate, 10.5);
  // n = 6: P(B <= 0) = 1/64 <= 0.025, the widest interval [x_1, x_6]; n = 5: 1/32 > 0.025.
  const auto six = median_interval(std::vector<double>{5, 1, 4, 2, 6, 3});
  ASSERT_TRUE(six.has_value());
  EXPECT_EQ(six->lo, 1);
  EXPECT_EQ(six->hi, 6);
  EXPECT_FALSE(median_interval(std::vector<double>{1, 2, 3, 4, 5}).has_value());
  // At 90%, 5 samples suffice (1/32 <= 0.05).
  EXPECT_TRUE(median_interval(std::vector<double>{1, 2, 3, 4, 5}, 0.90).has_value());
}

TEST(MedianInterval, CoversTheTrueMedianAtLeastAtItsLevel) {
  // Exact and conservative: for n = 15 its true coverage is 1 - 2 P(B <= 3) = 0.9648.
  // Measured 0.9604 with this seed (0.9662 over 20000 trials of another).
  timings t(11);
  int covered = 0;
  const int trials = 5000;
  for (int i = 0; i < trials; ++i) {
    covered += median_interval(t.draw(15, 1e-3, 0.2))->contains(1e-3) ? 1 : 0;
  }
  const double rate = static_cast<double>(covered) / trials;
  EXPECT_NEAR(rate, 0.9648, 0.0105); // 4 sd of a binomial rate over 5000 trials
}

TEST(MannWhitney, ExactDistributionOfSmallSamples) {
  // Complete separation of 5 and 5: one ordering of C(10, 5) = 252 gives U = 25.
  const auto t =
      mann_whitney(std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{6, 7, 8, 9, 10});
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 25);
  EXPECT_NEAR(t.p_greater, 1.0 / 252, 1e-12);
  EXPECT_NEAR(t.p_less, 1.0, 1e-12);
  EXPECT_NEAR(t.p_two_sided(), 2.0 / 252, 1e-12);
  // head {2, 4} vs base {1, 3}: U = 3 (2>1, 4>1, 4>3); the 6 orderings give U = 0 1 2 2 3 4.
  const auto u = mann_whitney(std::vector<double>{1, 3}, std::vector<double>{2, 4});
  EXPECT_EQ(u.u, 3);
  EXPECT_NEAR(u.p_greater, 2.0 / 6, 1e-12);
  EXPECT_NEAR(u.p_less, 5.0 / 6, 1e-12);
}

TEST(MannWhitney, TiesUseTheCorrectedNormalApproximation) {
  const auto t = mann_whitney(std::vector<double>{1, 1, 2, 2}, std::vector<double>{2, 2, 3, 3});
  EXPECT_FALSE(t.exact);
  EXPECT_EQ(t.u, 14); // 2 vs 2 ties count 1/2: 2 x (2 + 2 x 1/2) + 2 x 4
  // U mean 8; ties of 2, 4 and 2 values: variance 16/12 (9 - (6 + 60 + 6) / 56) = 10.286
  EXPECT_NEAR(t.p_greater,
              0.5 * std::erfc(5.5 / std::sqrt(16.0 / 12 * (9 - 72.0 / 56)) / std::sqrt(2.0)),
              1e-12);
  const auto same = mann_whitney(std::vector<double>{2, 2}, std::vector<double>{2, 2, 2});
  EXPECT_EQ(same.p_greater, 1);
  EXPECT_EQ(same.p_less, 1);
}

TEST(MannWhitney, FalsePositiveRateMatchesItsLevel) {
  // 1000 pairs from one distribution, 40 each (normal approximation): P(p < 0.05) = 0.05.
  timings t(23);
  int rejected = 0;
  const int trials = 1000;
  for (int i = 0; i < trials; ++i) {
    const auto a = t.draw(40, 1, 0.1), b = t.draw(40, 1, 0.1);
    rejected += mann_whitney(a, b).p_two_sided() < 0.05 ? 1 : 0;
  }
  // Measured 0.054. 3 sd of a binomial rate over 1000 trials: 0.021.
  EXPECT_NEAR(static_cast<double>(rejected) / trials, 0.05, 0.021);
}

TEST(BootstrapMedianRatio, EstimateIsTheRatioOfMedians) {
  const std::vector<double> base{1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98};
  std::vector<double> head;
  for (double v : base) {
    head.push_back(1.2 * v);
  }
  const interval r = bootstrap_median_ratio(base, head);
  EXPECT_DOUBLE_EQ(r.estimate, 1.2);
  EXPECT_LT(r.lo, 1.2);
  EXPECT_GT(r.hi, 1.2);
  // A fixed seed: the same samples always give the same interval.
  const interval again = bootstrap_median_ratio(base, head);
  EXPECT_EQ(r.lo, again.lo);
  EXPECT_EQ(r.hi, again.hi);
}

TEST(BootstrapMedianRatio, CoversATrueRatioOfMedians) {
  // Percentile bootstrap of medians, 25 log-normal samples per side: the resampled medians
  // take few distinct values, so the interval errs on the wide side (measured 0.978 here). At
  // least 0.93 (3 sd of 500 trials below 95%: it is no narrower than it says), at most 0.995
  // (an interval twice too wide would cover everything).
  timings t(5);
  int covered = 0;
  const int trials = 500;
  for (int i = 0; i < trials; ++i) {
    const auto base = t.draw(25, 2e-3, 0.05), head = t.draw(25, 2.2e-3, 0.05);
    covered += bootstrap_median_ratio(base, head, 0.95, 1000, 1000 + i).contains(1.1) ? 1 : 0;
  }
  const double rate = static_cast<double>(covered) / trials;
  EXPECT_GE(rate, 0.93);
  EXPECT_LE(rate, 0.995);
}

TEST(BootstrapMedianRatio, ThinsLongSamplesWithoutLosingTheRatio) {
  timings t(3);
  const auto base = t.draw(20000, 1e-6, 0.02), head = t.draw(20000, 1.5e-6, 0.02);
  const interval r = bootstrap_median_ratio(base, head, 0.95, 200);
  EXPECT_TRUE(r.contains(1.5));
  EXPECT_LT(r.hi - r.lo, 0.01);
}

TEST(BootstrapMedianRatio, RunsCarryTheirSpreadIntoTheInterval) {
  // Five base runs whose medians wander by a 5% log-normal run effect, 10 samples of 1% spread
  // each; one head run with an effect of its own. Over 200 such experiments with no change, the
  // interval over runs holds 1 in 185 (92.5%; 93.7% over 300, 95.7% with 3 runs); pooling the
  // runs into one sample (ignoring that the samples of a run share its effect) is sure of
  // differences that are the runs' and holds 1 in 50.
  timings t(31);
  int covered_runs = 0, covered_pooled = 0;
  const int trials = 200;
  for (int i = 0; i < trials; ++i) {
    runs base;
    std::vector<double> pooled;
    for (int r = 0; r < 5; ++r) {
      const double effect = t.draw(1, 1.0, 0.05)[0];
      base.push_back(t.draw(10, 1e-3 * effect, 0.01));
      pooled.insert(pooled.end(), base.back().begin(), base.back().end());
    }
    const auto head = t.draw(10, 1e-3 * t.draw(1, 1.0, 0.05)[0], 0.01);
    covered_runs += bootstrap_median_ratio(base, runs{head}, 0.95, 1000, i).contains(1.0) ? 1 : 0;
    covered_pooled += bootstrap_median_ratio(pooled, head, 0.95, 1000, i).contains(1.0) ? 1 : 0;
  }
  EXPECT_GE(covered_runs, 176); // 0.88: 3 sd of 200 trials below 0.925
  EXPECT_LE(covered_pooled, 80);
}

// One run against one, 5% log-normal run effects: the repetitions alone hold 1.0 in few
// experiments (each run is sure of its own effect); with the run spread given, the interval
// carries both runs' effects and holds it about 95% of the time. Against several stored runs
// that agree by chance, the spread is no smaller than the one given.
TEST(BootstrapMedianRatio, AGivenRunSpreadIsCarriedWhereTheRunsCannotShowIt) {
  timings t(54);
  int covered_plain = 0, covered_spread = 0;
  const int trials = 200;
  for (int i = 0; i < trials; ++i) {
    const auto base = t.draw(10, 1e-3 * t.draw(1, 1.0, 0.05)[0], 0.01);
    const auto head = t.draw(10, 1e-3 * t.draw(1, 1.0, 0.05)[0], 0.01);
    covered_plain += bootstrap_median_ratio(runs{base}, runs{head}, 0.95, 1000, i).contains(1.0);
    covered_spread +=
        bootstrap_median_ratio(runs{base}, runs{head}, 0.95, 1000, i, 2000, 0.05).contains(1.0);
  }
  EXPECT_LE(covered_plain, 80);
  EXPECT_GE(covered_spread, 176); // 0.88: 3 sd of 200 trials below 0.95
  // The width: 1.96 x 0.05 x sqrt(2) = 0.139 in log on each side, the repetitions' own added.
  const std::vector<double> same(10, 1e-3);
  const auto wide = bootstrap_median_ratio(runs{same}, runs{same}, 0.95, 4000, 1, 2000, 0.05);
  EXPECT_NEAR(std::log(wide.hi), 0.139, 0.015);
  EXPECT_NEAR(std::log(wide.lo), -0.139, 0.015);
  const auto floored =
      bootstrap_median_ratio(runs{same, same, same}, runs{same}, 0.95, 4000, 1, 2000, 0.05);
  EXPECT_GT(std::log(floored.hi), 0.05 * 1.96); // t with 2 degrees of freedom, wider still
  EXPECT_THROW((void)bootstrap_median_ratio(runs{same}, runs{same}, 0.95, 1000, 1, 2000, -0.1),
               std::invalid_argument);
}

TEST(BootstrapMedianRatio, RefusesWhatHasNoRatio) {
  EXPECT_THROW((void)bootstrap_median_ratio(std::vector<double>{}, std::vector<double>{1.0}),
               std::invalid_argument);
  EXPECT_THROW(
      (void)bootstrap_median_ratio(std::vector<double>{0.0, 0.0}, std::vector<double>{1.0}),
      std::invalid_argument);
  EXPECT_THROW((void)bootstrap_median_ratio(runs{{1.0}, {}}, runs{{1.0}}), std::invalid_argument);
}

// Verdict rates over repeated experiments of 20 samples a side with 3% noise, allowed 10%
// efficiency drop (ratio 1 / 0.9).
struct rates {
  int slower_beyond = 0, slower = 0, faster = 0, same = 0, ambiguous = 0;
};
rates verdicts(double true_ratio, double allowed, std::uint64_t seed, int trials) {
  timings t(seed);
  rates r;
  for (int i = 0; i < trials; ++i) {
    const auto base = t.draw(20, 1e-3, 0.03), head = t.draw(20, 1e-3 * true_ratio, 0.03);
    const change_verdict v = judge_change(base, head, allowed);
    r.slower_beyond += v.kind == change::slower && v.beyond_allowed ? 1 : 0;
    r.slower += v.kind == change::slower && !v.beyond_allowed ? 1 : 0;
    r.faster += v.kind == change::faster ? 1 : 0;
    r.same += v.kind == change::same ? 1 : 0;
    r.ambiguous += v.kind == change::ambiguous ? 1 : 0;
  }
  return r;
}

// Measured (200 trials each): unchanged 195 SAME, 3 FASTER, 2 SLOWER within; 1.04x 187 SLOWER
// within, 13 SAME; at the allowance 190 AMBIGUOUS, 4 beyond, 6 within; 1.2x all 200 beyond.
TEST(JudgeChange, AnUnchangedKernelNeverFails) {
  const rates r = verdicts(1.0, 1 / 0.9, 7, 200);
  EXPECT_EQ(r.slower_beyond, 0);
  EXPECT_GE(r.same, 185); // the rest are significant but tiny slowdowns or speedups
  EXPECT_EQ(r.ambiguous, 0);
}

TEST(JudgeChange, A20PercentSlowdownIsCaughtAgainstA10PercentAllowance) {
  const rates r = verdicts(1.2, 1 / 0.9, 8, 200);
  EXPECT_GE(r.slower_beyond, 196);
  EXPECT_EQ(r.same + r.faster, 0);
}

TEST(JudgeChange, ASlowdownAtTheAllowanceIsAmbiguousNotAFailure) {
  const rates r = verdicts(1 / 0.9, 1 / 0.9, 9, 200);
  EXPECT_GE(r.ambiguous, 150);
  EXPECT_LE(r.slower_beyond, 10); // a 2.5% one-sided error at the boundary itself: ~5 of 200
}

TEST(JudgeChange, FasterAndWithinTheAllowance) {
  EXPECT_GE(verdicts(0.8, 1 / 0.9, 10, 100).faster, 99);
  const rates small = verdicts(1.04, 1 / 0.9, 11, 100); // 4% slower: real, but allowed
  EXPECT_GE(small.slower, 80);
  EXPECT_EQ(small.slower_beyond, 0);
}

TEST(JudgeChange, AmbiguousSaysHowManySamplesWouldSettleIt) {
  timings t(12);
  const auto base = t.draw(8, 1e-3, 0.05), head = t.draw(8, 1.16e-3, 0.05);
  const change_verdict v = judge_change(base, head, 1.1);
  ASSERT_EQ(v.kind, change::ambiguous) << v.ratio.lo << " " << v.ratio.hi;
  EXPECT_GT(v.samples_to_settle, 8U);
  EXPECT_LT(v.samples_to_settle, 400U);
  EXPECT_EQ(to_string(v.kind), "AMBIGUOUS");
}

TEST(JudgeChange, RefusesTooFewSamplesAndAnAllowanceBelowOne) {
  EXPECT_THROW((void)judge_change(std::vector<double>{1.0}, std::vector<double>{1.0, 2.0}, 1.1),
               std::invalid_argument);
  EXPECT_THROW((void)judge_change(std::vector<double>{1, 2}, std::vector<double>{1, 2}, 0.9),
               std::invalid_argument);
}


// Runs of three samples around each median (the rule reads run medians).
runs around(std::initializer_list<double> medians) {
  runs out;
  for (double m : medians) {
    out.push_back({m * 0.99, m, m * 1.02});
  }
  return out;
}

TEST(JudgeFloor, ExactCounts) {
  // Base floor 10 (10.0 and 10.3 within 5.26% of it); head floor 11.0, ratio 1.1; head runs
  // within 5.26% of 11.0: 11.0, 11.2, 11.05 of the first five -> p = 5 / 11.
  const runs base = around({10.0, 10.3, 12.0, 14.0, 11.0});
  const double allowed = 1 / 0.95;
  const floor_verdict five = judge_floor(base, around({11.0, 11.2, 12.5, 11.05, 13.0}), allowed);
  EXPECT_DOUBLE_EQ(five.base_floor, 10.0);
  EXPECT_DOUBLE_EQ(five.head_floor, 11.0);
  EXPECT_DOUBLE_EQ(five.ratio, 1.1);
  EXPECT_DOUBLE_EQ(five.p_within, 5.0 / 11);
  EXPECT_NEAR(five.false_alarm, std::pow(6.0 / 11, 5), 1e-12); // 0.048 > 0.025
  EXPECT_EQ(five.kind, change::ambiguous);
  EXPECT_EQ(five.runs_to_settle, 7U); // ceil(log 0.025 / log(6/11)) = ceil(6.09)
  // A sixth run within the allowance of the head's floor: p = 6 / 12, 0.5^6 = 0.0156.
  const floor_verdict six =
      judge_floor(base, around({11.0, 11.2, 12.5, 11.05, 13.0, 11.1}), allowed);
  EXPECT_EQ(six.kind, change::slower);
  EXPECT_TRUE(six.beyond_allowed);
  EXPECT_DOUBLE_EQ(six.false_alarm, 1.0 / 64);
  // One head run at the base's floor settles "no regression" at once: more runs only lower it.
  const floor_verdict same = judge_floor(base, around({10.4}), allowed);
  EXPECT_EQ(same.kind, change::same);
  EXPECT_EQ(judge_floor(base, around({9.0}), allowed).kind, change::faster);
}

TEST(JudgeFloor, NeverFailsOnFewerThanFiveHeadRuns) {
  // Every run alike: p = 9 / 10 and a false-alarm bound of 1e-4, yet four runs are too few.
  const runs base = around({10, 10, 10, 10, 10});
  EXPECT_EQ(judge_floor(base, around({13, 13, 13, 13}), 1.1).kind, change::ambiguous);
  EXPECT_EQ(judge_floor(base, around({13, 13, 13, 13, 13}), 1.1).kind, change::slower);
}

TEST(JudgeFloor, RefusesEmptyRunsAndNonPositiveValues) {
  EXPECT_THROW((void)judge_floor({}, around({1}), 1.1), std::invalid_argument);
  EXPECT_THROW((void)judge_floor(runs{{}}, around({1}), 1.1), std::invalid_argument);
  EXPECT_THROW((void)judge_floor(around({1}), runs{{1, 0}}, 1.1), std::invalid_argument);
  EXPECT_THROW((void)judge_floor(around({1}), around({1}), 0.9), std::invalid_argument);
}

// The gate's confirmation as a sequence: a 5-run base, then head runs one at a time until the
// rule decides or 12 head runs were made, under one-sided interference like the 2-core VM's
// (each run 0-1% above the floor with probability 0.4, else 2-35% above it).
struct floor_rates {
  int failed = 0, ambiguous = 0, passed = 0;
};
floor_rates confirmed(double factor, double allowed, int trials) {
  std::mt19937_64 rng(2026);
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
  };
  auto run = [&](double scale) {
    const double e = uniform(0, 1) < 0.4 ? uniform(0, 0.01) : uniform(0.02, 0.35);
    return std::vector<double>{scale * (1 + e)};
  };
  floor_rates r;
  for (int t = 0; t < trials; ++t) {
    runs base, head;
    for (int i = 0; i < 5; ++i) {
      base.push_back(run(1));
    }
    floor_verdict v;
    do {
      head.push_back(run(factor));
      v = judge_floor(base, head, allowed);
    } while (v.kind == change::ambiguous && head.size() < 12);
    (v.kind == change::slower ? r.failed : v.kind == change::ambiguous ? r.ambiguous : r.passed)++;
  }
  return r;
}

TEST(JudgeFloor, ErrorRatesUnderOneSidedInterference) {
  // Rates over 1000 sequences, asserted with about 3 binomial standard deviations of margin.
  const floor_rates unchanged = confirmed(1.0, 1 / 0.9, 1000);
  EXPECT_LE(unchanged.failed, 25); // about 1.4%
  EXPECT_EQ(unchanged.ambiguous, 0);
  EXPECT_GE(confirmed(1.2, 1 / 0.9, 1000).failed, 955);   // about 98%
  EXPECT_GE(confirmed(1.1, 1 / 0.95, 1000).failed, 900);  // about 94%
}

TEST(ShiftRatioInterval, HodgesLehmannWithMosesInterval) {
  // Head = base x 1.2 exactly: every ratio of a pair in the middle is near 1.2, and the
  // interval (k-th smallest and largest of the 36 ratios, k = 6 for 6 and 6 at 95%: P(U <= 5)
  // = 0.0206 <= 0.025 < P(U <= 6)) holds 1.2.
  const std::vector<double> base{10, 11, 12, 13, 14, 15};
  std::vector<double> head;
  for (double b : base) {
    head.push_back(1.2 * b);
  }
  const auto ci = shift_ratio_interval(base, head);
  ASSERT_TRUE(ci.has_value());
  EXPECT_NEAR(ci->estimate, 1.2, 1e-12);
  // The 6th smallest of the ratios 1.2 b_i / b_j: (12*1.2)/15 ... computed by brute force.
  std::vector<double> ratios;
  for (double h : head) {
    for (double b : base) {
      ratios.push_back(h / b);
    }
  }
  std::sort(ratios.begin(), ratios.end());
  EXPECT_DOUBLE_EQ(ci->lo, ratios[5]);
  EXPECT_DOUBLE_EQ(ci->hi, ratios[30]);
  EXPECT_TRUE(ci->contains(1.2));
  // Three and three have no 95% interval (P(U = 0) = 1/20 > 0.025); four and four do.
  EXPECT_FALSE(shift_ratio_interval(std::span(base).first(3), std::span(head).first(3)));
  EXPECT_TRUE(shift_ratio_interval(std::span(base).first(4), std::span(head).first(4)));
  EXPECT_THROW((void)shift_ratio_interval({}, head), std::invalid_argument);
  EXPECT_THROW((void)shift_ratio_interval(std::vector<double>{1, 0}, head),
               std::invalid_argument);
}

TEST(ShiftRatioInterval, NormalBeyondTheExactTableAgreesWithIt) {
  // 60 and 60 (exact) against 61 and 61 (normal): the intervals of one sample shifted 1.1x
  // nearly agree; both hold 1.1.
  std::vector<double> base, head;
  for (int i = 0; i < 61; ++i) {
    const double v = 10 * std::exp(0.05 * std::sin(1.7 * i)); // spread, no ties
    base.push_back(v);
    head.push_back(1.1 * 10 * std::exp(0.05 * std::sin(1.7 * i + 0.9)));
  }
  const auto exact = shift_ratio_interval(std::span(base).first(60), std::span(head).first(60));
  const auto normal = shift_ratio_interval(base, head);
  ASSERT_TRUE(exact && normal);
  EXPECT_TRUE(exact->contains(1.1));
  EXPECT_TRUE(normal->contains(1.1));
  EXPECT_NEAR(std::log(normal->lo), std::log(exact->lo), 0.005);
  EXPECT_NEAR(std::log(normal->hi), std::log(exact->hi), 0.005);
}

TEST(JudgeAB, WholePairsOfRoundsAndTheFewestRounds) {
  // Head 1.1x the base; the second run of a round 5% slower whichever build it is (ABBA: the
  // head second in even rounds). Each side holds as many first runs as second ones, so the
  // Hodges-Lehmann ratio is 1.1.
  std::vector<double> base, head;
  for (int round = 0; round < 12; ++round) {
    const bool head_second = round % 2 == 0;
    base.push_back(10 * (head_second ? 1.0 : 1.05));
    head.push_back(11 * (head_second ? 1.05 : 1.0));
  }
  const ab_verdict v = judge_ab(base, head, 1.05);
  EXPECT_EQ(v.rounds, 12U);
  EXPECT_NEAR(v.ratio.estimate, 1.1, 1e-12);
  EXPECT_GT(v.ratio.lo, 1.05);
  EXPECT_EQ(v.kind, change::slower);
  EXPECT_TRUE(v.beyond_allowed);
  EXPECT_EQ(judge_ab(base, head, 1.25).kind, change::same);
  // Six rounds are the fewest judged. There the interval (6th smallest of 36 ratios) reaches
  // the second-position ratio 1.1 / 1.05: beyond 1.04, not beyond 1.05.
  EXPECT_EQ(judge_ab(std::span(base).first(6), std::span(head).first(6), 1.04).kind,
            change::slower);
  EXPECT_EQ(judge_ab(std::span(base).first(6), std::span(head).first(6), 1.05).kind,
            change::ambiguous);
  // A round without its pair is left out.
  const ab_verdict four = judge_ab(std::span(base).first(4), std::span(head).first(4), 1.05);
  EXPECT_EQ(four.kind, change::ambiguous);
  EXPECT_EQ(four.rounds_to_settle, ab_min_rounds);
  EXPECT_EQ(judge_ab(std::span(base).first(11), std::span(head).first(11), 1.05).rounds, 10U);
  EXPECT_THROW((void)judge_ab(base, std::span(head).first(11), 1.05), std::invalid_argument);
}

// perfgate ab as a sequence on a machine like the 2-core VM: each run 4.5% slower when it is the
// second of its round, a drift of up to 15% over the session, 3% log-normal run noise and, one
// run in five, a 5-30% interference. Judged after every pair of rounds from the sixth round,
// up to 60 rounds (perfgate ab's default).
struct ab_rates {
  int failed = 0, ambiguous = 0, passed = 0;
};
ab_rates sessions(double factor, double allowed, int trials, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  timings noise(seed + 1);
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
  };
  ab_rates r;
  for (int t = 0; t < trials; ++t) {
    const double drift = uniform(-0.15, 0.15);
    std::vector<double> base, head;
    ab_verdict v;
    for (int round = 0; round < 60; ++round) {
      const double level = 1 + drift * round / 60;
      const bool head_second = round % 2 == 0;
      auto run = [&](double scale, bool second) {
        const double hit = uniform(0, 1) < 0.2 ? 1 + uniform(0.05, 0.3) : 1;
        return scale * level * (second ? 1.045 : 1) * hit * noise.draw(1, 1, 0.03)[0];
      };
      base.push_back(run(1, !head_second));
      head.push_back(run(factor, head_second));
      if (round % 2 == 1 && round >= 5) {
        v = judge_ab(base, head, allowed);
        if (v.kind != change::ambiguous) {
          break;
        }
      }
    }
    (v.kind == change::slower ? r.failed : v.kind == change::ambiguous ? r.ambiguous : r.passed)++;
  }
  return r;
}

TEST(JudgeAB, ErrorRatesWithDriftAndPositionEffects) {
  // Harsher than the measured sessions: false alarms stay at the one-sided 2.5% a look, and a
  // 10% slowdown is caught.
  const ab_rates unchanged = sessions(1.0, 1.02, 400, 7);
  EXPECT_LE(unchanged.failed, 16);
  const ab_rates slower = sessions(1.10, 1.02, 400, 8);
  EXPECT_GE(slower.failed, 360);
  EXPECT_EQ(slower.passed, 0);
}

// perfgate ab sessions drawn from measured run medians of BM_triad on the 2-core VM (a run in
// a session is any of them, the head's times `factor` x): judged as perfgate ab judges, after
// every pair of rounds from the sixth, up to 60 rounds.
ab_rates resampled_sessions(const std::vector<double>& medians, double factor, int trials,
                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ab_rates r;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> base, head;
    ab_verdict v;
    for (int round = 0; round < 60; ++round) {
      base.push_back(medians[rng() % medians.size()]);
      head.push_back(factor * medians[rng() % medians.size()]);
      if (round % 2 == 1 && round >= 5) {
        v = judge_ab(base, head, 1.02);
        if (v.kind != change::ambiguous) {
          break;
        }
      }
    }
    (v.kind == change::slower ? r.failed : v.kind == change::ambiguous ? r.ambiguous : r.passed)++;
  }
  return r;
}

std::vector<double> measured_medians(const std::string& file, const std::string& key) {
  std::ifstream in(std::string(PERFGATE_TEST_DATA_DIR) + "/statistics/" + file);
  return nlohmann::json::parse(in).at(key).get<std::vector<double>>();
}

TEST(JudgeAB, SessionsResampledFromMeasuredRunMedians) {
  // Issue 34's target for perfgate ab: unchanged never fails, a 5% slowdown against a 2%
  // allowance fails in at least 18 of 20 sessions. Two measured sets of the same afternoon:
  // thirty runs 16.7-20.8 ms (simulated: 0% and 95% failed) and twenty runs 14.4-19.1 ms
  // (1% and 84%: its runs pile up at the fastest, which a rank test over all runs weighs less
  // than the floor would).
  const auto later = measured_medians("triad_dot_alternating_2026-11-26.json",
                                      "triad_run_medians_ms");
  const auto earlier = measured_medians("triad_run_medians_2026-11-26.json", "run_medians_ms");
  ASSERT_EQ(later.size(), 30U);
  ASSERT_EQ(earlier.size(), 20U);
  EXPECT_LE(resampled_sessions(later, 1.0, 400, 11).failed, 8);
  EXPECT_LE(resampled_sessions(earlier, 1.0, 400, 12).failed, 12);
  EXPECT_GE(resampled_sessions(later, 1.05, 400, 13).failed, 360);
  EXPECT_GE(resampled_sessions(earlier, 1.05, 400, 14).failed, 310);
}

} // namespace
} // namespace perfgate::stats

namespace perfgate::stats {
namespace {

std::vector<kernel_ratio> ratios_only(std::initializer_list<double> rs) {
  std::vector<kernel_ratio> ks;
  for (double r : rs) {
    ks.push_back({r, change::same, {}, {}});
  }
  return ks;
}

// Two kernels at 1x and 4x: the geometric mean is 2; a resample draws {1,1} (1x) a quarter of
// the time, {1,4} (2x) half and {4,4} (4x) a quarter, so the central 95% runs from 1x to 4x.
TEST(SuiteGeomean, HandComputableTwoKernels) {
  const auto ks = ratios_only({1.0, 4.0});
  const interval g = bootstrap_geomean_ratio(ks);
  EXPECT_NEAR(g.estimate, 2.0, 1e-12);
  EXPECT_NEAR(g.lo, 1.0, 1e-12);
  EXPECT_NEAR(g.hi, 4.0, 1e-12);
  EXPECT_NEAR(bootstrap_geomean_ratio(ratios_only({0.5, 2.0, 1.0})).estimate, 1.0, 1e-12);
}

TEST(SuiteGeomean, IdenticalRatiosGiveThatRatioWithZeroWidth) {
  const interval g = bootstrap_geomean_ratio(ratios_only({1.3, 1.3, 1.3, 1.3, 1.3}));
  EXPECT_NEAR(g.estimate, 1.3, 1e-12);
  EXPECT_EQ(g.lo, g.estimate);
  EXPECT_EQ(g.hi, g.estimate);
}

TEST(SuiteGeomean, IntervalHoldsTheEstimateAndIsDeterministic) {
  timings t(45);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<kernel_ratio> ks;
    for (int i = 0; i < 2 + trial % 5; ++i) {
      auto base = t.draw(10, 1.0, 0.05);
      auto head = t.draw(10, 1.0 + 0.05 * i, 0.05);
      const double r = median(head) / median(base);
      ks.push_back({r, change::same, std::move(base), std::move(head)});
    }
    const interval g = bootstrap_geomean_ratio(ks);
    EXPECT_TRUE(g.contains(g.estimate)) << "trial " << trial;
    EXPECT_LT(g.lo, g.hi) << "trial " << trial;
    const interval again = bootstrap_geomean_ratio(ks);
    EXPECT_EQ(g.lo, again.lo);
    EXPECT_EQ(g.hi, again.hi);
  }
}

// One kernel with samples: the suite's interval is that kernel's bootstrap of the median ratio
// (other draws of the same method: within 2%), and without its samples it has zero width.
TEST(SuiteGeomean, OneKernelsSamplesAreResampled) {
  timings t(7);
  const auto base = t.draw(20, 1.0, 0.05), head = t.draw(20, 1.2, 0.05);
  const double r = median(head) / median(base);
  const std::vector<kernel_ratio> ks = {{r, change::slower, base, head}};
  const interval g = bootstrap_geomean_ratio(ks);
  const interval single = bootstrap_median_ratio(base, head);
  EXPECT_NEAR(g.estimate, single.estimate, 1e-12);
  EXPECT_NEAR(g.lo / single.lo, 1.0, 0.02);
  EXPECT_NEAR(g.hi / single.hi, 1.0, 0.02);
  EXPECT_GT(g.hi / g.lo, 1.05);
  const interval bare = bootstrap_geomean_ratio(std::vector<kernel_ratio>{{r, {}, {}, {}}});
  EXPECT_EQ(bare.lo, bare.hi);
}

// The point estimate is the verdicts' ratios whatever the samples' medians say (an A/B verdict's
// Hodges-Lehmann ratio is not the ratio of the medians): the samples only move it in resamples.
TEST(SuiteGeomean, EstimateIsTheVerdictsRatio) {
  const std::vector<kernel_ratio> ks = {{1.1, change::slower, {1, 1, 1, 1, 1}, {2, 2, 2, 2, 2}},
                                        {1.1, change::slower, {}, {}}};
  const interval g = bootstrap_geomean_ratio(ks);
  EXPECT_NEAR(g.estimate, 1.1, 1e-12);
  EXPECT_NEAR(g.lo, 1.1, 1e-12); // constant samples: no spread to resample
  EXPECT_NEAR(g.hi, 1.1, 1e-12);
}

TEST(SuiteGeomean, CountsVerdictsAndRefusesBadInput) {
  std::vector<kernel_ratio> ks = ratios_only({1.0, 1.2, 0.8, 1.05});
  ks[1].kind = change::slower;
  ks[2].kind = change::faster;
  ks[3].kind = change::ambiguous;
  ks.push_back({1.0, std::nullopt, {}, {}});
  const suite_summary s = summarize_suite(ks, 0.9);
  EXPECT_EQ(s.kernels, 5u);
  EXPECT_EQ(s.same, 1u);
  EXPECT_EQ(s.slower, 1u);
  EXPECT_EQ(s.faster, 1u);
  EXPECT_EQ(s.ambiguous, 1u);
  EXPECT_EQ(s.unjudged, 1u);
  EXPECT_EQ(s.confidence, 0.9);
  EXPECT_THROW((void)bootstrap_geomean_ratio(std::vector<kernel_ratio>{}), std::invalid_argument);
  EXPECT_THROW((void)bootstrap_geomean_ratio(ratios_only({1.0, 0.0})), std::invalid_argument);
  EXPECT_THROW((void)bootstrap_geomean_ratio(ratios_only({1.0, NAN})), std::invalid_argument);
  EXPECT_THROW((void)bootstrap_geomean_ratio(ratios_only({1.0}), 0.95, 10), std::invalid_argument);
}

} // namespace
} // namespace perfgate::stats
