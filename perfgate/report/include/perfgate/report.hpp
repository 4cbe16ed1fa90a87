// SPDX-License-Identifier: Apache-2.0
/// \file
/// A report (`perfgate-report/2`): for each kernel its parameters, its measurement, a
/// prediction (with its roof) per device and a verdict. Reports only carry values the models
/// computed; the writers never compute model values themselves.
#pragma once

#include <perfgate/device_identity.hpp>
#include <perfgate/model.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/profile.hpp>
#include <perfgate/run_meta.hpp>
#include <perfgate/statistics.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// A kernel's measured time (all invocations modelled together).
struct measurement {
  double time_s = 0; ///< total over the invocations
  /// Statistics of the timed samples, when the source held them all; absent, never zeros, when
  /// it did not (then `samples` and `noise` carry what it held).
  std::optional<duration_stats> stats;
  std::optional<std::uint64_t> samples; ///< how many timed samples, when known
  std::optional<double> noise; ///< their relative standard deviation, as the source reported it
  /// The GPU the kernel ran on where the profile's kernels ran on several (empty: the profile's).
  std::string device;
  std::optional<double> sm_clock_mhz;    ///< mean SM clock while the kernel ran, when measured
  /// The median real time of one invocation where time_s is the thread's CPU time (Google
  /// Benchmark's default clock; kernel_profile::real_time_s); absent where time_s is real time.
  std::optional<double> real_time_s;
  std::vector<std::string> clock_limits; ///< why the clocks were held down (NVML reasons)
};

enum class verdict_status { pass, fail, warn, skip };
[[nodiscard]] std::string_view to_string(verdict_status s); ///< "pass", "fail", "warn", "skip"

struct finding;

/// A kernel's class on one device as a sentence names it: the roof's class (or the model's, by
/// its ridge O_dev, without a roof), the kernel's intensity against the ridge, the roof's limiter.
struct class_facts {
  bound_class bound = bound_class::memory;
  bool compute_declared = true; ///< false: bytes alone, no intensity to set against a ridge
  double O_krn = 0;             ///< op/B
  double ridge = 0;             ///< O_ridge of the roof, O_dev without one (op/B)
  std::optional<roof_bound> roof;
};

/// What a finding's sentence names besides the numbers it rests on (finding_text writes the
/// sentence from the finding alone). In memory only: a report's JSON keeps the sentence in
/// `reasons`, so a finding read back has an empty context.
struct finding_context {
  /// Names by role: `device` (the device judged on), `base` and `base_name` (what the kernel
  /// was compared with: "baseline" and its file, "base build" and its binary, "base" alone),
  /// `expected` and `was` (a class), `model`, `measured_on`, `skip_reason`, the hull's
  /// `hull_class`, `species` and `hull_bound`, ...
  std::map<std::string, std::string, std::less<>> words;
  /// Lists of names: `clock_limits`, `elsewhere` (the devices a baseline holds a kernel on).
  std::map<std::string, std::vector<std::string>, std::less<>> lists;
  /// Numbers the sentence names that the finding does not rest on (the work of both sides, the
  /// latency floor, MAX_EFFICIENCY_DROP, run counts); looked up after `numbers`.
  std::map<std::string, double, std::less<>> figures;
  std::optional<class_facts> bound;                  ///< the kernel's class on `device`
  std::optional<pipeline::launch_estimate> estimate; ///< the pipeline model's launch
  std::optional<hardware_change> hardware;           ///< a baseline on other hardware
  std::vector<finding> earlier; ///< what an overruled judge found (`stored_runs_said`)
};

/// What one criterion found about a kernel, for a tool to act on without reading prose: a
/// stable code (`efficiency_below_floor`, `class_changed`, `slower_than_base`, `ambiguous`, ...;
/// docs/formats.md lists them), how grave (fail, warn; pass for a note; skip where the kernel
/// was not judged) and the numbers it rests on by name (`efficiency`, `min_efficiency`,
/// `time_ratio`, ...). A verdict has one finding per reason, in the same order: reasons[i] is
/// findings[i]'s sentence, written by the report layer from the finding alone.
struct finding {
  std::string code;
  verdict_status severity = verdict_status::pass;
  std::map<std::string, double, std::less<>> numbers;
  finding_context context;
};

struct verdict {
  verdict_status status = verdict_status::skip;
  std::vector<std::string> reasons;
  std::vector<finding> findings;    ///< one per reason (empty: a report written before codes)
  std::optional<double> efficiency; ///< roof time / measured time on the local device, 0..1
  std::optional<double> baseline_efficiency; ///< the baseline's, when gated against one
  /// The statistical verdict against the baseline's samples (time ratio head / base), when
  /// both sides had enough samples.
  std::optional<stats::change_verdict> change;
  /// When `change` was AMBIGUOUS and the gate measured the kernel again in fresh runs
  /// (`run --confirm-budget`): the floor rule over every run, which decides the verdict.
  std::optional<stats::floor_verdict> confirmation;
  /// The efficiency samples of those fresh runs, a run each (the first run's are the
  /// measurement's): a baseline accepted from this report keeps them all.
  stats::runs confirmation_runs;
  /// perfgate ab: the head against the base build run alternately in one session.
  std::optional<stats::ab_verdict> ab;
  std::string device; ///< the local device the verdict is about (empty: none)
};

struct kernel_report {
  std::string name;
  std::uint64_t invocations = 1;
  /// Why the kernel cannot be judged (its counters or declared work cannot feed the model):
  /// it has no params and no predictions, and its verdict is `skip` with this reason (finding
  /// `cannot_be_judged`). Empty for every kernel that was predicted.
  std::string skip_reason;
  kernel_params params;
  std::optional<measurement> measured;
  std::vector<prediction> predictions; ///< one per device, in the order the devices were given
  verdict result;
  std::string origin; ///< merged reports: the report (and host) this kernel came from
  /// The pipeline model's estimate of its launch on the local device (`run --idg`), when gated
  /// with one: what a later run's class is compared with.
  std::optional<pipeline::launch_estimate> pipeline;
};

struct report {
  /// The device with this id, or null (a merged report's kernels may cover different devices).
  [[nodiscard]] const device* find_device(std::string_view id) const;

  run_meta meta; ///< where the report came from (the `meta` block)
  std::string profile_file;
  std::string profile_format;
  std::string profile_device; ///< the GPU the profile was taken on
  /// The id of the device among `devices` the measurements were taken on (the local device a
  /// gate judges on; else the one the profile's device name matches); empty when none is.
  std::string local_device;
  int profile_warp_size = 32;
  std::vector<device> devices; ///< the devices predicted for, in order
  std::vector<kernel_report> kernels;
  /// Gated against a baseline or a base build: the suite in one figure, the geometric mean of
  /// the judged kernels' time ratios head / base with its interval, and the verdicts' counts
  /// (stats::summarize_suite). Absent when no kernel was compared.
  std::optional<stats::suite_summary> suite;
  /// The hardware the run measured on (perfgate run), when it was told.
  std::optional<device_identity> identity;
  /// Gated against a baseline recorded on other hardware: both, what differs, what was done.
  std::optional<hardware_change> hardware;
  /// The major version of the format it was read from: 1 has no roofs, and its efficiencies
  /// were the model's predicted time / measured time.
  int schema_version = 2;
};

/// Kernels whose full name matches `kernel_regex` (ECMAScript, search anywhere in the name),
/// predicted on every device, with a `skip` verdict ("prediction only"). A kernel that ran on one
/// CPU thread is predicted on a CPU device's one-core peaks when the device has them. A kernel
/// whose inputs cannot feed the model (missing counters, tensor instructions whose operations
/// no counter measured, no work) gets a skip_reason instead of predictions, like Google
/// Benchmark's SkipWithError, and the others are predicted. A device without a path for one of a
/// kernel's precisions (no peak: "no such path", never a fallback) cannot run it: the kernel
/// gets a `cannot_be_judged` finding naming that device (context word `device`) and is predicted
/// on the others; where no device given can run it, it is skipped like the above. Throws that
/// kernel's input_error when no selected kernel can be predicted, and usage_error when the regex
/// selects no kernel. The skip verdicts have findings: `prediction_only`, `cannot_be_judged`.
///
/// `local_device` is devices.front() with `scale_local_clock`, else the device the profile's
/// device name matches (local_device_named).
///
/// With `scale_local_clock` (the profile was taken on devices.front() itself), a kernel whose
/// SM clock was measured is held, on that first device only, to compute peaks scaled to that
/// clock (at_sm_clock), and its prediction records clock_scale; a clock within 0.5% of the
/// device's is left alone. The other devices are predicted at their own clocks.
///
/// With `measured_on` (the device the profile's times were measured on), every kernel with a
/// measured time is predicted on each device from that measurement (predict_from_measurement,
/// predictor "measured-scaling"); kernels without one get the model's prediction.
[[nodiscard]] report predict_report(const profile& p, const std::vector<device>& devices,
                                    const std::string& kernel_regex = "",
                                    bool scale_local_clock = false,
                                    const device* measured_on = nullptr);

/// The first of `devices` that a profiler's device name denotes: "GeForce GTX 480 (0)" (nvprof
/// appends the device number) is gtx-480 by id and "NVIDIA GeForce GTX 480" by name; empty when
/// none is.
[[nodiscard]] std::string local_device_named(std::string_view profile_device,
                                             const std::vector<device>& devices);

/// One report from several (CI runners, one test per GPU): kernels are kept side by side, each
/// with its origin ("file (host)"), devices are united by id after with_distinct_device_ids.
/// Throws usage_error for no parts.
[[nodiscard]] report merge_reports(const std::vector<report>& parts,
                                   const std::vector<std::string>& files);

/// The id a runner's device is renamed to where an earlier runner's other device holds its id:
/// `<id>@<host>` ("local-cuda-0@runner-b").
[[nodiscard]] std::string device_id_on_host(std::string_view id, std::string_view host);

/// `parts` (several runs or runners, in order) with one id per device: a device whose id an
/// earlier part's device holds is the same device when both ran on one host (a recalibration)
/// or their contents (name, vendor, source, peaks) are equal (a built-in, a shared device file);
/// else it is renamed device_id_on_host(id, its host) in its part: its entry in `devices`,
/// `local_device`, its identity's device, each kernel's predictions and verdict device (the
/// verdict's reasons keep the runner's words). A device's host is the one in the origin of a
/// kernel judged on it (a merged part), else the part's meta.host; an unknown host is taken as
/// the same.
[[nodiscard]] std::vector<report> with_distinct_device_ids(std::vector<report> parts);

/// Parse `perfgate-report/1` or `/2` (what compare, merge and baseline read). Throws
/// input_error naming the file and key. The writers are in <perfgate/writers.hpp>.
[[nodiscard]] report report_from_json(std::string_view text, const std::string& file);

} // namespace perfgate
