// SPDX-License-Identifier: Apache-2.0
#include "util/kernel_names.hpp"

#include <algorithm>
#include <map>

namespace perfgate::detail {

namespace {

// The position of the parameter list's '(' when `s` ends in one (a suffix " [...]" aside):
// the last top-level parenthesis pair, outside template brackets.
std::size_t parameter_list(std::string_view s) {
  int angle = 0;
  int paren = 0;
  std::size_t open = std::string_view::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') {
      ++angle;
    } else if (c == '>' && angle > 0) {
      --angle;
    } else if (c == '(' && angle == 0) {
      if (paren == 0) {
        open = i;
      }
      ++paren;
    } else if (c == ')' && angle == 0 && paren > 0) {
      --paren;
    }
  }
  return open;
}

std::string without_templates(std::string_view s) {
  std::string out;
  int angle = 0;
  for (const char c : s) {
    if (c == '<') {
      ++angle;
    } else if (c == '>' && angle > 0) {
      --angle;
    } else if (angle == 0) {
      out += c;
    }
  }
  return out;
}

std::string cut(std::string s) {
  if (s.size() > k_short_name_max) {
    s.resize(k_short_name_max - 3);
    s += "...";
  }
  return s;
}

} // namespace

std::string short_kernel_name(std::string_view full) {
  // A suffix after the parameter list: perfgate's launch group, nvbench's state.
  std::string_view suffix;
  std::string_view name = full;
  if (!name.empty() && name.back() == ']') {
    if (const auto open = name.rfind(" ["); open != std::string_view::npos) {
      suffix = name.substr(open);
      name = name.substr(0, open);
    }
  }
  const std::size_t params = parameter_list(name);
  if (params == std::string_view::npos || name.back() != ')') {
    return cut(std::string(full)); // not a C++ signature: a benchmark's or a profiler's name
  }
  std::string head = without_templates(name.substr(0, params));
  // The last component of the qualified name, after the return type.
  if (const auto space = head.rfind(' '); space != std::string::npos) {
    head = head.substr(space + 1);
  }
  if (const auto scope = head.rfind("::"); scope != std::string::npos) {
    head = head.substr(scope + 2);
  }
  if (head.empty()) {
    return cut(std::string(full));
  }
  return cut(head + std::string(suffix));
}

std::vector<std::string> short_kernel_names(const std::vector<std::string>& full) {
  // Numbered by distinct full name: the same kernel twice (a merged report's runners) keeps
  // one short name.
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> fulls_of; // short -> distinct full names
  for (const auto& f : full) {
    names.push_back(short_kernel_name(f));
    auto& fulls = fulls_of[names.back()];
    if (std::find(fulls.begin(), fulls.end(), f) == fulls.end()) {
      fulls.push_back(f);
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& fulls = fulls_of[names[i]];
    if (fulls.size() > 1) {
      const auto at = std::find(fulls.begin(), fulls.end(), full[i]) - fulls.begin();
      names[i] += " (" + std::to_string(at + 1) + ")";
    }
  }
  return names;
}

bool same_kernel(const std::string& profiled, const std::string& demangled) {
  const auto base = [](const std::string& n) { return n.substr(0, n.find('(')); };
  return profiled == demangled || base(profiled) == base(demangled);
}

} // namespace perfgate::detail
