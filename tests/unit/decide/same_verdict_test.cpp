// SPDX-License-Identifier: Apache-2.0
// `perfgate ab` and `perfgate run --baseline` against a baseline that keeps its build reach
// their verdicts through the same judge: fed the same A/B runs, they give the same verdict.
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>

#include "decide/ab_session.hpp"

#include "test_cpu.hpp"

#include <gtest/gtest.h>

namespace {
perfgate::device cpu() { return perfgate::test::test_cpu(); }

// BM_kernel (1e9 B at 20 GB/s: a 50 ms roof) timed at 10 samples around `median_s`.
perfgate::report sampled(double median_s) {
  perfgate::profile p;
  p.source_file = "bench";
  perfgate::kernel_profile k;
  k.name = "BM_kernel";
  k.work = perfgate::declared_work{0, 1e8, 0, 1e9};
  std::vector<double> samples;
  for (double f : {1.0, 0.99, 1.01, 0.995, 1.005, 0.985, 1.015, 0.998, 1.002, 1.0}) {
    samples.push_back(median_s * f);
  }
  k.duration = perfgate::duration_stats::from_samples(std::move(samples));
  k.time_s = k.duration->median_s;
  p.kernels.push_back(k);
  return perfgate::predict_report(p, {cpu()});
}

// Rounds of both builds' run times as measured (s, one sample a run) against a roof of 50 ms in
// both: the base's near 1.5 roofs, the head's `head_factor` times it, with `spread` between
// rounds.
perfgate::interleaved_runs session(double head_factor, double spread, int rounds) {
  perfgate::interleaved_runs runs;
  runs.base_name = "bench.base";
  runs.base_roof_s = runs.head_roof_s = 50e-3;
  for (int round = 0; round < rounds; ++round) {
    const double wobble = (round % 2 == 0 ? 1 : -1) * spread * (round + 1);
    runs.base_s.push_back({50e-3 * 1.5 * (1 + wobble)});
    runs.head_s.push_back({50e-3 * 1.5 * head_factor * (1 - wobble)});
  }
  return runs;
}

struct outcome {
  perfgate::verdict_status status;
  perfgate::stats::change kind;
  double ratio;
  std::string code; // the A/B finding's
};

outcome of(const perfgate::report& r) {
  const auto& v = r.kernels.at(0).result;
  EXPECT_TRUE(v.ab);
  std::string code;
  for (const auto& f : v.findings) {
    if (f.numbers.count("rounds") != 0) {
      code = f.code;
    }
  }
  return {v.status, v.ab->kind, v.ab->ratio.estimate, code};
}
} // namespace

TEST(SameVerdict, AbAndRunAgainstAKeptBuildAgreeOnTheSameRuns) {
  perfgate::gate_policy policy;
  policy.max_efficiency_drop = 0.10;
  // The stored baseline's runs: this build's speed in an earlier session.
  auto base_report = sampled(62.5e-3);
  perfgate::apply_gate(base_report, policy);
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  measured.base->build = perfgate::stored_build{"base.build/bench", "0123456789abcdef"};

  struct sample_case {
    const char* what;
    perfgate::interleaved_runs runs;
    perfgate::verdict_status status;
  };
  for (const auto& c : {sample_case{"same", session(1.0, 0.001, 6), perfgate::verdict_status::pass},
                        sample_case{"30% slower", session(1.3, 0.001, 6),
                                    perfgate::verdict_status::fail},
                        sample_case{"at the allowance, noisy", session(1.111, 0.03, 6),
                                    perfgate::verdict_status::warn}}) {
    SCOPED_TRACE(c.what);
    // The head's first run, as both commands have it: 1.2x slower than the stored runs, which
    // flags it for the session.
    auto head_first = sampled(62.5e-3 * 1.2);
    perfgate::apply_gate(head_first, policy);

    perfgate::decide::ab_outcome ab{head_first, {{"BM_kernel", c.runs}}};
    const auto by_ab = of(perfgate::decide::judge_ab_outcome(ab, policy));

    auto by_run = head_first;
    measured.ab_runs = {{"BM_kernel", c.runs}};
    perfgate::apply_gate(by_run, policy, measured);
    const auto run = of(by_run);

    EXPECT_EQ(by_ab.status, c.status);
    EXPECT_EQ(run.status, by_ab.status);
    EXPECT_EQ(run.kind, by_ab.kind);
    EXPECT_DOUBLE_EQ(run.ratio, by_ab.ratio);
    EXPECT_EQ(run.code, by_ab.code);
  }
}
