// SPDX-License-Identifier: Apache-2.0
// Small string helpers shared by the library's readers, collectors and writers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::detail {

/// The items with `separator` between them ("a, b, c"); empty for no items.
[[nodiscard]] inline std::string join(const std::vector<std::string>& items,
                                      std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) {
      out += separator;
    }
    out += item;
  }
  return out;
}

/// The lower-case runs of letters and digits of `s`: "NVIDIA H100 80GB HBM3" -> nvidia, h100,
/// 80gb, hbm3 (device names compared word by word).
[[nodiscard]] inline std::vector<std::string> lower_words(std::string_view s) {
  std::vector<std::string> words;
  std::string cur;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z')) {
      cur += static_cast<char>(u >= 'A' && u <= 'Z' ? u - 'A' + 'a' : u);
    } else if (!cur.empty()) {
      words.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) {
    words.push_back(std::move(cur));
  }
  return words;
}

/// The Levenshtein distance of `a` and `b`: the fewest single-character insertions, deletions
/// and substitutions that turn one into the other (for "did you mean" suggestions).
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The candidate nearest `word`, when it is near enough to be what was meant: one that begins
/// with `word` ("working_set" for "working_set_bytes"), else one at most a third of the longer
/// word's length of edits away (at least 2), so "tensor_op" finds "tensor_ops" and "comment"
/// finds nothing among a profile's keys. Prefixes first, then the fewest edits, then the first.
[[nodiscard]] inline std::optional<std::string> nearest_word(std::string_view word,
                                                             std::span<const std::string_view> candidates) {
  std::optional<std::string> best;
  std::pair<bool, std::size_t> best_rank{true, 0}; // (not a prefix, edits): smaller is nearer
  for (const std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    const bool prefix = word.size() >= 4 && c.starts_with(word);
    const std::size_t allowed = std::max<std::size_t>(2, std::max(word.size(), c.size()) / 3);
    const std::pair<bool, std::size_t> rank{!prefix, d};
    if ((prefix || d <= allowed) && (!best || rank < best_rank)) {
      best = std::string(c);
      best_rank = rank;
    }
  }
  return best;
}

/// `s` without leading and trailing spaces, tabs and line ends.
[[nodiscard]] inline std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

/// The lines of `text` without their line ends (\n or \r\n); no last empty line.
[[nodiscard]] inline std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.ends_with('\r')) {
      line.remove_suffix(1);
    }
    lines.emplace_back(line);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

/// One UTF-8 character at the front of `s`: its code point and its length in bytes; nothing for
/// an invalid, overlong, truncated or surrogate sequence.
struct utf8_char {
  char32_t code_point;
  std::size_t length;
};
[[nodiscard]] inline std::optional<utf8_char> next_utf8_char(std::string_view s) {
  static constexpr char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
  if (s.empty()) {
    return std::nullopt;
  }
  const auto c = static_cast<unsigned char>(s[0]);
  const std::size_t n = c < 0x80           ? 1
                        : (c >> 5) == 0x06 ? 2
                        : (c >> 4) == 0x0e ? 3
                        : (c >> 3) == 0x1e ? 4
                                           : 0;
  if (n == 0 || n > s.size()) {
    return std::nullopt;
  }
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1fu) : n == 3 ? (c & 0x0fu) : (c & 0x07u);
  for (std::size_t j = 1; j < n; ++j) {
    const auto cc = static_cast<unsigned char>(s[j]);
    if ((cc & 0xc0) != 0x80) {
      return std::nullopt;
    }
    cp = (cp << 6) | (cc & 0x3fu);
  }
  if (cp < min_for_length[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return std::nullopt;
  }
  return utf8_char{cp, n};
}

/// `s` as valid UTF-8: every byte that starts no valid character becomes U+FFFD. Names from
/// profilers can hold anything; reports, baselines and charts must stay readable.
[[nodiscard]] inline std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    const auto c = next_utf8_char(s);
    const std::size_t n = c ? c->length : 1;
    out += c ? s.substr(0, n) : std::string_view("\xEF\xBF\xBD");
    s.remove_prefix(n);
  }
  return out;
}

/// The FNV-1a 64-bit hash of `bytes` as 16 lowercase hex digits: a stable fingerprint (the same
/// on every machine and run), not a cryptographic one.
[[nodiscard]] inline std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL; // FNV-1a's offset basis and prime
  for (const char c : bytes) {
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

} // namespace perfgate::detail
