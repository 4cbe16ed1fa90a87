// SPDX-License-Identifier: Apache-2.0
// Nsight Compute CSV, both layouts, against fixtures printed by a real ncu 2024.1.1
// (tests/data/ncu/FORMAT.md says how they were made and lists the expected totals).
#include <perfgate/error.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>

#include "import_failure.hpp"
#include "importers/ncu_importer.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace {
const std::string ncu_dir = std::string(PERFGATE_TEST_DATA_DIR) + "/ncu/";
const std::string saxpy = "void saxpy_kernel<float>(int, float, const float *, float *)";
const std::string sgemm = "sgemm_tiled(const float *, const float *, float *, int, int, int)";

perfgate::profile load(const std::string& name) { return perfgate::import_profile(ncu_dir + name); }

const perfgate::kernel_profile& kernel(const perfgate::profile& p, const std::string& name) {
  for (const auto& k : p.kernels) {
    if (k.name == name) {
      return k;
    }
  }
  throw std::runtime_error("no kernel " + name);
}

// Totals "T" of FORMAT.md; `bytes_tol` and `time_tol` allow for the auto-unit rounding.
void expect_totals_t(const perfgate::profile& p, double bytes_tol, double time_tol) {
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].name, saxpy); // order of first launch
  const auto& s = kernel(p, saxpy);
  EXPECT_EQ(s.invocations, 3U);
  EXPECT_EQ(*s.counter("inst_fp32_fma"), 50331648.0);
  EXPECT_EQ(*s.counter("inst_fp32"), 50331648.0);
  EXPECT_EQ(*s.counter("inst_fp64"), 0.0);
  EXPECT_EQ(*s.counter("inst_fp64_fma"), 0.0);
  EXPECT_EQ(*s.counter("inst_integer"), 251658240.0);
  EXPECT_EQ(*s.counter("inst_ldst"), 150994944.0);
  EXPECT_EQ(*s.counter("warp_inst_executed"), 18874368.0);
  EXPECT_NEAR(*s.counter("dram_read_bytes"), 402653184.0, bytes_tol);
  EXPECT_NEAR(*s.counter("dram_write_bytes"), 201326592.0, bytes_tol);
  ASSERT_TRUE(s.duration);
  EXPECT_EQ(s.duration->samples, 3U);
  EXPECT_NEAR(s.duration->total_s, 2.13152e-4, time_tol);
  ASSERT_TRUE(s.launch);
  EXPECT_EQ(s.launch->grid[0], 65536U);
  EXPECT_EQ(s.launch->block[0], 256U);
  const auto& g = kernel(p, sgemm);
  EXPECT_EQ(g.invocations, 2U);
  EXPECT_EQ(*g.counter("inst_fp32_fma"), 17179869184.0);
  EXPECT_EQ(*g.counter("inst_ldst"), 38663094272.0);
  EXPECT_EQ(*g.counter("warp_inst_executed"), 2021130240.0);
  EXPECT_NEAR(*g.counter("dram_read_bytes"), 67212288.0, bytes_tol);
  EXPECT_NEAR(*g.counter("dram_write_bytes"), 33605632.0, bytes_tol);
  EXPECT_NEAR(g.duration->total_s, 4.901536e-3, time_tol);
  EXPECT_EQ(g.launch->grid[1], 128U);
  EXPECT_EQ(g.launch->block[1], 16U);
}

std::string message_of(const std::string& name) {
  return perfgate::test::import_failure(std::filesystem::path(ncu_dir + name));
}
} // namespace

TEST(NcuImporter, RawPageAutoUnits) {
  const auto p = load("raw_two_kernels.csv");
  EXPECT_EQ(p.format, "ncu-csv-raw");
  // Auto units print 6 decimals of Mbyte and msecond: exact to the byte and nanosecond.
  expect_totals_t(p, 0.5, 0.5e-9);
}

TEST(NcuImporter, RawPageBaseUnitsWithThousandsSeparators) {
  const auto p = load("raw_two_kernels_base_units.csv");
  expect_totals_t(p, 0.0, 1e-15);
}

TEST(NcuImporter, DetailsPageBaseUnits) {
  const auto p = load("long_two_kernels.csv");
  EXPECT_EQ(p.format, "ncu-csv");
  expect_totals_t(p, 0.0, 1e-15);
}

TEST(NcuImporter, DetailsPageAutoUnitsAreRoundedToTwoDecimals) {
  const auto p = load("long_two_kernels_auto_units.csv");
  // Totals "A" of FORMAT.md: 2 decimals of Mbyte (5 kB per launch) and of usecond/msecond.
  expect_totals_t(p, 3 * 5e3, 3 * 5e-6);
  EXPECT_EQ(*kernel(p, saxpy).counter("dram_read_bytes"), 402660000.0);
}

TEST(NcuImporter, SectorsAreThirtyTwoBytes) {
  const auto p = load("raw_sectors.csv");
  const auto& s = kernel(p, saxpy);
  EXPECT_EQ(s.invocations, 2U);
  EXPECT_EQ(*s.counter("dram_read_bytes"), 268435456.0);
  EXPECT_EQ(*s.counter("dram_write_bytes"), 134217728.0);
}

TEST(NcuImporter, MissingMetricsAreNamedInNcuTerms) {
  const auto what = message_of("raw_missing_metrics.csv");
  EXPECT_NE(what.find("raw_missing_metrics.csv: kernel '" + saxpy +
                      "': lacks metrics the quantitative model needs: "),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("smsp__inst_executed.sum"), std::string::npos) << what;
  EXPECT_NE(what.find("dram__bytes_write.sum"), std::string::npos) << what;
  EXPECT_EQ(what.find("dram__bytes_read.sum"), std::string::npos) << what;
}

TEST(NcuImporter, EmptyCellsAreMissingNotZero) {
  const auto p = load("raw_empty_cells.csv");
  EXPECT_FALSE(kernel(p, saxpy).counter("warp_inst_executed"));
  EXPECT_FALSE(kernel(p, saxpy).counter("dram_write_bytes"));
  const auto& g = kernel(p, sgemm);
  EXPECT_EQ(*g.counter("warp_inst_executed"), 1010565120.0);
  EXPECT_EQ(*g.counter("dram_write_bytes"), 16809984.0);
  EXPECT_NO_THROW((void)perfgate::kernel_params_from_profile(p, g));
}

TEST(NcuImporter, MalformedFilesNameTheLine) {
  EXPECT_NE(
      message_of("raw_non_numeric.csv")
          .find(
              "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum: value \"abc\" is not a number"),
      std::string::npos)
      << message_of("raw_non_numeric.csv");
  EXPECT_NE(message_of("raw_truncated.csv").find("a quoted field never closes"), std::string::npos)
      << message_of("raw_truncated.csv");
}

TEST(NcuImporter, UnitScales) {
  using perfgate::detail::ncu_unit_scale;
  EXPECT_EQ(ncu_unit_scale("byte"), 1.0);
  EXPECT_EQ(ncu_unit_scale("Kbyte"), 1e3);
  EXPECT_EQ(ncu_unit_scale("Gbyte"), 1e9);
  EXPECT_EQ(ncu_unit_scale("inst"), 1.0);
  EXPECT_EQ(ncu_unit_scale("sector"), 1.0);
  EXPECT_EQ(ncu_unit_scale("usecond"), 1e-6);
  EXPECT_EQ(ncu_unit_scale("us"), 1e-6);
  EXPECT_EQ(ncu_unit_scale(""), 1.0);
  EXPECT_FALSE(ncu_unit_scale("K"));
  EXPECT_FALSE(ncu_unit_scale("furlong"));
  EXPECT_FALSE(ncu_unit_scale("Kibyte"));
}

TEST(NcuImporter, RuleColumnsGiveRaggedRowsThatStillParse) {
  // ncu with sections: 5 rule columns, metric rows end after the value, rule rows have no metric.
  const std::string header =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
      "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric "
      "Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\",\"Estimated "
      "Speedup Type\",\"Estimated Speedup\"\n";
  const std::string prefix =
      "\"0\",\"1\",\"a\",\"h\",\"k(int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",";
  const std::string text = header + prefix +
                           "\"s\",\"dram__bytes_read.sum\",\"byte\",\"1,024\",\n" + prefix +
                           "\"s\",\"\",\"\",\"\",\"Rule\",\"OPT\",\"text\",\"local\",\"5\"\n";
  const auto p = perfgate::import_profile_text(text, "rules.csv");
  ASSERT_EQ(p.kernels.size(), 1U);
  EXPECT_EQ(*p.kernels[0].counter("dram_read_bytes"), 1024.0);
}
