// SPDX-License-Identifier: Apache-2.0
// Small string helpers shared by the library's readers, collectors and writers.
#pragma once

#include <string>
#include <string_view>
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

} // namespace perfgate::detail
