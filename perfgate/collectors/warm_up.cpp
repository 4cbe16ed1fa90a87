// SPDX-License-Identifier: Apache-2.0
#include "collectors/collectors.hpp"

namespace perfgate::detail {

std::size_t leave_out_first_launch(profile& p) {
  std::size_t changed = 0;
  for (auto& k : p.kernels) {
    // Only where every launch was timed: the samples are the launches, in launch order.
    if (!k.duration || k.duration->samples_s.size() < 2 ||
        k.duration->samples_s.size() != k.invocations) {
      continue;
    }
    const double before = static_cast<double>(k.invocations);
    std::vector<double> rest(k.duration->samples_s.begin() + 1, k.duration->samples_s.end());
    k.duration = duration_stats::from_samples(std::move(rest));
    k.invocations = k.duration->samples;
    k.time_s = k.duration->total_s;
    // Counters are totals over the launches; each launch of a kernel does the same work (the
    // collectors already scale a counter run to the timed launch count on that assumption).
    const double scale = static_cast<double>(k.invocations) / before;
    for (auto& [name, value] : k.counters) {
      value *= scale;
    }
    ++changed;
  }
  return changed;
}

} // namespace perfgate::detail
