// SPDX-License-Identifier: Apache-2.0
// An interleaved A/B session: a base build and a head build of one program run alternately on
// this machine (ABBA), each kernel's run times kept as measured, until the gate settles every
// kernel's verdict or the stopping rule's rounds or time budget end. `perfgate ab` runs one between two
// builds it is given; `perfgate run` runs one against the build a baseline keeps, when its
// verdict against the stored baseline is a slowdown or undecided.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/run_meta.hpp>

#include "decide/collect.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::decide {

struct ab_session {
  std::string base_binary;
  std::string head_binary;
  std::vector<std::string> args; ///< both builds are run with these
  /// How each run of either build is measured (its program: the build and `args`): collector,
  /// kernels, repetitions, a run's timeout, gbench's only_benchmarks.
  program_collection collection;
  int min_rounds = 6; // three ABBA pairs of rounds: stats::ab_min_rounds
  // 60: simulated by resampling BM_triad's measured run medians, a 5% slowdown against a 2%
  // allowance was settled in 95% of sessions by 60 rounds, in 73% by 30 (docs/statistics.md).
  int max_rounds = 60;
  double time_budget_s = 600;
};

struct ab_outcome {
  /// The head's first run, predicted on every device and gated without criteria.
  report head_first;
  /// Per kernel the head's first run measured: the runs of both builds, in round order.
  std::map<std::string, interleaved_runs, std::less<>> runs;
};

/// Runs the session, one line a round on stderr, until the gate, asked with the runs so far
/// and `policy` (the allowance, the confidence), leaves no kernel undecided or the stopping
/// rule's rounds or budget end. Throws target_error when a round did not measure a kernel in
/// both builds.
[[nodiscard]] ab_outcome run_ab_session(const ab_session& s, const gate_policy& policy,
                                        const std::vector<device>& devices, const run_meta& meta);

/// The head's first run with every kernel of the session judged against the base build by the
/// gate (the session's runs and no baseline): `perfgate ab`'s verdicts.
[[nodiscard]] report judge_ab_outcome(const ab_outcome& outcome, const gate_policy& policy);

} // namespace perfgate::decide
