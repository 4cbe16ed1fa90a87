// SPDX-License-Identifier: Apache-2.0
// A file compiled into the binary (cmake/PerfGateEmbedFiles.cmake generates the definitions).
#pragma once

#include <string_view>
#include <vector>

namespace perfgate::detail {
struct embedded_file {
  std::string_view name; ///< file name without folders ("h100-sxm.json")
  std::string_view text;
};
/// perfgate/devices/*.json
std::vector<embedded_file> builtin_device_files();
/// perfgate/model/accuracy.json
std::vector<embedded_file> builtin_accuracy_files();
} // namespace perfgate::detail
