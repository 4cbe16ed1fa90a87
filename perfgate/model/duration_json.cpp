// SPDX-License-Identifier: Apache-2.0
#include "model/duration_json.hpp"

#include <cmath>
#include <string>

namespace perfgate::detail {

using nlohmann::json;

json duration_stats_json(const duration_stats& s) {
  json j = {{"samples", s.samples}, {"mean_s", s.mean_s}, {"median_s", s.median_s},
            {"min_s", s.min_s},     {"max_s", s.max_s}};
  if (s.samples > 1) { // one sample has no deviation: absent, not 0
    j["stddev_s"] = s.stddev_s;
  }
  if (!s.samples_s.empty()) {
    j["samples_s"] = s.samples_s;
  }
  return j;
}

duration_stats read_duration_stats(const json_fields& f, stats_fields fields) {
  const bool required = fields == stats_fields::required;
  const auto time = [&](std::string_view key) {
    return required ? f.positive(key) : f.has(key) ? f.non_negative(key) : 0.0;
  };
  duration_stats s;
  s.samples = required || f.has("samples") ? f.count("samples") : 0;
  if (required && s.samples == 0) { // a report would show them as zeros standing for unknown
    f.fail("samples", "expected at least 1: statistics of no sample");
  }
  s.mean_s = time("mean_s");
  s.median_s = time("median_s");
  s.min_s = time("min_s");
  s.max_s = time("max_s");
  const bool deviation = f.has("stddev_s") || (required && s.samples > 1);
  s.stddev_s = deviation ? f.non_negative("stddev_s") : 0.0; // one sample: none written
  return with_recorded_samples(f, s);
}

duration_stats with_recorded_samples(const json_fields& f, duration_stats stated) {
  if (!f.has("samples_s")) {
    return stated;
  }
  const duration_stats recorded = duration_stats::from_samples(f.positives("samples_s"));
  if (recorded.samples != stated.samples) {
    f.fail("samples_s", "holds " + std::to_string(recorded.samples) +
                            " samples, but samples says " + std::to_string(stated.samples));
  }
  if (std::fabs(recorded.median_s - stated.median_s) > 1e-9 * stated.median_s) {
    f.fail("samples_s", "their median " + json(recorded.median_s).dump() +
                            " s disagrees with median_s " + json(stated.median_s).dump() + " s");
  }
  stated.samples_s = recorded.samples_s;
  return stated;
}

} // namespace perfgate::detail
