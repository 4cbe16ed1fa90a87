// SPDX-License-Identifier: Apache-2.0
#include "csv_reader.hpp"

#include <perfgate/error.hpp>

#include <cctype>
#include <charconv>
#include <cmath>

namespace perfgate::detail {

std::vector<csv_row> read_csv(std::string_view text, const std::string& file) {
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

std::optional<double> parse_profiler_number(std::string_view field) {
  std::string s;
  s.reserve(field.size());
  for (char c : field) {
    if (c != ',' && c != ' ' && c != '\t') {
      s += c;
    }
  }
  if (!s.empty() && s.back() == '%') {
    s.pop_back();
  }
  if (s.empty()) {
    return std::nullopt;
  }
  const char* begin = s.data();
  if (*begin == '+') {
    ++begin;
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::size_t> find_column(const csv_row& header, std::string_view name) {
  for (std::size_t c = 0; c < header.fields.size(); ++c) {
    if (header.fields[c] == name) {
      return c;
    }
  }
  return std::nullopt;
}

} // namespace perfgate::detail
