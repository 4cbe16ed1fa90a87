// SPDX-License-Identifier: Apache-2.0
/// \file
/// Reading profiles from the files profilers write. The format is detected from the content.
#pragma once

#include <perfgate/profile.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace perfgate {

/// Detect the format of a file's text; throws input_error naming `file` when it is none we know.
[[nodiscard]] profile_format detect_profile_format(std::string_view text, const std::string& file);

/// Read a profile file. Throws input_error (exit 2) naming the file and the line or key on a
/// missing, unreadable, empty or malformed file, and on values no profiler can have measured
/// (negative, NaN or infinite times and counts).
[[nodiscard]] profile import_profile(const std::filesystem::path& file,
                                     profile_format format = profile_format::detect);

/// Parse profile text already in memory (tests, stdin); `file` is used in messages.
[[nodiscard]] profile import_profile_text(std::string_view text, const std::string& file,
                                          profile_format format = profile_format::detect);

} // namespace perfgate
