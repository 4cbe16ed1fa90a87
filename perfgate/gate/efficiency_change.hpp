// SPDX-License-Identifier: Apache-2.0
// One kernel's efficiency against an earlier run's (the gate's baseline, compare's base report):
// with samples on both sides, a statistical verdict (stats::judge_change) that fails only a
// slowdown past the allowance with confidence; with fewer, the medians' point comparison. And
// what changed in the work itself, which explains a timing change or stands alone when timing
// is too noisy to judge (counters are deterministic). Findings only: their sentences are
// report/finding_text.cpp's.
#pragma once

#include <perfgate/device_identity.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/statistics.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::detail {

/// Below this many samples per side the verdict is the point comparison (a bootstrap of 4
/// values has 35 distinct resamples: no interval to trust).
inline constexpr std::size_t min_change_samples = 5;

/// Per-sample efficiencies of a kernel whose measured efficiency is `efficiency`: the roof time
/// of one invocation over each sample's time (a profiler's launches, a benchmark's repetitions).
/// Empty without samples.
[[nodiscard]] std::vector<double> efficiency_samples(const kernel_report& k, double efficiency);

/// The roof of one invocation of a kernel (s): what its sample times are judged relative to.
[[nodiscard]] double roof_per_invocation_s(const kernel_report& k);

/// Runs of sample times (s, one invocation each) as per-sample efficiencies against a roof of
/// one invocation (roof_s / t): how further runs' raw times join the first run's samples.
[[nodiscard]] stats::runs efficiencies_of(const stats::runs& runs_s, double roof_s);

/// The work numbers a change is explained with.
struct work_numbers {
  double W_comp = 0;
  double W_traf = 0;
};

struct efficiency_judgement {
  std::optional<stats::change_verdict> change;      ///< when both sides had enough samples
  std::optional<stats::floor_verdict> confirmation; ///< judge_confirmed's
  std::optional<stats::ab_verdict> ab;              ///< judge_interleaved's
  std::vector<finding> failures, warnings, notes;   ///< by severity (set when a verdict takes them)
  /// The kernel's part in the suite's figure (stats::summarize_suite): the ratio the verdict
  /// gave, its kind and the relative times behind it. Set by every judge_* above a device.
  std::optional<stats::kernel_ratio> suite_part;
};

struct efficiency_sides {
  double efficiency = 0;
  stats::runs runs; ///< per-sample efficiencies by run (may be empty)
  std::optional<work_numbers> work;
  [[nodiscard]] std::size_t samples() const;
};

/// Judges `head` against `base` on one device; `said` names the device and what the base is
/// (words `device`, `base`, `base_name`: baseline perf/baseline.json), for the sentences. A drop
/// beyond `max_drop` with confidence fails (the runs carrying `run_spread`,
/// gate_policy::run_spread); a drop the samples cannot place on either side of it warns, saying
/// what would settle it.
[[nodiscard]] efficiency_judgement judge_efficiency(const efficiency_sides& base,
                                                    const efficiency_sides& head, double max_drop,
                                                    double confidence, double run_spread,
                                                    const finding_context& said);

/// Judges `head`, measured again in fresh runs after an AMBIGUOUS first verdict (its runs: the
/// first, then the confirmation runs), against `base` by the floor rule (stats::judge_floor):
/// a failure only when every run missed the allowance and chance cannot explain it, a warning
/// saying how many runs would settle it when the runs so far cannot.
[[nodiscard]] efficiency_judgement judge_confirmed(const efficiency_sides& base,
                                                   const efficiency_sides& head, double max_drop,
                                                   double confidence, const finding_context& said);

/// Judges two builds run alternately in one session (perfgate ab): `base` and `head` hold a
/// run's median time per round (stats::judge_ab), `base_efficiency` and `head_efficiency` the
/// medians shown. A slowdown beyond `max_drop` with confidence fails; an undecided one warns
/// with the rounds that would settle it.
[[nodiscard]] efficiency_judgement judge_interleaved(const std::vector<double>& base,
                                                     const std::vector<double>& head,
                                                     double base_efficiency, double head_efficiency,
                                                     double max_drop, double confidence,
                                                     const finding_context& said);

/// The SM clocks two builds' runs ran at in one A/B session (a run's mean clock while the kernel
/// ran, MHz; one per run that measured it). Whatever sets a GPU's clock (a power cap, the
/// temperature, another job) sets its speed, so the builds' times compare only at equal
/// clocks: a warning when the medians differ by more than 2% (the baseline gate's tolerance),
/// else a note that they agreed; nothing unless both sides measured clocks.
[[nodiscard]] efficiency_judgement compare_ab_clocks(const std::vector<double>& base_mhz,
                                                     const std::vector<double>& head_mhz);

/// Per run, the median of its sample times over `roof_s`: a run's time relative to the roof,
/// what an A/B session's verdict compares round by round.
[[nodiscard]] std::vector<double> relative_run_times(const stats::runs& runs_s, double roof_s);

/// judge_interleaved over one kernel's runs of an A/B session (each build's runs relative to
/// its own roof; the medians' inverses as the efficiencies shown), with compare_ab_clocks'
/// warning or note added.
[[nodiscard]] efficiency_judgement judge_ab_runs(const interleaved_runs& runs, double max_drop,
                                                 double confidence, const finding_context& said);

/// Whether W_comp or W_traf changed by more than 1% (the counters' run-to-run spread).
/// report/finding_text.hpp's work_change_text says how.
[[nodiscard]] bool work_changed(const work_numbers& base, const work_numbers& head);

} // namespace perfgate::detail
