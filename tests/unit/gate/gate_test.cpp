// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "clocked_kernel.hpp"
#include "report/finding_text.hpp"
#include "runner_report.hpp"
#include "test_cpu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {
perfgate::device cpu() { return perfgate::test::test_cpu(); }

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

using perfgate::test::reasons;

// The codes of kernel 0's findings, in the order of its reasons: one finding per reason, the
// reason its sentence.
std::vector<std::string> codes(const perfgate::report& r) {
  std::vector<std::string> out;
  const auto& v = r.kernels.at(0).result;
  for (const auto& f : v.findings) {
    out.push_back(f.code);
  }
  EXPECT_EQ(out.size(), v.reasons.size());
  for (std::size_t i = 0; i < v.findings.size() && i < v.reasons.size(); ++i) {
    EXPECT_EQ(v.reasons[i], perfgate::detail::finding_text(v.findings[i])) << v.findings[i].code;
  }
  return out;
}

// Kernel 0's first finding `code` (the test fails without one).
const perfgate::finding& first(const perfgate::report& r, const std::string& code) {
  for (const auto& f : r.kernels.at(0).result.findings) {
    if (f.code == code) {
      return f;
    }
  }
  ADD_FAILURE() << "no finding " << code;
  static const perfgate::finding none;
  return none;
}

bool has_code(const perfgate::report& r, const std::string& code) {
  const auto all = codes(r);
  return std::find(all.begin(), all.end(), code) != all.end();
}

// The number `name` of kernel 0's first finding `code`, and its severity; NaN where there is
// none (no comparison holds for it).
double number(const perfgate::report& r, const std::string& code, const std::string& name) {
  for (const auto& f : r.kernels.at(0).result.findings) {
    if (f.code == code) {
      const auto n = f.numbers.find(name);
      return n == f.numbers.end() ? std::nan("") : n->second;
    }
  }
  return std::nan("");
}

// The number `name` of the first finding of kernel 0 that carries it (NaN: none does).
double carried(const perfgate::report& r, const std::string& name) {
  for (const auto& f : r.kernels.at(0).result.findings) {
    if (const auto n = f.numbers.find(name); n != f.numbers.end()) {
      return n->second;
    }
  }
  return std::nan("");
}

perfgate::verdict_status severity(const perfgate::report& r, const std::string& code) {
  for (const auto& f : r.kernels.at(0).result.findings) {
    if (f.code == code) {
      return f.severity;
    }
  }
  return perfgate::verdict_status::skip;
}

// The pipeline model's estimate of BM_kernel's launch: `seconds` per launch, 8 warps per group.
perfgate::pipeline::launch_estimate estimate(double seconds, bool latency_bound, double u,
                                             std::uint64_t groups, std::string limited_by,
                                             perfgate::pipeline::unit busiest) {
  perfgate::pipeline::launch_estimate e;
  e.idg = "k.idg.json";
  e.seconds = seconds;
  e.cycles = seconds * 2e9;
  e.utilisation = u;
  e.busiest = busiest;
  e.latency_bound = latency_bound;
  e.resident_groups = groups;
  e.limited_by = std::move(limited_by);
  e.warps_per_group = 8;
  return e;
}
} // namespace

TEST(Gate, EfficiencyIsRoofTimeOverMeasuredTime) {
  // 1e9 B at 20 GB/s: the roof is 50 ms; measured 62.5 ms -> efficiency 0.8.
  auto r = one_kernel(1e8, 1e9, 62.5e-3);
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy, measured);
  const auto& v = r.kernels[0].result;
  EXPECT_EQ(v.status, perfgate::verdict_status::pass);
  EXPECT_DOUBLE_EQ(*v.efficiency, 0.8);
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency"}));
  EXPECT_DOUBLE_EQ(number(r, "efficiency", "efficiency"), 0.8);
  EXPECT_DOUBLE_EQ(number(r, "efficiency", "measured_s"), 62.5e-3);
  EXPECT_NEAR(number(r, "efficiency", "roof_s"), 50e-3, 1e-15);
  EXPECT_NEAR(number(r, "efficiency", "predicted_s"), 50e-3, 1e-15);
  // What its sentence names: the class on the local device, against the roof.
  const auto& said = first(r, "efficiency").context;
  EXPECT_EQ(said.words.at("device"), "local-cpu");
  ASSERT_TRUE(said.bound && said.bound->roof);
  EXPECT_EQ(said.bound->bound, perfgate::bound_class::memory);
  EXPECT_DOUBLE_EQ(said.bound->O_krn, 0.1);
  EXPECT_DOUBLE_EQ(said.bound->ridge, 5.0);
  EXPECT_EQ(said.bound->roof->limiter, "dram");
  EXPECT_EQ(perfgate::gate_exit_status(r), perfgate::exit_status::pass);
}

// A kernel that cannot be judged and one no gate was applied to have codes like the judged
// ones (severity skip), in JSON too; the gate judges the second and leaves the first.
TEST(Gate, KernelsNotJudgedHaveCodesToo) {
  perfgate::profile p;
  p.source_file = "bench";
  perfgate::kernel_profile no_bytes;
  no_bytes.name = "BM_no_bytes";
  no_bytes.work = perfgate::declared_work{0, 1e8, 0, 0};
  no_bytes.time_s = 1e-3;
  perfgate::kernel_profile k;
  k.name = "BM_kernel";
  k.work = perfgate::declared_work{0, 1e8, 0, 1e9};
  k.time_s = 62.5e-3;
  p.kernels = {no_bytes, k};
  auto r = perfgate::predict_report(p, {cpu()});
  ASSERT_EQ(r.kernels.size(), 2U);
  const auto code_of = [](const perfgate::kernel_report& kr) {
    EXPECT_EQ(kr.result.findings.size(), 1U);
    EXPECT_EQ(kr.result.reasons.size(), 1U);
    return kr.result.findings.empty() ? std::string() : kr.result.findings[0].code;
  };
  EXPECT_EQ(code_of(r.kernels[0]), "cannot_be_judged");
  EXPECT_EQ(r.kernels[0].result.findings[0].severity, perfgate::verdict_status::skip);
  EXPECT_EQ(r.kernels[0].result.findings[0].context.words.at("skip_reason"),
            r.kernels[0].skip_reason);
  EXPECT_EQ(code_of(r.kernels[1]), "prediction_only");
  EXPECT_EQ(r.kernels[1].result.findings[0].severity, perfgate::verdict_status::skip);

  // Read back: the codes and severities, the reasons as written.
  const auto back = perfgate::report_from_json(perfgate::report_to_json(r), "r.json");
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(code_of(back.kernels[i]), code_of(r.kernels[i]));
    EXPECT_EQ(back.kernels[i].result.findings[0].severity, perfgate::verdict_status::skip);
    EXPECT_EQ(back.kernels[i].result.reasons, r.kernels[i].result.reasons);
  }

  perfgate::apply_gate(r, {});
  EXPECT_EQ(code_of(r.kernels[0]), "cannot_be_judged");
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::skip);
  EXPECT_EQ(code_of(r.kernels[1]), "efficiency");
}

TEST(Gate, BelowMinimumFailsAndExplains) {
  auto r = one_kernel(1e8, 1e9, 0.25); // efficiency 0.2
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy, measured);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency_below_floor"}));
  EXPECT_EQ(severity(r, "efficiency_below_floor"), perfgate::verdict_status::fail);
  EXPECT_DOUBLE_EQ(number(r, "efficiency_below_floor", "efficiency"), 0.2);
  EXPECT_DOUBLE_EQ(number(r, "efficiency_below_floor", "min_efficiency"), 0.5);
  EXPECT_DOUBLE_EQ(number(r, "efficiency_below_floor", "measured_s"), 0.25);
  EXPECT_EQ(perfgate::gate_exit_status(r), perfgate::exit_status::gate_failure);
}

TEST(Gate, ShortKernelsOnlyWarn) {
  // 1e5 B at 20 GB/s: a 5 us bound; measured 8 us (efficiency 0.625 < 0.9) under the 10 us floor.
  auto r = one_kernel(1e4, 1e5, 8e-6);
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.min_efficiency = 0.9;
  perfgate::apply_gate(r, policy, measured);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency_below_floor_latency_bound"}));
  EXPECT_DOUBLE_EQ(number(r, "efficiency_below_floor_latency_bound", "per_invocation_s"), 8e-6);
  EXPECT_DOUBLE_EQ(number(r, "efficiency_below_floor_latency_bound", "latency_floor_s"), 10e-6);
  EXPECT_DOUBLE_EQ(number(r, "efficiency_below_floor_latency_bound", "min_efficiency"), 0.9);
  // Without a threshold to fail, the class is still said.
  r = one_kernel(1e4, 1e5, 8e-6);
  perfgate::apply_gate(r, {});
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::pass);
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency"}));
  EXPECT_EQ(first(r, "efficiency").context.words.count("latency_evidence"), 1U);
}

TEST(Gate, ExpectedLatencyIsMetByDurationAndElseUnavailableNeverFailed) {
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.expect_latency = true;
  auto short_kernel = one_kernel(1e4, 1e5, 8e-6); // 8 us per invocation
  perfgate::apply_gate(short_kernel, policy, measured);
  EXPECT_EQ(short_kernel.kernels[0].result.status, perfgate::verdict_status::pass);
  EXPECT_EQ(codes(short_kernel),
            (std::vector<std::string>{"efficiency", "latency_bound_as_expected"}));
  EXPECT_DOUBLE_EQ(number(short_kernel, "latency_bound_as_expected", "per_invocation_s"), 8e-6);
  auto long_kernel = one_kernel(1e8, 1e9, 62.5e-3); // a streaming kernel: no guess either way
  perfgate::apply_gate(long_kernel, policy, measured);
  EXPECT_EQ(long_kernel.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_EQ(severity(long_kernel, "latency_class_unavailable"), perfgate::verdict_status::warn);
  EXPECT_DOUBLE_EQ(number(long_kernel, "latency_class_unavailable", "per_invocation_s"), 62.5e-3);
}

TEST(Gate, BeatingTheBoundFails) {
  auto r = one_kernel(1e8, 1e9, 40e-3); // efficiency 1.25
  perfgate::apply_gate(r, {});
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency_above_max"}));
  EXPECT_DOUBLE_EQ(number(r, "efficiency_above_max", "efficiency"), 1.25);
  EXPECT_DOUBLE_EQ(number(r, "efficiency_above_max", "max_efficiency"), 1.10);
}

TEST(Gate, AboveTheRoofWithinTheAllowanceWarnsNamingTheStalePeak) {
  auto r = one_kernel(1e8, 1e9, 50e-3 / 1.05); // efficiency 1.05, under MAX_EFFICIENCY 1.10
  perfgate::apply_gate(r, {});
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency_above_roof"}));
  EXPECT_NEAR(number(r, "efficiency_above_roof", "efficiency"), 1.05, 1e-12);
  // The stale peak its sentence names: the roof's limiting term, dram at 20 GB/s.
  const auto& roof = first(r, "efficiency_above_roof").context.bound->roof;
  ASSERT_TRUE(roof);
  EXPECT_EQ(roof->limiter, "dram");
  auto at_roof = one_kernel(1e8, 1e9, 50e-3); // efficiency 1: at the roof, not above it
  perfgate::apply_gate(at_roof, {});
  EXPECT_EQ(at_roof.kernels[0].result.status, perfgate::verdict_status::pass);
}

TEST(Gate, ExpectedClassFailsFarFromTheRidgeAndWarnsNearIt) {
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.expect_bound = perfgate::bound_class::compute;
  auto far = one_kernel(1e8, 1e9, 60e-3); // O_krn 0.1, O_dev 5
  perfgate::apply_gate(far, policy, measured);
  EXPECT_EQ(far.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(severity(far, "class_unexpected"), perfgate::verdict_status::fail);
  EXPECT_DOUBLE_EQ(number(far, "class_unexpected", "O_krn"), 0.1);
  EXPECT_DOUBLE_EQ(number(far, "class_unexpected", "ridge"), 5.0);
  auto near = one_kernel(4.8e9, 1e9, 60e-3); // O_krn 4.8: within 10% of 5
  perfgate::apply_gate(near, policy, measured);
  EXPECT_EQ(near.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_EQ(severity(near, "class_unexpected_near_ridge"), perfgate::verdict_status::warn);
  EXPECT_DOUBLE_EQ(number(near, "class_unexpected_near_ridge", "ridge_margin"), 0.10);
}

TEST(Gate, BaselineClassFlipAndEfficiencyDrop) {
  auto base_report = one_kernel(1e8, 1e9, 55e-3); // efficiency 0.91, memory-bound
  perfgate::apply_gate(base_report, {});
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");

  auto same = one_kernel(1e8, 1e9, 56e-3);
  perfgate::apply_gate(same, policy, measured);
  EXPECT_EQ(same.kernels[0].result.status, perfgate::verdict_status::pass) << reasons(same);

  auto slower = one_kernel(1e8, 1e9, 80e-3); // 0.909 -> 0.625: a 31% drop
  perfgate::apply_gate(slower, policy, measured);
  EXPECT_EQ(slower.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(severity(slower, "efficiency_dropped"), perfgate::verdict_status::fail);
  EXPECT_DOUBLE_EQ(number(slower, "efficiency_dropped", "drop"), 0.3125);
  EXPECT_DOUBLE_EQ(number(slower, "efficiency_dropped", "samples"), 0);

  auto flipped = one_kernel(2e10, 1e9, 0.2); // O_krn 20 > 5: compute-bound now
  perfgate::apply_gate(flipped, policy, measured);
  EXPECT_EQ(flipped.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(severity(flipped, "class_changed"), perfgate::verdict_status::fail);
  EXPECT_DOUBLE_EQ(number(flipped, "class_changed", "O_krn"), 20);
  EXPECT_DOUBLE_EQ(number(flipped, "class_changed", "base_O_krn"), 0.1);

  auto renamed = one_kernel(1e8, 1e9, 56e-3);
  renamed.kernels[0].name = "BM_new";
  perfgate::apply_gate(renamed, policy, measured);
  EXPECT_EQ(renamed.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_EQ(severity(renamed, "not_in_baseline"), perfgate::verdict_status::warn);
}

namespace {
// One kernel measured in `samples` (seconds, one iteration each, like benchmark repetitions).
perfgate::report sampled_kernel(double bytes, std::vector<double> samples,
                                const perfgate::device& d = cpu()) {
  perfgate::profile p;
  p.source_file = "bench";
  perfgate::kernel_profile k;
  k.name = "BM_kernel";
  k.work = perfgate::declared_work{0, 1e8, 0, bytes};
  k.duration = perfgate::duration_stats::from_samples(std::move(samples));
  k.time_s = k.duration->median_s;
  p.kernels.push_back(k);
  return perfgate::predict_report(p, {d});
}

// 10 samples around `median` with a 1% spread, in a fixed order.
std::vector<double> around(double median) {
  std::vector<double> v;
  for (double f : {1.0, 0.99, 1.01, 0.995, 1.005, 0.985, 1.015, 0.998, 1.002, 1.0}) {
    v.push_back(median * f);
  }
  return v;
}
} // namespace

TEST(Gate, BaselineSamplesGiveAStatisticalVerdict) {
  auto base_report = sampled_kernel(1e9, around(62.5e-3)); // roof 50 ms: efficiency 0.8
  perfgate::apply_gate(base_report, {});
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  ASSERT_EQ(measured.base->kernels[0].efficiency_runs.size(), 1U);
  ASSERT_EQ(measured.base->kernels[0].efficiency_runs[0].size(), 10U);
  EXPECT_NEAR(measured.base->kernels[0].efficiency_runs[0][1], 0.8 / 0.99, 1e-12);

  auto same = sampled_kernel(1e9, around(62.5e-3));
  perfgate::apply_gate(same, policy, measured);
  ASSERT_TRUE(same.kernels[0].result.change);
  EXPECT_EQ(same.kernels[0].result.change->kind, perfgate::stats::change::same);
  EXPECT_EQ(same.kernels[0].result.status, perfgate::verdict_status::pass);
  EXPECT_EQ(severity(same, "same"), perfgate::verdict_status::pass);
  EXPECT_NEAR(number(same, "same", "time_ratio"), 1.0, 1e-12);
  EXPECT_EQ(number(same, "same", "samples"), 10);
  EXPECT_EQ(number(same, "same", "base_samples"), 10);

  auto slower = sampled_kernel(1e9, around(62.5e-3 * 1.2));
  perfgate::apply_gate(slower, policy, measured);
  EXPECT_EQ(slower.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_TRUE(slower.kernels[0].result.change->beyond_allowed);
  EXPECT_EQ(severity(slower, "slower_than_base"), perfgate::verdict_status::fail);
  EXPECT_NEAR(number(slower, "slower_than_base", "time_ratio"), 1.2, 1e-9);
  EXPECT_GT(number(slower, "slower_than_base", "time_ratio_lo"), 1 / 0.9);
  EXPECT_NEAR(number(slower, "slower_than_base", "allowed"), 1 / 0.9, 1e-12);

  auto small = sampled_kernel(1e9, around(62.5e-3 * 1.05)); // real, but within the 10%
  perfgate::apply_gate(small, policy, measured);
  EXPECT_EQ(small.kernels[0].result.status, perfgate::verdict_status::pass) << reasons(small);
  EXPECT_EQ(severity(small, "slower_within_allowance"), perfgate::verdict_status::pass);

  auto faster = sampled_kernel(1e9, around(62.5e-3 * 0.8));
  perfgate::apply_gate(faster, policy, measured);
  EXPECT_EQ(faster.kernels[0].result.change->kind, perfgate::stats::change::faster);
  EXPECT_EQ(faster.kernels[0].result.status, perfgate::verdict_status::pass);
}

TEST(Gate, AmbiguousWarnsAndSaysWhatWouldSettleIt) {
  auto base_report = sampled_kernel(1e9, around(62.5e-3));
  perfgate::apply_gate(base_report, {});
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  // 1.11x with a 10% spread: compatible with both less and more than the 1.111x allowed.
  std::vector<double> wide;
  for (double f : {0.9, 1.1, 0.95, 1.05, 1.0, 0.92, 1.08, 0.97, 1.03, 1.0}) {
    wide.push_back(62.5e-3 * 1.11 * f);
  }
  auto head = sampled_kernel(1e9, wide);
  perfgate::apply_gate(head, policy, measured);
  EXPECT_EQ(head.kernels[0].result.status, perfgate::verdict_status::warn) << reasons(head);
  EXPECT_EQ(head.kernels[0].result.change->kind, perfgate::stats::change::ambiguous);
  EXPECT_EQ(severity(head, "ambiguous"), perfgate::verdict_status::warn);
  EXPECT_LT(number(head, "ambiguous", "time_ratio_lo"), 1 / 0.9);
  EXPECT_GT(number(head, "ambiguous", "time_ratio_hi"), 1 / 0.9);
  EXPECT_GT(number(head, "ambiguous", "samples_to_settle"), 10);
}

TEST(Gate, AChangeInWorkIsReportedWhateverTheTiming) {
  auto base_report = sampled_kernel(1e9, around(62.5e-3));
  perfgate::apply_gate(base_report, {});
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  // 38% more traffic in 38% more time: the efficiency is the same, the work is not.
  auto more = sampled_kernel(1.38e9, around(62.5e-3 * 1.38));
  perfgate::apply_gate(more, policy, measured);
  EXPECT_EQ(more.kernels[0].result.change->kind, perfgate::stats::change::same) << reasons(more);
  EXPECT_EQ(more.kernels[0].result.status, perfgate::verdict_status::warn);
  EXPECT_EQ(severity(more, "work_changed"), perfgate::verdict_status::warn);
  EXPECT_DOUBLE_EQ(number(more, "work_changed", "W_traf"), 1.38e9);
  EXPECT_DOUBLE_EQ(number(more, "work_changed", "base_W_traf"), 1e9);
}

TEST(Gate, ABaselineOfSeveralRunsAllowsTheirSpread) {
  // Three baseline runs whose medians sit 0%, +4% and +8% apart (each with a 1% spread), as
  // separate CI runs on a shared VM do: a later run 8% slower than the first is within what
  // runs do; judged against the first run alone it is a confident 8% slowdown.
  std::vector<perfgate::report> runs;
  for (double shift : {1.0, 1.04, 1.08}) {
    runs.push_back(sampled_kernel(1e9, around(62.5e-3 * shift)));
    perfgate::apply_gate(runs.back(), {});
  }
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.max_efficiency_drop = 0.05;
  measured.base = perfgate::baseline_from_reports(runs, "runs");
  ASSERT_EQ(measured.base->kernels[0].efficiency_runs.size(), 3U);
  EXPECT_NEAR(*measured.base->kernels[0].efficiency, 0.8 / 1.04, 1e-12); // the median run's

  auto drifted = sampled_kernel(1e9, around(62.5e-3 * 1.08));
  perfgate::apply_gate(drifted, policy, measured);
  EXPECT_NE(drifted.kernels[0].result.status, perfgate::verdict_status::fail) << reasons(drifted);
  EXPECT_EQ(carried(drifted, "base_samples"), 30);
  EXPECT_EQ(carried(drifted, "base_runs"), 3);
  perfgate::gate_measurements one_run = measured;
  one_run.base = perfgate::baseline_from_report(runs.front(), "run 1");
  auto same_drift = sampled_kernel(1e9, around(62.5e-3 * 1.08));
  perfgate::apply_gate(same_drift, policy, one_run);
  EXPECT_EQ(same_drift.kernels[0].result.status, perfgate::verdict_status::fail)
      << reasons(same_drift);

  // Three runs say little about how far a fourth may wander (Student's t with 2 degrees of
  // freedom): 25% past the median run is AMBIGUOUS, 50% fails.
  auto slower = sampled_kernel(1e9, around(62.5e-3 * 1.04 * 1.25));
  perfgate::apply_gate(slower, policy, measured);
  EXPECT_EQ(slower.kernels[0].result.change->kind, perfgate::stats::change::ambiguous)
      << reasons(slower);
  EXPECT_EQ(severity(slower, "ambiguous"), perfgate::verdict_status::warn);
  EXPECT_EQ(number(slower, "ambiguous", "samples_to_settle"), 0); // more runs, not samples
  EXPECT_EQ(number(slower, "ambiguous", "base_runs"), 3);
  auto much_slower = sampled_kernel(1e9, around(62.5e-3 * 1.04 * 1.5));
  perfgate::apply_gate(much_slower, policy, measured);
  EXPECT_EQ(much_slower.kernels[0].result.status, perfgate::verdict_status::fail)
      << reasons(much_slower);
}

namespace {
// The sampled kernel measured on a CPU called `id` whose roof is `slower` times lower.
perfgate::report on_device(const std::string& id, double slower, double time_s) {
  auto d = cpu();
  d.id = id;
  d.peaks.dram_gbs /= slower;
  auto r = sampled_kernel(1e9, around(time_s), d);
  perfgate::apply_gate(r, {});
  return r;
}
} // namespace

TEST(Gate, OneBaselineHoldsEachDevicesOwnRuns) {
  // Two runners: a fast CPU (roof 50 ms) and one with half its bandwidth (roof 100 ms), two runs
  // each; a kernel is judged against its own device's entry only.
  const auto b = perfgate::baseline_from_reports(
      {on_device("fast-cpu", 1, 62.5e-3), on_device("slow-cpu", 2, 125e-3),
       on_device("fast-cpu", 1, 63e-3), on_device("slow-cpu", 2, 126e-3)},
      "runners");
  ASSERT_EQ(b.kernels.size(), 2U);
  EXPECT_EQ(b.devices_of("BM_kernel"), (std::vector<std::string>{"fast-cpu", "slow-cpu"}));
  EXPECT_EQ(b.find("BM_kernel", "slow-cpu")->efficiency_runs.size(), 2U);
  EXPECT_EQ(b.find("BM_kernel", "other"), nullptr);
  const auto back = perfgate::baseline_from_json(perfgate::baseline_to_json(b), "b.json");
  ASSERT_EQ(back.kernels.size(), 2U);
  EXPECT_EQ(back.kernels[1].local_device, "slow-cpu");

  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = back;
  auto slow_ok = on_device("slow-cpu", 2, 125.5e-3); // 0.80 like its own runs: SAME
  perfgate::apply_gate(slow_ok, policy, measured);
  EXPECT_EQ(slow_ok.kernels[0].result.status, perfgate::verdict_status::pass) << reasons(slow_ok);
  EXPECT_EQ(number(slow_ok, "same", "base_samples"), 20);
  EXPECT_EQ(number(slow_ok, "same", "base_runs"), 2);
  auto new_runner = on_device("new-cpu", 1, 62.5e-3);
  perfgate::apply_gate(new_runner, policy, measured);
  EXPECT_EQ(codes(new_runner), (std::vector<std::string>{"not_in_baseline", "efficiency"}));
  const auto& missing = first(new_runner, "not_in_baseline");
  EXPECT_EQ(missing.severity, perfgate::verdict_status::warn);
  EXPECT_EQ(missing.context.words.at("base_name"), "runners");
  EXPECT_EQ(missing.context.lists.at("elsewhere"),
            (std::vector<std::string>{"fast-cpu", "slow-cpu"}));
}

TEST(Gate, SamplesWorkAndTheChangeSurviveJson) {
  auto base_report = sampled_kernel(1e9, around(62.5e-3));
  perfgate::apply_gate(base_report, {});
  const auto b = perfgate::baseline_from_report(base_report, "base.json");
  const auto back = perfgate::baseline_from_json(perfgate::baseline_to_json(b), "b.json");
  EXPECT_EQ(back.kernels[0].efficiency_runs, b.kernels[0].efficiency_runs);
  EXPECT_EQ(back.kernels[0].W_traf, 1e9);
  EXPECT_EQ(back.kernels[0].W_comp, 1e8);

  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = back;
  auto slower = sampled_kernel(1e9, around(62.5e-3 * 1.2));
  perfgate::apply_gate(slower, policy, measured);
  const auto read = perfgate::report_from_json(perfgate::report_to_json(slower), "r.json");
  const auto& c = read.kernels[0].result.change;
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, perfgate::stats::change::slower);
  EXPECT_TRUE(c->beyond_allowed);
  EXPECT_EQ(c->ratio.estimate, slower.kernels[0].result.change->ratio.estimate);
  EXPECT_EQ(c->test.p_greater, slower.kernels[0].result.change->test.p_greater);
  EXPECT_NEAR(c->allowed, 1 / 0.9, 1e-12);
}

// One kernel 1.2x slower with samples on both sides: the suite's geometric mean is its verdict's
// ratio, its interval the kernel's samples resampled (so not zero-width), one SLOWER; the report
// JSON carries it and reads it back. Without a baseline there is no suite.
TEST(Gate, AGateAgainstABaselineCarriesTheSuitesFigure) {
  auto base_report = sampled_kernel(1e9, around(62.5e-3));
  perfgate::apply_gate(base_report, {});
  EXPECT_FALSE(base_report.suite);
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  auto slower = sampled_kernel(1e9, around(62.5e-3 * 1.2));
  perfgate::apply_gate(slower, {}, measured);
  ASSERT_TRUE(slower.suite);
  const auto& s = *slower.suite;
  EXPECT_NEAR(s.geomean.estimate, slower.kernels[0].result.change->ratio.estimate, 1e-12);
  EXPECT_LT(s.geomean.lo, s.geomean.estimate);
  EXPECT_GT(s.geomean.hi, s.geomean.estimate);
  EXPECT_GT(s.geomean.lo, 1.1); // a 1.2x slowdown in 1% noise
  EXPECT_EQ(s.kernels, 1U);
  EXPECT_EQ(s.slower, 1U);
  EXPECT_EQ(s.same + s.faster + s.ambiguous + s.unjudged, 0U);
  const auto read = perfgate::report_from_json(perfgate::report_to_json(slower), "r.json");
  ASSERT_TRUE(read.suite);
  EXPECT_EQ(read.suite->geomean.lo, s.geomean.lo);
  EXPECT_EQ(read.suite->geomean.hi, s.geomean.hi);
  EXPECT_EQ(read.suite->slower, 1U);
  EXPECT_EQ(read.suite->resamples, s.resamples);
}

TEST(Gate, ClocksThatDifferFromTheBaselinesAreWarnedAbout) {
  const auto dev = perfgate::resolve_device("h100-sxm");
  auto base_report =
      perfgate::predict_report(perfgate::test::clocked_kernel(1980, {}), {dev}, "", true);
  perfgate::apply_gate(base_report, {});
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  const auto back =
      perfgate::baseline_from_json(perfgate::baseline_to_json(*measured.base), "base.json");
  ASSERT_TRUE(back.kernels[0].sm_clock_mhz);
  EXPECT_EQ(*back.kernels[0].sm_clock_mhz, 1980);

  auto same = perfgate::predict_report(perfgate::test::clocked_kernel(1975, {}), {dev}, "", true);
  perfgate::apply_gate(same, policy, measured);
  EXPECT_FALSE(has_code(same, "clock_differs_from_baseline")) << reasons(same); // within 2%

  auto held = perfgate::predict_report(perfgate::test::clocked_kernel(1410, {"sw_power_cap"}),
                                       {dev}, "", true);
  perfgate::apply_gate(held, policy, measured);
  EXPECT_EQ(number(held, "clock_differs_from_baseline", "mhz"), 1410);
  EXPECT_EQ(number(held, "clock_differs_from_baseline", "base_mhz"), 1980);
  EXPECT_EQ(severity(held, "clocks_held_down_unlike_baseline"), perfgate::verdict_status::warn);
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
  perfgate::gate_measurements measured;
  policy.min_efficiency = 0.5;
  perfgate::apply_gate(r, policy, measured);
  const auto all = reasons(r);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::pass) << all;
  // 1e12 flop at 66908.16 x 1410 / 1980 GFLOPS: 20.988 ms bound, efficiency 0.84.
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency", "clock_scaled", "clocks_held_down"}));
  EXPECT_NEAR(number(r, "efficiency", "roof_s"), 20.988e-3, 5e-7);
  EXPECT_NEAR(number(r, "efficiency", "efficiency"), 0.84, 5e-3);
  EXPECT_EQ(number(r, "clock_scaled", "mhz"), 1410);
  EXPECT_EQ(number(r, "clock_scaled", "peaks_mhz"), 1980);
  EXPECT_EQ(first(r, "clock_scaled").context.words.at("device"), "h100-sxm");
  EXPECT_EQ(first(r, "clocks_held_down").context.lists.at("clock_limits"),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));

  // A report read back from JSON has no device clock: the scale recovers it.
  r = clocked(1410, {});
  r.devices[0].sm_clock_mhz.reset();
  perfgate::apply_gate(r, policy, measured);
  EXPECT_EQ(number(r, "clock_scaled", "mhz"), 1410);
  EXPECT_DOUBLE_EQ(number(r, "clock_scaled", "peaks_mhz"), 1980);
  EXPECT_FALSE(has_code(r, "clocks_held_down"));
  EXPECT_NEAR(number(r, "clock_scaled", "clock_scale"), 0.712, 5e-4);
}

// A Google Benchmark benchmark timed on its thread's CPU time: a real time more than 5% longer
// is told as a note (others had the core, or the benchmark waits) and decides nothing; 4% is
// the clocks' own difference and says nothing.
TEST(Gate, ARealTimeLongerThanTheCpuTimeItWasTimedOnIsANote) {
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.min_efficiency = 0.5;
  auto r = clocked(1980, {});
  const double cpu_s = r.kernels[0].measured->time_s;
  r.kernels[0].measured->real_time_s = 1.04 * cpu_s;
  perfgate::apply_gate(r, policy, measured);
  EXPECT_FALSE(has_code(r, "timed_on_cpu_time"));
  const auto status = r.kernels[0].result.status;

  r = clocked(1980, {});
  r.kernels[0].measured->real_time_s = 1.64 * cpu_s;
  perfgate::apply_gate(r, policy, measured);
  EXPECT_EQ(severity(r, "timed_on_cpu_time"), perfgate::verdict_status::pass);
  EXPECT_DOUBLE_EQ(number(r, "timed_on_cpu_time", "cpu_time_s"), cpu_s);
  EXPECT_DOUBLE_EQ(number(r, "timed_on_cpu_time", "real_time_s"), 1.64 * cpu_s);
  EXPECT_EQ(r.kernels[0].result.status, status);
}

TEST(Gate, ClockNotesDoNotDecideTheVerdict) {
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.min_efficiency = 0.5;
  // At the peaks' own clock: no scale and no clock line, but the limits are still told.
  auto r = clocked(1980, {"sw_power_cap"});
  perfgate::apply_gate(r, policy, measured);
  EXPECT_FALSE(r.kernels[0].predictions[0].clock_scale);
  EXPECT_FALSE(has_code(r, "clock_scaled"));
  EXPECT_EQ(severity(r, "clocks_held_down"), perfgate::verdict_status::pass);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::pass); // efficiency 0.60

  // The same kernel without any clock data gets the same verdict.
  auto plain = clocked(std::nullopt, {});
  perfgate::apply_gate(plain, policy, measured);
  EXPECT_EQ(plain.kernels[0].result.status, r.kernels[0].result.status);
  EXPECT_EQ(plain.kernels[0].result.efficiency, r.kernels[0].result.efficiency);
  EXPECT_EQ(codes(plain), (std::vector<std::string>{"efficiency"}));

  // A failure stays a failure, with the clock explanation after it.
  policy.min_efficiency = 0.9;
  r = clocked(1410, {"hw_thermal_slowdown"});
  perfgate::apply_gate(r, policy, measured);
  ASSERT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(codes(r), (std::vector<std::string>{"efficiency_below_floor", "clock_scaled",
                                                "clocks_held_down"}));
  EXPECT_NEAR(number(r, "efficiency_below_floor", "efficiency"), 0.84, 5e-3);
  EXPECT_NEAR(number(r, "clock_scaled", "clock_scale"), 0.712, 5e-4);
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
  perfgate::gate_measurements measured;
  measured.base = legacy;
  auto slower = one_kernel(1e8, 1e9, 80e-3); // a 31% drop, if the two were comparable
  perfgate::apply_gate(slower, policy, measured);
  EXPECT_EQ(slower.kernels[0].result.status, perfgate::verdict_status::warn) << reasons(slower);
  EXPECT_EQ(severity(slower, "baseline_not_comparable"), perfgate::verdict_status::warn)
      << reasons(slower);
  EXPECT_FALSE(has_code(slower, "efficiency_dropped"));
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

TEST(Gate, ThePipelineModelsLatencyClassDecidesWhereItHasTheKernel) {
  // Roof 50 ms; measured 62.5 ms (0.80 of the roof). The model: 25 ms per launch.
  const auto model = estimate(25e-3, true, 0.3, 2, "registers", perfgate::pipeline::unit::gmem);
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  policy.min_efficiency = 0.5;
  policy.expect_latency = true;
  measured.pipeline["BM_kernel"] = model;
  // Latency-bound by the model: MIN_EFFICIENCY holds against its 25 ms (0.40), not the roof.
  auto r = one_kernel(1e8, 1e9, 62.5e-3);
  perfgate::apply_gate(r, policy, measured);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(codes(r),
            (std::vector<std::string>{"pipeline_efficiency_below_floor", "efficiency_against_roof",
                                      "latency_bound_as_expected"}));
  EXPECT_DOUBLE_EQ(number(r, "pipeline_efficiency_below_floor", "pipeline_efficiency"), 0.4);
  EXPECT_DOUBLE_EQ(number(r, "pipeline_efficiency_below_floor", "pipeline_s"), 25e-3);
  EXPECT_DOUBLE_EQ(number(r, "pipeline_efficiency_below_floor", "min_efficiency"), 0.5);
  EXPECT_EQ(first(r, "pipeline_efficiency_below_floor").context.estimate->resident_groups, 2U);
  EXPECT_EQ(number(r, "latency_bound_as_expected", "resident_groups"), 2);
  // Throughput-bound by the model: the roof's efficiency decides (0.80 passes), and a kernel
  // expected latency-bound fails, whatever its duration.
  measured.pipeline["BM_kernel"].latency_bound = false;
  measured.pipeline["BM_kernel"].utilisation = 0.95;
  auto t = one_kernel(1e8, 1e9, 62.5e-3);
  perfgate::apply_gate(t, policy, measured);
  EXPECT_EQ(t.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(severity(t, "class_unexpected"), perfgate::verdict_status::fail) << reasons(t);
  EXPECT_DOUBLE_EQ(number(t, "class_unexpected", "utilisation"), 0.95);
  EXPECT_FALSE(has_code(t, "efficiency_below_floor"));
  EXPECT_FALSE(has_code(t, "pipeline_efficiency_below_floor"));
}

TEST(Gate, AKernelTurningLatencyBoundAfterAnOccupancyDropIsAClassChange) {
  const auto before = estimate(40e-3, false, 0.9, 8, "warps", perfgate::pipeline::unit::alu);
  perfgate::gate_measurements first;
  first.pipeline["BM_kernel"] = before;
  auto base_run = one_kernel(1e8, 1e9, 62.5e-3);
  perfgate::apply_gate(base_run, {}, first);
  // Through JSON, as `perfgate baseline accept` reads the report and a later run the baseline.
  const auto back = perfgate::report_from_json(perfgate::report_to_json(base_run), "base.json");
  ASSERT_TRUE(back.kernels[0].pipeline);
  EXPECT_EQ(back.kernels[0].pipeline->resident_groups, 8U);
  const auto base = perfgate::baseline_from_json(
      perfgate::baseline_to_json(perfgate::baseline_from_report(back, "base.json")), "b.json");
  ASSERT_TRUE(base.kernels[0].latency_bound);
  EXPECT_FALSE(*base.kernels[0].latency_bound);

  // More registers: 2 groups resident, too few warps to hide latency.
  const auto after = estimate(40e-3, true, 0.3, 2, "registers", perfgate::pipeline::unit::alu);
  perfgate::gate_measurements second;
  second.base = base;
  second.pipeline["BM_kernel"] = after;
  auto r = one_kernel(1e8, 1e9, 62.5e-3);
  perfgate::apply_gate(r, {}, second);
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::fail);
  EXPECT_EQ(severity(r, "turned_latency_bound"), perfgate::verdict_status::fail) << reasons(r);
  EXPECT_EQ(number(r, "turned_latency_bound", "base_resident_groups"), 8);
  EXPECT_EQ(number(r, "turned_latency_bound", "resident_groups"), 2);
  EXPECT_DOUBLE_EQ(number(r, "turned_latency_bound", "utilisation"), 0.3);
  // Back to throughput-bound is said, not failed.
  second.base = perfgate::baseline_from_report(r, "r.json");
  second.pipeline["BM_kernel"] = before;
  auto again = one_kernel(1e8, 1e9, 62.5e-3);
  perfgate::apply_gate(again, {}, second);
  EXPECT_EQ(severity(again, "turned_throughput_bound"), perfgate::verdict_status::pass);
  EXPECT_EQ(number(again, "turned_throughput_bound", "base_resident_groups"), 2);
  EXPECT_EQ(again.kernels[0].result.status, perfgate::verdict_status::pass);
}

// A baseline that keeps its build: the stored runs flag a 1.2x slowdown, and the runs of the
// stored build and this one in one session decide. The same speed in that session (the
// runner slowed down since the baseline): SAME, a pass, what the stored runs said kept as a
// note. A slowdown in that session too: it fails on the session's verdict.
TEST(Gate, TheStoredBuildsSessionDecidesOverTheStoredRuns) {
  auto base_report = sampled_kernel(1e9, around(62.5e-3)); // roof 50 ms: efficiency 0.8
  perfgate::apply_gate(base_report, {});
  perfgate::gate_policy policy;
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  measured.base->build = perfgate::stored_build{"base.build/bench", "0123456789abcdef"};
  auto head = sampled_kernel(1e9, around(62.5e-3 * 1.2));
  perfgate::apply_gate(head, policy, measured);
  ASSERT_EQ(head.kernels[0].result.status, perfgate::verdict_status::fail); // the stored runs

  perfgate::interleaved_runs same;
  same.base_name = "base.build/bench";
  same.base_roof_s = same.head_roof_s = 50e-3; // the kernel's roof in both builds
  for (int round = 0; round < 6; ++round) { // both builds at 1.5x the roof, as measured
    same.base_s.push_back({50e-3 * 1.5 * (1 + 0.001 * round)});
    same.head_s.push_back({50e-3 * 1.5 * (1 + 0.001 * (5 - round))});
  }
  measured.ab_runs["BM_kernel"] = same;
  perfgate::apply_gate(head, policy, measured);
  const auto& v = head.kernels[0].result;
  EXPECT_EQ(v.status, perfgate::verdict_status::pass) << reasons(head);
  ASSERT_TRUE(v.ab);
  EXPECT_EQ(v.ab->kind, perfgate::stats::change::same);
  const auto& same_finding = first(head, "same");
  EXPECT_NEAR(same_finding.numbers.at("base_efficiency"), 0.67, 5e-3);
  EXPECT_NEAR(same_finding.numbers.at("efficiency"), 0.67, 5e-3);
  EXPECT_EQ(same_finding.numbers.at("rounds"), 6);
  EXPECT_EQ(same_finding.context.words.at("base"), "baseline's build");
  EXPECT_EQ(same_finding.context.words.at("base_name"), "base.build/bench");
  // What the stored runs had said, kept as a note with its own finding.
  const auto& said = first(head, "stored_runs_said");
  EXPECT_EQ(said.severity, perfgate::verdict_status::pass);
  ASSERT_EQ(said.context.earlier.size(), 1U);
  EXPECT_EQ(said.context.earlier[0].code, "slower_than_base");
  EXPECT_NEAR(said.numbers.at("efficiency"), 0.67, 5e-3);

  auto slower = same;
  for (auto& run : slower.head_s) {
    for (auto& t : run) {
      t *= 1.2;
    }
  }
  measured.ab_runs["BM_kernel"] = slower;
  perfgate::apply_gate(head, policy, measured);
  EXPECT_EQ(head.kernels[0].result.status, perfgate::verdict_status::fail) << reasons(head);
  EXPECT_EQ(head.kernels[0].result.ab->kind, perfgate::stats::change::slower);
}

TEST(Gate, ABaselineKeepsItsBuildAndRefusesABadHash) {
  auto r = one_kernel(1e8, 1e9, 55e-3);
  perfgate::apply_gate(r, {});
  auto b = perfgate::baseline_from_report(r, "r.json");
  b.build = perfgate::stored_build{"b.build/bench", "af63dc4c8601ec8c"};
  const auto back = perfgate::baseline_from_json(perfgate::baseline_to_json(b), "b.json");
  ASSERT_TRUE(back.build);
  EXPECT_EQ(back.build->executable, "b.build/bench");
  EXPECT_EQ(back.build->fnv1a64, "af63dc4c8601ec8c");
  EXPECT_FALSE(
      perfgate::baseline_from_json(
          perfgate::baseline_to_json(perfgate::baseline_from_report(r, "r.json")), "b.json")
          .build);
  b.build->fnv1a64 = "AF63DC4C8601EC8C";
  try {
    (void)perfgate::baseline_from_json(perfgate::baseline_to_json(b), "b.json");
    FAIL() << "an upper-case hash was accepted";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("b.json: build.fnv1a64: \"AF63DC4C8601EC8C\" is not a "
                                         "hash"),
              std::string::npos)
        << e.what();
  }
}
