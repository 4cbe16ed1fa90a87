// SPDX-License-Identifier: Apache-2.0
#include <perfgate/compare.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace {
perfgate::device dev(double fp64_gflops, double dram_gbs) {
  perfgate::device d;
  d.id = "local-cpu";
  d.name = "test CPU";
  d.source = "measured";
  d.peaks = {200.0, fp64_gflops, 100.0, 100.0, 100.0, dram_gbs};
  return d;
}

struct kernel_spec {
  std::string name;
  double flops, bytes, time_s;
};

perfgate::report gated(const std::vector<kernel_spec>& kernels,
                       perfgate::device d = dev(100.0, 20.0)) {
  perfgate::profile p;
  p.source_file = "bench";
  for (const auto& spec : kernels) {
    perfgate::kernel_profile kp{};
    kp.name = spec.name;
    kp.work.emplace(perfgate::declared_work{0.0, spec.flops, 0.0, spec.bytes});
    kp.time_s = spec.time_s;
    p.kernels.push_back(kp);
  }
  auto r = perfgate::predict_report(p, {d});
  perfgate::apply_gate(r, {});
  return r;
}

const std::vector<kernel_spec> base_kernels = {{"BM_triad", 1e8, 1e9, 55e-3},
                                               {"BM_dot", 1e8, 8e8, 45e-3}};
} // namespace

TEST(Compare, SameReportIsClean) {
  const auto r = gated(base_kernels);
  const auto c = perfgate::compare_reports(r, r);
  EXPECT_FALSE(c.failed());
  ASSERT_EQ(c.kernels.size(), 2U);
  for (const auto& k : c.kernels) {
    EXPECT_TRUE(k.failures.empty());
    EXPECT_TRUE(k.warnings.empty());
    EXPECT_EQ(k.W_traf_change, 0.0);
  }
}

TEST(Compare, SlowerKernelIsNamedAndFailsFirst) {
  auto slowed = base_kernels;
  slowed[1].time_s *= 1.5; // efficiency drops by a third
  const auto c = perfgate::compare_reports(gated(base_kernels), gated(slowed));
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(c.kernels.front().name, "BM_dot"); // failures first
  ASSERT_EQ(c.kernels.front().failures.size(), 1U);
  EXPECT_NE(c.kernels.front().failures[0].find(
                "efficiency dropped 33.33% vs the base on local-cpu (0.89 -> 0.59), more than "
                "MAX_EFFICIENCY_DROP 10.0% (a point comparison: 0 vs 0 samples"),
            std::string::npos)
      << c.kernels.front().failures[0];
  EXPECT_FALSE(c.kernels.back().failed());
  const auto md = perfgate::comparison_to_markdown(c);
  EXPECT_NE(md.find("❌ `BM_dot`: efficiency dropped 33.33% vs the base on local-cpu"),
            std::string::npos)
      << md;
  const auto j = nlohmann::json::parse(perfgate::comparison_to_json(c));
  EXPECT_TRUE(j["failed"].get<bool>());
}

TEST(Compare, ClassFlipFailsAndNearTheRidgeWarns) {
  // The same kernels on a device whose ridge moved below the triad's O_krn 0.1.
  const auto c =
      perfgate::compare_reports(gated(base_kernels), gated(base_kernels, dev(1.0, 1000.0)));
  EXPECT_TRUE(c.failed());
  bool found = false;
  for (const auto& k : c.kernels) {
    for (const auto& f : k.failures) {
      found |=
          f.find("class changed on local-cpu: memory-bound -> compute-bound") != std::string::npos;
    }
  }
  EXPECT_TRUE(found);
  // The triad's O_krn 0.1 against O_dev 0.095 is within 10% of the ridge: a warning; the dot
  // product's 0.125 is not: a failure, listed first.
  const auto near =
      perfgate::compare_reports(gated(base_kernels), gated(base_kernels, dev(1.9, 20.0)));
  ASSERT_EQ(near.kernels.size(), 2U);
  EXPECT_EQ(near.kernels[0].name, "BM_dot");
  EXPECT_TRUE(near.kernels[0].failed());
  EXPECT_EQ(near.kernels[1].name, "BM_triad");
  EXPECT_FALSE(near.kernels[1].failed());
  ASSERT_EQ(near.kernels[1].warnings.size(), 1U);
  EXPECT_NE(near.kernels[1].warnings[0].find("on the ridge, so a warning"), std::string::npos);
}

TEST(Compare, CounterGrowthIsARegressionEvenAtTheSameTime) {
  auto more_traffic = base_kernels;
  more_traffic[0].bytes *= 1.10;
  more_traffic[0].time_s *= 1.10; // same efficiency: timing alone would not notice
  const auto c = perfgate::compare_reports(gated(base_kernels), gated(more_traffic));
  EXPECT_TRUE(c.failed());
  EXPECT_NE(c.kernels.front().failures[0].find("W_traf (DRAM bytes) grew +10.0%"),
            std::string::npos)
      << c.kernels.front().failures[0];
}

TEST(Compare, AddedAndRemovedKernelsWarn) {
  const auto c = perfgate::compare_reports(gated({base_kernels[0]}), gated({base_kernels[1]}));
  EXPECT_FALSE(c.failed());
  ASSERT_EQ(c.kernels.size(), 2U);
  EXPECT_EQ(c.kernels[0].warnings[0], "new kernel: not in the base report");
  EXPECT_EQ(c.kernels[1].warnings[0], "kernel gone: in the base report only");
}

TEST(Compare, MergedReportsPairEachRunnersKernel) {
  // One kernel on two runners: 0.8 of the roof on the first, 0.25 on the slower second GPU.
  auto slow = dev(100.0, 20.0);
  slow.id = "slow-gpu";
  const auto merged = [&](double slow_time) {
    auto a = gated({{"BM_triad", 1e8, 1e9, 62.5e-3}});
    auto b = gated({{"BM_triad", 1e8, 1e9, slow_time}}, slow);
    return perfgate::merge_reports({a, b}, {"a.json", "b.json"});
  };
  const auto same = perfgate::compare_reports(merged(200e-3), merged(200e-3));
  EXPECT_FALSE(same.failed()); // by name alone, the second runner's 0.25 met the first's 0.8
  ASSERT_EQ(same.kernels.size(), 2U);
  for (const auto& k : same.kernels) {
    EXPECT_TRUE(k.failures.empty()) << k.failures.front();
    EXPECT_TRUE(k.warnings.empty()) << k.warnings.front();
  }
  const auto slower = perfgate::compare_reports(merged(200e-3), merged(400e-3));
  EXPECT_TRUE(slower.failed());
  // One runner's report against another's: the one kernel of the name is still compared.
  const auto across = perfgate::compare_reports(gated({{"BM_triad", 1e8, 1e9, 62.5e-3}}),
                                                gated({{"BM_triad", 1e8, 1e9, 62.5e-3}}, slow));
  ASSERT_EQ(across.kernels.size(), 1U);
  EXPECT_TRUE(across.kernels[0].in_base);
}

TEST(Merge, KeepsOriginsAndUnitesDevices) {
  auto a = gated({base_kernels[0]});
  a.meta.host = "runner-a";
  auto other = dev(100.0, 20.0);
  other.id = "gpu-runner";
  auto b = gated({base_kernels[0]}, other);
  const auto m = perfgate::merge_reports({a, b}, {"a.json", "b.json"});
  ASSERT_EQ(m.kernels.size(), 2U);
  EXPECT_EQ(m.kernels[0].origin, "a.json (runner-a)");
  EXPECT_EQ(m.kernels[1].origin, "b.json");
  ASSERT_EQ(m.devices.size(), 2U);
  EXPECT_NE(m.find_device("gpu-runner"), nullptr);
  const auto back = perfgate::report_from_json(perfgate::report_to_json(m), "m.json");
  EXPECT_EQ(back.kernels[1].origin, "b.json");
  EXPECT_NE(perfgate::report_to_markdown(m).find("### gpu-runner"), std::string::npos);
}

TEST(Compare, KernelThatCannotBeJudgedIsNotComparedButWarns) {
  const auto base = gated(base_kernels);
  auto head = gated({{"BM_triad", 1e8, 1e9, 55e-3}, {"BM_dot", 1e8, 0, 45e-3}}); // no bytes
  ASSERT_FALSE(head.kernels[1].skip_reason.empty());
  EXPECT_EQ(head.kernels[1].result.status, perfgate::verdict_status::skip); // the gate left it
  EXPECT_EQ(perfgate::gate_exit_status(head), perfgate::exit_status::pass);
  const auto c = perfgate::compare_reports(base, head);
  EXPECT_FALSE(c.failed());
  const auto dot = std::find_if(c.kernels.begin(), c.kernels.end(),
                                [](const auto& k) { return k.name == "BM_dot"; });
  ASSERT_NE(dot, c.kernels.end());
  ASSERT_EQ(dot->warnings.size(), 1U);
  EXPECT_EQ(dot->warnings.front(), "not compared: cannot be judged in the head report (declared "
                                   "work has no bytes; its intensity is undefined)");
  // A baseline holds a later run only to what was judged.
  const auto b = perfgate::baseline_from_report(head, "head.json");
  ASSERT_EQ(b.kernels.size(), 1U);
  EXPECT_EQ(b.kernels.front().name, "BM_triad");
}

// The suite in one figure opens the comparison: BM_dot 1.5x slower and BM_triad unchanged give
// a geometric mean of sqrt(1.5) with the two-kernel bootstrap's interval 1x .. 1.5x (each
// resample draws {1,1}, {1,1.5} or {1.5,1.5}); both by a point comparison (no samples).
TEST(Compare, SuiteGeomeanOpensTheComparison) {
  auto slowed = base_kernels;
  slowed[1].time_s *= 1.5;
  const auto c = perfgate::compare_reports(gated(base_kernels), gated(slowed));
  ASSERT_TRUE(c.suite.has_value());
  EXPECT_NEAR(c.suite->geomean.estimate, std::sqrt(1.5), 1e-9);
  EXPECT_NEAR(c.suite->geomean.lo, 1.0, 1e-9);
  EXPECT_NEAR(c.suite->geomean.hi, 1.5, 1e-9);
  EXPECT_EQ(c.suite->kernels, 2U);
  EXPECT_EQ(c.suite->unjudged, 2U);
  const auto j = nlohmann::json::parse(perfgate::comparison_to_json(c));
  EXPECT_NEAR(j.at("suite").at("time_ratio").at("estimate").get<double>(), std::sqrt(1.5), 1e-9);
  EXPECT_EQ(j.at("suite").at("kernels").get<int>(), 2);
  const auto md = perfgate::comparison_to_markdown(c);
  EXPECT_EQ(
      md.rfind("## perfgate compare\n\n**suite: geometric mean time ratio head/base 1.225x", 0), 0U)
      << md;
}
