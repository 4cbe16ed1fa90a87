// SPDX-License-Identifier: Apache-2.0
#include "util/table.hpp"

#include "util/strings.hpp"

#include <algorithm>

namespace perfgate::detail {

namespace {
// Display width: count UTF-8 code points, not bytes.
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  const std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return right ? fill + s : s + fill;
}
} // namespace

std::string render_text(const table& t, const std::string& indent) {
  std::vector<std::size_t> w(t.header.size(), 0);
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    w[c] = width(t.header[c]);
    for (const auto& row : t.rows) {
      w[c] = std::max(w[c], width(row[c]));
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool right = c < t.right_aligned.size() && t.right_aligned[c];
      out += pad(cells[c], w[c], right) + (c + 1 < cells.size() ? "  " : "");
    }
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    return out + "\n";
  };
  std::string out = line(t.header);
  std::vector<std::string> rule;
  for (auto cw : w) {
    rule.emplace_back(cw, '-');
  }
  out += line(rule);
  for (const auto& row : t.rows) {
    out += line(row);
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_markdown(const table& t) {
  std::string out = "|";
  for (const auto& h : t.header) {
    out += " " + markdown_cell(h) + " |";
  }
  out += "\n|";
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    const bool right = c < t.right_aligned.size() && t.right_aligned[c];
    out += right ? " ---: |" : " --- |";
  }
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) {
      out += " " + markdown_cell(cell) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string html_escape(const std::string& text) {
  // Only valid UTF-8 holding characters XML 1.0 allows: a name from a profiler can hold
  // anything, and one bad byte would make a whole SVG or XML stream unreadable.
  std::string out;
  out.reserve(text.size());
  std::string_view s = text;
  while (!s.empty()) {
    const auto c = next_utf8_char(s);
    if (!c || c->code_point == 0xfffe || c->code_point == 0xffff) {
      out += '?';
      s.remove_prefix(1);
      continue;
    }
    switch (c->code_point) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default:
      if (c->code_point < 0x20) {
        out += ' '; // labels and cells are one line
      } else {
        out.append(s.substr(0, c->length));
      }
    }
    s.remove_prefix(c->length);
  }
  return out;
}

std::string render_html(const table& t) {
  std::string out = "<table>\n<tr>";
  for (const auto& h : t.header) {
    out += "<th>" + html_escape(h) + "</th>";
  }
  out += "</tr>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool right = c < t.right_aligned.size() && t.right_aligned[c];
      out += std::string(right ? "<td class=\"num\">" : "<td>") + html_escape(row[c]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

} // namespace perfgate::detail
