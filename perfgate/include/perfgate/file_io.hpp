// SPDX-License-Identifier: Apache-2.0
/// \file
/// Reading input files with errors that name them, and writing results atomically.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace perfgate {

/// The whole text of a file. Throws input_error naming the file when it is missing, a
/// directory, or unreadable.
[[nodiscard]] std::string read_text_file(const std::filesystem::path& file);

/// Write `content` to `file` atomically: a temporary file in the same folder, flushed, then
/// renamed over the target, so a reader never sees half a file. Throws input_error on failure.
void write_file_atomically(const std::filesystem::path& file, std::string_view content);

} // namespace perfgate
