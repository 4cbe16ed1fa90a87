// SPDX-License-Identifier: Apache-2.0
// An interleaved A/B session: a base build and a head build of one program run alternately on
// this machine (ABBA), each kernel's run times kept, until every kernel's verdict is settled
// (stats::judge_ab) or the rounds or the time budget end. `perfgate ab` runs one between two
// builds it is given; `perfgate run` runs one against the build a baseline keeps, when its
// verdict against the stored baseline is a slowdown or undecided.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/run_meta.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::cli {

struct ab_session {
  std::string base_binary;
  std::string head_binary;
  std::vector<std::string> args; ///< both builds are run with these
  std::string collector = "auto";
  std::string kernels; ///< regex: only these kernels / benchmarks
  /// gbench: only these benchmarks, by exact name (the others are not run at all)
  std::vector<std::string> only_benchmarks;
  double max_efficiency_drop = 0.10;
  double confidence = 0.95;
  int repetitions = 5;
  int min_rounds = 6; // three ABBA pairs of rounds: stats::ab_min_rounds
  // 60: simulated by resampling BM_triad's measured run medians, a 5% slowdown against a 2%
  // allowance was settled in 95% of sessions by 60 rounds, in 73% by 30 (docs/statistics.md).
  int max_rounds = 60;
  double time_budget_s = 600;
  std::optional<double> timeout_s;
  bool keep_warm_up = false;
};

struct ab_outcome {
  /// The head's first run, predicted on every device and gated without criteria.
  report head_first;
  /// Per kernel the head's first run measured: the runs of both builds, in round order.
  std::map<std::string, interleaved_runs, std::less<>> runs;
};

/// Runs the session, one line a round on stderr. Throws target_error when a round did not
/// measure a kernel in both builds.
[[nodiscard]] ab_outcome run_ab_session(const ab_session& s, const std::vector<device>& devices,
                                        const run_meta& meta);

/// The head's first run with every kernel judged against the base over all rounds
/// (detail::judge_ab_runs): the verdict, its reasons, the efficiencies' medians, and the
/// suite's figure. Defined in ab_command.cpp; perfgate bisect judges its steps with it too.
[[nodiscard]] report judge_ab_outcome(const ab_session& s, const ab_outcome& outcome);

} // namespace perfgate::cli
