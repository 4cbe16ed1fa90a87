// SPDX-License-Identifier: Apache-2.0
/// \file
/// The pipeline performance model (Cornelis & Lemeire, PDP 2019; MODEL.md section 5): latency
/// of warps of dependent instructions on one compute unit, by the closed form (Eq. 1) and by a
/// discrete-event simulation of the compute unit's pipelines, with the corrections MODEL.md
/// lists for the paper's Algorithm 1. Times are in cycles of the compute unit's clock.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/profile.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::pipeline {

/// An instruction type's latencies in cycles: `issue` (lambda) between two warp instructions of
/// the type on one compute unit (1 = warp-size instructions per cycle; may be fractional, 0.25
/// on Pascal), `completion` (Lambda) from issue until a dependent instruction may issue.
struct latency {
  double issue = 1;
  double completion = 1;
};

/// Eq. 1: W warps of N dependent instructions of one type take N Lambda + (W - 1) lambda cycles
/// until the last completion when W <= Lambda / lambda, else Lambda + (N W - 1) lambda.
[[nodiscard]] double eq1_cycles(const latency& l, std::uint64_t n, std::uint64_t warps);

/// Eq. 1 inverted on a sweep of dependent chains (MODEL.md): Lambda = t(1) / N and
/// lambda = (t(W) - Lambda) / (N W - 1), from `cycles_one_warp` = t(1) and `cycles_many` =
/// t(W) with W past the knee. Throws usage_error for non-positive inputs, W < 2, or t(W) < t(1)
/// (W warps of dependent chains cannot finish before one).
[[nodiscard]] latency fit_eq1(double cycles_one_warp, double cycles_many, std::uint64_t n,
                              std::uint64_t warps);

/// One point of a latency sweep: W warps of N dependent instructions took `cycles` until the
/// last completion.
struct sweep_point {
  std::uint64_t warps = 0;
  std::uint64_t n = 0;
  double cycles = 0;
};

/// Latencies of one instruction class fitted from its sweep (fit_eq1 on the one-warp point and
/// the point of most warps), with what the fit rests on.
struct latency_fit {
  latency lat;
  std::uint64_t n = 0;         ///< dependent instructions per warp in the sweep
  std::uint64_t warps_fit = 0; ///< W of the point lambda comes from
  double knee_warps = 0;       ///< Lambda / lambda: fewer warps are latency-bound
  double max_residual = 0;     ///< largest |Eq. 1 / measured - 1| over every point of the sweep
};

/// Fits `points` (one instruction class). Throws usage_error naming `what` without a one-warp
/// point, a point of 2 or more warps, or one N, and when the most warps are not past the knee
/// (lambda then cannot be read from them).
[[nodiscard]] latency_fit fit_sweep(const std::vector<sweep_point>& points, std::string_view what);

/// lambda of a one-cycle instruction on a compute unit of `lanes` lanes: warp_size / lanes
/// (Section III.B: lambda = 1 is 32 instructions per cycle on NVIDIA, 64 on AMD).
[[nodiscard]] double issue_latency_from_lanes(double lanes, int warp_size);

/// Groups one compute unit runs: ceil(groups / compute_units) (Section III.D).
[[nodiscard]] std::uint64_t groups_per_compute_unit(std::uint64_t groups,
                                                    std::uint64_t compute_units);

/// What a kernel holds per thread and per group, as the compiler reports it (`cuobjdump
/// -res-usage`: REG, SHARED); dynamic shared memory is the launch's.
struct kernel_resources {
  std::uint32_t registers_per_thread = 0;
  std::uint64_t shared_bytes_per_group = 0; ///< static + dynamic
};

/// Groups (blocks) resident on one SM at a time, and the limit that decided it.
struct occupancy {
  std::uint64_t groups = 0;
  std::string limited_by; ///< "warps", "groups", "registers" or "shared memory"
};

/// The occupancy of a launch of `threads_per_group` threads on an NVIDIA SM of architecture
/// `arch` (sm_70, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_100), by the rules of the CUDA
/// occupancy calculator: warps, resident blocks, registers (allocated per warp in units of 256)
/// and shared memory (in units of 128 bytes, plus 1 KB reserved per block from sm_80 on).
/// Throws usage_error for another architecture, or a group that fits no SM (naming the limit).
[[nodiscard]] occupancy nvidia_occupancy(std::string_view arch, std::uint64_t threads_per_group,
                                         const kernel_resources& resources);

/// The compute unit's pipelines (names as Nsight Compute's sm__inst_executed_pipe_*).
enum class unit { alu, fp64, sfu, lmem, gmem, sync, tensor };
[[nodiscard]] std::string_view to_string(unit u);

/// One instruction of a warp's instruction dependence graph (IDG). `deps` index earlier
/// instructions of the same graph.
struct instruction {
  std::string op; ///< "fadd", "ld.global", ... (for reports)
  unit pipe = unit::alu;
  latency lat;
  std::vector<std::size_t> deps; ///< instructions whose results it needs
  bool store = false;            ///< completes at issue + lambda: the warp need not wait for it
  bool barrier = false; ///< ready only when its deps are complete in every warp of the group
};

/// What one warp executes, in program order (every dep is an earlier instruction).
struct idg {
  std::vector<instruction> instructions;
};

struct sim_config {
  std::uint64_t warps_per_group = 1; ///< ceil(threads per group / warp size)
  std::uint64_t groups = 1;          ///< groups this compute unit runs (groups_per_compute_unit)
  std::uint64_t resident_groups = 1; ///< at most this many at a time (occupancy)
  bool in_order = false;             ///< a warp issues its instructions in program order
  /// At most this many warp instructions issue per cycle over all pipelines (the dispatch
  /// units of an SM: 4 on Volta and later, one per sub-partition); 0: no limit but the pipes'.
  std::uint64_t issue_width = 0;
  double theta = 0.8; ///< utilisation at which a run is throughput-bound
};

/// What the simulation found.
struct sim_result {
  double cycles = 0;              ///< until the last completion
  std::uint64_t instructions = 0; ///< warp instructions issued
  unit busiest = unit::alu;       ///< the pipeline with the most busy cycles
  double utilisation = 0;         ///< its busy cycles (issues x lambda) / cycles
  bool latency_bound = false;     ///< utilisation < theta (MODEL.md: perfgate's rule)
};

/// Simulates `config.groups` groups of `config.warps_per_group` warps running `g` on one compute
/// unit: min(resident, groups) groups admitted first and one more whenever one finishes; each
/// pipeline issues one warp instruction per lambda of that instruction, to the oldest ready warp
/// instruction (ties in readiness order, so no warp starves); an idle pipeline waits for the
/// next ready instruction; completions are processed before issues at the same time. With an
/// issue width, at most that many instructions issue per whole cycle, the oldest ready first,
/// and the rest wait for the next cycle. On a single
/// chain of one instruction type it equals Eq. 1 exactly. Throws usage_error for an empty graph,
/// a dep that is not an earlier instruction, zero warps, groups or resident groups, or a
/// non-positive latency.
[[nodiscard]] sim_result simulate(const idg& g, const sim_config& config);

/// A kernel's launch through the pipeline model on one device: what the gate needs to call a
/// kernel latency-bound from its instruction graph rather than from its duration.
struct launch_estimate {
  std::string idg;    ///< the graph's file
  double seconds = 0; ///< the launch's simulated time (cycles at the clock)
  double cycles = 0;
  double utilisation = 0; ///< of the busiest pipe
  unit busiest = unit::alu;
  double theta = 0.8;
  bool latency_bound = false;        ///< utilisation < theta
  std::uint64_t resident_groups = 0; ///< per compute unit
  std::string limited_by;            ///< what decided it
  std::uint64_t warps_per_group = 0;
};

/// Latencies by instruction class, read from `perfgate-latencies/1` (what `perfgate pipeline fit`
/// writes). Throws input_error naming `file` and the key.
[[nodiscard]] std::map<std::string, latency, std::less<>>
latencies_from_json(std::string_view text, const std::string& file);

/// An instruction dependence graph from `perfgate-idg/1`: {"schema", "kernel", "instructions":
/// [{"op", "pipe", "latency" (a class of `latencies`), "deps", "store", "barrier"}]}, loops
/// already replicated. Throws input_error naming `file` and the key: an unknown pipe or latency
/// class, a dep that is not an earlier instruction.
[[nodiscard]] idg idg_from_json(std::string_view text, const std::string& file,
                                const std::map<std::string, latency, std::less<>>& latencies);

/// `n` dependent instructions of latency `l` on pipeline `pipe` (the micro-benchmark's chain).
[[nodiscard]] idg dependent_chain(const latency& l, std::uint64_t n, unit pipe = unit::alu);

/// The warps of one group of `threads` threads (NVIDIA: 32 lanes).
[[nodiscard]] std::uint64_t warps_of(std::uint64_t threads);

/// The resident groups of a perfgate-idg/1 graph's launch: from its arch and resources
/// (`perfgate pipeline idg`), `threads_per_group` and the launch's dynamic shared memory.
[[nodiscard]] occupancy graph_occupancy(const std::string& idg_text, const std::string& file,
                                        std::uint64_t threads_per_group,
                                        std::uint64_t dynamic_shared);

} // namespace perfgate::pipeline

namespace perfgate {

/// `run --idg FILE... --latencies FILE`: each graph's kernel of the profile simulated at its
/// launch (grid, block) on the local device's compute units, at the occupancy its registers and
/// shared memory allow, in order with 4 dispatches per cycle; by kernel name. A graph whose
/// kernel is not in the profile is an error; a kernel without its launch configuration is
/// left out, with a sentence in `left_out` (the caller says it: the model writes nowhere).
struct pipeline_launch_estimates {
  std::map<std::string, pipeline::launch_estimate, std::less<>> by_kernel;
  std::vector<std::string> left_out; ///< "FILE: KERNEL has no launch configuration ..."
};
[[nodiscard]] pipeline_launch_estimates
pipeline_estimates(const std::vector<std::string>& idg_files, const std::string& latencies_file,
                   const profile& p, const device& local);

} // namespace perfgate
