// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "clocked_kernel.hpp"

#include <gtest/gtest.h>

namespace {
perfgate::device cpu() {
  perfgate::device d;
  d.id = "local-cpu";
  d.name = "test CPU";
  d.kind = "cpu";
  d.source = "measured";
  d.peaks = {200.0, 100.0, 100.0, 100.0, 100.0, 20.0}; // O_dev for fp64: 100 / 20 = 5
  return d;
}

// One fp64 kernel with declared work: `flops` over `bytes`, measured at `time_s`.
perfgate::report one_kernel(double flops, double bytes, double time_s,
                            std::vector<perfgate::device> devices = {cpu()}) {
  perfgate::profile p;
  p.source_file = "bench";
  perfgate::kernel_profile k;
  k.name = "BM_kernel";
  k.work = perfgate::declared_work{0, flops, 0, bytes};
  k.time_s = time_s;
  p.kernels.push_back(k);
  return perfgate::predict_report(p, devices);
}

std::string reasons(const perfgate::report& r) {
  std::string all;
  for (const auto& s : r.kernels.at(0).result.reasons) {
    all += s + "\n";
  }
  return all;
}
} // namespace

TEST(Gate, EfficiencyIsRoofTimeOverMeasuredTime) {
  // 1e9 B at 20 GB/s: the roof is 50 ms; measured 62.5 ms -> efficiency 0.8.
  auto r = one_kernel(1e8, 1e9, 62.5e-3);
  perfgate::gate_policy policy;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy);
  const auto& v = r.kernels[0].result;
  EXPECT_EQ(v.status, perfgate::verdict_status::pass);
  EXPECT_DOUBLE_EQ(*v.efficiency, 0.8);
  EXPECT_NE(reasons(r).find("efficiency 0.80 on local-cpu: measured 62.500 ms, roof 50.000 ms, "
                            "memory-bound (O_krn 0.100 <= O_ridge 5.000 op/B, limited by dram); "
                            "the roofline model predicts 50.000 ms"),
            std::string::npos)
      << reasons(r);
  EXPECT_EQ(perfgate::gate_exit_status(r), perfgate::exit_status::pass);
}

TEST(Gate, BelowMinimumFailsAndExplains) {
  auto r = one_kernel(1e8, 1e9, 0.25); // efficiency 0.2
  perfgate::gate_policy policy;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_NE(reasons(r).find("efficiency 0.20 below MIN_EFFICIENCY 0.50 on local-cpu: measured "
                            "250.000 ms, roof 50.000 ms"),
            std::string::npos)
      << reasons(r);
  EXPECT_EQ(perfgate::gate_exit_status(r), perfgate::exit_status::gate_failure);
}

TEST(Gate, ShortKernelsOnlyWarn) {
  // 1e5 B at 20 GB/s: a 5 us bound; measured 8 us (efficiency 0.625 < 0.9) under the 10 us floor.
  auto r = one_kernel(1e4, 1e5, 8e-6);
  perfgate::gate_policy policy;
  policy.min_efficiency = 0.9;
  perfgate::apply_gate(r, policy);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_NE(reasons(r).find("latency-bound by duration: 8.000 us per invocation, under the "
                            "10.000 us threshold"),
            std::string::npos)
      << reasons(r);
  // Without a threshold to fail, the class is still said.
  r = one_kernel(1e4, 1e5, 8e-6);
  perfgate::apply_gate(r, {});
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::pass);
  EXPECT_NE(reasons(r).find("latency-bound by duration"), std::string::npos) << reasons(r);
}

TEST(Gate, BeatingTheBoundFails) {
  auto r = one_kernel(1e8, 1e9, 40e-3); // efficiency 1.25
  perfgate::apply_gate(r, {});
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_NE(reasons(r).find("efficiency 1.25 above MAX_EFFICIENCY 1.10"), std::string::npos);
}

TEST(Gate, ExpectedClassFailsFarFromTheRidgeAndWarnsNearIt) {
  perfgate::gate_policy policy;
  policy.expect_bound = perfgate::bound_class::compute;
  auto far = one_kernel(1e8, 1e9, 60e-3); // O_krn 0.1, O_dev 5
  perfgate::apply_gate(far, policy);
  EXPECT_EQ(far.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_NE(reasons(far).find("expected compute-bound on local-cpu, found memory-bound "
                              "(O_krn 0.100 <= O_ridge 5.000 op/B, limited by dram)"),
            std::string::npos)
      << reasons(far);
  auto near = one_kernel(4.8e9, 1e9, 60e-3); // O_krn 4.8: within 10% of 5
  perfgate::apply_gate(near, policy);
  EXPECT_EQ(near.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_NE(reasons(near).find("within 10.00% of the ridge"), std::string::npos) << reasons(near);
}

TEST(Gate, BaselineClassFlipAndEfficiencyDrop) {
  auto base_report = one_kernel(1e8, 1e9, 55e-3); // efficiency 0.91, memory-bound
  perfgate::apply_gate(base_report, {});
  perfgate::gate_policy policy;
  policy.base = perfgate::baseline_from_report(base_report, "base.json");

  auto same = one_kernel(1e8, 1e9, 56e-3);
  perfgate::apply_gate(same, policy);
  EXPECT_EQ(same.kernels[0].result.status, perfgate::verdict_status::pass) << reasons(same);

  auto slower = one_kernel(1e8, 1e9, 80e-3); // 0.909 -> 0.625: a 31% drop
  perfgate::apply_gate(slower, policy);
  EXPECT_EQ(slower.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_NE(reasons(slower).find("efficiency dropped 31.25% vs the baseline on local-cpu (0.91 -> "
                                 "0.62), more than MAX_EFFICIENCY_DROP 10.00%"),
            std::string::npos)
      << reasons(slower);

  auto flipped = one_kernel(2e10, 1e9, 0.2); // O_krn 20 > 5: compute-bound now
  perfgate::apply_gate(flipped, policy);
  EXPECT_EQ(flipped.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_NE(reasons(flipped).find("class changed on local-cpu: memory-bound -> compute-bound"),
            std::string::npos)
      << reasons(flipped);

  auto renamed = one_kernel(1e8, 1e9, 56e-3);
  renamed.kernels[0].name = "BM_new";
  perfgate::apply_gate(renamed, policy);
  EXPECT_EQ(renamed.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_NE(reasons(renamed).find("not in the baseline base.json"), std::string::npos);
}

TEST(Gate, BaselineJsonRoundTripAndReportAsBaseline) {
  auto r = one_kernel(1e8, 1e9, 55e-3);
  perfgate::apply_gate(r, {});
  const auto b = perfgate::baseline_from_report(r, "r.json");
  const auto back = perfgate::baseline_from_json(perfgate::baseline_to_json(b), "b.json");
  ASSERT_EQ(back.kernels.size(), 1U);
  EXPECT_EQ(back.kernels[0].bounds.at("local-cpu"), perfgate::bound_class::memory);
  EXPECT_NEAR(*back.kernels[0].efficiency, 50.0 / 55.0, 1e-12);
  // A whole report is accepted as a baseline too.
  const auto from_report = perfgate::baseline_from_json(perfgate::report_to_json(r), "r.json");
  EXPECT_EQ(from_report.kernels[0].name, "BM_kernel");
  EXPECT_THROW((void)perfgate::baseline_from_json("{\"schema\": \"x\"}", "b.json"),
               perfgate::input_error);
}

TEST(Gate, OneThreadKernelsUseOneCorePeaks) {
  auto d = cpu();
  d.one_core_peaks = perfgate::device_peaks{100.0, 50.0, 50.0, 50.0, 50.0, 10.0};
  perfgate::profile p;
  perfgate::kernel_profile k;
  k.name = "BM_single";
  k.work = perfgate::declared_work{0, 1e8, 0, 1e9};
  k.time_s = 0.1;
  k.threads = 1;
  p.kernels.push_back(k);
  k.name = "BM_threads";
  k.threads = 2;
  p.kernels.push_back(k);
  const auto r = perfgate::predict_report(p, {d});
  EXPECT_TRUE(r.kernels[0].predictions[0].one_core);
  EXPECT_DOUBLE_EQ(r.kernels[0].predictions[0].predicted_time_s, 0.1); // 1e9 B at 10 GB/s
  EXPECT_FALSE(r.kernels[1].predictions[0].one_core);
  EXPECT_DOUBLE_EQ(r.kernels[1].predictions[0].predicted_time_s, 0.05);
}

namespace {
// A compute-bound fp32 kernel (O_krn 1000 flop/B) on h100-sxm, whose peaks hold at 1980 MHz,
// run at `clock_mhz` and measured at 25 ms, predicted with the local clock scaling `run` uses.
perfgate::report clocked(std::optional<double> clock_mhz, std::vector<std::string> limits) {
  return perfgate::predict_report(
      perfgate::test::clocked_kernel(clock_mhz, std::move(limits)),
      {perfgate::resolve_device("h100-sxm"), perfgate::resolve_device("a100-80gb")}, "", true);
}
} // namespace

TEST(Gate, ClockScaleAndLimitsAreExplained) {
  auto r = clocked(1410, {"sw_power_cap", "hw_thermal_slowdown"});
  perfgate::gate_policy policy;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy);
  const auto all = reasons(r);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::pass) << all;
  // 1e12 flop at 66908.16 x 1410 / 1980 GFLOPS: 20.988 ms bound, efficiency 0.84.
  EXPECT_NE(all.find("efficiency 0.84 on h100-sxm: measured 25.000 ms, roof 20.988 ms"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("SM clock 1410 MHz while the kernel ran vs 1980 MHz for h100-sxm's peaks: "
                     "compute roof scaled by 0.712\n"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("clocks held down by: sw_power_cap, hw_thermal_slowdown\n"), std::string::npos)
      << all;

  // A report read back from JSON has no device clock: the scale recovers it.
  r = clocked(1410, {});
  r.devices[0].sm_clock_mhz.reset();
  perfgate::apply_gate(r, policy);
  EXPECT_NE(reasons(r).find("SM clock 1410 MHz while the kernel ran vs 1980 MHz for h100-sxm's "
                            "peaks: compute roof scaled by 0.712"),
            std::string::npos)
      << reasons(r);
  EXPECT_EQ(reasons(r).find("clocks held down"), std::string::npos);
}

TEST(Gate, ClockNotesDoNotDecideTheVerdict) {
  perfgate::gate_policy policy;
  policy.min_efficiency = 0.5;
  // At the peaks' own clock: no scale and no clock line, but the limits are still told.
  auto r = clocked(1980, {"sw_power_cap"});
  perfgate::apply_gate(r, policy);
  EXPECT_FALSE(r.kernels[0].predictions[0].clock_scale);
  EXPECT_EQ(reasons(r).find("SM clock"), std::string::npos);
  EXPECT_NE(reasons(r).find("clocks held down by: sw_power_cap"), std::string::npos);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::pass); // efficiency 0.60

  // The same kernel without any clock data gets the same verdict.
  auto plain = clocked(std::nullopt, {});
  perfgate::apply_gate(plain, policy);
  EXPECT_EQ(plain.kernels[0].result.status, r.kernels[0].result.status);
  EXPECT_EQ(plain.kernels[0].result.efficiency, r.kernels[0].result.efficiency);
  EXPECT_EQ(reasons(plain).find("clock"), std::string::npos);

  // A failure stays a failure, with the clock explanation after it.
  policy.min_efficiency = 0.9;
  r = clocked(1410, {"hw_thermal_slowdown"});
  perfgate::apply_gate(r, policy);
  ASSERT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(r.kernels[0].result.reasons.front().rfind("efficiency 0.84 below MIN_EFFICIENCY", 0),
            0U);
  EXPECT_NE(reasons(r).find("compute roof scaled by 0.712"), std::string::npos);
}

TEST(Gate, TheRoofNotTheModelIsWhatAKernelMayNotBeat) {
  // B_mem (the model's) 20 GB/s, but the device streamed 25 GB/s in its best pattern: a kernel
  // at 24 GB/s beats the model's prediction and passes against the roof.
  auto d = cpu();
  d.extra_peaks["dram_triad_gbs"] = 25.0;
  auto r = one_kernel(1e8, 1e9, 1e9 / 24e9, {d});
  perfgate::apply_gate(r, {});
  const auto& v = r.kernels[0].result;
  EXPECT_EQ(v.status, perfgate::verdict_status::pass) << reasons(r);
  EXPECT_DOUBLE_EQ(*v.efficiency, 24.0 / 25.0);
  EXPECT_GT(r.kernels[0].predictions[0].predicted_time_s / r.kernels[0].measured->time_s, 1.1);
}

TEST(Gate, AFormatOneBaselineIsNotComparedForEfficiency) {
  auto base_report = one_kernel(1e8, 1e9, 55e-3);
  perfgate::apply_gate(base_report, {});
  auto legacy = perfgate::baseline_from_report(base_report, "old.json");
  legacy.kernels[0].against_roof = false; // as read from perfgate-baseline/1
  perfgate::gate_policy policy;
  policy.base = legacy;
  auto slower = one_kernel(1e8, 1e9, 80e-3); // a 31% drop, if the two were comparable
  perfgate::apply_gate(slower, policy);
  EXPECT_EQ(slower.kernels[0].result.status, perfgate::verdict_status::warn) << reasons(slower);
  EXPECT_NE(reasons(slower).find("efficiencies against the model's predicted time (format "
                                 "version 1)"),
            std::string::npos)
      << reasons(slower);
  EXPECT_FALSE(slower.kernels[0].result.baseline_efficiency);
  const auto text = perfgate::baseline_to_json(legacy);
  EXPECT_NE(text.find("\"perfgate-baseline/1\""), std::string::npos) << text;
}

// Issue 16 #12: a measured time so small that bound / time is inf is refused, not stored as
// an efficiency JSON can only write as null.
TEST(Gate, NonFiniteEfficiencyIsAnError) {
  auto r = one_kernel(1e9, 2e10, 1e-320); // denormal time: bound / 1e-320 s = inf
  try {
    perfgate::apply_gate(r, {});
    FAIL() << "expected usage_error";
  } catch (const perfgate::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'BM_kernel': its measured time"),
              std::string::npos)
        << e.what();
  }
}
