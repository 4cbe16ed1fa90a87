// SPDX-License-Identifier: Apache-2.0
#include "report/origin.hpp"

namespace perfgate::detail {

origin_parts split_origin(std::string_view origin) {
  const auto open = origin.rfind(" (");
  if (open == std::string_view::npos || origin.empty() || origin.back() != ')') {
    return {std::string(origin), ""};
  }
  return {std::string(origin.substr(0, open)),
          std::string(origin.substr(open + 2, origin.size() - open - 3))};
}

std::string origin_test(std::string_view origin) {
  const origin_parts parts = split_origin(origin);
  std::string_view file = parts.file;
  // Folders end at '/' alone: on Linux a backslash is part of a file's name.
  if (const auto slash = file.rfind('/'); slash != std::string_view::npos) {
    file.remove_prefix(slash + 1);
  }
  if (file.ends_with(".json")) {
    file.remove_suffix(5);
  }
  return std::string(file);
}

} // namespace perfgate::detail
