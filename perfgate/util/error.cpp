// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>

#include <algorithm>
#include <cctype>

namespace perfgate {
namespace {
std::string located(const std::string& file, const std::string& where, const std::string& what) {
  const bool is_line = !where.empty() && std::all_of(where.begin(), where.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (is_line) {
    return file + ":" + where + ": " + what;
  }
  if (!where.empty()) {
    return file + ": " + where + ": " + what;
  }
  return file + ": " + what;
}
} // namespace

input_error::input_error(std::string file, std::string where, const std::string& what)
    : error(exit_status::input_error, located(file, where, what)), m_file(std::move(file)),
      m_where(std::move(where)), m_detail(what) {}

} // namespace perfgate
