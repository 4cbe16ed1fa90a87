// SPDX-License-Identifier: Apache-2.0
// Test helper: import a profile and derive every kernel's parameters, as `perfgate predict`
// does, and return the input_error message (or "no error").
#pragma once

#include <perfgate/error.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace perfgate::test {

inline std::string import_failure(std::string_view text, const std::string& file) {
  try {
    const auto p = import_profile_text(text, file);
    for (const auto& k : p.kernels) {
      (void)kernel_params_from_profile(p, k);
    }
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

inline std::string import_failure(const std::filesystem::path& file) {
  try {
    const auto p = import_profile(file);
    for (const auto& k : p.kernels) {
      (void)kernel_params_from_profile(p, k);
    }
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

} // namespace perfgate::test
