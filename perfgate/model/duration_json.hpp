// SPDX-License-Identifier: Apache-2.0
// A duration's statistics in JSON, the same fields in the profile (`duration`, which adds
// `total_s`) and in the report (`measured`, which adds `time_s`).
#pragma once

#include <perfgate/profile.hpp>

#include "util/json_fields.hpp"

#include <nlohmann/json.hpp>

namespace perfgate::detail {

/// samples, mean_s, median_s, min_s, max_s, stddev_s (not for one sample: it has none), and
/// samples_s when samples were recorded.
[[nodiscard]] nlohmann::json duration_stats_json(const duration_stats& s);

/// How strictly read_duration_stats reads.
enum class stats_fields {
  required, ///< every statistic present; times positive, stddev_s >= 0 (profiles)
  optional, ///< absent statistics are 0; all >= 0 (reports, which may hold only time_s)
};

/// The statistics duration_stats_json writes (not total_s), with the recorded samples checked
/// against them (with_recorded_samples).
[[nodiscard]] duration_stats read_duration_stats(const json_fields& f, stats_fields fields);

/// `stated` with the samples `f` records under `samples_s`, if any. Refused (input error naming
/// the key) when they disagree with the stated count or median: the gate uses both.
[[nodiscard]] duration_stats with_recorded_samples(const json_fields& f, duration_stats stated);

} // namespace perfgate::detail
