// SPDX-License-Identifier: Apache-2.0
// Issue 15: importers that are never silently wrong. Each test reads a realistic fixture (see
// tests/data/*/FORMAT.md) and expects the right numbers or an input_error naming the place.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>
#include <perfgate/report.hpp>

#include "import_failure.hpp"
#include "importers/csv_reader.hpp"
#include "importers/ncu_importer.hpp"
#include "importers/rocpd_importer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {
const std::string data = PERFGATE_TEST_DATA_DIR;
using perfgate::detail::parse_profiler_number;

perfgate::profile load(const std::string& relative) {
  return perfgate::import_profile(data + "/" + relative);
}

// Every kernel's model parameters, in order, for comparing two imports.
std::vector<perfgate::kernel_params> params(const perfgate::profile& p) {
  std::vector<perfgate::kernel_params> out;
  for (const auto& k : p.kernels) {
    out.push_back(perfgate::kernel_params_from_profile(p, k));
  }
  return out;
}

void expect_same_kernels(const perfgate::profile& a, const perfgate::profile& b) {
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  const auto pa = params(a);
  const auto pb = params(b);
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].invocations, b.kernels[i].invocations);
    EXPECT_DOUBLE_EQ(pa[i].W_comp, pb[i].W_comp) << a.kernels[i].name;
    EXPECT_DOUBLE_EQ(pa[i].W_traf, pb[i].W_traf) << a.kernels[i].name;
    EXPECT_DOUBLE_EQ(*pa[i].E_mix, *pb[i].E_mix) << a.kernels[i].name;
    EXPECT_DOUBLE_EQ(*pa[i].D_ldst, *pb[i].D_ldst) << a.kernels[i].name;
    ASSERT_TRUE(a.kernels[i].time_s && b.kernels[i].time_s);
    EXPECT_DOUBLE_EQ(*a.kernels[i].time_s, *b.kernels[i].time_s);
    EXPECT_EQ(a.warp_size, b.warp_size);
  }
}
} // namespace

// Class 1: a decimal comma is never read as a thousands separator.
TEST(HonestImport, DecimalCommaIsNeverAThousandsSeparator) {
  EXPECT_FALSE(parse_profiler_number("4,13")); // 4.13 usecond in de_DE, not 413
  EXPECT_FALSE(parse_profiler_number("2,50")); // 2.5 Kbyte, not 250
  EXPECT_FALSE(parse_profiler_number("1,2345"));
  EXPECT_FALSE(parse_profiler_number("12,34,567"));
  EXPECT_FALSE(parse_profiler_number("1.234,5")); // de_DE grouping with a decimal comma
  EXPECT_FALSE(parse_profiler_number("1.5,000"));
  EXPECT_FALSE(parse_profiler_number(",123"));
  EXPECT_FALSE(parse_profiler_number("6.291.456"));  // de_DE thousands
  EXPECT_EQ(parse_profiler_number("1,234"), 1234.0); // ncu's English-locale grouping
  EXPECT_EQ(parse_profiler_number("16,777,216.5"), 16777216.5);
  EXPECT_EQ(parse_profiler_number("-1,000"), -1000.0);
}

TEST(HonestImport, DecimalCommaFileNamesLineColumnAndLocale) {
  const auto what = perfgate::test::import_failure(data + "/ncu/long_decimal_comma.csv");
  EXPECT_NE(what.find("long_decimal_comma.csv:9: column 15, metric dram__bytes_read.sum: value "
                      "\"134,22\" is not a number"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("decimal comma"), std::string::npos) << what;
}

// Class 2: ncu's ==ERROR== lines are kept, with their line numbers.
TEST(HonestImport, NcuErrorLinesAreKept) {
  const auto p = load("ncu/raw_failed_kernel.csv");
  ASSERT_EQ(p.kernels.size(), 1U); // sgemm_tiled is absent: ncu failed on it
  ASSERT_EQ(p.tool_errors.size(), 3U);
  EXPECT_EQ(p.tool_errors[0],
            "line 5: ==ERROR== Failed to profile \"sgemm_tiled\" in process 48213");
}

TEST(HonestImport, NcuErrorsOnlyFileQuotesThem) {
  const auto what = perfgate::test::import_failure(
      "==PROF== Connected to process 7 (./app)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
      "Performance Counters on the target device 0.\n",
      "perm.csv");
  EXPECT_NE(what.find("perm.csv: unknown profile format"), std::string::npos) << what;
  EXPECT_NE(what.find("the profiler reported: line 2: ==ERROR== ERR_NVGPUCTRPERM"),
            std::string::npos)
      << what;
}

// Class 3: rocprof v1 results.csv and Omniperf pmc_perf.csv give rocprofv3's numbers.
TEST(HonestImport, RocprofWideTablesMatchRocprofv3Csv) {
  const auto v3 = load("rocprof/counter_collection_gfx942.csv");
  const auto v1 = load("rocprof/results_v1_gfx942.csv");
  const auto omniperf = load("rocprof/pmc_perf_omniperf_gfx942.csv");
  EXPECT_EQ(v1.format, perfgate::profile_format::rocprof_wide_csv);
  expect_same_kernels(v3, v1);
  expect_same_kernels(v3, omniperf);
  // FORMAT.md's table: saxpy reads 402763776 B on gfx942 (per-channel TCC_EA0_RDREQ[n] summed).
  EXPECT_EQ(*v1.kernels[0].counter("dram_read_bytes"), 402763776.0);
}

// Class 5: the roofline scripts' sm__ fadd/fmul/ffma sums and dram__bytes.sum.
TEST(HonestImport, RooflineScriptMetricsAndDramTotal) {
  const auto p = load("ncu/raw_roofline_script_metrics.csv");
  ASSERT_EQ(p.kernels.size(), 1U);
  const auto& k = p.kernels[0];
  EXPECT_EQ(*k.counter("inst_fp32"), 2 * (1048576.0 + 16777216.0 + 2097152.0));
  EXPECT_EQ(*k.counter("inst_fp32_fma"), 2 * 16777216.0);
  EXPECT_EQ(*k.counter("inst_fp64"), 0.0);
  const auto kp = perfgate::kernel_params_from_profile(p, k);
  EXPECT_EQ(kp.W_traf, 2 * 201326592.0); // read + write, as dram__bytes.sum counts them
}

TEST(HonestImport, DramTotalFillsTheMissingHalf) {
  // dram__bytes_read.sum and the total, no write metric: write = total - read.
  const std::string csv = "\"ID\",\"Kernel Name\",\"dram__bytes.sum\",\"dram__bytes_read.sum\"\n"
                          "\"\",\"\",\"byte\",\"byte\"\n"
                          "\"0\",\"k\",\"1000\",\"600\"\n";
  const auto p = perfgate::import_profile_text(csv, "half.csv");
  EXPECT_EQ(*p.kernels[0].counter("dram_read_bytes"), 600.0);
  EXPECT_EQ(*p.kernels[0].counter("dram_write_bytes"), 400.0);
}

// Class 6: a UTF-8 byte-order mark, CSV and JSON.
TEST(HonestImport, ByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  for (const char* f :
       {"ncu/raw_two_kernels.csv", "gbench/stream_benchmarks.json",
        "rocprof/counter_collection_gfx942.csv", "profiles/sgemm_at_1410mhz.h100.json"}) {
    const std::string text = perfgate::read_text_file(data + "/" + f);
    const auto plain = perfgate::import_profile_text(text, f);
    const auto with_bom = perfgate::import_profile_text(bom + text, f);
    EXPECT_EQ(with_bom.format, plain.format) << f;
    ASSERT_EQ(with_bom.kernels.size(), plain.kernels.size()) << f;
    EXPECT_EQ(with_bom.kernels[0].counters, plain.kernels[0].counters) << f;
  }
}

// Class 7: a rocpd database predicts what the equivalent rocprofv3 CSV predicts.
TEST(HonestImport, RocpdDatabaseMatchesRocprofv3Csv) {
  if (!perfgate::detail::rocpd_supported()) {
    const auto what = perfgate::test::import_failure(data + "/rocprof/rocpd_gfx942.db");
    EXPECT_NE(what.find("perfgate was built without SQLite"), std::string::npos) << what;
    return;
  }
  const auto db = load("rocprof/rocpd_gfx942.db");
  EXPECT_EQ(db.format, perfgate::profile_format::rocpd_db);
  EXPECT_EQ(db.device_name, "gfx942"); // from rocpd_info_agent
  expect_same_kernels(load("rocprof/counter_collection_gfx942.csv"), db);
  // The same bytes from memory (what the fuzzer feeds) give the same profile.
  const auto bytes = perfgate::read_text_file(data + "/rocprof/rocpd_gfx942.db");
  expect_same_kernels(db, perfgate::import_profile_text(bytes, "mem.db"));
}

TEST(HonestImport, NotARocpdDatabaseIsNamed) {
  if (!perfgate::detail::rocpd_supported()) {
    GTEST_SKIP() << "built without SQLite";
  }
  // A valid SQLite file without rocpd's tables (an empty database is 0 bytes, so a header page
  // from a real one, its schema cut away, would be corrupt: use a truncated rocpd file instead).
  auto bytes = perfgate::read_text_file(data + "/rocprof/rocpd_gfx942.db");
  bytes.resize(4096);
  const auto what = perfgate::test::import_failure(bytes, "cut.db");
  EXPECT_NE(what.find("cut.db: "), std::string::npos) << what;
}

// Class 9: the metrics ncu left out without a word (it exits 0).
TEST(HonestImport, NcuMissingRequestedMetricsAreNamed) {
  const auto text = perfgate::read_text_file(data + "/ncu/raw_nonexistent_metric_rc0_h100.csv");
  const auto missing = perfgate::detail::ncu_raw_missing_metrics(
      text, {"gpu__time_duration.sum", "dram__bytes_nonexistent.sum"});
  ASSERT_EQ(missing.size(), 2U); // this run asked for the nonexistent one only
  EXPECT_EQ(missing[1], "dram__bytes_nonexistent.sum");
  EXPECT_TRUE(perfgate::detail::ncu_raw_missing_metrics(
                  perfgate::read_text_file(data + "/ncu/raw_two_kernels.csv"),
                  {"dram__bytes_read.sum", "gpu__time_duration.sum"})
                  .empty());
}

// Semantic checks: impossible values are refused naming file and field; a kernel measured at
// 0 s gets no efficiency.
TEST(HonestImport, NegativeOrNonFiniteValuesAreRefused) {
  const auto what = perfgate::test::import_failure(data + "/malformed/ncu_negative_count.csv");
  EXPECT_NE(what.find("ncu_negative_count.csv:10: column 16, metric smsp__inst_executed.sum: "
                      "value \"-6291456.000000\" is negative"),
            std::string::npos)
      << what;
  const std::string rocprof = "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
                              "1,\"k\",\"SQ_INSTS\",-5\n";
  EXPECT_NE(perfgate::test::import_failure(rocprof, "neg.csv")
                .find("neg.csv:2: counter SQ_INSTS: value \"-5\" is not a number >= 0"),
            std::string::npos);
}

TEST(HonestImport, ZeroTimeKernelGetsNoEfficiency) {
  std::string text = perfgate::read_text_file(data + "/ncu/raw_two_kernels.csv");
  // Every saxpy launch timed at 0 ms (a timer that did not tick).
  for (const char* t : {"\"0.071584\"", "\"0.070912\"", "\"0.070656\""}) {
    text.replace(text.find(t), std::string(t).size(), "\"0\"");
  }
  const auto p = perfgate::import_profile_text(text, "zero.csv");
  ASSERT_TRUE(p.kernels[0].time_s);
  EXPECT_EQ(*p.kernels[0].time_s, 0.0);
  auto r = perfgate::predict_report(p, {perfgate::resolve_device("h100-sxm")}, "saxpy", false);
  perfgate::gate_policy policy;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy);
  ASSERT_EQ(r.kernels.size(), 1U);
  EXPECT_FALSE(r.kernels[0].result.efficiency);
}
