// SPDX-License-Identifier: Apache-2.0
#include "importers/csv_reader.hpp"

#include <perfgate/error.hpp>

#include <cctype>
#include <charconv>
#include <cmath>

namespace perfgate::detail {

std::string_view strip_utf8_bom(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

std::string quote_tool_errors(const std::vector<std::string>& tool_errors) {
  std::string out;
  for (const auto& e : tool_errors) {
    out += (out.empty() ? "; the profiler reported: " : "; ") + e;
  }
  return out;
}

namespace {
bool reports_error(std::string_view chatter) {
  return chatter.starts_with("==ERROR==") || chatter.find("ERR_NV") != std::string_view::npos;
}
} // namespace

std::vector<csv_row> read_csv(std::string_view text, const std::string& file,
                              std::vector<std::string>* tool_errors) {
  text = strip_utf8_bom(text);
  std::vector<csv_row> rows;
  std::size_t i = 0;
  std::size_t line = 1;
  const std::size_t n = text.size();
  while (i < n) {
    // At the start of a physical line: skip chatter and blank lines.
    const std::size_t eol = text.find('\n', i);
    const std::string_view whole = text.substr(i, eol == std::string_view::npos ? n - i : eol - i);
    const auto first = whole.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || whole.substr(first).starts_with("==")) {
      if (tool_errors != nullptr && first != std::string_view::npos &&
          reports_error(whole.substr(first))) {
        std::string_view chatter = whole.substr(first);
        if (chatter.ends_with('\r')) {
          chatter.remove_suffix(1);
        }
        tool_errors->push_back("line " + std::to_string(line) + ": " + std::string(chatter));
      }
      i = eol == std::string_view::npos ? n : eol + 1;
      ++line;
      continue;
    }
    csv_row row;
    row.line = line;
    std::string field;
    bool in_quotes = false;
    bool done = false;
    while (!done) {
      if (i >= n) {
        if (in_quotes) {
          throw input_error(file, std::to_string(row.line),
                            "a quoted field never closes (the file is truncated or malformed)");
        }
        row.fields.push_back(std::move(field));
        done = true;
        break;
      }
      const char c = text[i];
      if (in_quotes) {
        if (c == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
          } else {
            in_quotes = false;
            ++i;
          }
        } else {
          line += c == '\n' ? 1 : 0;
          field += c;
          ++i;
        }
        continue;
      }
      switch (c) {
      case '"':
        in_quotes = true;
        ++i;
        break;
      case ',':
        row.fields.push_back(std::move(field));
        field.clear();
        ++i;
        break;
      case '\r': ++i; break;
      case '\n':
        row.fields.push_back(std::move(field));
        ++i;
        ++line;
        done = true;
        break;
      default:
        field += c;
        ++i;
        break;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The digits before the decimal point, with ',' thousands separators allowed only as an
// English-locale writer puts them: 1 to 3 leading digits, then groups of exactly 3. Anything
// else holding a comma ("4,13", "2,50", "1,2345") is a decimal comma or garbage: never a number.
std::optional<std::string> ungrouped_integer_part(std::string_view digits) {
  if (digits.find(',') == std::string_view::npos) {
    return std::string(digits);
  }
  std::string out;
  std::size_t group = 0;
  bool first_group = true;
  for (char c : digits) {
    if (c == ',') {
      if (group == 0 || (first_group && group > 3) || (!first_group && group != 3)) {
        return std::nullopt;
      }
      first_group = false;
      group = 0;
      continue;
    }
    out += c;
    ++group;
  }
  if (group != 3) {
    return std::nullopt;
  }
  return out;
}
} // namespace

std::optional<double> parse_profiler_number(std::string_view field) {
  const auto first = field.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return std::nullopt;
  }
  field = field.substr(first, field.find_last_not_of(" \t") - first + 1);
  if (field.ends_with('%')) {
    field.remove_suffix(1);
  }
  std::string s;
  if (!field.empty() && (field.front() == '+' || field.front() == '-')) {
    if (field.front() == '-') {
      s += '-';
    }
    field.remove_prefix(1);
  }
  // Split off the integer digits (and their separators) from the fraction and exponent, which
  // may hold no separator at all.
  std::size_t int_end = 0;
  while (int_end < field.size() && (is_digit(field[int_end]) || field[int_end] == ',')) {
    ++int_end;
  }
  const auto integer = ungrouped_integer_part(field.substr(0, int_end));
  const std::string_view rest = field.substr(int_end);
  if (!integer || rest.find(',') != std::string_view::npos) {
    return std::nullopt;
  }
  s += *integer;
  s += rest;
  if (s.empty() || s == "-") {
    return std::nullopt;
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string number_expectation(std::string_view field) {
  // A comma followed by other than 3 digits, or a comma after a '.', is a decimal comma.
  if (field.find(',') != std::string_view::npos) {
    return "expected a number with '.' as the decimal point (this looks like a decimal comma "
           "from a locale such as de_DE: profile again with LC_ALL=C, or export with "
           "`--print-units base` in an English locale)";
  }
  return "expected a number";
}

std::optional<std::size_t> find_column(const csv_row& header, std::string_view name) {
  for (std::size_t c = 0; c < header.fields.size(); ++c) {
    if (header.fields[c] == name) {
      return c;
    }
  }
  return std::nullopt;
}

std::size_t required_column(const csv_row& header, std::string_view name, const std::string& file,
                            std::string_view table) {
  const auto c = find_column(header, name);
  if (!c) {
    throw input_error(file, std::to_string(header.line),
                      "the header has no \"" + std::string(name) + "\" column (expected " +
                          std::string(table) + ")");
  }
  return *c;
}

void check_row_width(const csv_row& row, const csv_row& header, const std::string& file) {
  if (row.fields.size() != header.fields.size()) {
    throw input_error(file, std::to_string(row.line),
                      "expected " + std::to_string(header.fields.size()) +
                          " columns like the header on line " + std::to_string(header.line) +
                          ", found " + std::to_string(row.fields.size()) +
                          " (the file is truncated or malformed)");
  }
}

} // namespace perfgate::detail
