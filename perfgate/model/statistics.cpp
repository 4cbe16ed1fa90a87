// SPDX-License-Identifier: Apache-2.0
#include <perfgate/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace perfgate::stats {

namespace {

// The median of a scratch buffer, reordering it (the bootstrap's inner loop).
double median_in_place(std::vector<double>& v) {
  const std::size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2 == 1) {
    return *mid;
  }
  return (*std::max_element(v.begin(), mid) + *mid) / 2;
}

// splitmix64: a small, fast generator whose sequence is the same on every platform (the
// standard distributions are not), so a verdict depends on its samples only.
class generator {
public:
  explicit generator(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  /// Standard normal (Box-Muller).
  double normal() {
    return std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
  }
  /// Student's t with `dof` degrees of freedom: a normal over the root of a chi-square / dof.
  double student_t(std::size_t dof) {
    double chi2 = 0;
    for (std::size_t i = 0; i < dof; ++i) {
      const double z = normal();
      chi2 += z * z;
    }
    return normal() / std::sqrt(chi2 / static_cast<double>(dof));
  }
  /// Uniform in [0, n): the modulo's bias, below n / 2^64, is far below anything a bootstrap
  /// resolves.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

private:
  std::uint64_t m_state;
};

std::vector<double> thinned(std::span<const double> v, std::size_t max_samples) {
  if (v.size() <= max_samples) {
    return {v.begin(), v.end()};
  }
  const std::size_t step = (v.size() + max_samples - 1) / max_samples;
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); i += step) {
    out.push_back(v[i]);
  }
  return out;
}

double standard_normal_upper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Exact null distribution of U for m head and n base values without ties: the number of
// orderings with each U, by the largest value overall (a head value beats all n base values,
// U(m, n) = n + U(m - 1, n); a base value, U(m, n - 1)). Returns P(U = u) for u = 0..m n.
std::vector<double> exact_u_distribution(std::size_t m, std::size_t n) {
  // row[j] holds the counts for (i, j) while i advances.
  std::vector<std::vector<double>> row(n + 1, std::vector<double>{1.0});
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1);
    next[0] = {1.0};
    for (std::size_t j = 1; j <= n; ++j) {
      std::vector<double> counts(i * j + 1, 0.0);
      const auto& head_largest = row[j];      // (i - 1, j), shifted by j
      const auto& base_largest = next[j - 1]; // (i, j - 1)
      for (std::size_t u = 0; u < head_largest.size(); ++u) {
        counts[u + j] += head_largest[u];
      }
      for (std::size_t u = 0; u < base_largest.size(); ++u) {
        counts[u] += base_largest[u];
      }
      next[j] = std::move(counts);
    }
    row = std::move(next);
  }
  std::vector<double> p = std::move(row[n]);
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& v : p) {
    v /= total;
  }
  return p;
}

// Moses' rank for a shift interval: the largest k with P(U < k) <= tail under no shift (the
// interval runs from the k-th smallest to the k-th largest pairwise difference; 0: none).
// Exact up to 120 values, normal beyond. Remembered per (m, n, tail): perfgate ab asks after
// every pair of rounds, and the exact table for 60 and 60 takes milliseconds.
std::size_t moses_rank(std::size_t m, std::size_t n, double tail) {
  static std::mutex mutex;
  static std::map<std::tuple<std::size_t, std::size_t, double>, std::size_t> known;
  const auto key = std::make_tuple(std::min(m, n), std::max(m, n), tail);
  {
    const std::lock_guard lock(mutex);
    if (const auto it = known.find(key); it != known.end()) {
      return it->second;
    }
  }
  std::size_t k = 0;
  if (m + n <= 120) {
    const auto p = exact_u_distribution(m, n);
    double below = 0;
    for (std::size_t u = 0; u < p.size() && below + p[u] <= tail; ++u) {
      below += p[u];
      k = u + 1;
    }
  } else {
    double lo = 0, hi = 10; // z with P(Z > z) = tail, by bisection
    for (int i = 0; i < 100; ++i) {
      const double z = (lo + hi) / 2;
      (standard_normal_upper(z) > tail ? lo : hi) = z;
    }
    const double md = static_cast<double>(m), nd = static_cast<double>(n);
    const double reach = md * nd / 2 - hi * std::sqrt(md * nd * (md + nd + 1) / 12);
    k = reach >= 1 ? static_cast<std::size_t>(std::floor(reach)) : 0;
  }
  const std::lock_guard lock(mutex);
  known.emplace(key, k);
  return k;
}

void check_confidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("confidence must lie between 0 and 1");
  }
}

// The central `confidence` of bootstrap replicates, widened to contain the point estimate.
interval percentile_interval(std::vector<double> replicates, double estimate, double confidence) {
  std::sort(replicates.begin(), replicates.end());
  const double tail = (1 - confidence) / 2;
  const auto count = static_cast<double>(replicates.size());
  const auto lo_at = static_cast<std::size_t>(std::floor(tail * count));
  const auto hi_at =
      std::min(replicates.size() - 1, static_cast<std::size_t>(std::ceil((1 - tail) * count)) - 1);
  return {std::min(replicates[lo_at], estimate), estimate, std::max(replicates[hi_at], estimate)};
}

} // namespace

runs relative_times(const runs& efficiencies) {
  runs out;
  for (const auto& run : efficiencies) {
    if (run.empty()) {
      continue;
    }
    auto& times = out.emplace_back();
    for (double e : run) {
      times.push_back(1 / e);
    }
  }
  return out;
}

double median(std::vector<double> values) {
  if (values.empty()) {
    throw std::invalid_argument("the median of no values");
  }
  return median_in_place(values);
}

std::optional<interval> median_interval(std::span<const double> values, double confidence) {
  check_confidence(confidence);
  const std::size_t n = values.size();
  if (n == 0) {
    return std::nullopt;
  }
  // Largest j with P(Binomial(n, 1/2) < j) <= (1 - confidence) / 2, in logs for large n.
  const double tail = (1 - confidence) / 2;
  double cumulative = 0;
  std::size_t j = 0;
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  for (std::size_t k = 0; k < n; ++k) {
    const double log_choose = std::lgamma(static_cast<double>(n) + 1) -
                              std::lgamma(static_cast<double>(k) + 1) -
                              std::lgamma(static_cast<double>(n - k) + 1);
    cumulative += std::exp(log_choose + log_half_n); // P(B = k)
    if (cumulative > tail) {
      break;
    }
    j = k + 1; // P(B < k + 1) <= tail
  }
  if (j == 0) {
    return std::nullopt;
  }
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return interval{sorted[j - 1], median(sorted), sorted[n - j]};
}

double rank_test::p_two_sided() const { return std::min(1.0, 2 * std::min(p_greater, p_less)); }

rank_test mann_whitney(std::span<const double> base, std::span<const double> head) {
  if (base.empty() || head.empty()) {
    throw std::invalid_argument("the Mann-Whitney test needs values on both sides");
  }
  const std::size_t m = head.size(), n = base.size(), total = m + n;
  std::vector<std::pair<double, bool>> all; // value, from head
  all.reserve(total);
  for (double v : head) {
    all.emplace_back(v, true);
  }
  for (double v : base) {
    all.emplace_back(v, false);
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double head_rank_sum = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < total;) {
    std::size_t k = i;
    while (k < total && all[k].first == all[i].first) {
      ++k;
    }
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(k)) / 2;
    const double t = static_cast<double>(k - i);
    tie_term += t * t * t - t;
    ties = ties || k - i > 1;
    for (std::size_t r = i; r < k; ++r) {
      head_rank_sum += all[r].second ? average_rank : 0;
    }
    i = k;
  }
  rank_test result;
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  result.u = head_rank_sum - md * (md + 1) / 2;
  if (!ties && total <= 60) {
    const auto p = exact_u_distribution(m, n);
    const auto u = static_cast<std::size_t>(std::lround(result.u));
    result.p_less = std::accumulate(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(u) + 1, 0.0);
    result.p_greater = std::accumulate(p.begin() + static_cast<std::ptrdiff_t>(u), p.end(), 0.0);
    result.p_less = std::min(result.p_less, 1.0);
    result.p_greater = std::min(result.p_greater, 1.0);
    result.exact = true;
    return result;
  }
  const double mean = md * nd / 2;
  const double td = static_cast<double>(total);
  const double variance = md * nd / 12 * ((td + 1) - tie_term / (td * (td - 1)));
  if (variance <= 0) { // every value equal: nothing tells the samples apart
    return result;
  }
  const double sd = std::sqrt(variance);
  result.p_greater = standard_normal_upper((result.u - 0.5 - mean) / sd);
  result.p_less = 1 - standard_normal_upper((result.u + 0.5 - mean) / sd);
  return result;
}

interval bootstrap_median_ratio(std::span<const double> base, std::span<const double> head,
                                double confidence, int resamples, std::uint64_t seed,
                                std::size_t max_samples) {
  return bootstrap_median_ratio(runs{{base.begin(), base.end()}}, runs{{head.begin(), head.end()}},
                                confidence, resamples, seed, max_samples);
}

namespace {

std::vector<double> pooled(const runs& side) {
  std::vector<double> all;
  for (const auto& run : side) {
    all.insert(all.end(), run.begin(), run.end());
  }
  return all;
}

// One bootstrap resample's median of a side: its runs with replacement (when it has several),
// then each chosen run's samples with replacement.
double resampled_median(const runs& side, generator& rng, std::vector<double>& scratch) {
  scratch.clear();
  for (std::size_t i = 0; i < side.size(); ++i) {
    const auto& run = side.size() == 1 ? side[0] : side[rng.below(side.size())];
    for (std::size_t j = 0; j < run.size(); ++j) {
      scratch.push_back(run[rng.below(run.size())]);
    }
  }
  return median_in_place(scratch);
}

// One resample's median of a side whose runs are all kept: each run's samples with
// replacement (its run effect is accounted for apart).
double resampled_within_runs(const runs& side, generator& rng, std::vector<double>& scratch) {
  scratch.clear();
  for (const auto& run : side) {
    for (std::size_t j = 0; j < run.size(); ++j) {
      scratch.push_back(run[rng.below(run.size())]);
    }
  }
  return median_in_place(scratch);
}

// The spread of a side's run medians: the standard deviation of their logarithms (runs move
// a kernel's time by a factor, never by an amount).
double log_run_spread(const runs& side) {
  std::vector<double> logs;
  for (const auto& run : side) {
    logs.push_back(std::log(median(run)));
  }
  const double mean =
      std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(logs.size());
  double squares = 0;
  for (double l : logs) {
    squares += (l - mean) * (l - mean);
  }
  return std::sqrt(squares / static_cast<double>(logs.size() - 1));
}

runs thinned_runs(const runs& side, std::size_t max_samples, const char* name) {
  if (side.empty()) {
    throw std::invalid_argument(std::string("the bootstrap needs values on the ") + name + " side");
  }
  runs out;
  for (const auto& run : side) {
    if (run.empty()) {
      throw std::invalid_argument(std::string("an empty run on the ") + name + " side");
    }
    out.push_back(thinned(run, std::max<std::size_t>(1, max_samples / side.size())));
  }
  return out;
}

} // namespace

interval bootstrap_median_ratio(const runs& base, const runs& head, double confidence,
                                int resamples, std::uint64_t seed, std::size_t max_samples,
                                double run_spread) {
  check_confidence(confidence);
  if (resamples < 100) {
    throw std::invalid_argument("the bootstrap needs at least 100 resamples");
  }
  if (!(run_spread >= 0) || !std::isfinite(run_spread)) {
    throw std::invalid_argument("the run spread must be a finite number >= 0");
  }
  const runs b = thinned_runs(base, max_samples, "base"),
             h = thinned_runs(head, max_samples, "head");
  const double base_median = median(pooled(b));
  if (!(base_median > 0)) {
    throw std::invalid_argument("the base median is not positive: no ratio");
  }
  // One run against several: the one run's own run effect is unknown, so the ratio carries a
  // new run's: the runs' log spread s, predicted for one more run, s sqrt(1 + 1/k) t_(k-1)
  // (resampling the k observed run effects instead never reaches past the extreme ones and
  // covers 80% where it claims 95%). Within each run the samples are resampled as they are.
  const bool one_against_runs = (b.size() == 1) != (h.size() == 1);
  // One run against one: nothing to learn the runs' spread from; a known one carries both
  // runs' effects.
  const double one_against_one = b.size() == 1 && h.size() == 1 ? run_spread * std::sqrt(2.0) : 0;
  const runs& several = b.size() > 1 ? b : h;
  const double k = static_cast<double>(several.size());
  const double spread =
      one_against_runs ? std::max(log_run_spread(several), run_spread) * std::sqrt(1 + 1 / k) : 0;
  generator rng(seed);
  std::vector<double> scratch, ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    double bm = 0, hm = 0;
    if (one_against_runs) {
      bm = resampled_within_runs(b, rng, scratch);
      hm = resampled_within_runs(h, rng, scratch);
      hm *= std::exp(spread * rng.student_t(several.size() - 1));
    } else {
      bm = resampled_median(b, rng, scratch);
      hm = resampled_median(h, rng, scratch);
      if (one_against_one > 0) {
        hm *= std::exp(one_against_one * rng.normal());
      }
    }
    ratios.push_back(hm / bm);
  }
  return percentile_interval(std::move(ratios), median(pooled(h)) / base_median, confidence);
}

std::string_view to_string(change c) {
  switch (c) {
  case change::same: return "SAME";
  case change::slower: return "SLOWER";
  case change::faster: return "FASTER";
  case change::ambiguous: return "AMBIGUOUS";
  }
  return "AMBIGUOUS";
}

change_verdict judge_change(std::span<const double> base, std::span<const double> head,
                            double allowed, double confidence) {
  return judge_change(runs{{base.begin(), base.end()}}, runs{{head.begin(), head.end()}}, allowed,
                      confidence);
}

change_verdict judge_change(const runs& base, const runs& head, double allowed, double confidence,
                            double run_spread) {
  const std::vector<double> all_base = pooled(base), all_head = pooled(head);
  if (all_base.size() < 2 || all_head.size() < 2) {
    throw std::invalid_argument("a change needs at least 2 samples on each side");
  }
  if (!(allowed >= 1)) {
    throw std::invalid_argument("the allowed ratio must be at least 1");
  }
  change_verdict v;
  v.allowed = allowed;
  v.confidence = confidence;
  v.ratio = bootstrap_median_ratio(base, head, confidence, default_resamples, default_seed,
                                   default_max_samples, run_spread);
  v.test = mann_whitney(all_base, all_head);
  // Each direction gets half the error, like each end of the two-sided interval. The rank test
  // sees samples, not runs: with a run spread the interval alone speaks.
  const double tail = (1 - confidence) / 2;
  const bool runs_known = run_spread > 0;
  const bool slower = v.ratio.lo > 1 && (runs_known || v.test.p_greater < tail);
  const bool faster = v.ratio.hi < 1 && (runs_known || v.test.p_less < tail);
  if (slower && v.ratio.lo > allowed) {
    v.kind = change::slower;
    v.beyond_allowed = true;
  } else if (slower && v.ratio.hi <= allowed) {
    v.kind = change::slower;
  } else if (faster) {
    v.kind = change::faster;
  } else if (v.ratio.hi <= allowed) {
    v.kind = change::same;
  } else {
    v.kind = change::ambiguous;
    const double gap = std::fabs(v.ratio.estimate - allowed);
    const double half_width = (v.ratio.hi - v.ratio.lo) / 2;
    // Only where each side is one run: between runs, more samples of one run settle nothing.
    if (base.size() == 1 && head.size() == 1 && !runs_known && gap > 1e-3 * allowed &&
        half_width > 0) {
      const double n = static_cast<double>(std::min(base[0].size(), head[0].size()));
      const double needed = std::ceil(n * (half_width / gap) * (half_width / gap));
      v.samples_to_settle = static_cast<std::size_t>(std::max(needed, n + 1));
    }
  }
  return v;
}

namespace {

// The run medians of a side, checked: the floor rule needs every run and every value.
std::vector<double> run_medians(const runs& side, const char* what) {
  if (side.empty()) {
    throw std::invalid_argument(std::string("the ") + what + " has no run");
  }
  std::vector<double> medians;
  for (const auto& run : side) {
    if (run.empty()) {
      throw std::invalid_argument(std::string("a run of the ") + what + " has no sample");
    }
    if (std::any_of(run.begin(), run.end(), [](double v) { return !(v > 0); })) {
      throw std::invalid_argument(std::string("a run of the ") + what +
                                  " has a value that is not positive");
    }
    medians.push_back(median(run));
  }
  return medians;
}

} // namespace

floor_verdict judge_floor(const runs& base, const runs& head, double allowed, double confidence) {
  check_confidence(confidence);
  if (!(allowed >= 1)) {
    throw std::invalid_argument("the allowed ratio must be at least 1");
  }
  const std::vector<double> b = run_medians(base, "base"), h = run_medians(head, "head");
  floor_verdict v;
  v.allowed = allowed;
  v.confidence = confidence;
  v.base_runs = b.size();
  v.head_runs = h.size();
  v.base_floor = *std::min_element(b.begin(), b.end());
  v.head_floor = *std::min_element(h.begin(), h.end());
  v.ratio = v.head_floor / v.base_floor;
  // How often a run lands within the allowance of its own side's floor: the same on both
  // sides whether or not the head regressed (a regression moves the floor, not the noise).
  std::size_t within = 0;
  for (double m : b) {
    within += m <= allowed * v.base_floor ? 1 : 0;
  }
  for (double m : h) {
    within += m <= allowed * v.head_floor ? 1 : 0;
  }
  // Over all runs plus one: never certain that a run can land there, however many did.
  v.p_within = static_cast<double>(within) / static_cast<double>(b.size() + h.size() + 1);
  v.false_alarm = std::pow(1 - v.p_within, static_cast<double>(h.size()));
  const double tail = (1 - confidence) / 2;
  if (v.ratio <= allowed) {
    v.kind = v.ratio * allowed < 1 ? change::faster : change::same;
  } else if (v.false_alarm <= tail && h.size() >= floor_min_head_runs) {
    v.kind = change::slower;
    v.beyond_allowed = true;
  } else {
    v.kind = change::ambiguous;
    v.runs_to_settle = std::max(floor_min_head_runs,
                                static_cast<std::size_t>(
                                    std::ceil(std::log(tail) / std::log(1 - v.p_within))));
  }
  return v;
}

std::optional<interval> shift_ratio_interval(std::span<const double> base,
                                             std::span<const double> head, double confidence) {
  check_confidence(confidence);
  if (base.empty() || head.empty()) {
    throw std::invalid_argument("a shift interval needs values on both sides");
  }
  auto positive = [](double v) { return v > 0; };
  if (!std::all_of(base.begin(), base.end(), positive) ||
      !std::all_of(head.begin(), head.end(), positive)) {
    throw std::invalid_argument("a shift interval of ratios needs positive values");
  }
  std::vector<double> logs; // log(head_i / base_j), every pair
  logs.reserve(base.size() * head.size());
  for (double h : head) {
    for (double b : base) {
      logs.push_back(std::log(h / b));
    }
  }
  std::sort(logs.begin(), logs.end());
  const std::size_t pairs = logs.size(), m = head.size(), n = base.size();
  const std::size_t k = moses_rank(m, n, (1 - confidence) / 2);
  if (k == 0 || 2 * k > pairs) {
    return std::nullopt;
  }
  const double middle = median(logs);
  return interval{std::exp(logs[k - 1]), std::exp(middle), std::exp(logs[pairs - k])};
}

ab_verdict judge_ab(std::span<const double> base, std::span<const double> head, double allowed,
                    double confidence) {
  check_confidence(confidence);
  if (base.size() != head.size()) {
    throw std::invalid_argument("an A/B comparison needs a run of each build per round");
  }
  if (!(allowed >= 1)) {
    throw std::invalid_argument("the allowed ratio must be at least 1");
  }
  if (std::any_of(base.begin(), base.end(), [](double v) { return !(v > 0); }) ||
      std::any_of(head.begin(), head.end(), [](double v) { return !(v > 0); })) {
    throw std::invalid_argument("an A/B comparison needs positive values");
  }
  ab_verdict v;
  v.allowed = allowed;
  v.confidence = confidence;
  v.rounds = base.size() / 2 * 2; // whole ABBA pairs: each build as often first as second
  if (v.rounds == 0) {
    v.ratio = {1, 1, 1};
    v.rounds_to_settle = ab_min_rounds;
    return v;
  }
  const auto b = base.first(v.rounds), h = head.first(v.rounds);
  const auto ci = shift_ratio_interval(b, h, confidence);
  v.ratio = ci.value_or(interval{1, 1, 1});
  if (!ci || v.rounds < ab_min_rounds) {
    v.rounds_to_settle = ab_min_rounds;
    return v;
  }
  const double log_allowed = std::log(allowed);
  const double lo = std::log(v.ratio.lo), hi = std::log(v.ratio.hi);
  if (lo > log_allowed) {
    v.kind = change::slower;
    v.beyond_allowed = true;
  } else if (hi < 0) {
    v.kind = change::faster;
  } else if (hi <= log_allowed) {
    v.kind = change::same;
  } else {
    v.kind = change::ambiguous;
  }
  if (v.kind == change::ambiguous) {
    const double gap = std::fabs(std::log(v.ratio.estimate) - log_allowed);
    const double half = (hi - lo) / 2;
    const double n = static_cast<double>(v.rounds);
    // The interval narrows about as 1 / sqrt(rounds): rounds enough for it to clear the
    // allowance, in whole pairs.
    const double needed = gap > 1e-3 && half > 0 ? std::ceil(n * (half / gap) * (half / gap)) : 0;
    v.rounds_to_settle =
        gap > 1e-3
            ? 2 * static_cast<std::size_t>(std::ceil(std::max({needed, n + 2, 6.0}) / 2))
            : 0;
  }
  return v;
}

namespace {

// A kernel prepared for the suite's bootstrap: log of its ratio, and its samples (thinned)
// with their medians' ratio, where both sides have positive ones.
struct suite_kernel {
  double log_ratio = 0;
  runs base, head;         ///< one run each (resampled_median's input)
  double sample_ratio = 0; ///< median(head) / median(base); 0: resample the kernel only
};

suite_kernel prepare(const kernel_ratio& k, std::size_t max_samples) {
  if (!(k.ratio > 0) || !std::isfinite(k.ratio)) {
    throw std::invalid_argument("a kernel's time ratio is not positive and finite");
  }
  suite_kernel out{std::log(k.ratio), {}, {}, 0};
  if (!k.base.empty() && !k.head.empty()) {
    const double b = median(k.base), h = median(k.head);
    if (b > 0 && h > 0) {
      out.base = {thinned(k.base, max_samples)};
      out.head = {thinned(k.head, max_samples)};
      out.sample_ratio = h / b;
    }
  }
  return out;
}

} // namespace

interval bootstrap_geomean_ratio(std::span<const kernel_ratio> kernels, double confidence,
                                 int resamples, std::uint64_t seed, std::size_t max_samples) {
  check_confidence(confidence);
  if (kernels.empty()) {
    throw std::invalid_argument("no kernel: no geometric mean");
  }
  if (resamples < 100) {
    throw std::invalid_argument("the bootstrap needs at least 100 resamples");
  }
  std::vector<suite_kernel> ks;
  double sum = 0;
  for (const auto& k : kernels) {
    ks.push_back(prepare(k, std::max<std::size_t>(max_samples, 1)));
    sum += ks.back().log_ratio;
  }
  const auto n = static_cast<double>(ks.size());
  generator rng(seed);
  std::vector<double> scratch, geomeans;
  geomeans.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    double logs = 0;
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const auto& k = ks[rng.below(ks.size())];
      logs += k.log_ratio;
      if (k.sample_ratio > 0) {
        const double b = resampled_median(k.base, rng, scratch);
        const double h = resampled_median(k.head, rng, scratch);
        logs += b > 0 && h > 0 ? std::log(h / b / k.sample_ratio) : 0;
      }
    }
    geomeans.push_back(std::exp(logs / n));
  }
  return percentile_interval(std::move(geomeans), std::exp(sum / n), confidence);
}

suite_summary summarize_suite(std::span<const kernel_ratio> kernels, double confidence,
                              int resamples, std::uint64_t seed) {
  suite_summary s;
  s.geomean = bootstrap_geomean_ratio(kernels, confidence, resamples, seed);
  s.confidence = confidence;
  s.resamples = resamples;
  s.kernels = kernels.size();
  for (const auto& k : kernels) {
    if (!k.kind) {
      ++s.unjudged;
      continue;
    }
    switch (*k.kind) {
    case change::slower: ++s.slower; break;
    case change::faster: ++s.faster; break;
    case change::same: ++s.same; break;
    case change::ambiguous: ++s.ambiguous; break;
    }
  }
  return s;
}

} // namespace perfgate::stats
