// SPDX-License-Identifier: Apache-2.0
// RFC 4180 CSV as profilers write it: quoted fields holding commas, quotes doubled inside
// quotes, CRLF or LF, and tool chatter lines (`==PID== ...`, `==PROF== ...`) between tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

struct csv_row {
  std::size_t line = 0; ///< 1-based line where the row starts
  std::vector<std::string> fields;
};

/// All rows of `text`, skipping blank lines and lines starting with "==" (profiler chatter).
/// Throws input_error naming `file` and the line of a quoted field that never closes.
[[nodiscard]] std::vector<csv_row> read_csv(std::string_view text, const std::string& file);

/// A number as profilers print it: optional sign, thousands separators ("2,000,000"), decimal
/// point, exponent, and a trailing '%'. Empty for anything else ("n/a", "abc", "").
[[nodiscard]] std::optional<double> parse_profiler_number(std::string_view field);

/// Index of the column named `name` in a header row, if present.
[[nodiscard]] std::optional<std::size_t> find_column(const csv_row& header, std::string_view name);

} // namespace perfgate::detail
