// SPDX-License-Identifier: Apache-2.0
// A table of text cells, rendered aligned for a terminal or as a GitHub Markdown table.
#pragma once

#include <string>
#include <vector>

namespace perfgate::detail {

struct table {
  std::vector<std::string> header;
  std::vector<bool> right_aligned; ///< per column; numbers are right-aligned
  std::vector<std::vector<std::string>> rows;
};

[[nodiscard]] std::string render_text(const table& t, const std::string& indent = "  ");
[[nodiscard]] std::string render_markdown(const table& t);
[[nodiscard]] std::string render_html(const table& t);
/// Text for HTML and XML, the one markup escaper of every writer (and of CDash's measurement
/// names): & < > " ' escaped, invalid UTF-8 and U+FFFE/U+FFFF as '?', control characters as
/// spaces.
[[nodiscard]] std::string html_escape(const std::string& text);
/// Escape text for a Markdown table cell (pipes, backticks kept readable).
[[nodiscard]] std::string markdown_cell(const std::string& text);

} // namespace perfgate::detail
