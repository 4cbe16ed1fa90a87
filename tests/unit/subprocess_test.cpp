// SPDX-License-Identifier: Apache-2.0
#include "src/subprocess.hpp"

#include <gtest/gtest.h>

using perfgate::detail::process_options;
using perfgate::detail::run_process;

TEST(Subprocess, ArgumentsTravelUnsplitAndStdoutIsCaptured) {
  process_options o;
  o.capture_stdout = true;
  const auto r = run_process({"printf", "%s|", "a b", "it's", "(x, y)"}, o);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text, "a b|it's|(x, y)|");
}

TEST(Subprocess, StderrLinesExitCodeAndEnvironment) {
  std::vector<std::string> lines;
  process_options o;
  o.on_stderr_line = [&](std::string_view l) { lines.emplace_back(l); };
  o.environment = {{"PERFGATE_TEST_VALUE", "42"}};
  const auto r =
      run_process({"sh", "-c", "echo one >&2; echo \"v=$PERFGATE_TEST_VALUE\" >&2; exit 3"}, o);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.describe(), "exited with 3");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1], "v=42");
  EXPECT_EQ(r.last_stderr_line, "v=42");
}

TEST(Subprocess, SignalTimeoutAndMissingProgram) {
  const auto crashed = run_process({"sh", "-c", "kill -SEGV $$"}, {});
  EXPECT_EQ(crashed.signal, SIGSEGV);
  EXPECT_EQ(crashed.describe(), "was killed by SIGSEGV");

  process_options quick;
  quick.timeout_s = 0.2;
  const auto slow = run_process({"sleep", "10"}, quick);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(slow.describe(), "timed out and was killed");

  process_options captured = quick;
  captured.capture_stdout = true;
  EXPECT_TRUE(run_process({"sh", "-c", "echo started; sleep 10"}, captured).timed_out);

  const auto missing = run_process({"/no/such/program"}, {});
  EXPECT_TRUE(missing.not_found);
}

TEST(Subprocess, FindExecutableSearchesDirsThenPath) {
  EXPECT_EQ(perfgate::detail::find_executable("sh").value_or("").ends_with("/sh"), true);
  EXPECT_EQ(perfgate::detail::find_executable("sh", {"/no/such/dir", "/bin"}), "/bin/sh");
  EXPECT_FALSE(perfgate::detail::find_executable("perfgate-no-such-tool"));
  EXPECT_EQ(perfgate::detail::find_executable("/bin/sh"), "/bin/sh");
  EXPECT_FALSE(perfgate::detail::find_executable(PERFGATE_SOURCE_DIR "/README.md")); // no x bit
}
