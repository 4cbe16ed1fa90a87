// SPDX-License-Identifier: Apache-2.0
// Nsight Compute CSV, both layouts, against fixtures printed by a real ncu 2024.1.1
// (tests/data/ncu/FORMAT.md says how they were made and lists the expected totals).
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>

#include "import_failure.hpp"
#include "importers/ncu_importer.hpp"

#include <gtest/gtest.h>

#include <cmath>
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
  EXPECT_EQ(p.format, perfgate::profile_format::ncu_csv_raw);
  // Auto units print 6 decimals of Mbyte and msecond: exact to the byte and nanosecond.
  expect_totals_t(p, 0.5, 0.5e-9);
}

TEST(NcuImporter, RawPageBaseUnitsWithThousandsSeparators) {
  const auto p = load("raw_two_kernels_base_units.csv");
  expect_totals_t(p, 0.0, 1e-15);
}

TEST(NcuImporter, DetailsPageBaseUnits) {
  const auto p = load("long_two_kernels.csv");
  EXPECT_EQ(p.format, perfgate::profile_format::ncu_csv);
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

// sm__cycles_elapsed.avg.per_second is a rate: one kernel's launches average, never add up.
TEST(NcuImporter, SmClockIsTheDurationWeightedMeanOfTheLaunches) {
  // Base units, real ncu output: saxpy 1,594,706,035.53 / 1,596,012,364.12 / 1,595,334,107.86 Hz
  // over 71,584 / 70,912 / 70,656 ns; sgemm 1,597,826,351.40 / 1,597,508,991.27 Hz over
  // 2,452,160 / 2,449,376 ns (FORMAT.md, totals T).
  const auto p = load("raw_two_kernels_base_units.csv");
  const double saxpy_mhz = (1594706035.53 * 71584 + 1596012364.12 * 70912 + 1595334107.86 * 70656) /
                           (71584.0 + 70912.0 + 70656.0) / 1e6;
  const double sgemm_mhz =
      (1597826351.40 * 2452160 + 1597508991.27 * 2449376) / (2452160.0 + 2449376.0) / 1e6;
  ASSERT_TRUE(kernel(p, saxpy).sm_clock_mhz);
  EXPECT_NEAR(*kernel(p, saxpy).sm_clock_mhz, saxpy_mhz, 1e-9);
  EXPECT_NEAR(*kernel(p, saxpy).sm_clock_mhz, 1595.3488, 1e-4);
  ASSERT_TRUE(kernel(p, sgemm).sm_clock_mhz);
  EXPECT_NEAR(*kernel(p, sgemm).sm_clock_mhz, sgemm_mhz, 1e-9);
}

TEST(NcuImporter, SmClockInEveryLayoutAndUnit) {
  // cycle/nsecond (auto, 6 decimals) and cycle/second (base) give the same clock to 1 kHz.
  const auto base = load("raw_two_kernels_base_units.csv");
  for (const char* name : {"raw_two_kernels.csv", "long_two_kernels.csv"}) {
    const auto p = load(name);
    for (const auto& k : {saxpy, sgemm}) {
      ASSERT_TRUE(kernel(p, k).sm_clock_mhz) << name << " " << k;
      EXPECT_NEAR(*kernel(p, k).sm_clock_mhz, *kernel(base, k).sm_clock_mhz, 1e-3) << name;
    }
  }
  // The details page with auto units rounds the clock to 1.60 cycle/nsecond.
  const auto rounded = load("long_two_kernels_auto_units.csv");
  EXPECT_NEAR(*kernel(rounded, sgemm).sm_clock_mhz, 1600.0, 1e-9);
}

TEST(NcuImporter, ThrottledLaunchWeighsByItsDuration) {
  // Derived by hand (FORMAT.md): sgemm's second launch at 1.098 GHz for 3.563616 ms.
  const auto p = load("raw_clock_throttled.csv");
  const auto& g = kernel(p, sgemm);
  ASSERT_TRUE(g.sm_clock_mhz);
  const double weighted = (1597.826 * 2.452160 + 1098.0 * 3.563616) / (2.452160 + 3.563616);
  EXPECT_NEAR(*g.sm_clock_mhz, weighted, 1e-9);
  EXPECT_NEAR(*g.sm_clock_mhz, 1301.7399, 1e-4);
  EXPECT_GT(std::abs(*g.sm_clock_mhz - (1597.826 + 1098.0) / 2), 40.0); // not the plain mean
  // The counters are untouched by the clock, and the clock is not summed like them.
  EXPECT_EQ(*g.counter("inst_fp32_fma"), 17179869184.0);
  EXPECT_NEAR(g.duration->total_s, 6.015776e-3, 0.5e-9);
  EXPECT_NEAR(*kernel(p, saxpy).sm_clock_mhz,
              *kernel(load("raw_two_kernels.csv"), saxpy).sm_clock_mhz, 1e-12);
}

TEST(NcuImporter, NoClockColumnLeavesTheClockEmptyAndNothingElseChanges) {
  const auto with = load("raw_two_kernels.csv");
  const auto without = load("raw_no_clock.csv");
  expect_totals_t(without, 0.5, 0.5e-9);
  ASSERT_EQ(with.kernels.size(), without.kernels.size());
  for (std::size_t i = 0; i < with.kernels.size(); ++i) {
    const auto& a = with.kernels[i];
    const auto& b = without.kernels[i];
    EXPECT_TRUE(a.sm_clock_mhz);
    EXPECT_FALSE(b.sm_clock_mhz) << b.name;
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.invocations, b.invocations);
    EXPECT_EQ(a.counters, b.counters);
    EXPECT_EQ(a.time_s, b.time_s);
    EXPECT_EQ(a.duration->samples, b.duration->samples);
    EXPECT_EQ(a.duration->median_s, b.duration->median_s);
  }
}

TEST(NcuImporter, SmClockWithoutDurationsIsThePlainMean) {
  // No gpu__time_duration.sum column: nothing to weigh by. Launch 1 has no clock (n/a).
  const std::string text = "\"ID\",\"Kernel Name\",\"sm__cycles_elapsed.avg.per_second\"\n"
                           "\"\",\"\",\"cycle/usecond\"\n"
                           "\"0\",\"k(int)\",\"1500.000000\"\n"
                           "\"1\",\"k(int)\",\"n/a\"\n"
                           "\"2\",\"k(int)\",\"1700.000000\"\n";
  const auto p = perfgate::detail::import_ncu_csv_raw(text, "clock.csv");
  ASSERT_EQ(p.kernels.size(), 1U);
  EXPECT_EQ(p.kernels[0].invocations, 3U);
  ASSERT_TRUE(p.kernels[0].sm_clock_mhz);
  EXPECT_NEAR(*p.kernels[0].sm_clock_mhz, 1600.0, 1e-9);
  EXPECT_FALSE(p.kernels[0].duration);
}

TEST(NcuImporter, SmClockWithAnUnknownUnitIsRejected) {
  const std::string text = "\"ID\",\"Kernel Name\",\"sm__cycles_elapsed.avg.per_second\"\n"
                           "\"\",\"\",\"cycle/fortnight\"\n"
                           "\"0\",\"k(int)\",\"1.5\"\n";
  try {
    (void)perfgate::detail::import_ncu_csv_raw(text, "clock.csv");
    FAIL() << "a clock in an unknown unit was read";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "clock.csv:3: column 3, metric sm__cycles_elapsed.avg.per_second: "
                  "unknown unit \"cycle/fortnight\""),
              std::string::npos)
        << e.what();
  }
}

TEST(NcuImporter, RateUnitScales) {
  using perfgate::detail::ncu_unit_scale;
  EXPECT_EQ(ncu_unit_scale("cycle/second"), 1.0);
  EXPECT_EQ(ncu_unit_scale("cycle/nsecond"), 1e9);
  EXPECT_EQ(ncu_unit_scale("cycle/usecond"), 1e6);
  EXPECT_EQ(ncu_unit_scale("cycle/msecond"), 1e3);
  EXPECT_EQ(ncu_unit_scale("Gbyte/second"), 1e9);
  EXPECT_EQ(ncu_unit_scale("byte/ns"), 1e9);
  EXPECT_EQ(ncu_unit_scale("hz"), 1.0);
  EXPECT_EQ(ncu_unit_scale("MHz"), 1e6);
  EXPECT_EQ(ncu_unit_scale("GHz"), 1e9);
  EXPECT_FALSE(ncu_unit_scale("cycle/"));
  EXPECT_FALSE(ncu_unit_scale("/second"));
  EXPECT_FALSE(ncu_unit_scale("second/second"));
  EXPECT_FALSE(ncu_unit_scale("cycle/nsecond/second"));
  EXPECT_FALSE(ncu_unit_scale("cycle/furlong"));
}

namespace {
// raw_two_kernels.csv with saxpy's third launch (ID 3) given another grid (or none).
perfgate::profile raw_with_third_saxpy_grid(const std::string& grid) {
  std::string text = perfgate::read_text_file(ncu_dir + "raw_two_kernels.csv");
  const std::string row = "\"3\",\"48213\"";
  const auto at = text.find(row);
  const auto g = text.find("\"(65536, 1, 1)\"", at);
  text.replace(g, std::string("\"(65536, 1, 1)\"").size(), "\"" + grid + "\"");
  return perfgate::import_profile_text(text, "raw_two_kernels.csv");
}
} // namespace

// Work and time from the same launches: a name launched on two grids is two kernels, named as
// the CUPTI collector names its launch groups.
TEST(NcuImporter, ANameLaunchedOnTwoGridsIsAKernelPerGrid) {
  const auto p = raw_with_third_saxpy_grid("(1024, 1, 1)");
  ASSERT_EQ(p.kernels.size(), 3U);
  const auto& big = kernel(p, saxpy + " [grid 65536x1x1 block 256x1x1]");
  const auto& small = kernel(p, saxpy + " [grid 1024x1x1 block 256x1x1]");
  EXPECT_EQ(big.invocations, 2U);
  EXPECT_EQ(small.invocations, 1U);
  // Each launch counts 6291456 warp instructions (FORMAT.md): a third of the name's total each.
  EXPECT_EQ(*big.counter("warp_inst_executed"), 2 * 6291456.0);
  EXPECT_EQ(*small.counter("warp_inst_executed"), 6291456.0);
  EXPECT_EQ(small.launch->grid[0], 1024U);
  EXPECT_EQ(kernel(p, sgemm).invocations, 2U); // one grid: its name unchanged
}

// The configuration is compared as numbers: the same grid written with other spacing is the
// same launch configuration (the fuzzer's crash: two texts, one shape).
TEST(NcuImporter, AGridWrittenTwoWaysIsOneConfiguration) {
  const auto p = raw_with_third_saxpy_grid("(65536,1,1)");
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(kernel(p, saxpy).invocations, 3U);
}

TEST(NcuImporter, AnUnreadableGridIsItsOwnGroupNamedUnknown) {
  const auto p = raw_with_third_saxpy_grid("(65536, x, 1)");
  ASSERT_EQ(p.kernels.size(), 3U);
  EXPECT_EQ(kernel(p, saxpy + " [grid 65536x1x1 block 256x1x1]").invocations, 2U);
  const auto& unknown = kernel(p, saxpy + " [launch configuration unknown]");
  EXPECT_EQ(unknown.invocations, 1U);
  EXPECT_FALSE(unknown.launch);
}

// The details page writes a launch as many rows: the launch belongs to the configuration of its
// first row, even where a later row of it says otherwise.
TEST(NcuImporter, DetailsRowsOfOneLaunchStayOneLaunch) {
  std::string text = perfgate::read_text_file(ncu_dir + "long_two_kernels.csv");
  const std::string first_row_of_launch_3 = "\"3\",\"48213\"";
  const auto at = text.find(first_row_of_launch_3);
  const auto second = text.find(first_row_of_launch_3, at + 1);
  ASSERT_NE(second, std::string::npos);
  const auto g = text.find("\"(65536, 1, 1)\"", second);
  text.replace(g, std::string("\"(65536, 1, 1)\"").size(), "\"(1024, 1, 1)\"");
  const auto p = perfgate::import_profile_text(text, "long_two_kernels.csv");
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(kernel(p, saxpy).invocations, 3U);
  EXPECT_EQ(*kernel(p, saxpy).counter("warp_inst_executed"), 18874368.0);
}
