// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>

#include "import_failure.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {
const std::string data = PERFGATE_TEST_DATA_DIR;
const std::string header =
    "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\","
    "\"Max\",\"Avg\"\n";

std::string row(const std::string& kernel, int invocations, const std::string& metric,
                const std::string& avg, const std::string& device = "Tesla K20c (0)") {
  return "\"" + device + "\",\"" + kernel + "\"," + std::to_string(invocations) + ",\"" + metric +
         "\",\"desc\"," + avg + "," + avg + "," + avg + "\n";
}

// The nine metrics of the thesis, per invocation.
std::string complete_kernel(const std::string& kernel, int invocations) {
  return row(kernel, invocations, "flop_count_sp_fma", "100") +
         row(kernel, invocations, "flop_count_dp_fma", "0") +
         row(kernel, invocations, "inst_compute_ld_st", "300") +
         row(kernel, invocations, "inst_executed", "50") +
         row(kernel, invocations, "inst_fp_32", "200") +
         row(kernel, invocations, "inst_fp_64", "0") +
         row(kernel, invocations, "inst_integer", "400") +
         row(kernel, invocations, "dram_read_transactions", "10") +
         row(kernel, invocations, "dram_write_transactions", "5") +
         row(kernel, invocations, "achieved_occupancy", "0.914103") +
         row(kernel, invocations, "dram_read_throughput", "1.2345GB/s");
}

std::string message_of(const std::string& text) {
  return perfgate::test::import_failure(text, "p.csv");
}
} // namespace

TEST(NvprofImporter, TotalsAreAvgTimesInvocationsAndTransactionsAre32Bytes) {
  const auto p = perfgate::import_profile_text(
      "==1== Metric result:\n" + header + complete_kernel("k(float*, int)", 3), "p.csv");
  EXPECT_EQ(p.format, perfgate::profile_format::nvprof_csv);
  EXPECT_EQ(p.device_name, "Tesla K20c");
  EXPECT_EQ(p.warp_size, 32);
  ASSERT_EQ(p.kernels.size(), 1U);
  const auto& k = p.kernels[0];
  EXPECT_EQ(k.name, "k(float*, int)");
  EXPECT_EQ(k.invocations, 3U);
  EXPECT_EQ(*k.counter("inst_fp32"), 600.0);
  EXPECT_EQ(*k.counter("inst_fp32_fma"), 300.0);
  EXPECT_EQ(*k.counter("warp_inst_executed"), 150.0);
  EXPECT_EQ(*k.counter("dram_read_bytes"), 10.0 * 32 * 3);
  EXPECT_EQ(*k.counter("dram_write_bytes"), 5.0 * 32 * 3);
  // Unused metrics with units or fractions are ignored, not misread.
  EXPECT_FALSE(k.counter("achieved_occupancy"));
}

TEST(NvprofImporter, KernelsKeepFirstAppearanceOrderAndFullSignatures) {
  const std::string a = "void a<int, 4>(float const *, \"\"x\"\")";
  const auto p = perfgate::import_profile_text(
      header + complete_kernel("zeta(int)", 1) + complete_kernel(a, 2), "p.csv");
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].name, "zeta(int)");
  EXPECT_EQ(p.kernels[1].name, "void a<int, 4>(float const *, \"x\")");
}

TEST(NvprofImporter, RealK20cFileListsEveryMissingMetricByNvprofName) {
  const std::string file = data + "/real-profiles/nvprof_metrics_k20c_forma_jacobi.csv";
  const auto p = perfgate::import_profile(file);
  EXPECT_EQ(p.device_name, "Tesla K20c");
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].name, "__kernel___forma_kernel__1__(float*, int, int, int, int, float*)");
  EXPECT_EQ(p.kernels[0].invocations, 3U);
  try {
    (void)perfgate::kernel_params_from_profile(p, p.kernels[0]);
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), file);
    EXPECT_NE(
        what.find("kernel '__kernel___forma_kernel__1__(float*, int, int, int, int, float*)'"),
        std::string::npos);
    for (const char* metric : {"inst_fp_32", "flop_count_sp_fma", "inst_fp_64", "flop_count_dp_fma",
                               "inst_integer", "inst_compute_ld_st", "inst_executed",
                               "dram_read_transactions", "dram_write_transactions"}) {
      EXPECT_NE(what.find(metric), std::string::npos) << metric << " not named in: " << what;
    }
  }
}

TEST(NvprofImporter, MissingOneMetricNamesOnlyThatOne) {
  std::string text = header + complete_kernel("k()", 1);
  text.erase(text.find("\"Tesla K20c (0)\",\"k()\",1,\"inst_executed\""),
             row("k()", 1, "inst_executed", "50").size());
  const auto what = message_of(text);
  EXPECT_NE(what.find("lacks metrics the quantitative model needs: inst_executed"),
            std::string::npos)
      << what;
}

TEST(NvprofImporter, MalformedInputNamesFileLineAndProblem) {
  EXPECT_EQ(message_of(""), "p.csv: the file is empty, expected a profile");
  EXPECT_NE(message_of("\"Device\",\"Kernel\"\n1,2\n").find("unknown profile format"),
            std::string::npos);
  // Wrong number of columns on line 2.
  EXPECT_NE(message_of(header + "\"Tesla K20c (0)\",\"k()\",1,\"inst_fp_32\"\n")
                .find("p.csv:2: expected 8 columns"),
            std::string::npos);
  // Non-numeric value of a metric the model uses.
  EXPECT_NE(message_of(header + row("k()", 1, "inst_fp_32", "abc"))
                .find("p.csv:2: metric inst_fp_32: \"Avg\" is \"abc\""),
            std::string::npos);
  // Invocations not a positive integer.
  EXPECT_NE(message_of(header + row("k()", 0, "inst_fp_32", "1")).find("p.csv:2: \"Invocations\""),
            std::string::npos);
  // Truncated in a quoted field.
  EXPECT_NE(message_of(header + "\"Tesla K20c (0)\",\"k(int")
                .find("p.csv:2: a quoted field never closes"),
            std::string::npos);
  // Header only.
  EXPECT_NE(message_of(header).find("p.csv:1: the metric table has no rows"), std::string::npos);
  // Header without an Avg column.
  EXPECT_NE(message_of("\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric "
                       "Description\",\"Min\",\"Max\"\n")
                .find("no \"Avg\" column"),
            std::string::npos);
}

TEST(NvprofImporter, InconsistentRowsAreErrors) {
  EXPECT_NE(message_of(header + row("k()", 1, "inst_fp_32", "1") + row("k()", 2, "inst_fp_64", "1"))
                .find("p.csv:3: kernel 'k()' has 2 invocations here but 1 on line 2"),
            std::string::npos);
  EXPECT_NE(message_of(header + row("k()", 1, "inst_fp_32", "1") + row("k()", 1, "inst_fp_32", "1"))
                .find("p.csv:3: metric inst_fp_32 of kernel 'k()' appears again (first on line 2)"),
            std::string::npos);
  EXPECT_NE(message_of(header + row("k()", 1, "inst_fp_32", "1") +
                       row("k()", 1, "inst_fp_64", "1", "GeForce GTX 480 (1)"))
                .find("p.csv:3: the profile mixes devices"),
            std::string::npos);
}
