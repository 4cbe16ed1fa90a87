// SPDX-License-Identifier: Apache-2.0
// Merging several runners' reports whose calibrated GPUs share perfgate calibrate's default id.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "runner_report.hpp"

#include <gtest/gtest.h>

namespace {
using perfgate::test::calibrated_gpu;
using perfgate::test::runner_report;

std::vector<std::string> ids(const perfgate::report& r) {
  std::vector<std::string> out;
  for (const auto& d : r.devices) {
    out.push_back(d.id);
  }
  return out;
}

// Runner A's GPU: roof 50 ms, measured 62.5 ms (efficiency 0.8).
perfgate::report runner_a() { return runner_report("runner-a", calibrated_gpu(20), 62.5e-3); }
// Runner B's GPU: roof 100 ms, measured 400 ms (efficiency 0.25).
perfgate::report runner_b() { return runner_report("runner-b", calibrated_gpu(10), 400e-3); }
} // namespace

TEST(Merge, CalibratedGpusOfTwoRunnersStayApart) {
  const auto a = runner_a();
  const auto b = runner_b();
  const auto m = perfgate::merge_reports({a, b}, {"a/all.json", "b/all.json"});
  // B's GPU under its own name and peaks; the built-in, the same on both runners, once.
  EXPECT_EQ(ids(m),
            (std::vector<std::string>{"local-cuda-0", "h100-sxm", "local-cuda-0@runner-b"}));
  EXPECT_EQ(m.find_device("local-cuda-0")->peaks.dram_gbs, 20);
  EXPECT_EQ(m.find_device("local-cuda-0@runner-b")->peaks.dram_gbs, 10);
  EXPECT_EQ(m.local_device, "");
  ASSERT_EQ(m.kernels.size(), 2U);
  const auto& ka = m.kernels[0];
  const auto& kb = m.kernels[1];
  EXPECT_EQ(ka.result.device, "local-cuda-0");
  EXPECT_EQ(ka.predictions[0].device, "local-cuda-0");
  EXPECT_EQ(kb.result.device, "local-cuda-0@runner-b");
  EXPECT_EQ(kb.predictions[0].device, "local-cuda-0@runner-b");
  EXPECT_EQ(kb.predictions[1].device, "h100-sxm");
  EXPECT_NEAR(*kb.result.efficiency, 0.25, 1e-12);
  EXPECT_EQ(kb.result.reasons, b.kernels[0].result.reasons); // the runner's words
  EXPECT_EQ(kb.origin, "b/all.json (runner-b)");

  // What is written reads back (the reader checks local_device against the devices).
  const auto back = perfgate::report_from_json(perfgate::report_to_json(m), "m.json");
  EXPECT_EQ(ids(back), ids(m));
  const std::string md = perfgate::report_to_markdown(m);
  EXPECT_NE(md.find("### local-cuda-0: "), std::string::npos) << md;
  EXPECT_NE(md.find("### local-cuda-0@runner-b: "), std::string::npos) << md;
}

TEST(Merge, OneDeviceOnOneHostOrWithTheSameContent) {
  // The same calibration file on two runners: one roof, one device.
  auto m = perfgate::merge_reports(
      {runner_a(), runner_report("runner-b", calibrated_gpu(20), 62.5e-3)}, {});
  EXPECT_EQ(ids(m), (std::vector<std::string>{"local-cuda-0", "h100-sxm"}));
  EXPECT_EQ(m.local_device, "local-cuda-0");
  // One runner recalibrated between two runs: the same GPU.
  m = perfgate::merge_reports({runner_a(), runner_report("runner-a", calibrated_gpu(19), 63e-3)},
                              {});
  EXPECT_EQ(ids(m), (std::vector<std::string>{"local-cuda-0", "h100-sxm"}));
  EXPECT_EQ(m.kernels[1].result.device, "local-cuda-0");
  // Reports without a host (before meta) are united as before.
  m = perfgate::merge_reports({runner_report("", calibrated_gpu(20), 62.5e-3),
                               runner_report("", calibrated_gpu(10), 400e-3)},
                              {});
  EXPECT_EQ(ids(m), (std::vector<std::string>{"local-cuda-0", "h100-sxm"}));
}

TEST(Merge, AMergedPartNamesEachDevicesHostInItsOrigins) {
  // Merged on another machine: the merged report's host is the merge's, not its runners'.
  auto ab = perfgate::merge_reports({runner_a(), runner_b()}, {"a/all.json", "b/all.json"});
  ab.meta.host = "merge-host";
  ab = perfgate::report_from_json(perfgate::report_to_json(ab), "ab.json");
  // Runner B again, recalibrated: its GPU is the one already renamed for runner-b.
  const auto b2 = runner_report("runner-b", calibrated_gpu(11), 400e-3);
  const auto m = perfgate::merge_reports({ab, b2}, {"ab.json", "b2.json"});
  EXPECT_EQ(ids(m),
            (std::vector<std::string>{"local-cuda-0", "h100-sxm", "local-cuda-0@runner-b"}));
  EXPECT_EQ(m.kernels[2].result.device, "local-cuda-0@runner-b");
  // A third runner's GPU gets its own name.
  const auto c = runner_report("runner-c", calibrated_gpu(5), 400e-3);
  const auto abc = perfgate::merge_reports({ab, c}, {"ab.json", "c.json"});
  EXPECT_EQ(ids(abc), (std::vector<std::string>{"local-cuda-0", "h100-sxm", "local-cuda-0@runner-b",
                                                "local-cuda-0@runner-c"}));
  EXPECT_EQ(abc.kernels[2].result.device, "local-cuda-0@runner-c");
}
