// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {
fs::path scratch_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("perfgate-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string import_message(const fs::path& file) {
  try {
    (void)perfgate::import_profile(file);
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(e.status(), perfgate::exit_status::input_error);
    return e.what();
  }
  return "no error";
}
} // namespace

TEST(FileIo, MissingFileDirectoryAndEmptyFileAreNamedInputErrors) {
  const auto dir = scratch_dir("io");
  EXPECT_EQ(import_message(dir / "nope.csv"), (dir / "nope.csv").string() + ": no such file");
  EXPECT_EQ(import_message(dir), dir.string() + ": is a directory, expected a file");
  std::ofstream(dir / "empty.csv").close();
  EXPECT_EQ(import_message(dir / "empty.csv"),
            (dir / "empty.csv").string() + ": the file is empty, expected a profile");
  fs::remove_all(dir);
}

TEST(FileIo, AtomicWriteReplacesWholeFileAndLeavesNoTemporary) {
  const auto dir = scratch_dir("atomic");
  const auto target = dir / "report.json";
  perfgate::write_file_atomically(target, "old content that is longer\n");
  perfgate::write_file_atomically(target, "new\n");
  EXPECT_EQ(perfgate::read_text_file(target), "new\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) {
    ++entries;
  }
  EXPECT_EQ(entries, 1U); // no temporary left behind
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::others_read, fs::perms::others_read);
  fs::remove_all(dir);
}

TEST(FileIo, AtomicWriteIntoMissingFolderFailsWithTheFileName) {
  const auto dir = scratch_dir("nofolder");
  const auto target = dir / "missing" / "report.json";
  try {
    perfgate::write_file_atomically(target, "x");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(e.file(), target.string());
  }
  fs::remove_all(dir);
}
