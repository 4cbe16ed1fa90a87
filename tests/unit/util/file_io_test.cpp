// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

namespace {
// What read_text_file says about `file` when read by an unprivileged user (root reads anything:
// a forked child drops to nobody first).
std::string unprivileged_read_message(const fs::path& file) {
  int fds[2];
  if (::pipe(fds) != 0) {
    return "no pipe";
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string message = "read it";
    if (::geteuid() != 0 || (::setgid(65534) == 0 && ::setuid(65534) == 0)) {
      try {
        (void)perfgate::read_text_file(file);
      } catch (const perfgate::input_error& e) {
        message = e.what();
      }
    } else {
      message = "cannot drop privileges";
    }
    [[maybe_unused]] auto n = ::write(fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string message;
  char buffer[512];
  ssize_t got;
  while ((got = ::read(fds[0], buffer, sizeof buffer)) > 0) {
    message.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  return message;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}
} // namespace

// Issue 16 #13: permission denied and "not a directory" are not "no such file".
TEST(FileIo, UnreadableIsNotNoSuchFile) {
  const auto dir = scratch_dir("perm");
  fs::create_directories(dir / "locked");
  std::ofstream(dir / "locked" / "p.csv") << "x";
  fs::permissions(dir / "locked", fs::perms::owner_all);
  fs::permissions(dir, fs::perms::all); // the scratch folder itself is reachable for nobody
  EXPECT_EQ(unprivileged_read_message(dir / "locked" / "p.csv"),
            (dir / "locked" / "p.csv").string() + ": cannot read it: Permission denied");
  std::ofstream(dir / "file") << "x";
  try {
    (void)perfgate::read_text_file(dir / "file" / "p.csv");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "file" / "p.csv").string() + ": cannot read it: Not a directory");
  }
  fs::remove_all(dir);
}

// Issue 16 #13: a report folder that cannot be created is an input error naming it.
TEST(FileIo, FolderThatCannotBeCreatedIsNamed) {
  const auto dir = scratch_dir("mkdir");
  std::ofstream(dir / "file") << "x";
  const auto target = dir / "file" / "sub" / "r.json";
  try {
    perfgate::create_parent_directories(target);
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(std::string(e.what()), target.string() + ": cannot create its folder " +
                                         (dir / "file" / "sub").string() + ": Not a directory");
  }
  perfgate::create_parent_directories(dir / "a" / "b" / "r.json");
  EXPECT_TRUE(fs::is_directory(dir / "a" / "b"));
  fs::remove_all(dir);
}

// Issue 16 #10: a writer killed while it writes leaves no temporary file, and the report and
// its chart on disk always come from the same write.
TEST(FileIo, KilledWriterLeavesNoTemporaryAndNoMixedPair) {
  const auto dir = scratch_dir("killed");
  const auto report = dir / "r.json";
  const auto chart = dir / "r.svg";
  perfgate::write_files_atomically({{report, "run 0\n"}, {chart, "run 0\n"}});
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string big(64 << 20, 'x'); // most of each write is spent here
    [[maybe_unused]] auto n = ::write(ready[1], "1", 1);
    for (int run = 1;; ++run) {
      const std::string tag = "run " + std::to_string(run) + "\n";
      perfgate::write_files_atomically({{report, tag + big}, {chart, tag + big}});
    }
  }
  char byte;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::usleep(300'000);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  const auto names = entries(dir);
  EXPECT_TRUE(names == std::vector<std::string>({"r.json", "r.svg"}) ||
              names == std::vector<std::string>({"r.svg"}))
      << "left: " << testing::PrintToString(names);
  if (fs::exists(report)) {
    const auto first_line = [](const fs::path& f) {
      std::string line;
      std::getline(std::ifstream(f) >> std::ws, line);
      return line;
    };
    EXPECT_EQ(first_line(report), first_line(chart));
  }
  // A writer killed between its link and its rename leaves a fixed name: the next one clears it.
  std::ofstream(dir / ".r.json.perfgate-tmp") << "stale";
  perfgate::write_files_atomically({{report, "next\n"}, {chart, "next\n"}});
  EXPECT_EQ(entries(dir), std::vector<std::string>({"r.json", "r.svg"}));
  fs::remove_all(dir);
}

// Issue 16 #10: two concurrent writers never leave a report beside the other's chart. Both are
// released at once (EOF on a pipe) for each round; with a report and a chart written one after
// the other, about 4 rounds in 10 ended with a mixed pair.
TEST(FileIo, ConcurrentWritersLeaveMatchingPairs) {
  const auto dir = scratch_dir("concurrent");
  const auto report = dir / "r.json";
  const auto chart = dir / "r.svg";
  for (int round = 0; round < 50; ++round) {
    int start[2];
    ASSERT_EQ(::pipe(start), 0);
    std::vector<pid_t> writers;
    for (int w = 0; w < 2; ++w) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::close(start[1]);
        char byte;
        [[maybe_unused]] auto n = ::read(start[0], &byte, 1); // EOF: go
        const std::string tag = "writer " + std::to_string(w);
        perfgate::write_files_atomically({{report, tag}, {chart, tag}});
        ::_exit(0);
      }
      writers.push_back(pid);
    }
    ::close(start[0]);
    ::close(start[1]);
    for (const pid_t pid : writers) {
      ::waitpid(pid, nullptr, 0);
    }
    ASSERT_EQ(perfgate::read_text_file(report), perfgate::read_text_file(chart)) << round;
  }
  EXPECT_EQ(entries(dir), std::vector<std::string>({"r.json", "r.svg"}));
  fs::remove_all(dir);
}

// FNV-1a 64 of published test vectors (the empty string is the offset basis; "a" is
// 0xaf63dc4c8601ec8c), and a kept executable: the same bytes, hash and permissions.
TEST(FileIo, Fnv1aOfKnownBytesAndACopiedExecutable) {
  const auto dir = scratch_dir("fnv");
  std::ofstream(dir / "empty").close();
  std::ofstream(dir / "a") << "a";
  EXPECT_EQ(perfgate::file_fnv1a64(dir / "empty"), "cbf29ce484222325");
  EXPECT_EQ(perfgate::file_fnv1a64(dir / "a"), "af63dc4c8601ec8c");
  std::ofstream(dir / "bench") << "#!/bin/sh\necho ok\n";
  fs::permissions(dir / "bench", fs::perms::owner_all | fs::perms::group_read);
  perfgate::copy_executable(dir / "bench", dir / "kept.build" / "bench");
  EXPECT_EQ(perfgate::file_fnv1a64(dir / "kept.build" / "bench"),
            perfgate::file_fnv1a64(dir / "bench"));
  EXPECT_EQ(fs::status(dir / "kept.build" / "bench").permissions(),
            fs::perms::owner_all | fs::perms::group_read);
  EXPECT_THROW(perfgate::copy_executable(dir / "nope", dir / "x"), perfgate::input_error);
  fs::remove_all(dir);
}
