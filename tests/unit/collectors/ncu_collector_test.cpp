// SPDX-License-Identifier: Apache-2.0
// The Nsight Compute collector without a GPU: the argument vector handed to ncu, the default
// metric list, and how ncu's own errors in its log become perfgate's exit codes.
#include <perfgate/error.hpp>
#include <perfgate/profile.hpp>

#include "collectors/collectors.hpp"
#include "importers/counter_mapping.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

namespace {
using perfgate::detail::collect_request;
using perfgate::detail::ncu_command_line;
using perfgate::detail::ncu_default_metrics;
using strings = std::vector<std::string>;

const strings metrics = {"gpu__time_duration.sum", "smsp__inst_executed.sum"};
const strings fixed = {"ncu",           "--csv",
                       "--page",        "raw",
                       "--print-units", "base",
                       "--metrics",     "gpu__time_duration.sum,smsp__inst_executed.sum",
                       // the clocks the GPU chooses: no lock at base, no change to the card
                       "--clock-control", "none",
                       "--log-file",    "/tmp/perfgate ncu (1).csv"};

collect_request request_for(strings program, std::string kernel_regex = {}) {
  collect_request r;
  r.program = std::move(program);
  r.kernel_regex = std::move(kernel_regex);
  return r;
}

strings concat(strings a, const strings& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::size_t count(const strings& v, const std::string& s) {
  return static_cast<std::size_t>(std::count(v.begin(), v.end(), s));
}
} // namespace

TEST(NcuCommandLine, NoKernelRegexGivesNoFilterFlags) {
  const strings program = {"./bench", "--size", "1024"};
  const auto argv = ncu_command_line(request_for(program), metrics, "/tmp/perfgate ncu (1).csv");
  EXPECT_EQ(argv, concat(fixed, program));
  for (const char* flag : {"--kernel-name", "--kernel-name-base", "-k", "demangled"}) {
    EXPECT_EQ(count(argv, flag), 0U) << flag;
  }
}

TEST(NcuCommandLine, KernelRegexComesBeforeTheProgramAsTwoFlagsWithOneValueEach) {
  const strings program = {"./bench"};
  const std::string regex = "^void sgemm<float, 32>\\(float const\\*, int\\)$";
  const auto argv =
      ncu_command_line(request_for(program, regex), metrics, "/tmp/perfgate ncu (1).csv");
  const strings filter = {"--kernel-name-base", "demangled", "--kernel-name", "regex:" + regex};
  EXPECT_EQ(argv, concat(concat(fixed, filter), program));
}

TEST(NcuCommandLine, AwkwardArgumentsStayOneElementEachUnquoted) {
  // Whatever a shell would split, expand or glob is passed through byte for byte.
  const strings program = {"/opt/my bench/run (copy)",
                           "void sgemm<float, 32>(float const*, int)",
                           "it's \"quoted\"",
                           "a,b,c",
                           "$HOME",
                           "x; rm -rf /",
                           "*.csv",
                           "",
                           "--kernel-name",
                           "tab\there",
                           "back\\slash"};
  const std::string regex = "sgemm<float, 32>\\(.*\\)|saxpy; $x \"q\" 'q' *";
  const auto argv =
      ncu_command_line(request_for(program, regex), metrics, "/tmp/perfgate ncu (1).csv");
  ASSERT_EQ(argv.size(), fixed.size() + 4 + program.size());
  // The program's argv is the tail, untouched and in order.
  EXPECT_TRUE(std::equal(program.begin(), program.end(), argv.end() - std::ssize(program)));
  EXPECT_EQ(argv[fixed.size() + 3], "regex:" + regex);
  EXPECT_EQ(argv[11], "/tmp/perfgate ncu (1).csv");
  // ncu's own flags all precede the program; a program argument that looks like a flag stays
  // after it, where ncu hands it to the program.
  const auto program_at = std::find(argv.begin(), argv.end(), program.front());
  EXPECT_EQ(program_at - argv.begin(), static_cast<std::ptrdiff_t>(fixed.size() + 4));
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--kernel-name") - argv.begin(),
            static_cast<std::ptrdiff_t>(fixed.size() + 2));
}

TEST(NcuCommandLine, MetricsAreOneCommaJoinedArgument) {
  const auto argv = ncu_command_line(request_for({"./a"}), {"a.sum"}, "log");
  EXPECT_EQ(argv[7], "a.sum");
  const auto defaults = ncu_default_metrics();
  const auto all = ncu_command_line(request_for({"./a"}), defaults, "log");
  std::string joined;
  for (const auto& m : defaults) {
    joined += (joined.empty() ? "" : ",") + m;
  }
  EXPECT_EQ(all[6], "--metrics");
  EXPECT_EQ(all[7], joined);
  EXPECT_EQ(joined.find(' '), std::string::npos);
}

TEST(NcuDefaultMetrics, TimeAndClockFirst) {
  const auto m = ncu_default_metrics();
  ASSERT_GE(m.size(), 2U);
  EXPECT_EQ(m[0], "gpu__time_duration.sum");
  EXPECT_EQ(m[1], "sm__cycles_elapsed.avg.per_second");
}

TEST(NcuDefaultMetrics, EachPreferredMetricOnceAndNoFallback) {
  const auto m = ncu_default_metrics();
  const auto sources = perfgate::detail::ncu_counter_sources();
  strings preferred;
  const auto& tensor = perfgate::counter::tensor_ops;
  for (const auto& s : sources) {
    const bool tensor_ops = std::find(tensor.begin(), tensor.end(), s.canonical) != tensor.end() ||
                            s.canonical == perfgate::counter::tensor_inst_hfma2;
    for (auto name : s.alternatives.front().metrics) {
      // Tensor operations (and the pipe's HFMA2 count, GA100's and GH100's alone) are named
      // differently on every chip: only a chip's plan asks for them.
      if (tensor_ops) {
        EXPECT_EQ(count(m, std::string(name)), 0U) << s.canonical << ": " << name;
        continue;
      }
      preferred.emplace_back(name);
      EXPECT_EQ(count(m, std::string(name)), 1U) << s.canonical << ": " << name;
    }
  }
  EXPECT_EQ(count(m, "sm__inst_executed_pipe_tensor.sum"), 1U); // the evidence stays
  // Every model input is covered by its preferred alternative.
  for (auto input : perfgate::counter::model_inputs) {
    const auto it = std::find_if(sources.begin(), sources.end(),
                                 [&](const auto& s) { return s.canonical == input; });
    ASSERT_NE(it, sources.end()) << input;
    for (auto name : it->alternatives.front().metrics) {
      EXPECT_EQ(count(m, std::string(name)), 1U) << input;
    }
  }
  // A fallback name that is nobody's preferred one would make ncu fail on chips without it.
  for (auto name : perfgate::detail::metrics_used(sources)) {
    if (count(preferred, std::string(name)) == 0) {
      EXPECT_EQ(count(m, std::string(name)), 0U) << "fallback requested: " << name;
    }
  }
  for (const char* fallback : {"dram__bytes_op_read.sum", "dram__bytes_op_write.sum",
                               "dram__sectors_read.sum", "sm__inst_executed.sum"}) {
    EXPECT_EQ(count(m, fallback), 0U) << fallback;
  }
  std::sort(preferred.begin(), preferred.end());
  preferred.erase(std::unique(preferred.begin(), preferred.end()), preferred.end());
  EXPECT_EQ(m.size(), 2 + preferred.size()) << "no duplicates, nothing else";
}

TEST(NcuLog, UnknownMetricSkipsNamingNcusLine) {
  const std::string log = "==PROF== Connected to process 20101 (/home/ci/bench)\n"
                          "==ERROR== Failed to find metric regex:^dram__bytes_op_read\\.sum$\r\n"
                          "==PROF== Disconnected from process 20101\n";
  try {
    perfgate::detail::check_ncu_log(log);
    FAIL() << "an unknown metric was not reported";
  } catch (const perfgate::skip_error& e) {
    EXPECT_EQ(e.status(), perfgate::exit_status::skipped);
    const std::string what = e.what();
    EXPECT_NE(what.find("(==ERROR== Failed to find metric regex:^dram__bytes_op_read\\.sum$)"),
              std::string::npos)
        << what;
  }
}

TEST(NcuLog, CounterPermissionSkips) {
  EXPECT_THROW(perfgate::detail::check_ncu_log(
                   "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
                   "NVIDIA GPU Performance Counters on the target device 0.\n"),
               perfgate::skip_error);
}

TEST(NcuLog, ANormalLogPasses) {
  EXPECT_NO_THROW(perfgate::detail::check_ncu_log(
      "==PROF== Connected to process 48213 (/home/ci/bench)\n"
      "==PROF== Profiling \"sgemm\" - 0: 0%....50%....100% - 3 passes\n"
      "==PROF== Disconnected from process 48213\n\"ID\",\"Kernel Name\"\n"));
  EXPECT_NO_THROW(perfgate::detail::check_ncu_log(""));
}
