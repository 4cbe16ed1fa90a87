// SPDX-License-Identifier: Apache-2.0
// From micro-benchmark results to a measured device, and the file `perfgate calibrate` writes.
#include <perfgate/calibration.hpp>
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/model.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace {
const std::string sample = std::string(PERFGATE_TEST_DATA_DIR) + "/microbench/cuda_sample.json";

perfgate::microbench_run gpu_run() {
  return perfgate::microbench_run_from_json(perfgate::read_text_file(sample), sample);
}
} // namespace

TEST(Calibration, GpuResultsBecomeAMeasuredDevice) {
  const auto run = gpu_run();
  EXPECT_EQ(run.backend, "cuda");
  EXPECT_EQ(run.dev.compute_units, 132U);
  ASSERT_TRUE(run.dev.clock_mhz_after);
  EXPECT_EQ(*run.dev.clock_mhz_after, 1755.0);
  const auto d = perfgate::device_from_microbench(run, "local-cuda-0");
  EXPECT_EQ(d.id, "local-cuda-0");
  EXPECT_EQ(d.source, "measured");
  EXPECT_EQ(d.kind, "gpu");
  EXPECT_EQ(d.warp_size, 32);
  EXPECT_EQ(d.peaks.fp32_gflops, 60000.0);
  EXPECT_EQ(d.peaks.ldst_ginst, 8000.0);
  EXPECT_DOUBLE_EQ(d.peaks.dram_gbs, (3000.0 + 2700.0 + 2850.0) / 3); // B_mem as the thesis
  EXPECT_EQ(d.extra_peaks.at("fp16_gflops"), 120000.0);
  EXPECT_EQ(d.extra_peaks.at("l2_gbs"), 9000.0);
  EXPECT_EQ(d.extra_peaks.at("dram_read_gbs"), 3000.0);
  EXPECT_FALSE(d.one_core_peaks); // GPUs have no one-core scope
  // The memory roof is the best pattern, not the mean: read 3000 beats copy 2850, write 2700.
  EXPECT_EQ(d.peaks.dram_roof_gbs, 3000.0);
  EXPECT_EQ(perfgate::memory_roof_gbs(d), 3000.0);
}

TEST(Calibration, EachScopeGetsTheBestOfItsOwnPatterns) {
  auto run = gpu_run();
  run.backend = "cpu";
  const auto add = [&](std::string key, std::string scope, double best) {
    perfgate::microbench_result r;
    r.key = std::move(key);
    r.scope = std::move(scope);
    r.best = r.median = r.min = r.max = best;
    r.repetitions = 1;
    run.results.push_back(r);
  };
  for (const char* key :
       {"fp32_gflops", "fp64_gflops", "int_mad_gops", "int_add_gops", "ldst_ginst"}) {
    add(key, "one", 10.0);
  }
  add("dram_read_gbs", "one", 8.2);
  add("dram_write_gbs", "one", 6.0);
  add("dram_copy_gbs", "one", 9.5);
  add("dram_triad_nt_gbs", "one", 12.9);
  add("dram_triad_nt_gbs", "all", 3500.0); // the all-core non-temporal triad beats read
  const auto d = perfgate::device_from_microbench(run, "local-cpu");
  ASSERT_TRUE(d.one_core_peaks);
  EXPECT_DOUBLE_EQ(d.one_core_peaks->dram_gbs, (8.2 + 6.0 + 9.5) / 3);
  EXPECT_EQ(d.one_core_peaks->dram_roof_gbs, 12.9);
  EXPECT_EQ(perfgate::memory_roof_gbs(d, true), 12.9);
  EXPECT_EQ(d.peaks.dram_roof_gbs, 3500.0);
  // Written and read back, both scopes keep their roofs.
  const auto again = perfgate::device_from_json(perfgate::device_to_json(d), "again.json");
  EXPECT_EQ(again.peaks.dram_roof_gbs, 3500.0);
  EXPECT_EQ(again.one_core_peaks->dram_roof_gbs, 12.9);
}

TEST(Calibration, WrittenFileIsAValidDeviceWithRawResults) {
  const auto run = gpu_run();
  const auto d = perfgate::device_from_microbench(run, "local-cuda-0");
  const std::string text =
      perfgate::calibration_to_json(d, run, {"perfgate", "calibrate", "-o", "x.json"});
  const auto back = perfgate::device_from_json(text, "x.json"); // the schema's own validator
  EXPECT_EQ(back.peaks.fp64_gflops, 30000.0);
  EXPECT_EQ(back.compute_units, 132U);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["provenance"]["command"], "perfgate calibrate -o x.json");
  EXPECT_EQ(j["provenance"]["tool"].get<std::string>().rfind("perfgate ", 0), 0U);
  EXPECT_EQ(j["provenance"]["date"].get<std::string>().size(), 20U);
  EXPECT_EQ(j["clocks"]["mhz_before"], 1980.0);
  ASSERT_EQ(j["measurements"].size(), 10U);
  EXPECT_NEAR(j["measurements"][0]["spread"].get<double>(), (60000.0 - 58000.0) / 60000.0, 1e-12);
  EXPECT_EQ(j["sweep"].size(), 2U);
}

TEST(Calibration, MissingBenchmarkIsNamed) {
  auto run = gpu_run();
  std::erase_if(run.results, [](const auto& r) { return r.key == "fp64_gflops"; });
  try {
    (void)perfgate::device_from_microbench(run, "x");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("no result for fp64_gflops"), std::string::npos);
  }
}

TEST(Calibration, MalformedMicrobenchOutputNamesTheKey) {
  EXPECT_THROW((void)perfgate::microbench_run_from_json("{\"schema\": \"x\"}", "m.json"),
               perfgate::input_error);
  try {
    (void)perfgate::microbench_run_from_json(
        R"({"schema": "perfgate-microbench/1", "backend": "cuda",
            "device": {"name": "g", "vendor": "nvidia"},
            "results": [{"key": "fp32_gflops", "repetitions": 3, "best": "fast",
                         "median": 1, "min": 1, "max": 1}]})",
        "m.json");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("key 'results[0].best'"), std::string::npos);
  }
}

TEST(Calibration, QuickRunsAreMarkedAsNotAMeasurement) {
  auto run = gpu_run();
  run.quick = true;
  EXPECT_EQ(perfgate::device_from_microbench(run, "x").provenance_how.rfind("QUICK SMOKE RUN", 0),
            0U);
}

// The tensor micro-benchmarks (microbench/gpu/gpu_tensor.cu): where warp-level MMA / MFMA is the
// architecture's fastest matrix path their rates are the device's tensor roofs; the mma_sync_*
// rates of Hopper and datacenter Blackwell (wgmma / tcgen05 run faster) are kept as
// measurements but are no roof, so a kernel of that precision finds no measured path instead
// of a roof real kernels beat.
TEST(Calibration, TensorRatesBecomeTensorRoofsOnlyWhereWarpMmaIsTheFastestPath) {
  auto run = gpu_run();
  const auto add = [&](std::string key, double best) {
    perfgate::microbench_result r;
    r.key = std::move(key);
    r.scope = "all";
    r.best = r.median = r.min = r.max = best;
    r.repetitions = 1;
    run.results.push_back(r);
  };
  add("tensor_bf16_gflops", 280000.0);
  add("tensor_int8_gops", 560000.0);
  add("mma_sync_fp16_gflops", 600000.0);
  const auto d = perfgate::device_from_microbench(run, "local-cuda-0");
  EXPECT_EQ(d.extra_peaks.at("tensor_bf16_gflops"), 280000.0);
  EXPECT_EQ(d.extra_peaks.at("tensor_int8_gops"), 560000.0);
  EXPECT_EQ(d.extra_peaks.at("mma_sync_fp16_gflops"), 600000.0);
  EXPECT_EQ(d.extra_peaks.count("tensor_fp16_gflops"), 0U);

  perfgate::model_counters m; // an FP32 kernel with 2e9 BF16 tensor operations
  m.M_fp32 = 1000;
  m.M_fma32 = 600;
  m.M_ldst = 500;
  m.M_inst = 100;
  m.dram_read_bytes = 1e6;
  m.tensor_ops[perfgate::kernel_type::tensor_bf16] = 2e9;
  const auto bf16 = perfgate::roof_of(perfgate::derive_kernel_params(m), d);
  const auto term = std::find_if(bf16.terms.begin(), bf16.terms.end(),
                                 [](const auto& t) { return t.resource == "tensor_bf16"; });
  ASSERT_NE(term, bf16.terms.end());
  EXPECT_EQ(term->rate, 280000.0);
  EXPECT_EQ(bf16.limiter, "tensor_bf16");
  m.tensor_ops.clear();
  m.tensor_ops[perfgate::kernel_type::tensor_fp16] = 2e9;
  try {
    (void)perfgate::roof_of(perfgate::derive_kernel_params(m), d);
    FAIL() << "an FP16 tensor kernel got a roof from mma_sync_fp16_gflops";
  } catch (const perfgate::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("has no tensor_fp16 path: no peak 'tensor_fp16_gflops'"),
              std::string::npos)
        << e.what();
  }
}
