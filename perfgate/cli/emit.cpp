// SPDX-License-Identifier: Apache-2.0
#include <perfgate/file_io.hpp>

#include "commands.hpp"

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

} // namespace perfgate::cli
