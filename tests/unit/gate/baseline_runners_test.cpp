// SPDX-License-Identifier: Apache-2.0
// One baseline for several runners whose calibrated GPUs share perfgate calibrate's default id.
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>

#include "runner_report.hpp"

#include <gtest/gtest.h>

namespace {
using perfgate::test::calibrated_gpu;
using perfgate::test::runner_report;

// Runner A's GPU: roof 50 ms; runner B's: roof 100 ms.
perfgate::device gpu_a() { return calibrated_gpu(20); }
perfgate::device gpu_b() { return calibrated_gpu(10); }
// Efficiency 0.8 on A, 0.25 on B: either held to the other's entry is far off.
constexpr double time_a = 62.5e-3;
constexpr double time_b = 400e-3;

using perfgate::test::reasons;
} // namespace

TEST(BaselineRunners, CalibratedGpusOfTwoRunnersKeepTheirOwnEntries) {
  const auto b = perfgate::baseline_from_reports(
      {runner_report("runner-a", gpu_a(), time_a), runner_report("runner-b", gpu_b(), time_b)},
      "runners");
  ASSERT_EQ(b.kernels.size(), 2U);
  EXPECT_EQ(b.devices_of("BM_kernel"),
            (std::vector<std::string>{"local-cuda-0", "local-cuda-0@runner-b"}));
  const auto* a = b.find("BM_kernel", "local-cuda-0");
  const auto* on_b = b.find("BM_kernel", "local-cuda-0@runner-b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(on_b, nullptr);
  EXPECT_NEAR(*a->efficiency, 0.8, 1e-12);
  EXPECT_NEAR(*on_b->efficiency, 0.25, 1e-12);
  EXPECT_EQ(a->efficiency_runs.size(), 1U);
  EXPECT_EQ(on_b->efficiency_runs.size(), 1U);
  EXPECT_EQ(on_b->bounds.count("local-cuda-0@runner-b"), 1U);
  EXPECT_EQ(on_b->bounds.count("h100-sxm"), 1U);
  // Runs on one host keep adding to its entry: recalibrated, it is still the same GPU.
  const auto runs = perfgate::baseline_from_reports(
      {runner_report("runner-a", gpu_a(), time_a), runner_report("runner-b", gpu_b(), time_b),
       runner_report("runner-b", calibrated_gpu(11), time_b)},
      "runs");
  ASSERT_EQ(runs.kernels.size(), 2U);
  EXPECT_EQ(runs.find("BM_kernel", "local-cuda-0@runner-b")->efficiency_runs.size(), 2U);
}

TEST(BaselineRunners, AcceptingTheMergedReportGivesTheRunnersBaseline) {
  const auto a = runner_report("runner-a", gpu_a(), time_a);
  const auto b = runner_report("runner-b", gpu_b(), time_b);
  const auto merged = perfgate::report_from_json(
      perfgate::report_to_json(perfgate::merge_reports({a, b}, {"a.json", "b.json"})), "m.json");
  const std::string from_runners =
      perfgate::baseline_to_json(perfgate::baseline_from_reports({a, b}, "s"));
  EXPECT_EQ(perfgate::baseline_to_json(perfgate::baseline_from_report(merged, "s")), from_runners);
  EXPECT_EQ(perfgate::baseline_to_json(perfgate::baseline_from_reports({merged}, "s")),
            from_runners);
  // Built-in GPUs too: each kernel under its own runner's device, not the first device.
  const auto l40s = runner_report("runner-b", perfgate::resolve_device("l40s"), time_b);
  const auto both = perfgate::merge_reports({a, l40s}, {"a.json", "l40s.json"});
  const auto from_merged = perfgate::baseline_from_report(both, "s");
  EXPECT_EQ(from_merged.devices_of("BM_kernel"),
            (std::vector<std::string>{"local-cuda-0", "l40s"}));
  EXPECT_EQ(perfgate::baseline_to_json(from_merged),
            perfgate::baseline_to_json(perfgate::baseline_from_reports({a, l40s}, "s")));
}

TEST(BaselineRunners, ALaterRunIsJudgedAgainstItsOwnHostsEntry) {
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_json(
      perfgate::baseline_to_json(perfgate::baseline_from_reports(
          {runner_report("runner-a", gpu_a(), time_a), runner_report("runner-b", gpu_b(), time_b)},
          "baseline.json")),
      "baseline.json");
  // Each runner's GPU is still `local-cuda-0` there: its host finds its entry.
  const auto on_b = runner_report("runner-b", gpu_b(), time_b, {}, measured);
  const auto& vb = on_b.kernels.at(0).result;
  EXPECT_EQ(vb.status, perfgate::verdict_status::pass) << reasons(on_b);
  EXPECT_NEAR(*vb.baseline_efficiency, 0.25, 1e-12);
  ASSERT_TRUE(vb.change);
  EXPECT_EQ(vb.change->kind, perfgate::stats::change::same) << reasons(on_b);
  const auto on_a = runner_report("runner-a", gpu_a(), time_a, {}, measured);
  const auto& va = on_a.kernels.at(0).result;
  EXPECT_EQ(va.status, perfgate::verdict_status::pass) << reasons(on_a);
  EXPECT_NEAR(*va.baseline_efficiency, 0.8, 1e-12);
  // B's time on A's GPU is far below A's entry: it is A's entry that judges it.
  const auto slow_a = runner_report("runner-a", gpu_a(), time_b, {}, measured);
  EXPECT_EQ(slow_a.kernels.at(0).result.status, perfgate::verdict_status::fail) << reasons(slow_a);

  // The class on the run's own GPU is compared with its renamed entry's.
  auto compute_b = gpu_b();
  compute_b.peaks.fp64_gflops = 0.5; // 1e8 flops: 200 ms of compute over 100 ms of DRAM
  const auto flipped = runner_report("runner-b", compute_b, time_b, {}, measured);
  EXPECT_NE(reasons(flipped).find("class changed on local-cuda-0: memory-bound -> compute-bound"),
            std::string::npos)
      << reasons(flipped);
}
