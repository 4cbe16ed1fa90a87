// SPDX-License-Identifier: Apache-2.0
/// \file
/// Reading input files with errors that name them, and writing results atomically.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// The whole text of a file. Throws input_error naming the file when it is missing, a
/// directory, or unreadable.
[[nodiscard]] std::string read_text_file(const std::filesystem::path& file);

/// Write `content` to `file` atomically: a temporary file in the same folder, flushed, then
/// renamed over the target, so a reader never sees half a file. Throws input_error on failure.
void write_file_atomically(const std::filesystem::path& file, std::string_view content);

/// One file of a unit written by write_files_atomically.
struct file_content {
  std::filesystem::path path;
  std::string_view content;
};

/// Files that belong together (a report and its charts), all in one folder, written as one
/// unit: the contents go to unnamed temporary files first (O_TMPFILE, so a process killed while
/// writing leaves nothing behind), then, under an exclusive lock on the folder and with
/// SIGINT/SIGTERM/SIGHUP held off, the first file is removed, the others are renamed into place
/// and the first one last. Whatever the interleaving of concurrent writers or the moment of a
/// kill, a first file (the report) that exists sits beside the files of its own write. A name
/// left by a writer killed during its renames is removed by the next writer. Throws input_error.
void write_files_atomically(const std::vector<file_content>& files);

/// Creates the folder `file` goes in (and its parents). Throws input_error naming the folder
/// and the reason (permission denied, a file in the way, ...).
void create_parent_directories(const std::filesystem::path& file);

/// The FNV-1a 64-bit hash of a file's bytes, as 16 lowercase hex digits: tells a kept copy
/// from a changed one (an integrity check, not a cryptographic one). Throws input_error.
[[nodiscard]] std::string file_fnv1a64(const std::filesystem::path& file);

/// Copies an executable to `to` (its folder created), keeping its permission bits, atomically:
/// a reader sees the old file or the whole new one. Throws input_error naming either file.
void copy_executable(const std::filesystem::path& from, const std::filesystem::path& to);

/// A folder of this process's own in the system's temporary folder, `<tmp>/<prefix><pid>`:
/// emptied when made, removed with what it holds when it goes (a profiler's output files).
class scratch_dir {
public:
  explicit scratch_dir(std::string_view prefix);
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir();
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

} // namespace perfgate
