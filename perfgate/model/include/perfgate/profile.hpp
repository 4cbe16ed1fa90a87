// SPDX-License-Identifier: Apache-2.0
/// \file
/// A profile: what a profiler (or a benchmark's declared work) says about each kernel,
/// independent of the tool it came from. Counters are stored under canonical names
/// (namespace `perfgate::counter`), summed over every invocation of the kernel.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// Canonical counter names: the quantitative model's inputs (MODEL.md section 3). Instruction
/// counts are thread-level unless named `warp_`; traffic is in bytes.
namespace counter {
inline constexpr std::string_view inst_fp32 = "inst_fp32";         ///< M_fp32 (FMA included)
inline constexpr std::string_view inst_fp32_fma = "inst_fp32_fma"; ///< M_fma32
inline constexpr std::string_view inst_fp64 = "inst_fp64";         ///< M_fp64 (FMA included)
inline constexpr std::string_view inst_fp64_fma = "inst_fp64_fma"; ///< M_fma64
inline constexpr std::string_view inst_integer = "inst_integer";   ///< M_int
inline constexpr std::string_view inst_ldst = "inst_ldst";         ///< M_ldst
inline constexpr std::string_view warp_inst_executed = "warp_inst_executed"; ///< M_inst
inline constexpr std::string_view dram_read_bytes = "dram_read_bytes";       ///< 32 x M_tran_r
inline constexpr std::string_view dram_write_bytes = "dram_write_bytes";     ///< 32 x M_tran_w
// Not model inputs: kept for hierarchical (cache-level) bounds.
inline constexpr std::string_view l2_bytes = "l2_bytes";         ///< bytes through the L2 cache
inline constexpr std::string_view shared_bytes = "shared_bytes"; ///< shared-memory bytes accessed

// Tensor-core (matrix-core) work: operations by input precision, an FMA counted as 2 (2 m n k
// per GEMM), as Nsight Compute's sm__ops_path_tensor_src_* or rocprofv3's
// SQ_INSTS_VALU_MFMA_MOPS_* x 512 count it. Not in model_inputs: a kernel without tensor work
// has none of them.
inline constexpr std::string_view tensor_fp16 = "tensor_fp16_ops"; ///< FP16 inputs
inline constexpr std::string_view tensor_bf16 = "tensor_bf16_ops"; ///< BF16 inputs
inline constexpr std::string_view tensor_tf32 = "tensor_tf32_ops"; ///< TF32 (xf32) inputs
inline constexpr std::string_view tensor_fp32 = "tensor_fp32_ops"; ///< FP32 inputs (AMD MFMA)
inline constexpr std::string_view tensor_fp64 = "tensor_fp64_ops"; ///< FP64 inputs (DMMA)
inline constexpr std::string_view tensor_fp8 = "tensor_fp8_ops";   ///< FP8 (E4M3/E5M2) inputs
inline constexpr std::string_view tensor_int8 = "tensor_int8_ops"; ///< INT8 inputs (IMMA)
inline constexpr std::string_view tensor_fp4 = "tensor_fp4_ops";   ///< FP4 inputs (Blackwell)
/// Warp-level instructions the tensor pipe executed: evidence of tensor work where no ops
/// counter measured it (then the work is unknown, and the kernel cannot be modelled).
inline constexpr std::string_view tensor_inst = "tensor_inst";
/// SIMT half-precision FMA thread instructions (HFMA2 counted once): GA100 and GH100 issue them
/// to the tensor pipe, so they are part of tensor_inst there.
inline constexpr std::string_view inst_fp16_fma = "inst_fp16_fma";
/// The HFMA2 warp instructions the tensor pipe executed (GH100:
/// sm__inst_executed_pipe_tensor_op_hmma_type_hfma2): exact where inst_fp16_fma only bounds them.
inline constexpr std::string_view tensor_inst_hfma2 = "tensor_inst_hfma2";

inline constexpr std::array<std::string_view, 8> tensor_ops = {
    tensor_fp16, tensor_bf16, tensor_tf32, tensor_fp32,
    tensor_fp64, tensor_fp8,  tensor_int8, tensor_fp4};

/// Every canonical counter: the only names a profile's `counters` may hold.
inline constexpr std::array<std::string_view, 22> all = {
    inst_fp32,   inst_fp32_fma, inst_fp64,   inst_fp64_fma, inst_integer,      inst_ldst,
    warp_inst_executed, dram_read_bytes, dram_write_bytes, l2_bytes, shared_bytes, tensor_fp16,
    tensor_bf16, tensor_tf32, tensor_fp32, tensor_fp64, tensor_fp8, tensor_int8, tensor_fp4,
    tensor_inst, inst_fp16_fma, tensor_inst_hfma2};

/// Every counter the quantitative model needs, in the order error messages list them.
inline constexpr std::array<std::string_view, 9> model_inputs = {
    inst_fp32, inst_fp32_fma,      inst_fp64,       inst_fp64_fma,   inst_integer,
    inst_ldst, warp_inst_executed, dram_read_bytes, dram_write_bytes};
} // namespace counter

/// Grid and block dimensions of a launch.
struct launch_config {
  std::array<std::uint64_t, 3> grid{1, 1, 1};
  std::array<std::uint64_t, 3> block{1, 1, 1};
};

/// Statistics over the measured durations of one kernel's invocations (seconds).
struct duration_stats {
  std::uint64_t samples = 0; ///< number of timed invocations
  double total_s = 0;        ///< sum over the timed invocations
  double mean_s = 0;
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  double stddev_s = 0; ///< sample standard deviation (0 for one sample)
  /// Every timed invocation, in the order measured (benchmark repetitions, kernel launches):
  /// what a statistical comparison needs. Empty where only the statistics were recorded.
  std::vector<double> samples_s;

  /// Statistics of a non-empty list of per-invocation durations in seconds, which it keeps.
  [[nodiscard]] static duration_stats from_samples(std::vector<double> samples_s);
};

/// Work a benchmark declares instead of counters (Google Benchmark counters `perfgate_*`),
/// summed over the invocations. It drives the plain roofline: no instruction-mix terms.
struct declared_work {
  double fp32_flops = 0;
  double fp64_flops = 0;
  double int_ops = 0;
  double bytes = 0;
  /// The data one invocation touches (bytes; 0: unknown). A CPU kernel whose working set fits a
  /// cache streams from that cache, so its memory roof is that cache's bandwidth, not DRAM's.
  double working_set_bytes = 0;
  /// The part of `bytes` the kernel writes (`perfgate_write_bytes`); empty: not declared.
  std::optional<double> write_bytes{};
  /// The kernel writes with ordinary (write-allocate) stores only (`perfgate_ordinary_stores`
  /// 1): its DRAM roof is the fastest pattern of its mix without non-temporal stores, which
  /// it cannot use. false: any store kind, so the roof includes the non-temporal patterns.
  bool ordinary_stores = false;
  /// Tensor-core operations by canonical counter (`perfgate_tensor_bf16_ops` declares
  /// "tensor_bf16_ops"); only precisions with work.
  std::map<std::string, double, std::less<>> tensor_ops{};
  /// Items processed (Google Benchmark's SetItemsProcessed): reported, never modelled.
  std::optional<double> items{};
  /// Where `bytes` came from: "perfgate_bytes", "bytes_per_second" (Google Benchmark's
  /// SetBytesProcessed, its rate times the seconds the run measured) or "nvbench" (its declared
  /// global memory reads and writes).
  std::string bytes_source = "perfgate_bytes";
  /// The benchmark's arguments as its name carries them (Google Benchmark's `BM_UFlat/2`: "2",
  /// `BM_memcpy/8/64`: "8/64", named ones `BM_x/size:4096`: "size:4096"; its options such as
  /// `real_time` or `threads:4` are not arguments); empty: none. Reported beside the working
  /// set perfgate takes, never read as a size: what an argument counts (bytes, elements, an
  /// index into the benchmark's inputs as snappy's `/2`, threads) is the benchmark's own.
  std::string arguments{};
  /// Whether the work is a matrix product (GEMM, batched GEMM, convolution, attention) that
  /// may run on the matrix units computing its precision exactly (`"matrix": true`), or runs on
  /// the vector pipes alone (`"matrix": false`, `perfgate_matrix` 0). Empty: not declared; its
  /// roof then allows the matrix units where they are faster, since it may use them.
  std::optional<bool> matrix{};
  /// The precision the matrix work accumulates in (`"accumulate": "fp32"` or `"fp16"`); empty:
  /// not declared. GeForce parts run FP16 and FP8 with FP16 accumulate at twice the rate of
  /// FP32 accumulate (docs/tensor.md, "Accumulate precision").
  std::string accumulate{};
};

/// One kernel (all invocations of one kernel name, aggregated).
struct kernel_profile {
  std::string name; ///< full name as the tool printed it (signature, templates, commas kept)
  std::uint64_t invocations = 1;
  std::map<std::string, double, std::less<>> counters; ///< canonical name -> total
  std::optional<launch_config> launch;                 ///< of the first invocation, when known
  std::optional<duration_stats> duration;              ///< measured times, when known
  /// The measured time of the work the counters (or declared work) describe: the sum of the
  /// timed launches for a profiler, the median time of one iteration for a benchmark.
  std::optional<double> time_s;
  std::uint64_t threads = 0; ///< CPU threads the benchmark ran on (0: unknown or a GPU kernel)
  /// Where time_s is the CPU time of the benchmark's thread (Google Benchmark's clock for a
  /// benchmark that uses neither real nor manual time): the median real time of one iteration
  /// over the same repetitions, which a busy machine (or a benchmark that waits) makes longer.
  /// Absent where time_s is itself the real time.
  std::optional<double> real_time_s;
  std::optional<declared_work> work; ///< declared work, when the source declares it
  /// Mean SM clock while the kernel ran (MHz), when the collector measured it (CUPTI's
  /// sm__cycles_elapsed.avg.per_second, Nsight Compute's, or NVML sampled at launch).
  std::optional<double> sm_clock_mhz;
  /// Why the GPU held its clocks down while the kernel ran (NVML clock-event reasons such as
  /// "sw_power_cap", "hw_thermal_slowdown"), when known; empty when nothing held them down.
  std::vector<std::string> clock_limits;
  /// The GPU this kernel ran on where the profile's kernels ran on several (an nvbench file of a
  /// two-GPU run: "Quadro GP100 (1)", the tool's name and device number); empty: the profile's
  /// device_name.
  std::string device_name;
  /// What the tool reported of the timed samples where `duration` is unknown (it kept neither
  /// the samples nor all their statistics: nvbench files before 2025 hold the count and the
  /// relative standard deviation). Absent: not reported, never 0 for unknown.
  std::optional<std::uint64_t> sample_count;
  std::optional<double> relative_noise; ///< standard deviation / mean of those samples

  [[nodiscard]] std::optional<double> counter(std::string_view canonical) const;
  /// Warp-level matrix (MMA) instructions that the counters prove: the tensor pipe's
  /// instructions less the SIMT HFMA2 some chips (GA100, GH100) issue there: exactly where the
  /// pipe's HFMA2 warp instructions were counted (tensor_inst_hfma2), else less the most the
  /// HFMA2 thread instructions can be (one active thread each: a scan's or reduction's partial
  /// warps), so that no SIMT kernel is taken for matrix work. 0 when not counted.
  [[nodiscard]] double matrix_instructions() const;
  /// Tensor operations over every precision counted (0 when none is).
  [[nodiscard]] double tensor_operations() const;
};

/// Where a profile came from: the formats perfgate reads, and its own CUPTI collector.
enum class profile_format {
  detect,           ///< import_profile: decide from the file's content (never a profile's own)
  nvprof_csv,       ///< `nvprof --csv --metrics ...` (per-invocation Min/Max/Avg table)
  ncu_csv_raw,      ///< `ncu --csv --page raw` (a row per launch, a column per metric)
  ncu_csv,          ///< `ncu --csv` details layout (a row per metric)
  perfgate_json,    ///< `perfgate-profile/1`
  gbench_json,      ///< Google Benchmark `--benchmark_out_format=json` with declared work
  rocprof_csv,      ///< rocprofv3 `counter_collection.csv` (AMD; architecture from the counters)
  rocprof_wide_csv, ///< rocprof v1 `results.csv`, rocprofv2, Omniperf `pmc_perf.csv` (a column
                    ///< per counter)
  rocpd_db,         ///< rocprofv3's rocpd SQLite database (`.db`, ROCm 7.0+)
  cupti,            ///< `perfgate run --collector cupti` (its `perfgate-cupti/1` runs)
  nvbench_json,     ///< nvbench `--json` / `--jsonbin` (format 1.x), or the nvbench collector
};

/// The format's name in profiles and reports: "nvprof-csv", "ncu-csv-raw", "ncu-csv",
/// "perfgate-profile/1", "gbench-json", "rocprofv3-csv", "rocprof-csv", "rocpd", "cupti",
/// "nvbench-json".
[[nodiscard]] std::string_view to_string(profile_format f);

/// A whole profile: where it came from and its kernels in the order they first appeared.
struct profile {
  profile_format format = profile_format::perfgate_json;
  std::string source_file; ///< the file it was read from (empty when built in memory)
  std::string device_name; ///< the GPU the profile was taken on, as the tool named it
  int warp_size = 32;      ///< of that GPU: 32 on NVIDIA, 64 for an AMD wavefront
  /// The tool's own name(s) for each canonical counter, so errors speak the file's language.
  std::map<std::string, std::string, std::less<>> native_counter_names;
  std::vector<kernel_profile> kernels;
  /// Errors the profiler itself reported in the file (ncu's `==ERROR== Failed to profile ...`
  /// lines, as "line N: text"): a kernel it failed on is absent from `kernels`, so these are
  /// shown with every prediction and quoted when a gated kernel is missing.
  std::vector<std::string> tool_errors;

  /// The tool's name for a canonical counter (the canonical name when the tool has none).
  [[nodiscard]] std::string native_name(std::string_view canonical) const;
};

/// Serialise to `perfgate-profile/1` JSON text.
[[nodiscard]] std::string profile_to_json(const profile& p);
/// Parse `perfgate-profile/1` JSON text; `file` names the source in error messages.
[[nodiscard]] profile profile_from_json(std::string_view text, const std::string& file);

} // namespace perfgate
