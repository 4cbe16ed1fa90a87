// SPDX-License-Identifier: Apache-2.0
#include <perfgate/change_points.hpp>
#include <perfgate/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace perfgate::stats {

namespace {

// Mid-ranks (1-based, ties share their mean rank) of a segment.
std::vector<double> ranks_of(std::span<const double> x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) {
      ++j;
    }
    const double mid = (static_cast<double>(i + j) / 2) + 1;
    for (std::size_t t = i; t <= j; ++t) {
      ranks[order[t]] = mid;
    }
    i = j + 1;
  }
  return ranks;
}

// Fisher-Yates with a bounded draw of our own: std::shuffle's is the standard library's, and a
// verdict must be the same on every one.
void shuffle(std::vector<double>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng() % i); // bias below i / 2^64
    std::swap(v[i - 1], v[j]);
  }
}

struct best_split {
  std::size_t from = 0; ///< the split's inside: [from, to)
  std::size_t to = 0;
  double z = 0; ///< |U - E[U]| / sd(U) of the inside against the rest
};

// Up to this many points a segment is also searched for an inside interval (a level that
// shifted and came back: O(n^2) splits); longer segments for single splits only (O(n)).
constexpr std::size_t interval_search_limit = 200;

// The split with the largest standardized Mann-Whitney statistic of its inside against the
// rest: every [k, n) (one shift), and on short segments every [a, b) (a shift and its return),
// from prefix sums of ranks, so a permutation test costs O(permutations x splits).
best_split largest_split(const std::vector<double>& ranks, std::size_t min_segment,
                         bool intervals) {
  const std::size_t n = ranks.size();
  std::vector<double> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    prefix[i + 1] = prefix[i] + ranks[i];
  }
  best_split best;
  const auto consider = [&](std::size_t a, std::size_t b) {
    const double inside = static_cast<double>(b - a), outside = static_cast<double>(n) - inside;
    const double u = (prefix[b] - prefix[a]) - inside * (inside + 1) / 2;
    const double z = std::fabs(u - inside * outside / 2) /
                     std::sqrt(inside * outside * (inside + outside + 1) / 12);
    if (z > best.z) {
      best = {a, b, z};
    }
  };
  for (std::size_t a = min_segment; a + min_segment <= n; ++a) {
    consider(a, n);
  }
  if (intervals && n <= interval_search_limit) {
    for (std::size_t a = min_segment; a < n; ++a) {
      for (std::size_t b = a + min_segment; b + min_segment <= n; ++b) {
        consider(a, b);
      }
    }
  }
  return best;
}

double median_of(std::span<const double> x) { return median({x.begin(), x.end()}); }

// The L1 cost of a piece: its points' absolute deviations from their median.
double l1_cost(std::span<const double> x) {
  if (x.empty()) {
    return 0;
  }
  const double m = median_of(x);
  double c = 0;
  for (double v : x) {
    c += std::fabs(v - m);
  }
  return c;
}

// Where the shift the test found lies: the split of the same kind (one shift, or an interval)
// whose pieces fit their medians best (the L1 piecewise-constant fit asv uses). The rank
// statistic decides whether there is a shift; it is a poor locator, favouring balanced splits:
// a step at commit 12 of 30 with two outliers before it scored best at 14.
best_split best_fit(std::span<const double> x, std::size_t min_segment, bool interval) {
  const std::size_t n = x.size();
  best_split best;
  double lowest = std::numeric_limits<double>::infinity();
  const auto consider = [&](std::size_t a, std::size_t b) {
    const double c = l1_cost(x.first(a)) + l1_cost(x.subspan(a, b - a)) + l1_cost(x.subspan(b));
    if (c < lowest) {
      lowest = c;
      best.from = a;
      best.to = b;
    }
  };
  for (std::size_t a = min_segment; a + min_segment <= n; ++a) {
    if (!interval) {
      consider(a, n);
      continue;
    }
    for (std::size_t b = a + min_segment; b + min_segment <= n; ++b) {
      consider(a, b);
    }
  }
  return best;
}

void segment(std::span<const double> series, std::size_t offset, const change_point_options& o,
             std::mt19937_64& rng, std::vector<change_point>& found) {
  if (series.size() < 2 * o.min_segment) {
    return;
  }
  const std::vector<double> ranks = ranks_of(series);
  // One shift first (the common case, and the most powerful test of it); a shift that came
  // back only when there is none: searching every interval too costs power at the ends.
  best_split observed;
  double p = 1;
  bool interval = false;
  for (const bool intervals : {false, true}) {
    interval = intervals;
    observed = largest_split(ranks, o.min_segment, intervals);
    if (observed.z <= 0) {
      return;
    }
    int reached = 0;
    std::vector<double> shuffled = ranks;
    for (int i = 0; i < o.permutations; ++i) {
      shuffle(shuffled, rng);
      if (largest_split(shuffled, o.min_segment, intervals).z >= observed.z - 1e-12) {
        ++reached;
      }
    }
    p = static_cast<double>(reached + 1) / static_cast<double>(o.permutations + 1);
    if (p <= o.significance) {
      break;
    }
  }
  if (p > o.significance) {
    return;
  }
  // [0, from), [from, to), [to, n): a change point at `from`, and at `to` unless it is the end.
  const best_split fit = best_fit(series, o.min_segment, interval);
  const std::size_t from = fit.from, to = fit.to, n = series.size();
  const auto before = series.first(from), inside = series.subspan(from, to - from),
             after = series.subspan(to);
  const auto keep = [&](std::size_t at, double ratio) {
    if (std::fabs(std::log(ratio)) >= std::log1p(o.min_shift)) {
      found.push_back({offset + at, ratio, p});
    }
  };
  segment(before, offset, o, rng, found);
  keep(from, median_of(inside) / median_of(before));
  segment(inside, offset + from, o, rng, found);
  if (to < n) {
    keep(to, median_of(after) / median_of(inside));
    segment(after, offset + to, o, rng, found);
  }
}

} // namespace

std::vector<change_point> find_change_points(std::span<const double> series,
                                             const change_point_options& options) {
  if (std::any_of(series.begin(), series.end(), [](double v) { return !std::isfinite(v); })) {
    throw std::invalid_argument("a change-point series needs finite points");
  }
  if (options.min_segment == 0 || options.permutations < 99) {
    throw std::invalid_argument("change points need min_segment >= 1 and 99 permutations or more");
  }
  std::mt19937_64 rng(options.seed);
  std::vector<change_point> found;
  segment(series, 0, options, rng, found);
  // Each ratio against its neighbours in the final segmentation, not the segment it was found in.
  std::sort(found.begin(), found.end(),
            [](const change_point& a, const change_point& b) { return a.index < b.index; });
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : found[i - 1].index;
    const std::size_t to = i + 1 == found.size() ? series.size() : found[i + 1].index;
    const auto before = series.subspan(from, found[i].index - from);
    const auto after = series.subspan(found[i].index, to - found[i].index);
    found[i].ratio = median({after.begin(), after.end()}) / median({before.begin(), before.end()});
  }
  return found;
}

} // namespace perfgate::stats
