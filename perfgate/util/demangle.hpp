// SPDX-License-Identifier: Apache-2.0
// A C++ symbol as a person reads it. Header only: the CUPTI injection library, which links
// nothing of perfgate's, names kernels with it too.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include <cxxabi.h>

namespace perfgate::detail {

/// The demangled form of a C++ symbol, or the symbol itself when it is not mangled.
[[nodiscard]] inline std::string demangle(const char* symbol) {
  if (symbol == nullptr) {
    return "(unnamed kernel)";
  }
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(symbol, nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(symbol);
}

} // namespace perfgate::detail
