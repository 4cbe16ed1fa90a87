// SPDX-License-Identifier: Apache-2.0
#include <perfgate/file_io.hpp>

#include "cli/commands.hpp"

#include <iostream>

namespace perfgate::cli {

void emit(const std::string& text, const std::string& output) {
  if (output.empty() || output == "-") {
    std::cout << text << std::flush;
    return;
  }
  write_file_atomically(output, text);
  std::cerr << "perfgate: wrote " << output << "\n";
}

void print_tool_errors(const profile& p) {
  for (const auto& e : p.tool_errors) {
    std::cerr << "perfgate: " << p.source_file << ": the profiler reported an error, " << e
              << "\n";
  }
}

} // namespace perfgate::cli
