// SPDX-License-Identifier: Apache-2.0
// Files other projects wrote with nvbench and Google Benchmark (tests/data/external/, copied
// unmodified; SOURCES.md names each origin and commit), replayed through the importers and the
// report. Every number below was read off the file by hand (python3 -m json.tool): the state
// and entry counts, the device each state ran on, the sample counts and noise nvbench wrote, and
// bytes = the file's bandwidth x its time, which must come out the exact size the benchmark
// copied (2^29 bytes; 6 x 2^25 for I16 to I32; 4e11 for distributed-ranges' reduce), to 1e-9
// relative: both factors are doubles. No report of any of them may hold a 0 that stands for a
// number the file does not have (zeros_standing_for_unknown).
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "unknown_zeros.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

namespace {
using namespace perfgate;

const std::string external = PERFGATE_TEST_DATA_DIR "/external/";

const kernel_profile& kernel_named(const profile& p, const std::string& name) {
  const auto k = std::find_if(p.kernels.begin(), p.kernels.end(),
                              [&](const kernel_profile& x) { return x.name == name; });
  if (k == p.kernels.end()) {
    throw std::runtime_error("no kernel " + name + " in " + p.source_file);
  }
  return *k;
}

std::map<std::string, int> kernels_per_device(const profile& p) {
  std::map<std::string, int> n;
  for (const auto& k : p.kernels) {
    ++n[k.device_name];
  }
  return n;
}

// Why each kernel cannot be judged, by the first words that tell the reasons apart.
std::map<std::string, int> refusals(const profile& p) {
  std::map<std::string, int> n;
  for (const auto& k : p.kernels) {
    try {
      (void)kernel_params_from_profile(p, k);
      ++n["judged"];
    } catch (const input_error& e) {
      const std::string what = e.detail();
      ++n[what.starts_with("declares only items_per_second") ? "items only"
          : what.starts_with("declares no work")             ? "no work"
                                                             : what];
    }
  }
  return n;
}

// A device named as the GPU in the file, with the peaks of a built-in one (only names matter).
device gpu_named(const std::string& id, const std::string& name) {
  device d = resolve_device("v100-sxm2");
  d.id = id;
  d.name = name;
  return d;
}

void expect_no_unknown_zeros(const report& r) {
  const auto zeros = test::zeros_standing_for_unknown(nlohmann::json::parse(report_to_json(r)));
  EXPECT_TRUE(zeros.empty()) << zeros.size() << " zeros standing for unknown, first "
                             << (zeros.empty() ? "" : zeros.front());
}

void expect_bytes(const kernel_profile& k, double bytes) {
  ASSERT_TRUE(k.work) << k.name;
  EXPECT_NEAR(k.work->bytes, bytes, 1e-9 * bytes) << k.name;
  EXPECT_EQ(k.work->bytes_source, "nvbench");
}

// ---- nvbench -----------------------------------------------------------------------------

// NVIDIA/nvbench's reference output: nvbench.example.axes on a Quadro GV100 (Device=0) and a
// Quadro GP100 (Device=1), JSON 1.0.0. 126 states, 38 of them skipped ("Not a conversion"),
// 44 measured on each GPU; files before 2025 hold a sample count and relative noise, no other
// statistic.
TEST(RealBench, NvbenchTwoGpusEachStateOnItsOwn) {
  const auto p = import_profile(external + "nvbench_NVIDIA-nvbench_test_ref.json");
  EXPECT_EQ(p.format, profile_format::nvbench_json);
  EXPECT_EQ(p.kernels.size(), 88U);
  EXPECT_EQ(p.tool_errors.size(), 38U);
  EXPECT_EQ(p.device_name, "") << "two GPUs: the profile as a whole ran on neither";
  const std::map<std::string, int> per_device = {{"Quadro GV100 (0)", 44},
                                                 {"Quadro GP100 (1)", 44}};
  EXPECT_EQ(kernels_per_device(p), per_device);

  // 2^26 floats read and written: 2^29 bytes = 82777765606.2663 B/s x 6.485689823444072 ms.
  const auto& gv = kernel_named(p, "copy_sweep_grid_shape [Device=0 BlockSize=2^6 NumBlocks=2^6]");
  EXPECT_EQ(gv.device_name, "Quadro GV100 (0)");
  EXPECT_DOUBLE_EQ(*gv.time_s, 0.006485689823444072);
  expect_bytes(gv, 536870912.0);
  EXPECT_NEAR(*gv.work->items, 67108864.0, 1e-9 * 67108864.0);
  EXPECT_EQ(gv.sample_count, 78U);
  EXPECT_DOUBLE_EQ(*gv.relative_noise, 0.001177496193520018);
  EXPECT_FALSE(gv.duration) << "no min, max or median in the file: none made up";

  const auto& gp = kernel_named(p, "copy_sweep_grid_shape [Device=1 BlockSize=2^6 NumBlocks=2^6]");
  EXPECT_EQ(gp.device_name, "Quadro GP100 (1)");
  EXPECT_DOUBLE_EQ(*gp.time_s, 0.0066612275798478);
  expect_bytes(gp, 536870912.0);
  EXPECT_EQ(gp.sample_count, 2244U);
  EXPECT_DOUBLE_EQ(*gp.relative_noise, 0.012013908599240357);

  // I16 in, I32 out: 2^25 elements x 6 bytes.
  expect_bytes(kernel_named(p, "copy_type_conversion_sweep [Device=0 In=I16 Out=I32]"),
               201326592.0);
  const auto& simple = kernel_named(p, "simple [Device=0]");
  EXPECT_EQ(simple.sample_count, 499U);
  EXPECT_FALSE(simple.work) << "simple declares no bytes";
}

TEST(RealBench, NvbenchTwoGpusReportAndGate) {
  auto p = import_profile(external + "nvbench_NVIDIA-nvbench_test_ref.json");
  std::erase_if(p.kernels, [](const kernel_profile& k) { return !k.work; }); // judged ones
  const std::vector<device> devices = {gpu_named("quadro-gv100", "Quadro GV100"),
                                       gpu_named("quadro-gp100", "Quadro GP100")};
  auto r = predict_report(p, devices);
  EXPECT_EQ(r.local_device, "") << "the file ran on both";
  int on_gp100 = 0;
  for (const auto& k : r.kernels) {
    const bool gp100 = k.name.find("[Device=1 ") != std::string::npos;
    EXPECT_EQ(k.result.device, gp100 ? "quadro-gp100" : "quadro-gv100") << k.name;
    on_gp100 += gp100 ? 1 : 0;
  }
  EXPECT_EQ(on_gp100, 32); // 9 + 6 + 17 states with bytes on the GP100
  const std::string text = report_to_text(r);
  EXPECT_NE(text.find("measured on Quadro GP100 (1): 6.661 ms over 2244 timed invocations"),
            std::string::npos);
  EXPECT_EQ(text.find("profiled GPU"), std::string::npos);
  EXPECT_NE(text.find("taken on 2 GPUs: Quadro GV100 (0), Quadro GP100 (1), warp size 32"),
            std::string::npos);
  const auto json = nlohmann::json::parse(report_to_json(r));
  const auto& measured = json.at("kernels").at(0).at("measured");
  EXPECT_EQ(measured.at("samples"), 78);
  EXPECT_FALSE(measured.contains("mean_s") || measured.contains("stddev_s"));
  expect_no_unknown_zeros(r);

  // Gated with the GV100 as the local device, the GP100's states are not held to its roof.
  apply_gate(r, gate_policy{});
  for (const auto& k : r.kernels) {
    const bool gp100 = k.name.find("[Device=1 ") != std::string::npos;
    EXPECT_EQ(k.result.efficiency.has_value(), !gp100) << k.name;
    if (gp100) {
      EXPECT_EQ(k.result.status, verdict_status::skip);
      EXPECT_NE(k.result.reasons.front().find("Quadro GP100 (1)"), std::string::npos);
    }
  }
}

TEST(RealBench, NvbenchCompareFile) {
  const auto p = import_profile(external + "nvbench_NVIDIA-nvbench_test_cmp.json");
  EXPECT_EQ(p.kernels.size(), 88U);
  EXPECT_EQ(p.tool_errors.size(), 38U);
  // 198774134955.08533 B/s x 2.7009093115727078 ms = 2^29 bytes of U8.
  const auto& k = kernel_named(p, "copy_type_sweep [Device=1 T=U8]");
  expect_bytes(k, 536870912.0);
  EXPECT_EQ(k.sample_count, 2784U);
  EXPECT_DOUBLE_EQ(*k.relative_noise, 0.009134230706566165);
}

// nvbench's layout of 2021 (states and summaries keyed by name, no meta): refused by the nvbench
// importer, naming the key, never handed to another reader.
TEST(RealBench, Nvbench2021LayoutRefusedByTheNvbenchImporter) {
  const std::string file = external + "nvbench_NVIDIA-nvbench_test_ref_2021-07.json";
  EXPECT_EQ(detect_profile_format(read_text_file(file), file), profile_format::nvbench_json);
  try {
    (void)import_profile(file);
    FAIL() << "the 2021 layout was read";
  } catch (const input_error& e) {
    EXPECT_EQ(e.status(), exit_status::input_error);
    EXPECT_NE(std::string(e.what()).find("benchmarks[0].states"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("'schema'"), std::string::npos) << e.what();
  }
}

// NVIDIA/spark-rapids-jni, 2024: two TITAN RTX, times only (no bytes declared).
TEST(RealBench, NvbenchSparkRapidsTwoSameGpus) {
  for (const char* name : {"after", "latest"}) {
    const auto p = import_profile(external + "nvbench_spark-rapids-jni_" + name + ".json");
    EXPECT_EQ(p.kernels.size(), 32U) << name;
    const std::map<std::string, int> per_device = {{"NVIDIA TITAN RTX (0)", 16},
                                                   {"NVIDIA TITAN RTX (1)", 16}};
    EXPECT_EQ(kernels_per_device(p), per_device) << name;
    const std::map<std::string, int> why = {{"no work", 32}};
    EXPECT_EQ(refusals(p), why) << name;
  }
  const auto p = import_profile(external + "nvbench_spark-rapids-jni_after.json");
  const auto& k = kernel_named(p, "get_json_object [Device=1 size_bytes=1000000 max_depth=2]");
  EXPECT_DOUBLE_EQ(*k.time_s, 0.005016468841115774);
  EXPECT_EQ(k.sample_count, 2977U);
  EXPECT_DOUBLE_EQ(*k.relative_noise, 0.03794249073600157);
}

// microsoft/superbenchmark's hand-written fixtures: the 1.x layout without meta, devices or a
// sample count. Read as nvbench, with nothing the file lacks.
TEST(RealBench, NvbenchWithoutMeta) {
  const auto launch =
      import_profile(external + "nvbench_superbenchmark_nvbench_kernel_launch.json");
  ASSERT_EQ(launch.kernels.size(), 1U);
  const auto& k = launch.kernels.front();
  EXPECT_EQ(k.name, "kernel_launch [Device=0]");
  EXPECT_DOUBLE_EQ(*k.time_s, 7.808e-06);
  EXPECT_FALSE(k.sample_count);
  EXPECT_FALSE(k.relative_noise);
  EXPECT_EQ(k.threads, 0U) << "a GPU state, not CPU-only";
  EXPECT_EQ(launch.warp_size, 32);

  const auto throughput =
      import_profile(external + "nvbench_superbenchmark_nvbench_auto_throughput.json");
  ASSERT_EQ(throughput.kernels.size(), 2U);
  EXPECT_DOUBLE_EQ(*throughput.kernels[1].time_s, 2.00e-04);
  const std::map<std::string, int> why = {{"no work", 2}}; // items alone, no bytes
  EXPECT_EQ(refusals(throughput), why);
}

// ---- Google Benchmark --------------------------------------------------------------------

// oneapi-src/distributed-ranges: bytes_per_second, /real_time, milliseconds, one repetition.
TEST(RealBench, GbenchDistributedRanges) {
  const auto cpu = import_profile(external + "gbench_distributed-ranges_dr-bench-1bbc05c8.json");
  EXPECT_EQ(cpu.kernels.size(), 10U);
  const std::map<std::string, int> judged = {{"judged", 10}};
  EXPECT_EQ(refusals(cpu), judged);
  const auto& reduce =
      kernel_named(cpu, "Reduce_DR/min_time:0.100/min_warmup_time:0.100/real_time");
  EXPECT_DOUBLE_EQ(*reduce.time_s, 2052.811934000921e-3);
  // bytes_per_second x real_time: 4e11 bytes an iteration.
  EXPECT_NEAR(reduce.work->bytes, 4e11, 1e-9 * 4e11);
  EXPECT_EQ(reduce.work->bytes_source, "bytes_per_second");
  EXPECT_EQ(reduce.duration->samples, 1U);

  const auto gpu = import_profile(external + "gbench_distributed-ranges_dr-bench-05ae8920.json");
  EXPECT_EQ(gpu.kernels.size(), 5U);
  EXPECT_NEAR(
      kernel_named(gpu, "Reduce_DR/min_time:0.100/min_warmup_time:0.100/real_time").work->bytes,
      1.2e12, 1e-9 * 1.2e12);

  const auto r = predict_report(cpu, {resolve_device("i7-930")});
  const std::string text = report_to_text(r);
  EXPECT_NE(text.find("measured on host idc-beta-batch-pvc-node-13: 2.053 s over 1 timed "
                      "invocations"),
            std::string::npos);
  EXPECT_EQ(text.find("GPU"), std::string::npos) << "a CPU run measured on no GPU";
  expect_no_unknown_zeros(r);
}

// The same file's ten benchmarks declare bytes alone: their compute side is unknown and absent
// from the report (no W_comp, O_krn, T_pred, T_roof or O_ridge written as 0), their memory
// side is known: the roof is the declared bytes at the rate of the level they are held to.
TEST(RealBench, GbenchBytesOnlyReportsNoComputeSide) {
  const auto cpu = import_profile(external + "gbench_distributed-ranges_dr-bench-1bbc05c8.json");
  const device i7 = resolve_device("i7-930");
  const auto r = predict_report(cpu, {i7});
  const auto json = nlohmann::json::parse(report_to_json(r));
  ASSERT_EQ(json.at("kernels").size(), 10U);
  for (const auto& k : json.at("kernels")) {
    const std::string name = k.at("name").get<std::string>();
    const auto& params = k.at("params");
    EXPECT_EQ(params.at("compute_declared"), false) << name;
    EXPECT_FALSE(params.contains("W_comp") || params.contains("O_krn") || params.contains("K_type"))
        << name;
    const auto& p = k.at("predictions").at(0);
    EXPECT_FALSE(p.contains("T_pred") || p.contains("T_op") || p.contains("O_dev")) << name;
    const auto& roof = p.at("roof");
    EXPECT_FALSE(roof.contains("T_roof") || roof.contains("O_ridge")) << name;
    ASSERT_EQ(roof.at("terms").size(), 1U) << name;
    const double bytes = params.at("W_traf").get<double>();
    const double rate = roof.at("terms")[0].at("rate").get<double>();
    EXPECT_GT(roof.at("time_s").get<double>(), 0) << name;
    EXPECT_NEAR(roof.at("time_s").get<double>(), bytes / (rate * 1e9), 1e-12 * bytes / rate)
        << name;
  }
  // Read back (what baseline, merge and compare do) and written again: still absent.
  const auto back = report_from_json(report_to_json(r), "r.json");
  EXPECT_EQ(report_to_json(back), report_to_json(r));
  const std::string text = report_to_text(back);
  EXPECT_NE(text.find("the compute side was not declared"), std::string::npos);
  expect_no_unknown_zeros(back);
}

// Terminus-IMRC/floating-point-modular-multiplication: items_per_second alone, 208 entries on a
// Sapphire Rapids and on an A64FX. Refused, saying what was found and why.
TEST(RealBench, GbenchItemsOnlyRefusedWithTheReason) {
  for (const char* name : {"r7i", "fx1000"}) {
    const auto p =
        import_profile(external + "gbench_fpmodmul_repeated_multiplications-" + name + "-1.json");
    EXPECT_EQ(p.kernels.size(), 208U) << name;
    const std::map<std::string, int> why = {{"items only", 208}};
    EXPECT_EQ(refusals(p), why) << name;
  }
  const auto p = import_profile(external + "gbench_fpmodmul_repeated_multiplications-r7i-1.json");
  // items_per_second x cpu_time: 2^20 multiplications an iteration.
  const auto& k = p.kernels.front();
  EXPECT_NEAR(*k.work->items, 1048576.0, 1e-6);
  try {
    (void)predict_report(p, {resolve_device("i7-930")});
    FAIL() << "an items-only file was judged";
  } catch (const input_error& e) {
    EXPECT_EQ(e.status(), exit_status::input_error);
    EXPECT_NE(e.detail().find("items_per_second"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("1048576 items"), std::string::npos) << e.what();
  }
}

// koniksedy/Google-Benchmark-Viewer: 143 entries with items alone, 11 with bytes (and items).
TEST(RealBench, GbenchItemsReportedNotDropped) {
  const auto p = import_profile(external + "gbench_koniksedy_offset_list.json");
  EXPECT_EQ(p.kernels.size(), 154U);
  const std::map<std::string, int> why = {{"items only", 143}, {"judged", 11}};
  EXPECT_EQ(refusals(p), why);
  // items_per_second x cpu_time: 999999.9999999998 items an iteration in the file.
  EXPECT_NEAR(*kernel_named(p, "Increment/unbounded/0/100000").work->items, 1e6, 1e-9 * 1e6);
  EXPECT_NEAR(kernel_named(p, "Copy/1000").work->bytes, 8000.0, 1e-9 * 8000);

  const auto r = predict_report(p, {resolve_device("i7-930")});
  const auto& skipped = *std::find_if(r.kernels.begin(), r.kernels.end(), [](const auto& k) {
    return k.name == "Increment/unbounded/0/100000";
  });
  EXPECT_NE(skipped.skip_reason.find("1000000 items"), std::string::npos) << skipped.skip_reason;
  expect_no_unknown_zeros(r);
}

// The same file's Copy/N declare bytes alone, and their argument is no byte count: Copy/1000
// moves 8000 bytes an iteration (bytes_per_second x cpu_time). The working set is one
// iteration's bytes, and the report says so and that the argument was not read (issue 43).
TEST(RealBench, GbenchWorkingSetTakenFromBytesNotArguments) {
  const auto p = import_profile(external + "gbench_koniksedy_offset_list.json");
  const auto& copy = kernel_named(p, "Copy/1000");
  EXPECT_EQ(copy.work->arguments, "1000");
  device cpu = resolve_device("i7-930"); // its built-in entry gives no cache sizes
  const auto on_i7 = predict_report(p, {cpu}, "^Copy/1000$");
  const auto json = nlohmann::json::parse(report_to_json(on_i7));
  const auto& params = json.at("kernels")[0].at("params");
  EXPECT_NEAR(params.at("working_set_bytes").get<double>(), 8000.0, 1e-9 * 8000);
  EXPECT_EQ(params.at("working_set_source"),
            "working set not declared (arguments /1000 not read as a size): one iteration's "
            "bytes");
  EXPECT_EQ(limiter_text(*on_i7.kernels[0].predictions[0].roof),
            "dram (working set not declared (arguments /1000 not read as a size): one "
            "iteration's bytes, in no cache of i7-930)");
  // With the cache sizes a calibration measures (four cores' L1 and L2, one LLC), Copy/100000's
  // 800 KB an iteration fit the L2s (2 x 1 MiB), where 100000 bytes read from its argument
  // would have fit the L1s (2 x 128 KiB) and held it to a roof it cannot reach.
  cpu.cache_bytes = {{"l1", 32768.0}, {"l2", 262144.0}, {"llc", 8388608.0}};
  const auto with_caches = predict_report(p, {cpu}, "^Copy/100000$");
  EXPECT_NEAR(with_caches.kernels[0].params.W_traf, 8e5, 1e-9 * 8e5);
  EXPECT_EQ(with_caches.kernels[0].predictions[0].roof->limiter, "l2");
  expect_no_unknown_zeros(with_caches);
}

// symious/malloc-post: 1204 entries, 90 with items_per_second, the others custom counters only.
TEST(RealBench, GbenchMallocItemsAndNothing) {
  const auto p = import_profile(external + "gbench_malloc-post_jemalloc.json");
  EXPECT_EQ(p.kernels.size(), 1204U);
  const std::map<std::string, int> why = {{"items only", 90}, {"no work", 1114}};
  EXPECT_EQ(refusals(p), why);
  EXPECT_NEAR(*kernel_named(p, "BM_AllocationThroughput/64/threads:1").work->items, 1000.0, 1e-9);
}

// Times only: every entry declares nothing, and the report says so for each. The times are
// Google Benchmark's own clock for these benchmarks, their threads' CPU time (cpu_time):
// BM_InitEngineNoConfig waited 94% of its real 39.7 ms.
TEST(RealBench, GbenchTimesOnly) {
  const auto fib =
      import_profile(external + "gbench_github-action-benchmark_googlecpp_output.json");
  EXPECT_EQ(fib.kernels.size(), 2U);
  EXPECT_DOUBLE_EQ(*kernel_named(fib, "fib_10").time_s, 213.65507206163295e-9);
  const std::map<std::string, int> two = {{"no work", 2}};
  EXPECT_EQ(refusals(fib), two);

  const auto gui = import_profile(external + "gbench_google-benchmark-web-gui_example.json");
  EXPECT_EQ(gui.kernels.size(), 6U);
  const std::map<std::string, int> six = {{"no work", 6}};
  EXPECT_EQ(refusals(gui), six);
  EXPECT_DOUBLE_EQ(*kernel_named(gui, "BM_InitEngineNoConfig").time_s, 2365300.3214285714e-9);
}

// Every judged kernel of every file, in one report each: the property holds for all.
TEST(RealBench, NoReportHoldsAZeroForUnknown) {
  for (const char* file :
       {"nvbench_NVIDIA-nvbench_test_cmp.json", "gbench_distributed-ranges_dr-bench-05ae8920.json",
        "gbench_koniksedy_offset_list.json"}) {
    auto p = import_profile(external + file);
    expect_no_unknown_zeros(predict_report(p, {resolve_device("h100-sxm")}));
  }
}

} // namespace
