// SPDX-License-Identifier: Apache-2.0
// From micro-benchmark results to a measured device, and the file `perfgate calibrate` writes.
#include <perfgate/calibration.hpp>
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/model.hpp>
#include <perfgate/run_meta.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

namespace {
// One benchmark result whose repetitions all gave `best`.
void add_result(perfgate::microbench_run& run, std::string key, std::string scope, double best,
                std::uint64_t threads = 0, std::uint64_t repetitions = 1) {
  perfgate::microbench_result r;
  r.key = std::move(key);
  r.scope = std::move(scope);
  r.threads = threads;
  r.best = r.median = r.min = r.max = best;
  r.repetitions = repetitions;
  run.results.push_back(r);
}

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
    add_result(run, std::move(key), std::move(scope), best);
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
    add_result(run, std::move(key), "all", best);
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

// The boat hull model's device inputs (issue 18, item 4): the random gather/scatter rate
// (`uncoalesced_gbs`) and, on GPUs, the pinned host-device copy rate (`bus_gbs`) become peaks of
// their scope like any other measured key; a CPU also gets W_vector from the ISA its compute
// benchmarks used and N_threads from the threads its all-core benchmarks ran.
TEST(Calibration, BoatHullInputsBecomePeaksWithVectorWidthAndThreads) {
  perfgate::microbench_run run;
  run.backend = "cpu";
  run.dev.name = "Synthetic CPU";
  run.dev.vendor = "amd";
  run.dev.kind = "cpu";
  run.dev.arch = "x86-64 avx2+fma";
  run.dev.compute_units = 16;
  run.dev.warp_size = 1;
  const auto add = [&](std::string key, std::string scope, double best, std::uint64_t threads) {
    add_result(run, std::move(key), std::move(scope), best, threads, 5);
  };
  for (const auto& [scope, threads, scale] :
       {std::tuple{"one", std::uint64_t{1}, 1.0}, std::tuple{"all", std::uint64_t{12}, 8.0}}) {
    add("fp32_gflops", scope, 100 * scale, threads);
    add("fp64_gflops", scope, 50 * scale, threads);
    add("int_mad_gops", scope, 40 * scale, threads);
    add("int_add_gops", scope, 30 * scale, threads);
    add("ldst_ginst", scope, 60 * scale, threads);
    add("dram_read_gbs", scope, 15 * scale, threads);
    add("dram_write_gbs", scope, 10 * scale, threads);
    add("dram_copy_gbs", scope, 12 * scale, threads);
    add("uncoalesced_gather_gbs", scope, 0.4 * scale, threads);
    add("uncoalesced_scatter_gbs", scope, 0.2 * scale, threads);
    add("uncoalesced_gbs", scope, 0.8 / 3 * scale, threads); // 2 / (1/0.4 + 1/0.2)
  }
  const auto d = perfgate::device_from_microbench(run, "local-cpu");
  EXPECT_DOUBLE_EQ(d.extra_peaks.at("uncoalesced_gbs"), 8 * 0.8 / 3);
  EXPECT_DOUBLE_EQ(d.extra_peaks.at("uncoalesced_scatter_gbs"), 1.6);
  ASSERT_TRUE(d.one_core_peaks);
  EXPECT_DOUBLE_EQ(d.one_core_extra_peaks.at("uncoalesced_gbs"), 0.8 / 3);
  // A random gather is no DRAM streaming pattern: the memory roofs stay the best dram_* rates.
  EXPECT_EQ(d.peaks.dram_roof_gbs, 120.0);
  EXPECT_EQ(d.one_core_peaks->dram_roof_gbs, 15.0);
  ASSERT_TRUE(d.vector_bits);
  EXPECT_EQ(*d.vector_bits, 256);
  ASSERT_TRUE(d.hardware_threads); // the threads of the all-core benchmarks, not compute_units
  EXPECT_EQ(*d.hardware_threads, 12);
  EXPECT_NE(d.provenance_how.find("uncoalesced_gbs = random 4-byte gather and scatter"),
            std::string::npos);

  // The file `perfgate calibrate` writes carries them in `peaks` and `peaks_one_core`.
  const std::string text = perfgate::calibration_to_json(d, run, {"perfgate", "calibrate"});
  const auto j = nlohmann::json::parse(text);
  EXPECT_DOUBLE_EQ(j["peaks"]["uncoalesced_gbs"].get<double>(), 8 * 0.8 / 3);
  EXPECT_DOUBLE_EQ(j["peaks"]["uncoalesced_gather_gbs"].get<double>(), 3.2);
  EXPECT_DOUBLE_EQ(j["peaks_one_core"]["uncoalesced_gbs"].get<double>(), 0.8 / 3);
  EXPECT_EQ(j["provenance"]["arch"], "x86-64 avx2+fma");
  const auto back = perfgate::device_from_json(text, "local-cpu.json");
  EXPECT_DOUBLE_EQ(back.extra_peaks.at("uncoalesced_gbs"), 8 * 0.8 / 3);
  EXPECT_DOUBLE_EQ(back.one_core_extra_peaks.at("uncoalesced_gbs"), 0.8 / 3);
  EXPECT_EQ(back.vector_bits, d.vector_bits);
  EXPECT_EQ(back.hardware_threads, d.hardware_threads);

  // vector_bits follows the arch string the CPU micro-benchmarks write.
  for (const auto& [arch, bits] :
       {std::pair{"x86-64 avx512f", 512}, std::pair{"x86-64 avx2+fma", 256},
        std::pair{"x86-64 sse2", 128}, std::pair{"aarch64 neon", 128}}) {
    run.dev.arch = arch;
    EXPECT_EQ(perfgate::device_from_microbench(run, "c").vector_bits, bits) << arch;
  }
  run.dev.arch = "riscv64 generic"; // a width the benchmarks cannot name: unknown, not guessed
  EXPECT_FALSE(perfgate::device_from_microbench(run, "c").vector_bits);
  EXPECT_FALSE(perfgate::vector_bits_of_arch("sm_90"));
  EXPECT_EQ(perfgate::vector_bits_of_arch("avx2+fma"), 256); // files from before the prefix
}

TEST(Calibration, GpuBusAndGatherRatesBecomePeaksWithoutCpuShape) {
  auto run = gpu_run();
  const auto add = [&](std::string key, double best) {
    add_result(run, std::move(key), "all", best, 0, 10);
  };
  add("uncoalesced_gather_gbs", 300.0);
  add("uncoalesced_scatter_gbs", 200.0);
  add("uncoalesced_gbs", 240.0);
  add("bus_h2d_gbs", 55.0);
  add("bus_d2h_gbs", 53.0);
  add("bus_gbs", 53.0);
  const auto d = perfgate::device_from_microbench(run, "local-cuda-0");
  const std::string text = perfgate::calibration_to_json(d, run, {});
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["peaks"]["uncoalesced_gbs"], 240.0);
  EXPECT_EQ(j["peaks"]["bus_gbs"], 53.0);
  EXPECT_EQ(j["peaks"]["bus_h2d_gbs"], 55.0);
  EXPECT_EQ(j["peaks"]["bus_d2h_gbs"], 53.0);
  EXPECT_EQ(d.peaks.dram_roof_gbs, 3000.0); // unchanged by the new keys
  EXPECT_FALSE(d.vector_bits);              // CPU-only fields
  EXPECT_FALSE(d.hardware_threads);
  EXPECT_NE(d.provenance_how.find("bus_gbs = the slower direction"), std::string::npos);
  // Bandwidths do not scale with the SM clock.
  const auto back = perfgate::device_from_json(text, "local-cuda-0.json");
  ASSERT_TRUE(back.sm_clock_mhz);
  const auto slower = perfgate::at_sm_clock(back, *back.sm_clock_mhz / 2);
  EXPECT_EQ(slower.extra_peaks.at("bus_gbs"), 53.0);
  EXPECT_EQ(slower.extra_peaks.at("uncoalesced_gbs"), 240.0);
}

// The "not measured" contract of perfgate-microbench/1 (issue 32): repetitions 0, every
// statistic null, the reason in the note. Anything else with a null statistic is malformed.
TEST(Calibration, NotMeasuredEntriesHaveOneShape) {
  const auto parse = [](const std::string& entry) {
    return perfgate::microbench_run_from_json(
        R"({"schema": "perfgate-microbench/1", "backend": "cuda",
            "device": {"name": "g", "vendor": "nvidia"}, "results": [)" +
            entry + "]}",
        "m.json");
  };
  const auto ok = parse(R"({"key": "mma_sync_fp8_gflops", "repetitions": 0, "best": null,
                            "median": null, "min": null, "max": null, "note": "no path"})");
  ASSERT_EQ(ok.results.size(), 1U);
  EXPECT_FALSE(ok.results[0].measured);
  EXPECT_EQ(ok.results[0].note, "no path");
  const auto error_of = [&](const std::string& entry) {
    try {
      (void)parse(entry);
    } catch (const perfgate::input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"key": "k", "repetitions": 3, "best": null, "median": null,
                         "min": null, "max": null, "note": "x"})")
                .find("key 'results[0].best': null, but the entry has 3 timed repetitions"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"key": "k", "repetitions": 0, "best": null, "median": null,
                         "min": null, "max": null})")
                .find("key 'results[0].note': missing"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"key": "k", "repetitions": 3, "best": 5, "median": null,
                         "min": 1, "max": 5, "note": "x"})")
                .find("key 'results[0].median': null while the entry's other statistics are "
                      "numbers"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"key": "k", "repetitions": 3, "median": 1, "min": 1, "max": 5})")
                .find("key 'results[0].best': missing"),
            std::string::npos);
}

// A rate measured with its own SM clock (the micro-benchmark's clock probe) keeps that clock:
// a peak is its clock's rate. A clock that matches the run's nominal one is not repeated.
TEST(Calibration, PeaksKeepTheClockTheyWereMeasuredAt) {
  auto run = gpu_run();
  for (auto& r : run.results) {
    if (r.key == "fp32_gflops") {
      r.sm_clock_mhz = 1702.5;
    }
    if (r.key == "fp64_gflops") {
      r.sm_clock_mhz = *run.dev.clock_mhz_after;
    }
  }
  const auto d = perfgate::device_from_microbench(run, "x");
  EXPECT_EQ(d.peak_clocks_mhz.at("fp32_gflops"), 1702.5);
  EXPECT_EQ(d.peak_clocks_mhz.count("fp64_gflops"), 0U);
  EXPECT_EQ(*perfgate::peak_clock_mhz(d, "fp64_gflops"), *run.dev.clock_mhz_after);
  const std::string text = perfgate::calibration_to_json(d, run, {"perfgate"});
  const auto back = perfgate::device_from_json(text, "x.json");
  EXPECT_EQ(back.peak_clocks_mhz, d.peak_clocks_mhz);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["measurements"][0]["sm_clock_mhz"], 1702.5);
  // At 851.25 MHz FP32 holds half its rate, FP64 scales from the nominal clock.
  const auto half = perfgate::at_sm_clock(back, 851.25);
  EXPECT_DOUBLE_EQ(half.peaks.fp32_gflops, d.peaks.fp32_gflops / 2);
  EXPECT_DOUBLE_EQ(half.peaks.fp64_gflops, d.peaks.fp64_gflops * 851.25 / 1755.0);
  EXPECT_TRUE(half.peak_clocks_mhz.empty());
}

namespace {
// A CPU calibration whose DRAM read rate is `read_gbs` (all cores) and FP64 `fp64`.
perfgate::microbench_run cpu_run(double read_gbs, double fp64, std::string name = "Synthetic CPU") {
  perfgate::microbench_run run;
  run.backend = "cpu";
  run.dev.name = std::move(name);
  run.dev.vendor = "amd";
  run.dev.kind = "cpu";
  run.dev.arch = "x86-64 avx2+fma";
  run.dev.compute_units = 2;
  run.dev.warp_size = 1;
  for (const auto& [scope, threads] : {std::pair{"one", std::uint64_t{1}}, std::pair{"all", std::uint64_t{2}}}) {
    add_result(run, "fp32_gflops", scope, 2 * fp64, threads, 4);
    add_result(run, "fp64_gflops", scope, fp64, threads, 4);
    add_result(run, "int_mad_gops", scope, fp64, threads, 4);
    add_result(run, "int_add_gops", scope, fp64, threads, 4);
    add_result(run, "ldst_ginst", scope, fp64, threads, 4);
    add_result(run, "dram_read_gbs", scope, read_gbs, threads, 4);
    add_result(run, "dram_write_gbs", scope, 10, threads, 4);
    add_result(run, "dram_copy_gbs", scope, 12, threads, 4);
  }
  return run;
}

std::string calibration_of(const perfgate::microbench_run& run) {
  return perfgate::calibration_to_json(perfgate::device_from_microbench(run, "local-cpu"), run,
                                       {"perfgate", "calibrate"});
}
} // namespace

TEST(Calibration, ARecalibrationKeepsTheHighestRatesThisMachineShowed) {
  const std::string host = perfgate::make_run_meta("calibrate", {}).host;
  const std::string before = calibration_of(cpu_run(24.0, 50.0)); // a good minute
  auto now = cpu_run(18.0, 52.0);                                   // memory slower, FP64 faster
  const auto kept = perfgate::keep_highest_rates(now, before, "local-cpu.json", host);
  ASSERT_EQ(kept.size(), 2U); // dram_read_gbs, one core and all cores
  EXPECT_NE(kept[0].find("dram_read_gbs (one): 24 from local-cpu.json ("), std::string::npos)
      << kept[0];
  EXPECT_NE(kept[0].find(") over this run's 18"), std::string::npos) << kept[0];
  EXPECT_EQ(now.find("dram_read_gbs", "all")->best, 24.0);
  EXPECT_EQ(now.find("fp64_gflops", "all")->best, 52.0); // this run's own, the higher
  EXPECT_NE(now.find("dram_read_gbs", "all")->note.find("best kept from the calibration of "),
            std::string::npos);
  const auto d = perfgate::device_from_microbench(now, "local-cpu");
  EXPECT_EQ(d.peaks.fp64_gflops, 52.0);
  EXPECT_DOUBLE_EQ(d.peaks.dram_gbs, (24.0 + 10.0 + 12.0) / 3); // the thesis's mean, raised
}

TEST(Calibration, OnlyTheSameMachinesCalibrationRaisesRates) {
  const std::string host = perfgate::make_run_meta("calibrate", {}).host;
  const std::string before = calibration_of(cpu_run(24.0, 50.0));
  auto elsewhere = cpu_run(18.0, 50.0);
  EXPECT_TRUE(perfgate::keep_highest_rates(elsewhere, before, "f.json", "another-host").empty());
  auto other_cpu = cpu_run(18.0, 50.0, "Another CPU"); // the VM moved to another CPU model
  EXPECT_TRUE(perfgate::keep_highest_rates(other_cpu, before, "f.json", host).empty());
  auto quick = cpu_run(18.0, 50.0);
  quick.quick = true;
  EXPECT_TRUE(perfgate::keep_highest_rates(quick, before, "f.json", host).empty());
  auto gpu = gpu_run(); // a GPU's peaks belong to the clocks they ran at
  EXPECT_TRUE(perfgate::keep_highest_rates(gpu, before, "f.json", host).empty());
  auto fresh = cpu_run(18.0, 50.0);
  EXPECT_TRUE(perfgate::keep_highest_rates(fresh, "not json", "f.json", host).empty());
  EXPECT_EQ(fresh.find("dram_read_gbs", "all")->best, 18.0);
}

TEST(Calibration, ACpuCalibrationOfThisHostIsToldFromOthers) {
  const std::string host = perfgate::make_run_meta("calibrate", {}).host;
  const std::string cpu = calibration_of(cpu_run(24.0, 50.0));
  EXPECT_TRUE(perfgate::is_cpu_calibration_of(cpu, host));
  EXPECT_FALSE(perfgate::is_cpu_calibration_of(cpu, "another-host"));
  const auto gpu = gpu_run();
  EXPECT_FALSE(perfgate::is_cpu_calibration_of(
      perfgate::calibration_to_json(perfgate::device_from_microbench(gpu, "local-cuda-0"), gpu,
                                    {"perfgate", "calibrate"}),
      host));
  EXPECT_FALSE(perfgate::is_cpu_calibration_of("not json", host));
  EXPECT_FALSE(perfgate::is_cpu_calibration_of(
      perfgate::device_to_json(perfgate::device_from_microbench(cpu_run(24.0, 50.0), "x")), host))
      << "a device file without its measurements and provenance is no calibration";
}
