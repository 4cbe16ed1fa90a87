// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>

#include "util/subprocess.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

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

namespace {
// A process is gone when /proc has no entry for it or it is a zombie no one reaps.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) {
    return false;
  }
  const auto close = line.rfind(')');
  return close == std::string::npos || line.substr(close + 2, 1) != "Z";
}

// Gone within a second: SIGKILL is delivered at once, but asynchronously.
bool gone_soon(pid_t pid) {
  for (int i = 0; i < 100 && alive(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !alive(pid);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
} // namespace

// Issue 16 #7: a background child that keeps the pipes open neither hangs the run nor makes it
// "timed out"; the run ends when the program exits, and what it left in its group is killed.
TEST(Subprocess, WaitsForTheProgramNotForItsPipes) {
  process_options o;
  o.capture_stdout = true;
  o.on_stderr_line = [](std::string_view) {};
  o.timeout_s = 20;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "sleep 30 & echo $!; echo bye >&2; exit 4"}, o);
  EXPECT_LT(seconds_since(start), 10.0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.last_stderr_line, "bye");
  const pid_t background = std::stoi(r.stdout_text);
  EXPECT_TRUE(gone_soon(background)) << "the background sleep outlived the run";
}

// Issue 16 #5: timeouts past steady_clock's range never come, poll()'s int milliseconds do not
// wrap (2^32 ms + 200 ms used to wait 200 ms), and a timeout that is not a number is refused.
TEST(Subprocess, TimeoutArithmeticNeitherOverflowsNorWraps) {
  process_options o;
  for (const double t : {9.3e9, 1e10, 1e300, 4294967.296 + 0.2}) {
    o.timeout_s = t;
    const auto r = run_process({"sleep", "0.5"}, o);
    EXPECT_FALSE(r.timed_out) << t;
    EXPECT_EQ(r.exit_code, 0) << t;
  }
  for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity(), 0.0, -1.0}) {
    o.timeout_s = bad;
    EXPECT_THROW((void)run_process({"true"}, o), perfgate::usage_error) << bad;
  }
}

// Issue 16 #4: SIGTERM sent to perfgate goes on to the program's group, which is stopped, and
// the run ends with an error that says so; a program that ignores it is killed after a grace.
TEST(Subprocess, SigtermToUsIsPassedOnToTheProgramsGroup) {
  for (const std::string script :
       {"sleep 30 & echo $! >&2; kill -TERM $PPID; wait",
        "trap '' TERM; sleep 30 & echo $! >&2; kill -TERM $PPID; wait"}) {
    std::string background;
    process_options o;
    o.on_stderr_line = [&](std::string_view l) { background = l; };
    const auto start = std::chrono::steady_clock::now();
    try {
      (void)run_process({"sh", "-c", script}, o);
      FAIL() << "expected target_error for " << script;
    } catch (const perfgate::target_error& e) {
      EXPECT_EQ(std::string(e.what()), "sh was stopped: perfgate received SIGTERM and stopped it");
    }
    EXPECT_LT(seconds_since(start), 10.0);
    ASSERT_FALSE(background.empty());
    EXPECT_TRUE(gone_soon(std::stoi(background))) << script;
  }
  // Our own SIGTERM handling is back as it was.
  struct sigaction now {};
  ::sigaction(SIGTERM, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

// Issue 16 #8: forwarded stderr arrives unchanged (one write per read, not per line), the last
// line kept even without a final newline.
TEST(Subprocess, ForwardedStderrIsCopiedUnchanged) {
  char name[] = "/tmp/perfgate-stderr-XXXXXX";
  const int file = ::mkstemp(name);
  ASSERT_GE(file, 0);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(file, STDERR_FILENO);
  process_options o;
  o.forward_stderr = true;
  const auto r =
      run_process({"sh", "-c",
                   "i=0; while [ $i -lt 20000 ]; do echo \"line $i\" >&2; i=$((i+1)); done; "
                   "printf 'a\\r\\n\\nlast' >&2"},
                  o);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::ifstream in(name, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::close(file);
  ::unlink(name);
  std::string expected;
  for (int i = 0; i < 20000; ++i) {
    expected += "line " + std::to_string(i) + "\n";
  }
  expected += "a\r\n\nlast";
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(text.size(), expected.size());
  EXPECT_TRUE(text == expected);
  EXPECT_EQ(r.last_stderr_line, "last");
}
