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

/// All rows of `text`, skipping a UTF-8 byte-order mark, blank lines and lines starting with "=="
/// (profiler chatter). Chatter that reports an error (`==ERROR== ...`, ncu's
/// `==PROF== ... ERR_...`) is not dropped silently: when `tool_errors` is given, each such line
/// is appended as "line N: <text>". Throws input_error naming `file` and the line of a quoted
/// field that never closes.
[[nodiscard]] std::vector<csv_row> read_csv(std::string_view text, const std::string& file,
                                            std::vector<std::string>* tool_errors = nullptr);

/// A number as profilers print it: optional sign, thousands separators in groups of exactly
/// three digits before the decimal point ("2,000,000.5"), decimal point, exponent, and a
/// trailing '%'. Empty for anything else ("n/a", "abc", "", and a decimal comma such as "4,13"
/// or "2,50", which a de_DE locale writes: a comma that does not separate groups of three
/// digits is never guessed at).
[[nodiscard]] std::optional<double> parse_profiler_number(std::string_view field);

/// What a field that parse_profiler_number rejected should have been, for error messages (says
/// "decimal comma" when the field holds a comma).
[[nodiscard]] std::string number_expectation(std::string_view field);

/// "" for no errors, else "; the profiler reported: <each error, '; '-separated>" to append to a
/// message.
[[nodiscard]] std::string quote_tool_errors(const std::vector<std::string>& tool_errors);

/// `text` without a leading UTF-8 byte-order mark (what spreadsheets add when they re-save).
[[nodiscard]] std::string_view strip_utf8_bom(std::string_view text);

/// Index of the column named `name` in a header row, if present.
[[nodiscard]] std::optional<std::size_t> find_column(const csv_row& header, std::string_view name);

/// Index of the column named `name`; throws input_error naming `file`, the header's line and
/// `table` (what the file should have been, e.g. "rocprofv3 kernel_trace.csv") when it is absent.
[[nodiscard]] std::size_t required_column(const csv_row& header, std::string_view name,
                                          const std::string& file, std::string_view table);

/// Throws input_error naming `file` and the row's line when `row` has not as many fields as
/// `header` (a truncated or hand-edited file would otherwise shift every value into another
/// column).
void check_row_width(const csv_row& row, const csv_row& header, const std::string& file);

} // namespace perfgate::detail
