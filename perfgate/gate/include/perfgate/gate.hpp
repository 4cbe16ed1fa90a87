// SPDX-License-Identifier: Apache-2.0
/// \file
/// The gate: a policy (thresholds, expected class, baseline) applied to a report's predictions
/// and measurements gives each kernel a verdict that explains itself. The local device, the
/// one the measurement ran on, is the report's first device.
#pragma once

#include <perfgate/error.hpp>
#include <perfgate/hull.hpp>
#include <perfgate/model.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/report.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// What a later run is compared with: per kernel, its efficiency on the local device and its
/// class on every device (`perfgate-baseline/2`; version 1 is read, its efficiencies are not
/// compared).
struct baseline_kernel {
  std::string name;
  std::optional<double> efficiency;
  std::string local_device;
  double O_krn = 0;
  std::map<std::string, bound_class, std::less<>> bounds; ///< device id -> class
  /// Efficiency against the roof (format version 2); false: against the model's predicted time.
  bool against_roof = true;
  /// The efficiency of every timed sample (repetition, launch), by the run (report) it came
  /// from: what a statistical verdict compares a later run's samples with, and the spread
  /// between runs it must allow for. Empty in baselines written before perfgate 0.2.
  std::vector<std::vector<double>> efficiency_runs;
  /// The work it did (0: not recorded), so a change explains itself ("W_traf +38%").
  double W_comp = 0;
  double W_traf = 0;
  /// The SM clock it ran at and what held the clocks down, when measured: a later run at
  /// another clock is warned about (its times are not the baseline's kind of times).
  std::optional<double> sm_clock_mhz;
  std::vector<std::string> clock_limits;
  /// The pipeline model's class and occupancy on the local device, when it was gated with one
  /// (`run --idg`): a later run that turns latency-bound is a class change naming them.
  std::optional<bool> latency_bound;
  std::uint64_t resident_groups = 0;
  std::string occupancy_limit;
};

/// The build a baseline was measured with, kept beside it (`perfgate baseline accept
/// --keep-build`): when a later run's verdict against the stored runs is a slowdown or stays
/// undecided, the gate runs this build and the new one alternately (perfgate ab's rule), and
/// that decides, since a stored baseline carries its session's speed and a shared runner's
/// speed moves between sessions (docs/statistics.md).
struct stored_build {
  std::string executable; ///< relative to the baseline file's folder, as written
  std::string fnv1a64;    ///< of the executable's bytes (file_fnv1a64): a changed copy is refused
};

/// Kernels keyed by name and local device: one baseline may hold the same kernel measured on
/// several GPUs and CPUs (runners of different kinds), each judged against its own.
struct baseline {
  std::string source; ///< the report(s) it was accepted from
  std::vector<baseline_kernel> kernels;
  std::optional<stored_build> build;
  /// The hardware the baseline's runs measured on, when recorded: one identity per distinct
  /// runner (a baseline of several keeps each), its `device` the id that runner's entries are
  /// kept under (`local-cuda-0@runner-b` where a merge renamed it apart).
  std::vector<device_identity> identities;
  /// The kernel as measured on `local_device`; an entry without a local device (written before
  /// devices were recorded) stands for any. Null when there is none.
  [[nodiscard]] const baseline_kernel* find(std::string_view kernel,
                                            std::string_view local_device) const;
  /// The kernel as measured on `local_device` of `host` (a run's meta.host): the entry renamed
  /// device_id_on_host(local_device, host) where a baseline of several runners renamed that
  /// host's device apart from another's of the same id, else find(kernel, local_device).
  [[nodiscard]] const baseline_kernel* find(std::string_view kernel, std::string_view local_device,
                                            std::string_view host) const;
  /// The local devices the baseline holds `kernel` on, in file order.
  [[nodiscard]] std::vector<std::string> devices_of(std::string_view kernel) const;
};

/// The baseline of a report (`perfgate baseline accept`): each kernel under the device its
/// verdict names (a merged report's kernels each under its runner's), else the first device.
[[nodiscard]] baseline baseline_from_report(const report& r, std::string source);
/// The baseline of several reports (`perfgate baseline accept A.json B.json ...`): runs of the
/// same tests, and the same tests on other runners, whose devices are told apart as a merge does
/// (with_distinct_device_ids: `local-cuda-0` of a second runner is `local-cuda-0@<its host>`).
/// Per kernel and local device, every run's samples are kept as a run of their own, the
/// efficiency is the median of the runs', the classes and work are the first run's. Each
/// distinct hardware identity is kept (add_identity). Throws
/// usage_error for no report, or for reports of both format versions for one kernel and device
/// (their efficiencies do not compare).
[[nodiscard]] baseline baseline_from_reports(const std::vector<report>& runs, std::string source);
/// Adds `id` to `ids` unless one there is the same runner: the same device id and nothing that
/// matters differs (compare_identities; a clock within the gate's tolerance, a driver alone, a
/// field one side does not know).
void add_identity(std::vector<device_identity>& ids, const device_identity& id);
[[nodiscard]] std::string baseline_to_json(const baseline& b);
/// Reads `perfgate-baseline/1`, or a `perfgate-report/1` taken as its own baseline.
[[nodiscard]] baseline baseline_from_json(std::string_view text, const std::string& file);

/// A kernel held to its boat hull band (MODEL.md section 4) on the local device: its time per
/// invocation must lie in the band of its class, faster (beyond max_efficiency) means the class,
/// f or the device data is wrong, slower by more than `tolerance` fails like an efficiency drop.
struct hull_policy {
  std::string species; ///< as written in HULL_SPECIES
  double f = 1;        ///< HULL_F, operations per operator application
  /// Allowed slowdown past the band's upper end, relative. The band's ends are roofs (the
  /// coalesced DRAM time of a memory-bound class): a good implementation streams at 80-95% of
  /// the calibrated bandwidth (saxpy on an H100: 0.89), i.e. 1.05-1.25x the upper end.
  double tolerance = 0.25;
  hull::assumptions assumed;
};

/// A kernel's runs in one interleaved A/B session (`perfgate ab`, or `perfgate run` against the
/// build a baseline keeps), as measured: per run of each build, in round order, the times of
/// one invocation (s: the run's samples, or its one time), each build's roof of one invocation
/// (s: a build that changed the kernel's work is held to its own), and the SM clock where
/// measured. The gate judges their ratios; nothing upstream turns them into efficiencies.
struct interleaved_runs {
  std::string base_name; ///< what the base is, for the verdict ("the base build ./bench")
  stats::runs base_s, head_s;
  double base_roof_s = 0, head_roof_s = 0;
  std::vector<double> base_mhz, head_mhz;
};

/// How strict the gate is: thresholds and expectations only (what a kernel is judged against
/// travels in gate_measurements).
struct gate_policy {
  std::optional<double> min_efficiency;    ///< fail below (roof time / measured time)
  double max_efficiency = 1.10;            ///< fail above: the bound is wrong, not the kernel
  std::optional<bound_class> expect_bound; ///< on the local device
  /// EXPECT_BOUND latency: the kernel must be latency-bound. Until the pipeline model has the
  /// kernel's instruction graph and the device's latencies, that class is unavailable: a kernel
  /// latency-bound by duration (under latency_floor_s per invocation) meets it, any other
  /// warns that the gate cannot tell, never fails on a guess.
  bool expect_latency = false;
  double max_efficiency_drop = 0.10; ///< relative drop vs the baseline's efficiency
  /// Of the statistical verdict against the baseline (docs/statistics.md): a drop beyond
  /// max_efficiency_drop fails only when this confident, an undecided one warns.
  double confidence = 0.95;
  /// How far runs of unchanged code spread on this runner (the log standard deviation of their
  /// medians; 0: not known): a comparison with a stored run, which cannot see it, carries it
  /// (stats::judge_change, docs/statistics.md). scripts/bench-drift.py measures it.
  double run_spread = 0;
  /// A kernel whose O_krn lies within this relative margin of the device's O_dev sits on the
  /// ridge: a class change there is a warning. 10% is the spread calibrated peaks show between
  /// runs on a shared machine, and the ridge moves with them.
  double ridge_margin = 0.10;
  /// Invocations shorter than this are latency-bound by duration (launch overhead, tails, clocks
  /// ramping) where a throughput bound does not apply: the verdict says so, and a low
  /// efficiency there is a warning.
  double latency_floor_s = 10e-6;
  std::optional<hull_policy> hull; ///< HULL_SPECIES / HULL_F
};

/// What was measured besides the report's own run, which the gate judges the run with: the
/// baseline, the pipeline model's estimates, and the further runs the deciding layer
/// (perfgate/decide) made. The policy says how strict; this says against what.
/// A roof a kernel beat, as it was before the device was measured again.
struct beaten_roof {
  double roof_s = 0;
  double efficiency = 0;
};

struct gate_measurements {
  std::optional<baseline> base;
  /// The pipeline model's estimate of a kernel's launch on the local device, by kernel name
  /// (`run --idg`): where it finds the kernel latency-bound, that is its class (EXPECT_BOUND
  /// latency is met or fails by it) and MIN_EFFICIENCY applies against the model's time.
  std::map<std::string, pipeline::launch_estimate, std::less<>> pipeline;
  /// Per kernel name, the times of one invocation (s) of fresh runs made after its first
  /// verdict against `base` was AMBIGUOUS, a run each, as measured: that kernel is then judged
  /// by the floor rule over all its runs (stats::judge_floor) instead.
  std::map<std::string, stats::runs, std::less<>> confirmation_runs;
  /// Per kernel name, an A/B session of a base build against this build. With `base`: the
  /// baseline's stored build, run where the verdict against the stored runs was a slowdown or
  /// undecided, and it then decides the kernel's change against the baseline. Without: the
  /// base build `perfgate ab` was given, and the session is the kernel's change.
  std::map<std::string, interleaved_runs, std::less<>> ab_runs;
  /// The run measured on other hardware than the baseline's (compare_identities): recorded in
  /// the report, and, with action "warn", every kernel judged against the stored runs warns
  /// naming both devices.
  std::optional<hardware_change> hardware;
  /// Per kernel name, the roof it beat before the local device was measured again (a
  /// calibration of this machine that read low: decide/measure_again.hpp): the roof's time (s)
  /// and the efficiency against it. Judged against the new peaks, the kernel's verdict notes it
  /// (`roof_measured_again`).
  std::map<std::string, beaten_roof, std::less<>> roofs_measured_again;
};

/// Verdicts for every kernel of `r` against its first device (the local one), by the policy's
/// thresholds, against what `measured` holds.
void apply_gate(report& r, const gate_policy& policy, const gate_measurements& measured = {});

/// The kernels of a gated report whose verdict against a base the evidence does not settle yet:
/// AMBIGUOUS by the latest of its judgements (an A/B session's, else the floor rule over its
/// confirmation runs, else the first run's). What the deciding layer's stopping rule asks.
[[nodiscard]] std::vector<std::string> undecided_kernels(const report& gated);

/// The process exit status a gated report gives: 1 if any kernel failed, else 0.
[[nodiscard]] exit_status gate_exit_status(const report& r);

} // namespace perfgate
