// SPDX-License-Identifier: Apache-2.0
// Nsight Compute CSV, both layouts:
//  - `ncu --csv --page raw`: a header row, a units row, then one row per kernel launch with one
//    column per metric;
//  - `ncu --csv` (details page): one row per metric of each launch, with "Metric Name",
//    "Metric Unit" and "Metric Value" columns.
// Launches of one kernel name are aggregated: counters summed, durations kept as samples, and
// the SM clock (sm__cycles_elapsed.avg.per_second, a rate) averaged weighted by duration.
#pragma once

#include <perfgate/profile.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

[[nodiscard]] bool looks_like_ncu_csv_raw(std::string_view text);
[[nodiscard]] bool looks_like_ncu_csv_details(std::string_view text);

[[nodiscard]] profile import_ncu_csv_raw(std::string_view text, const std::string& file);
[[nodiscard]] profile import_ncu_csv_details(std::string_view text, const std::string& file);

/// The metrics of `requested` that a `--page raw` table has no column for: ncu leaves out a metric
/// it does not know without a word and exits 0. Empty when `text` holds no raw table.
[[nodiscard]] std::vector<std::string> ncu_raw_missing_metrics(std::string_view text,
                                                               const std::vector<std::string>& requested);

/// Factor that converts a value printed in `unit` to perfgate's base unit (bytes, seconds,
/// counts, per second): "Mbyte" -> 1e6, "usecond" -> 1e-6, "sector" -> 1, "" -> 1,
/// "cycle/nsecond" -> 1e9, "MHz" -> 1e6. Empty for units we do not know, so a value is never
/// silently misread.
[[nodiscard]] std::optional<double> ncu_unit_scale(std::string_view unit);

} // namespace perfgate::detail
