// SPDX-License-Identifier: Apache-2.0
// The runs `perfgate run` makes after its first verdict, to settle what that run could not: the
// confirmation runs (a kernel AMBIGUOUS against its stored baseline measured again in fresh
// processes) and the A/B session against the build a baseline keeps. Each runs the program
// through the collectors, adds the samples to gate_measurements and has the gate judge again;
// what to run next follows the gate's verdicts, never a verdict of its own.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>

#include "decide/collect.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace perfgate::decide {

/// The gate asked, with the evidence gathered so far (`measured`: the baseline, the pipeline
/// model's estimates, the further runs' times as measured): apply_gate's one caller, so that
/// every decision the deciding layer makes is the gate's verdict. Returns the kernels it leaves
/// undecided (undecided_kernels), which is what the stopping rule is asked with.
std::vector<std::string> ask_gate(report& r, const gate_policy& policy,
                                  const gate_measurements& measured);

/// What every further run of the program shares with `perfgate run`'s first.
struct further_runs {
  /// The first run's collection: program, collector ("profile": a recorded profile, which is
  /// never run again), kernels, repetitions, and --timeout, which covers every run together.
  program_collection collection;
  std::chrono::steady_clock::time_point begun; ///< when the perfgate run began
  double confirm_budget_s = 60;                ///< --confirm-budget; 0: none
  double ab_budget_s = 300;                    ///< --ab-budget; 0: no A/B session
  std::string baseline_file;                   ///< the stored build lies beside it
};

/// Confirmation (docs/statistics.md): while a kernel's verdict against the baseline is
/// AMBIGUOUS, measure it again in a fresh process (its times into measured.confirmation_runs)
/// and ask the gate, which judges all its runs by the floor rule, until the stopping rule says
/// every kernel is settled or the runs or the budget are spent. Nothing where the baseline keeps its build and --ab-budget is on: the build
/// decides instead (decide_by_stored_build).
void confirm(report& r, const gate_policy& policy, gate_measurements& measured,
             const further_runs& o);

/// Where the baseline keeps its build and a kernel is slower than the stored runs or
/// undecided: the stored build and this one run alternately in one session (perfgate ab's
/// rule, --ab-budget seconds at most) into measured.ab_runs, and the gate judges again.
void decide_by_stored_build(report& r, const gate_policy& policy, gate_measurements& measured,
                            const further_runs& o, const std::vector<device>& devices);

/// The baseline's stored build (`baseline accept --keep-build`) beside `baseline_file`, checked
/// to be the file that was accepted: input_error naming the file and key otherwise.
[[nodiscard]] std::filesystem::path stored_build_of(const std::string& baseline_file,
                                                    const stored_build& build);

/// Seconds of `timeout_s` (--timeout, all runs together) left since `begun`, negative once
/// spent; nothing without one.
[[nodiscard]] std::optional<double> timeout_left(const std::optional<double>& timeout_s,
                                                 std::chrono::steady_clock::time_point begun);

} // namespace perfgate::decide
