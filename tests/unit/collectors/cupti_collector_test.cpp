// SPDX-License-Identifier: Apache-2.0
// The CUPTI collector's data path without a GPU: the injection library's kernel book writes
// perfgate-cupti/1, the collector reads it back and merges a timing run and a counter run into
// a profile.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/model.hpp>

#include "collectors/collectors.hpp"
#include "collectors/cupti/kernel_book.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

// The metric set of GH100's plan (see chip_metrics_test), in the order the plan gives it.
const std::vector<std::string> metrics = {"smsp__sass_thread_inst_executed_op_fp32_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_integer_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_memory_pred_on.sum",
                                          "smsp__inst_executed.sum",
                                          "dram__bytes_read.sum",
                                          "dram__bytes_write.sum",
                                          "lts__t_bytes.sum",
                                          "smsp__sass_data_bytes_mem_shared.sum",
                                          "sm__cycles_elapsed.avg.per_second",
                                          "gpu__time_duration.sum"};

// One saxpy launch over n elements: 1 FFMA, 2 loads + 1 store, 12 B of DRAM traffic each.
std::vector<double> saxpy_launch(double n, double clock_hz, double time_ns) {
  return {n, n, 0, 0, 4 * n, 3 * n, 10 * n / 32, 8 * n, 4 * n, 12 * n, 0, clock_hz, time_ns};
}

const char* saxpy_mangled = "_Z5saxpyifPKfPf";

cupti_run timing_run(int launches) {
  cupti::kernel_book book;
  auto& k = book.kernel(saxpy_mangled);
  for (int i = 0; i < launches; ++i) {
    ++k.launches;
    k.durations_ns.push_back(100000.0 + 1000.0 * i);
  }
  k.grid = {262144, 1, 1};
  k.block = {256, 1, 1};
  k.clock_samples = 2;
  k.clock_mhz_sum = 2 * 1410.0;
  k.clock_mhz_min = k.clock_mhz_max = 1410.0;
  k.clock_limit_mask = 0x4 | 0x1; // power cap, and idle (never reported)
  cupti::run_info run;
  run.mode = "timing";
  run.device_name = "NVIDIA H100 80GB HBM3";
  return cupti_run_from_json(book.to_json(run), "timing.json");
}

cupti_run counter_run(int launches) {
  cupti::kernel_book book;
  auto& k = book.kernel(saxpy_mangled);
  for (int i = 0; i < launches; ++i) {
    ++k.launches;
    book.add_range(k, metrics, saxpy_launch(1 << 26, i == 0 ? 1.98e9 : 1.755e9, 100000.0),
                   100000.0);
  }
  cupti::run_info run;
  run.mode = "counters";
  run.chip = "GH100";
  run.metrics = metrics;
  run.passes = 2;
  return cupti_run_from_json(book.to_json(run), "counters.json");
}

TEST(CuptiCollector, KernelBookDemanglesAndRoundTrips) {
  const auto t = timing_run(3);
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].name, "saxpy(int, float, float const*, float*)");
  EXPECT_EQ(t.kernels[0].launches, 3u);
  EXPECT_EQ(t.kernels[0].durations_ns.size(), 3u);
  ASSERT_TRUE(t.kernels[0].nvml_clock_mhz);
  EXPECT_DOUBLE_EQ(*t.kernels[0].nvml_clock_mhz, 1410.0);
  EXPECT_EQ(t.kernels[0].clock_limits, std::vector<std::string>{"sw_power_cap"});
  const auto c = counter_run(2);
  EXPECT_EQ(c.chip, "GH100");
  EXPECT_EQ(c.passes, 2u);
  EXPECT_EQ(c.kernels[0].profiled_launches, 2u);
  // Counts are summed over launches, the clock (a rate) averaged.
  EXPECT_DOUBLE_EQ(c.kernels[0].metrics.at("dram__bytes_read.sum"), 2 * 8.0 * (1 << 26));
  EXPECT_DOUBLE_EQ(c.kernels[0].metrics.at("sm__cycles_elapsed.avg.per_second"),
                   (1.98e9 + 1.755e9) / 2);
}

TEST(CuptiCollector, MergesTimesFromOneRunWithCountersFromTheOther) {
  const auto p = profile_from_cupti_runs(timing_run(2), counter_run(2));
  EXPECT_EQ(p.format, perfgate::profile_format::cupti);
  EXPECT_EQ(p.device_name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(p.kernels.size(), 1u);
  const auto& k = p.kernels[0];
  EXPECT_EQ(k.invocations, 2u);
  ASSERT_TRUE(k.time_s);
  EXPECT_NEAR(*k.time_s, (100000.0 + 101000.0) * 1e-9, 1e-15);
  ASSERT_TRUE(k.launch);
  EXPECT_EQ(k.launch->block[0], 256u);
  const double n = 1 << 26;
  EXPECT_DOUBLE_EQ(*k.counter(counter::inst_fp32_fma), 2 * n);
  EXPECT_DOUBLE_EQ(*k.counter(counter::dram_read_bytes), 2 * 8 * n);
  EXPECT_DOUBLE_EQ(*k.counter(counter::l2_bytes), 2 * 12 * n);
  EXPECT_DOUBLE_EQ(*k.counter(counter::warp_inst_executed), 2 * 10 * n / 32);
  // NVML's clock in the timed run wins over the clock under replay.
  ASSERT_TRUE(k.sm_clock_mhz);
  EXPECT_DOUBLE_EQ(*k.sm_clock_mhz, 1410.0);
  EXPECT_EQ(k.clock_limits, std::vector<std::string>{"sw_power_cap"});
  // The model takes it: fp32, O_krn = 2 flops / 12 B.
  const auto params = kernel_params_from_profile(p, k);
  EXPECT_EQ(params.K_type, kernel_type::fp32);
  EXPECT_NEAR(params.O_krn, 2.0 / 12.0, 1e-12);
}

TEST(CuptiCollector, CountersAreScaledToTheTimedLaunches) {
  // The counter run saw 2 launches, the timing run 4: per-launch counts are deterministic.
  const auto p = profile_from_cupti_runs(timing_run(4), counter_run(2));
  EXPECT_DOUBLE_EQ(*p.kernels[0].counter(counter::dram_write_bytes), 4 * 4.0 * (1 << 26));
}

TEST(CuptiCollector, ClockFromTheCounterRunWithoutNvml) {
  auto t = timing_run(2);
  t.kernels[0].nvml_clock_mhz.reset();
  t.kernels[0].clock_limits.clear();
  const auto p = profile_from_cupti_runs(t, counter_run(2));
  ASSERT_TRUE(p.kernels[0].sm_clock_mhz);
  EXPECT_DOUBLE_EQ(*p.kernels[0].sm_clock_mhz, (1980.0 + 1755.0) / 2);
}

TEST(CuptiCollector, KernelWithoutCountersLacksTheModelInputs) {
  cupti_run counters = counter_run(0);
  counters.kernels.clear();
  const auto p = profile_from_cupti_runs(timing_run(1), counters);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_TRUE(p.kernels[0].counters.empty());
  EXPECT_THROW((void)kernel_params_from_profile(p, p.kernels[0]), input_error);
}

std::string parse_error(const std::string& text) {
  try {
    (void)cupti_run_from_json(text, "run.json");
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CuptiCollector, MalformedOutputNamesTheKey) {
  EXPECT_NE(parse_error(R"({"schema": "perfgate-cupti/2", "mode": "timing"})")
                .find("run.json: key 'schema': expected \"perfgate-cupti/1\""),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"schema": "perfgate-cupti/1", "mode": "both", "status": "ok"})")
                .find("key 'mode'"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"schema": "perfgate-cupti/1", "mode": "timing", "status": "ok",
                            "kernels": [{"name": "k", "launches": 1, "durations_ns": [-1]}]})")
                .find("key 'kernels[0].durations_ns[0]': expected a number >= 0"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"schema": "perfgate-cupti/1", "mode": "timing", "status": "ok",
                            "kernels": [{"name": "k", "launches": 1, "grid": [1, 2],
                                         "block": [1, 1, 1]}]})")
                .find("key 'kernels[0].grid': expected 3 dimensions [x, y, z], found 2"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"schema": "perfgate-cupti/1", "mode": "timing", "status": "ok",
                            "kernels": [{"name": "k", "launches": 2, "durations_ns": [1, 2],
                                         "launch_configs": [[1, 1, 1, 32, 1, 1, 0]]}]})")
                .find("key 'kernels[0].launch_configs': expected one per entry of durations_ns "
                      "(2), found 1"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"schema": "perfgate-cupti/1", "mode": "timing", "status": "ok",
                            "kernels": [{"name": "k", "launches": 1, "durations_ns": [1],
                                         "launch_configs": [[0, 1, 1, 32, 1, 1, 0]]}]})")
                .find("key 'kernels[0].launch_configs[0]': expected [grid x, y, z, block x, y, "
                      "z, dynamic shared bytes]"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"schema": "perfgate-cupti/1", "mode": "counters", "status": "ok",
                            "metrics": ["a.sum", "b.sum"],
                            "kernels": [{"name": "k", "launches": 1, "profiled_launches": 1,
                                         "range_values": [[1]]}]})")
                .find("key 'kernels[0].range_values[0]': expected 2 numbers >= 0, one per metric"),
            std::string::npos);
  EXPECT_NE(parse_error("{\"schema\": \"perfgate-cupti/1\",").find("run.json:1"),
            std::string::npos);
}

// A kernel launched at two sizes, as torch.rand launches its Philox kernel for each tensor
// (the efficiency-2.325 report: the one kept launch's time against the counters of others).
// Launch by launch: a big one first (2^24 elements), then two small ones (2^20), recorded by
// the timing run as the Activity API delivers them (out of launch order), and one range per
// launch in the counter run. `same_grid`: a grid-stride kernel whose grid does not follow the
// size, so only the work tells the sizes apart.
struct two_sizes {
  cupti_run timing;
  cupti_run counters;
};
two_sizes launched_at_two_sizes(bool same_grid) {
  const std::vector<double> n = {1 << 24, 1 << 20, 1 << 20};
  const std::vector<double> ns = {400000.0, 17000.0, 17500.0};
  cupti::kernel_book tb;
  auto& tk = tb.kernel(saxpy_mangled);
  for (std::uint32_t i : {2U, 0U, 1U}) { // delivered out of order
    cupti::launch_entry l;
    l.correlation = 10 + i;
    l.grid = {same_grid ? 528U : static_cast<std::uint32_t>(n[i] / 256), 1, 1};
    l.block = {256, 1, 1};
    l.duration_ns = ns[i];
    tb.add_launch(tk, l);
  }
  cupti::run_info trun;
  trun.mode = "timing";
  cupti::kernel_book cb;
  auto& ck = cb.kernel(saxpy_mangled);
  for (std::size_t i = 0; i < n.size(); ++i) {
    ++ck.launches;
    cb.add_range(ck, metrics, saxpy_launch(n[i], 1.98e9, ns[i]), ns[i]);
  }
  cupti::run_info crun;
  crun.mode = "counters";
  crun.chip = "GH100";
  crun.metrics = metrics;
  return {cupti_run_from_json(tb.to_json(trun), "timing.json"),
          cupti_run_from_json(cb.to_json(crun), "counters.json")};
}

TEST(CuptiCollector, TheTimingRunWritesLaunchesInTheOrderTheyWereMade) {
  const auto r = launched_at_two_sizes(false);
  const auto& t = r.timing.kernels.at(0);
  EXPECT_EQ(t.durations_ns, (std::vector<double>{400000.0, 17000.0, 17500.0}));
  ASSERT_EQ(t.shapes.size(), 3U);
  EXPECT_EQ(t.shapes[0].grid[0], 65536U);
  EXPECT_EQ(t.shapes[1].grid[0], 4096U);
  EXPECT_EQ(r.counters.kernels.at(0).range_values.size(), 3U);
}

TEST(CuptiCollector, AKernelLaunchedAtTwoSizesIsTwoKernels) {
  const device h100 = resolve_device("h100-sxm");
  for (bool same_grid : {false, true}) {
    SCOPED_TRACE(same_grid ? "one grid-stride grid" : "a grid per size");
    const auto r = launched_at_two_sizes(same_grid);
    auto p = profile_from_cupti_runs(r.timing, r.counters);
    ASSERT_EQ(p.kernels.size(), 2U);
    EXPECT_EQ(p.kernels[0].name, same_grid ? "saxpy(int, float, float const*, float*) [grid "
                                             "528x1x1 block 256x1x1]"
                                           : "saxpy(int, float, float const*, float*) [grid "
                                             "65536x1x1 block 256x1x1]");
    EXPECT_EQ(p.kernels[1].name, same_grid ? "saxpy(int, float, float const*, float*) [grid "
                                             "528x1x1 block 256x1x1 #2]"
                                           : "saxpy(int, float, float const*, float*) [grid "
                                             "4096x1x1 block 256x1x1]");
    // perfgate run leaves each group's first launch out: the big launch is its group's only
    // one and stays; the small group keeps its second launch, with one small launch's work.
    EXPECT_EQ(leave_out_first_launch(p), 1U);
    EXPECT_EQ(p.kernels[0].invocations, 1U);
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_s, 400000e-9);
    EXPECT_DOUBLE_EQ(*p.kernels[0].counter(counter::dram_read_bytes), 8.0 * (1 << 24));
    EXPECT_EQ(p.kernels[1].invocations, 1U);
    EXPECT_DOUBLE_EQ(*p.kernels[1].time_s, 17500e-9);
    EXPECT_DOUBLE_EQ(*p.kernels[1].counter(counter::dram_read_bytes), 8.0 * (1 << 20));
    // Work and time of the same launches: neither beats the roof.
    for (const auto& k : p.kernels) {
      EXPECT_LE(roof_of(kernel_params_from_profile(p, k), h100).time_s, *k.time_s) << k.name;
    }
  }
}

TEST(CuptiCollector, LaunchesOfOneSizeStayOneKernel) {
  auto r = launched_at_two_sizes(true);
  // The same three launches with the same work (a data-dependent kernel varies by under 2%).
  for (std::size_t i = 0; i < 3; ++i) {
    auto& v = r.counters.kernels[0].range_values[i];
    v = saxpy_launch((1 << 20) * (1 + 0.01 * static_cast<double>(i)), 1.98e9, 17000.0);
  }
  const auto p = profile_from_cupti_runs(r.timing, r.counters);
  ASSERT_EQ(p.kernels.size(), 1U);
  EXPECT_EQ(p.kernels[0].name, "saxpy(int, float, float const*, float*)");
}

TEST(CuptiCollector, RunEnvironmentInjectsTheLibraryAndNamesTheMode) {
  const auto timing = cupti_run_environment("timing", "/lib/libperfgate_cupti.so", "/tmp/t.json",
                                            {"a.sum", "b.sum"});
  using kv = std::pair<std::string, std::string>;
  EXPECT_EQ(timing, (std::vector<kv>{{"CUDA_INJECTION64_PATH", "/lib/libperfgate_cupti.so"},
                                     {"PERFGATE_CUPTI_MODE", "timing"},
                                     {"PERFGATE_CUPTI_OUTPUT", "/tmp/t.json"}}));
  const auto counters =
      cupti_run_environment("counters", "/l.so", "/tmp/c.json", {"a.sum", "b.sum"});
  EXPECT_EQ(counters.back(), (kv{"PERFGATE_CUPTI_METRICS", "a.sum,b.sum"}));
  // The L2 flush is for the timing run only: the counter run replays kernels anyway.
  const auto cold = cupti_run_environment("timing", "/l.so", "/tmp/t.json", {}, true);
  EXPECT_EQ(cold.back(), (kv{"PERFGATE_CUPTI_FLUSH_L2", "1"}));
  const auto cold_counters =
      cupti_run_environment("counters", "/l.so", "/tmp/c.json", {"a.sum"}, true);
  for (const auto& [name, value] : cold_counters) {
    EXPECT_NE(name, "PERFGATE_CUPTI_FLUSH_L2");
  }
}

TEST(CuptiCollector, WithoutAGpuTheCollectorSkips) {
  if (!nvidia_gpu_unavailable()) {
    GTEST_SKIP() << "an NVIDIA GPU is present";
  }
  collect_request r;
  r.program = {"/bin/true"};
  EXPECT_THROW((void)collect_cupti(r), skip_error);
}


// The injection library's own output on a real GPU (an H100, 2026-11-26, tests/data/h100/
// README.md): timing and counters runs of three programs, replayed through the collector.
cupti_run h100_run(const std::string& program, const std::string& mode) {
  const std::string file =
      std::string(PERFGATE_TEST_DATA_DIR) + "/h100/cupti/" + program + "_" + mode + ".json";
  return cupti_run_from_json(read_text_file(file), file);
}

// One kernel launched once on 2^24 floats and three times on 2^20, one grid (two_sizes.cu):
// two kernels, each with the time and the DRAM traffic of its own launches (a read and a write
// of 4 B per float: the big one within 5%; the small one's 4 MiB partly stays in the 50 MB L2,
// 0.91 of it, within 20% as cupti.run_two_sizes allows), neither beating the H100's roof. The case cupti.run_two_sizes
// checks on a GPU, replayed.
TEST(CuptiH100Capture, OneKernelAtTwoSizesIsTwoKernelsOfTheirOwnLaunches) {
  auto p = profile_from_cupti_runs(h100_run("two_sizes", "timing"),
                                   h100_run("two_sizes", "counters"));
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].name, "scale(float*, unsigned long, float) [grid 1024x1x1 block 256x1x1]");
  EXPECT_EQ(p.kernels[1].name,
            "scale(float*, unsigned long, float) [grid 1024x1x1 block 256x1x1 #2]");
  EXPECT_EQ(leave_out_first_launch(p), 1U); // the small group's warm-up
  const device h100 = resolve_device("h100-sxm");
  for (const auto& [k, floats, launches, ns, tolerance] :
       {std::tuple{&p.kernels[0], 1 << 24, 1U, 56866.0, 0.05},
        std::tuple{&p.kernels[1], 1 << 20, 2U, 2688.0 + 2656.0, 0.2}}) {
    SCOPED_TRACE(k->name);
    EXPECT_EQ(k->invocations, launches);
    EXPECT_DOUBLE_EQ(*k->time_s, ns * 1e-9);
    const double bytes =
        *k->counter(counter::dram_read_bytes) + *k->counter(counter::dram_write_bytes);
    EXPECT_NEAR(bytes / (8.0 * floats * launches), 1.0, tolerance);
    EXPECT_LE(roof_of(kernel_params_from_profile(p, *k), h100).time_s, *k->time_s);
  }
}

// The examples: every launch timed and counted, the work exactly what the code does (saxpy: an
// FFMA per float, 2^26 floats, 5 launches; sgemm_tiled: 2048^3 FFMA a launch, 3 launches), the
// clock the SM ran at kept, and no kernel faster than the H100's roof.
TEST(CuptiH100Capture, TheExamplesWorkIsExactAndUnderTheRoof) {
  const device h100 = resolve_device("h100-sxm");
  for (const auto& [program, kernel, launches, ffma] :
       {std::tuple{"saxpy", "saxpy(int, float, float const*, float*)", 5U, 5.0 * (1 << 26)},
        std::tuple{"sgemm_tiled", "sgemm_tiled(int, float const*, float const*, float*)", 3U,
                   3.0 * 2048 * 2048 * 2048}}) {
    SCOPED_TRACE(program);
    const auto p = profile_from_cupti_runs(h100_run(program, "timing"),
                                           h100_run(program, "counters"));
    const auto k = std::find_if(p.kernels.begin(), p.kernels.end(),
                                [&](const kernel_profile& x) { return x.name == kernel; });
    ASSERT_NE(k, p.kernels.end());
    EXPECT_EQ(k->invocations, launches);
    EXPECT_EQ(*k->counter(counter::inst_fp32_fma), ffma);
    ASSERT_TRUE(k->sm_clock_mhz);
    EXPECT_GT(*k->sm_clock_mhz, 1000.0);
    EXPECT_LE(roof_of(kernel_params_from_profile(p, *k), h100).time_s, *k->time_s);
  }
}
} // namespace
} // namespace perfgate::detail
