// SPDX-License-Identifier: Apache-2.0
// Collectors: run the user's program and turn what was measured into a profile. Each throws
// skip_error (exit 77) when it cannot work on this machine, target_error (exit 3) when the
// program fails, and input_error (exit 2) when the program's output cannot be read.
#pragma once

#include <perfgate/profile.hpp>

#include "collectors/cupti/run_info.hpp"
#include "importers/launch_groups.hpp"
#ifdef PERFGATE_HAVE_CUPTI
#include "collectors/cupti/chip_metrics.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::detail {

struct cupti_run;

struct collect_request {
  std::vector<std::string> program; ///< argv of the program to profile
  /// For the whole collection, every run of the program together (CUPTI runs it twice,
  /// rocprofv3 once per counter pass): a CTest TIMEOUT a little above it then never cuts
  /// perfgate off before it says what hung.
  std::optional<double> timeout_s;
  int repetitions = 5; ///< gbench: --benchmark_repetitions
  /// `--kernels`: ECMAScript regex searched in the demangled kernel name; empty for all. The
  /// ncu collector hands it to ncu so that other kernels are not replayed at all.
  std::string kernel_regex;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  /// gbench: the program's own time a benchmark measures (--benchmark_min_time, 0.5 s unless
  /// its arguments say) is split among the repetitions, so that the samples the gate needs cost
  /// what one plain run of the program costs. False: each repetition takes the whole time.
  bool split_min_time = true;
  /// cupti: flush L2 before every launch of the timing run (cold-cache times).
  bool flush_l2 = false;
  /// gbench: run only the benchmarks of these exact names (the gate's confirmation runs);
  /// empty for all.
  std::vector<std::string> only_benchmarks;
  /// cupti: counter runs of earlier collections, by the program's argv, to reuse; null: every
  /// collection makes its own. A build's counters are the same run after run (its binary and
  /// launches fixed) and its times are not: an A/B session counts each build once and times it
  /// every round, one program run a round instead of two or three (issue 43).
  std::map<std::string, cupti_run>* counter_runs = nullptr;
  /// nvbench: the folder of counter runs kept between gate runs (counter_cache.hpp), reused
  /// while the program's files are unchanged; empty: every state is counted every run.
  std::string counter_cache_dir;

  /// What is left of timeout_s for the next run of the program (at least a millisecond).
  [[nodiscard]] std::optional<double> time_left() const {
    if (!timeout_s) {
      return std::nullopt;
    }
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - started;
    return std::max(*timeout_s - spent.count(), 1e-3);
  }
};

/// One run of a Google Benchmark binary with JSON output and `repetitions`, limited to the
/// benchmarks --kernels finds (or `only_benchmarks`); the deciding layer repeats it in rounds
/// where a precision is asked for (decide::collect_program).
[[nodiscard]] profile collect_gbench(const collect_request& request);

/// The larger half of the median's 95% interval, relative to the median; infinite below 6
/// samples (no such interval).
[[nodiscard]] double median_half_width(const std::vector<double>& samples);

/// The repetitions of `round`'s benchmarks appended to the same benchmarks of `into`, whose
/// statistics and time are recomputed.
void add_repetitions(profile& into, const profile& round);

/// Any CUDA program run under `ncu --csv --page raw` collecting `metrics` (ncu names, see
/// ncu_default_metrics). Skips (77) without a GPU, ncu, counter permission, or when the chip
/// lacks one of `metrics`.
[[nodiscard]] profile collect_ncu(const collect_request& request,
                                  const std::vector<std::string>& metrics);

/// The ncu argument vector: `ncu --csv --page raw --print-units base --metrics M,... --log-file
/// LOG`, then `--kernel-name-base demangled --kernel-name regex:RE` when the request has a
/// kernel regex, then the program's argv untouched. One element per argument, never quoted.
[[nodiscard]] std::vector<std::string> ncu_command_line(const collect_request& request,
                                                        const std::vector<std::string>& metrics,
                                                        const std::string& log_file);

/// gpu__time_duration.sum, sm__cycles_elapsed.avg.per_second and the preferred (first)
/// alternative of every counter in ncu_counter_sources(), each once, in that order.
[[nodiscard]] std::vector<std::string> ncu_default_metrics();

/// Throws skip_error when an ncu log (`--log-file` text) says ncu could not measure here: no
/// permission for the counters (ERR_NVGPUCTRPERM) or a requested metric this chip lacks. Both
/// end the run before any table is written, whatever ncu's exit code says.
void check_ncu_log(std::string_view log_text);

/// Any HIP program run under rocprofv3, one run per counter pass the architecture needs, plus
/// the kernel trace for times. Skips (77) without rocprofv3 or an AMD GPU.
[[nodiscard]] profile collect_rocprof(const collect_request& request);

/// Leaves each kernel's first launch out of a profiler's profile (its warm-up: module loading,
/// cold instruction and TLB caches, clocks ramping), where the kernel was launched more than once
/// and every launch was timed: its time, launch count and counter totals (scaled per launch)
/// then describe the other launches. Returns how many kernels changed.
std::size_t leave_out_first_launch(profile& p);

/// Runs the program once, as it is (for recorded-profile gates): exit 3 when it fails.
void run_plain(const collect_request& request);

/// Why no NVIDIA GPU can be profiled here (no driver, cuInit fails, no device), or nothing.
/// Only the driver API is touched, through dlopen: no target-side CUPTI before this says yes.
[[nodiscard]] std::optional<std::string> nvidia_gpu_unavailable();

/// What a program is, read from its file (never by running it): what `--collector auto` uses.
struct program_facts {
  bool nvbench = false; ///< links nvbench (libnvbench.so, or its symbols)
  bool gbench = false;  ///< carries Google Benchmark's flags or links libbenchmark
  bool cuda = false;    ///< a CUDA program (cudart, registered fat binaries)
  bool hip = false;     ///< a HIP program (libamdhip64, HIP fat binaries)
  bool script = false;  ///< starts with #!: a wrapper whose program auto cannot see
};
/// What the machine has for `--collector auto`.
struct machine_facts {
  std::optional<std::string> nvidia_unavailable; ///< why no NVIDIA GPU (none: there is one)
  bool rocm = false;                             ///< rocprofv3 is on PATH
};
[[nodiscard]] program_facts program_facts_of(const std::string& program);
[[nodiscard]] machine_facts machine_facts_here();
/// The collector for `program`: nvbench, gbench, then cupti for a CUDA program (or any program
/// where only an NVIDIA GPU is), rocprof for a HIP one (or where only ROCm is). Throws
/// skip_error (77) saying what it looked at and naming the choices where nothing decides.
[[nodiscard]] std::string choose_collector(const std::string& program, const program_facts& p,
                                           const machine_facts& m);

/// Any CUDA program run twice with the CUPTI injection library (libperfgate_cupti.so): a timing
/// run (Activity API kernel records, NVML clocks) and a counter run (Range Profiler, auto range,
/// kernel replay, the local chip's metric plan). Skips (77) without a GPU, driver, CUPTI build,
/// counter permission or a supported chip; target_error (3) when the program fails under either.
[[nodiscard]] profile collect_cupti(const collect_request& request);

/// What ncu collects: the first run's metrics, and the tensor operations counters of a second
/// run made only when a kernel of the first executed matrix instructions (each of those
/// counters costs about one replay pass; chip_metric_plan).
struct ncu_metric_sets {
  std::vector<std::string> metrics;
  std::vector<std::string> tensor_metrics; ///< empty: no second run
};

/// What ncu should collect on this machine's GPU: the local chip's metric plan (names valid on
/// that chip, e.g. GB202's dram__bytes_op_*), else ncu_default_metrics() and no tensor run
/// (the tensor counters' names differ on every chip; without a plan the model names them).
[[nodiscard]] ncu_metric_sets ncu_metrics_for_local_gpu();

/// collect_ncu with `sets.metrics`, then, when a kernel executed matrix instructions, again
/// with `sets.tensor_metrics`, whose counters are added to that kernel (add_tensor_counters).
[[nodiscard]] profile collect_ncu_runs(const collect_request& request, const ncu_metric_sets& sets);

/// Whether a kernel of `p` executed matrix instructions no tensor counter measured.
[[nodiscard]] bool needs_tensor_run(const profile& p);

/// Adds the tensor operations counters of a second counter run's kernels to the kernels of the
/// same name in `base`, per invocation of `base` (the runs may replay different launch
/// counts).
void add_tensor_counters(profile& base, const profile& tensor);

/// One kernel of a `perfgate-cupti/1` file.
struct cupti_kernel_run {
  std::string name; ///< demangled
  std::uint64_t launches = 0;
  std::vector<double> durations_ns; ///< timing run, in launch order
  /// Timing run: each launch's configuration, beside durations_ns (files before 2026-11-26
  /// have none).
  std::vector<launch_shape> shapes;
  std::optional<launch_config> launch;                ///< of the first launch
  std::uint64_t profiled_launches = 0;                ///< counter run
  std::map<std::string, double, std::less<>> metrics; ///< counter run: totals (rates averaged)
  /// Counter run: each range's (launch's) values in the run's metric order, when written.
  std::vector<std::vector<double>> range_values;
  std::optional<double> nvml_clock_mhz;  ///< timing run: mean SM clock at launch
  std::vector<std::string> clock_limits; ///< timing run: NVML clock-event reasons
};

/// What the injection library wrote for one run (`perfgate-cupti/1`).
struct cupti_run : cupti::run_info {
  std::string file;
  std::vector<std::string> warnings;
  std::vector<cupti_kernel_run> kernels;
};

/// Parse `perfgate-cupti/1`; throws input_error naming `file` and the key.
[[nodiscard]] cupti_run cupti_run_from_json(std::string_view text, const std::string& file);

/// One profile from the two runs: times, launches and grid from the timing run; counters from
/// the counter run (through ncu_counter_sources), scaled to the timed launch count when the two
/// runs launched a kernel a different number of times; the SM clock from NVML in the timing run,
/// else from the counter run's sm__cycles_elapsed.avg.per_second.
/// Where both runs recorded every launch of a kernel (configurations, one range per launch),
/// launch i of one run is launch i of the other, and a kernel launched with several
/// configurations or sizes of work becomes one kernel per launch group (group_launches), named
/// "<name> [grid ... block ...]": work and time then always come from the same launches.
[[nodiscard]] profile profile_from_cupti_runs(const cupti_run& timing, const cupti_run& counters);

/// The environment of an injected run: CUDA_INJECTION64_PATH and the PERFGATE_CUPTI_* variables
/// (PERFGATE_CUPTI_FLUSH_L2=1 in a timing run with `flush_l2`).
[[nodiscard]] std::vector<std::pair<std::string, std::string>>
cupti_run_environment(const std::string& mode, const std::string& library,
                      const std::string& output, const std::vector<std::string>& metrics,
                      bool flush_l2 = false);

#ifdef PERFGATE_HAVE_CUPTI
/// What an injected run needs on this machine: the injection library, the GPU's chip and its
/// metric plan. Skips (77) where any is missing; only after nvidia_gpu_unavailable() said no.
struct cupti_session {
  std::string library;
  std::string chip;
  chip_metric_plan plan;
};
[[nodiscard]] cupti_session open_cupti_session();

/// Runs the request's program once with the injection library in `mode` ("timing" or
/// "counters" with `metrics`) and reads its perfgate-cupti/1 file, whose text goes to `text`
/// when given (what a counter cache keeps). `what` names the run in messages. target_error (3)
/// when the program fails, skip_error when the library skipped.
[[nodiscard]] cupti_run run_injected(const collect_request& request, const std::string& mode,
                                     const std::string& library,
                                     const std::vector<std::string>& metrics,
                                     const std::string& what, std::string* text = nullptr);
#endif

} // namespace perfgate::detail
