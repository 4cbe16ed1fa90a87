// SPDX-License-Identifier: Apache-2.0
/// \file
/// The models as pure functions: Profile x Device -> Prediction, every intermediate value kept
/// (MODEL.md). Two kernel models:
///  - quantitative (Konstantinidis 2017): counters from a black-box profile give the kernel's
///    instruction mix, which lowers the compute roof per device (T'_op = E_mix E_instr T_op);
///  - roofline (Williams et al. 2009): declared work only, no instruction-mix terms.
/// Beside the model's predicted time every prediction carries the roof: the speed-of-light time
/// no correct measurement can beat (the largest of the per-resource times at the highest rates
/// the device showed). The gate judges against the roof; the prediction is reported beside it.
/// Units: operations and bytes as counts, rates in 1e9 per second, times in seconds.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/profile.hpp>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// The precision matrix work accumulates in, where a device's tensor rate depends on it: GeForce
/// parts run FP16 and FP8 with FP16 accumulate at twice their FP32-accumulate rate
/// (`tensor_<precision>_acc16_gflops` beside `tensor_<precision>_gflops`).
enum class accumulate_precision { unknown, fp32, fp16 };

/// The work a kernel's performance is measured in: SIMT floating-point or integer operations, or
/// tensor-core (matrix-core) operations of one input precision.
enum class kernel_type {
  fp32,
  fp64,
  integer,
  tensor_fp16,
  tensor_bf16,
  tensor_tf32,
  tensor_fp32,
  tensor_fp64,
  tensor_fp8,
  tensor_int8,
  tensor_fp4
};
enum class bound_class { memory, compute };
enum class model_kind { quantitative, roofline };

/// "fp32", "fp64", "int", "tensor_fp16", "tensor_bf16", ...
[[nodiscard]] std::string_view to_string(kernel_type t);
[[nodiscard]] bool is_tensor(kernel_type t);

/// A tensor-core path: its kernel type, the profile counter of its work and the device peak
/// that bounds it (1e9 op/s, dense: sparsity is not counted as work).
struct tensor_path {
  kernel_type type;
  std::string_view counter;  ///< canonical counter (`counter::tensor_bf16`)
  std::string_view peak_key; ///< device extra peak ("tensor_bf16_gflops")
};
/// Every tensor path, in counter::tensor_ops order.
[[nodiscard]] const std::array<tensor_path, 8>& tensor_paths();
/// The path of a tensor kernel type; throws std::logic_error for a SIMT type.
[[nodiscard]] const tensor_path& tensor_path_of(kernel_type t);
[[nodiscard]] std::string_view to_string(bound_class b); ///< "memory", "compute"
[[nodiscard]] std::string_view to_string(model_kind m);  ///< "quantitative", "roofline"

/// The model's counter inputs (MODEL.md symbols). Instruction counts are thread-level except
/// M_inst (warp-level); traffic in bytes.
struct model_counters {
  double M_fma32 = 0, M_fma64 = 0, M_ldst = 0, M_inst = 0;
  double M_fp32 = 0, M_fp64 = 0, M_int = 0;
  double dram_read_bytes = 0, dram_write_bytes = 0;
  int warp_size = 32; ///< of the GPU the profile was taken on (64 for an AMD wavefront)
  /// Tensor-core operations per tensor type (only types with work); empty for SIMT kernels.
  std::map<kernel_type, double> tensor_ops;
};

/// Kernel parameters derived from a profile; device independent.
struct kernel_params {
  model_kind model = model_kind::quantitative;
  /// The work the kernel is measured in: its dominant tensor precision when tensor operations
  /// outnumber its SIMT flops, else fp64 if it has any, else fp32, else int.
  kernel_type K_type = kernel_type::fp32;
  /// The type of its SIMT instructions, which the instruction mix (E_mix, D_*) describes: K_type
  /// for a SIMT kernel; for a tensor kernel the type its SIMT work alone would have.
  kernel_type simt_type = kernel_type::fp32;
  double W_comp = 0; ///< operations of K_type (flops, integer ops or tensor ops)
  double W_simt = 0; ///< operations of simt_type: W_comp for a SIMT kernel
  double W_traf = 0; ///< DRAM bytes
  double O_krn = 0;  ///< W_comp / W_traf, operations per byte
  // Instruction mix: quantitative model only.
  std::optional<double> E_mix, D_ops, D_ldst, D_other;
  std::optional<double> I_ops, I_total;
  // Inputs of the roof's cache terms, when known: measured traffic through L2 and shared memory
  // (GPU counters), or the working set a benchmark declares (a CPU kernel whose data fits in a
  // cache streams from that cache, not from DRAM).
  std::optional<double> l2_bytes, shared_bytes, working_set_bytes;
  /// The part of W_traf that is written (measured DRAM writes, or the bytes a benchmark declares
  /// it writes): the roof then uses the DRAM patterns of that read/write mix. Empty: unknown.
  std::optional<double> write_bytes;
  /// Only ordinary (write-allocate) stores: the DRAM roof leaves out non-temporal patterns.
  bool ordinary_stores = false;
  /// Where working_set_bytes came from when the benchmark did not declare it: "" (declared or
  /// absent), or how it was taken ("one iteration's bytes (bytes_per_second)").
  std::string working_set_source;
  /// Tensor-core operations per tensor type (only types with work): each is a roof term of its
  /// own, at the device's peak of that path.
  std::map<kernel_type, double> tensor_ops;
  /// false for declared work with bytes and no operations (a Google Benchmark that calls only
  /// SetBytesProcessed): W_comp is 0, the roof is the memory roof alone, and reports say the
  /// compute side was not declared. Never a made-up operation count.
  bool compute_declared = true;
  /// Items of the declared work (SetItemsProcessed), reported; empty when not declared.
  std::optional<double> items;
  /// Matrix-shaped work (a GEMM, batched GEMM, convolution or attention: declared `matrix`,
  /// tensor operations counted, or a library GEMM's kernel name): the roof may hold its SIMT
  /// precision to the matrix units that compute it exactly (matrix_peak).
  bool matrix = false;
  /// What the tensor work accumulates in (declared `accumulate`). A roof takes the rate of that
  /// accumulate, the faster one where it is unknown (a bound whatever the kernel does); a
  /// prediction takes FP32 where it is unknown, what PyTorch and cuBLAS GEMMs accumulate in.
  accumulate_precision accumulate = accumulate_precision::unknown;
  /// Declared work that does not say whether it runs on matrix units (no `matrix` key, no tensor
  /// work, no library GEMM's name): it may (rocBLAS runs fp32 GEMMs on CDNA's FP32 MFMA), so its
  /// roof allows them where they are faster, and says how to tighten it (`matrix: false`).
  /// Predicted times keep the vector pipes: the roof is a bound, the prediction an expectation.
  bool matrix_undeclared = false;
};

/// Whether a kernel's name is a library's matrix product: cuBLAS/CUTLASS (`sgemm`, `gemm`,
/// `xmma`, `cutlass`, `nvjet`), rocBLAS/Tensile (`Cijk_`), hipBLASLt and MIOpen GEMMs.
[[nodiscard]] bool matrix_kernel_name(std::string_view name);

/// The matrix-unit peak that computes `t` (fp32 or fp64) exactly on a scope, when the device
/// has one: AMD CDNA's FP32 and FP64 MFMA (`tensor_fp32_gflops`, `tensor_fp64_gflops`),
/// NVIDIA's DMMA for FP64 (`tensor_fp64_gflops`). TF32 rounds fp32 inputs and is never used
/// for fp32 work: a kernel that accepts it declares tensor_tf32 work (the opt-in).
struct matrix_peak {
  double gflops = 0;
  std::string key; ///< the device peak ("tensor_fp32_gflops")
};
[[nodiscard]] std::optional<matrix_peak> exact_matrix_peak(kernel_type t,
                                                            const std::map<std::string, double, std::less<>>& extra);

/// One resource's share of the roof: the least time the kernel's demand on it takes at the
/// highest rate the device showed for it.
struct roof_term {
  std::string resource; ///< "fp32", "fp64", "int", "ldst", "other", "dram", "l2", "shared", ...
  double amount = 0;    ///< operations, instructions or bytes the kernel puts on the resource
  double rate = 0;      ///< the resource's roof (1e9 per second)
  double time_s = 0;    ///< amount / rate
  std::string via;      ///< what the rate was measured with, when it is not the resource's peak
};

/// The roof (speed of light) of one kernel on one device: the largest of its terms. Compute
/// terms are summed when the device issues one instruction class at a time (the thesis's
/// single pipeline), and overlap (the largest counts) where it issues load/store, integer and
/// floating-point instructions to separate pipes (co_issue).
struct roof_bound {
  double time_s = 0;        ///< the speed-of-light time: no correct run is faster
  std::string limiter;      ///< the resource of the largest term
  bound_class bound = bound_class::memory; ///< compute when a compute term is the largest
  double T_roof = 0;        ///< W_comp / compute time: the kernel's compute roof (1e9 op/s)
  double B_roof = 0;        ///< W_traf / memory time: its effective memory roof (1e9 B/s)
  double O_ridge = 0;       ///< T_roof / B_roof: compute-bound when O_krn exceeds it (op/B)
  bool co_issue = false;    ///< compute terms overlapped (true) or summed (false)
  std::vector<roof_term> terms; ///< compute terms first, then memory levels
  /// The compute side's time (its terms summed or overlapped) and the memory side's (the
  /// slowest level); time_s is the larger. Not written to reports (derived from the terms).
  double compute_time_s = 0;
  double memory_time_s = 0;
};

/// The roof's limiter as reports name it: "dram (dram_triad_nt)" when the limiting term's rate
/// came from a pattern of the kernel's mix, else the resource alone ("fp32", "dram").
[[nodiscard]] std::string limiter_text(const roof_bound& r);

/// How a prediction from a measurement was made (predict_from_measurement): the inputs a
/// reviewer needs to redo it.
struct measured_scaling {
  std::string measured_on;   ///< the device the kernel's time was measured on
  double measured_time_s = 0;
  /// The share of the measured time the source roof's limiting side explains at its rate:
  /// roof time on the source / measured time, at most 1.
  double utilisation = 0;
  std::string limiter;        ///< the source roof's limiter ("dram", "fp32", "issue", ...)
  double resource_scale = 0;  ///< the limiting side's time on the destination / on the source
  double clock_scale = 1;     ///< source SM clock / destination SM clock (1 when unknown)
  /// What the share the roof does not explain (1 - u) scaled by: clock_scale, or for
  /// memory-bound work between GPUs the ratio of their load/store issue rates (ldst_ginst, at
  /// the clocks they run at): bandwidth a stream did not reach moves with the requests its SMs
  /// keep in flight.
  double leftover_scale = 1;
  /// What leftover_scale is: "sm_clock" (clock_scale), "ldst_rate" (the load/store issue rates)
  /// or "gemm_efficiency" (the share of a library GEMM's efficiency that carries, with its model
  /// time): the report's note names it.
  std::string leftover_by = "sm_clock";
  bool at_roof = false;       ///< raised to the destination's roof, which no run can beat
};

/// The prediction for one kernel on one device.
struct prediction {
  std::string device;    ///< device id
  bool one_core = false; ///< predicted on the device's one-core peaks (a one-thread CPU kernel)
  double T_op = 0;       ///< peak of the kernel's type on this device (1e9 op/s)
  // Instruction costs: quantitative model only.
  std::optional<double> W_op, W_ldst, W_other, C_op, C_ldst, C_other, E_instr;
  double T_op_adj = 0; ///< T'_op, the adjusted compute roof (1e9 op/s)
  double B_mem = 0;    ///< the device's DRAM bandwidth used (1e9 B/s)
  double O_dev = 0;    ///< T'_op / B_mem, the ridge point for this kernel (op/B)
  bound_class bound = bound_class::memory;
  double T_pred = 0;           ///< attainable performance (1e9 op/s)
  double predicted_time_s = 0; ///< W_comp / T_pred: the model's predicted (minimum) time
  /// The roof the gate judges against. Empty only in reports written before it existed.
  std::optional<roof_bound> roof;
  /// The kernel's SM clock / the clock the device's peaks hold at, when the compute peaks were
  /// scaled to the clock the kernel ran at (at_sm_clock); empty when they were not.
  std::optional<double> clock_scale;
  /// Present when predicted_time_s was scaled from a measurement on another device
  /// (predictor "measured-scaling"); empty for the model's own prediction.
  std::optional<measured_scaling> scaling;
};

/// The predictor behind prediction::predicted_time_s: "measured-scaling" when it was scaled from
/// a measurement, else the kernel's model ("quantitative", "roofline").
[[nodiscard]] std::string_view predictor_of(const prediction& p, const kernel_params& k);

/// The device cannot run the kernel as profiled: it has no path for one of the kernel's
/// precisions (a BF16 kernel on a V100, FP64 on a part without it). Exit 2 where it stops a
/// command; predict_report instead gives the kernel `cannot_be_judged` on that device, with this
/// reason, and predicts it on the others.
class no_path_error : public usage_error {
public:
  using usage_error::usage_error;
};

/// A kernel's counts or declared work cannot feed the model (exit 2). The model does not know
/// which file they came from: kernel_params_from_profile re-throws it as an input_error naming
/// the profile file and the kernel.
class kernel_input_error : public error {
public:
  explicit kernel_input_error(const std::string& what) : error(exit_status::input_error, what) {}
};

/// Parameters of the quantitative model from counters (MODEL.md 3, "Derived kernel parameters").
/// Throws kernel_input_error when the counts are inconsistent (no instructions, no traffic, no
/// work).
[[nodiscard]] kernel_params derive_kernel_params(const model_counters& m);

/// Parameters of the plain roofline from declared work, summed over `invocations`. The type
/// follows the same precedence (fp64 if any fp64 work, else fp32, else int) and W_comp is that
/// type's work. The working set is the declared one, else the bytes one invocation moves
/// (docs/model.md, "The memory level": one rule whatever declared the bytes). Throws
/// kernel_input_error for negative, non-finite or missing work.
[[nodiscard]] kernel_params declared_kernel_params(const declared_work& w,
                                                   std::uint64_t invocations = 1);

/// The kernel's parameters from a profile entry: declared work when present, else counters.
/// Throws input_error naming `p.source_file`, the kernel and every missing counter by the
/// profile's own (native) metric name.
[[nodiscard]] kernel_params kernel_params_from_profile(const profile& p, const kernel_profile& k);

/// Predict one kernel on one device (MODEL.md 3, "Prediction"; 1 for the roofline model), and
/// its roof (roof_of). With `one_core`, a CPU device's one-core peaks are used (when it has
/// them). A tensor kernel is held to the plain roofline of its tensor path (T_op is that peak;
/// the instruction-mix costs stay empty). Throws usage_error when the device has no peak for a
/// tensor path the kernel uses.
[[nodiscard]] prediction predict(const kernel_params& k, const device& d, bool one_core = false);

/// The roof of a kernel on a device (docs/model.md, "The roof"): compute terms per issue
/// pipeline at the device's peak rates, the DRAM term at its highest sustained bandwidth over
/// access patterns (dram_roof_gbs), and cache terms where the traffic through a cache is
/// measured (l2_gbs, shared_gbs) or the declared working set fits one (cache_levels).
[[nodiscard]] roof_bound roof_of(const kernel_params& k, const device& d, bool one_core = false);

/// What the gate judges a prediction by: the roof's time, class and ridge, or the model's for a
/// prediction without a roof (a report of format version 1).
[[nodiscard]] double gated_time_s(const prediction& p);
[[nodiscard]] bound_class gated_bound(const prediction& p);
[[nodiscard]] double gated_ridge(const prediction& p);

/// The device as it runs at another SM clock: compute peaks (fp32, fp64, int_mad, int_add,
/// ldst, the one-core peaks, and every extra peak whose key does not contain "gbs") scaled by
/// sm_clock_mhz / d.sm_clock_mhz, DRAM bandwidth unchanged, sm_clock_mhz set to the new clock.
/// Throws usage_error when the device has no clock or `sm_clock_mhz` is not a finite number > 0.
[[nodiscard]] device at_sm_clock(const device& d, double sm_clock_mhz);

/// Cross-GPU prediction from a measurement (docs/model.md, "Predicting from a measurement"):
/// the kernel took `measured_s` on `src` (at `measured_clock_mhz` when known, else at src's
/// sustained clock, else at its peaks' clock). The share u of that time the source roof's
/// limiting side explains at its rate scales with that side's time on `dst` at the clock dst
/// sustains (DRAM at its pattern, or at `elementwise_gbs` between two GPUs that state it; a
/// compute path; the summed issue of a single-pipeline GPU; a GPU's DRAM even where a working
/// set fits L2); the rest scales with the SM clock, or for memory-bound work between GPUs with
/// their load/store issue rates (leftover_scale):
///   t_dst = measured_s x (u x resource_scale + (1 - u) x leftover_scale), never below dst's
///   roof (at its peaks' clock).
/// fp32 matrix work between two GPUs that state `fp32_gemm_gflops` scales by its model time
/// (the multiply at that rate plus the operands' traffic), and carries the source's efficiency
/// below it to the power 0.19 across architectures, fully on the same one: the same form,
/// with leftover_scale = resource_scale x (u^(1-e) - u) / (1 - u).
/// The other fields are the model's prediction on `dst` (predict). Throws usage_error when
/// measured_s is not a finite number > 0, or as predict does.
[[nodiscard]] prediction predict_from_measurement(const kernel_params& k, double measured_s,
                                                  std::optional<double> measured_clock_mhz,
                                                  const device& src, const device& dst,
                                                  bool one_core = false);

/// What scripts/bench-accuracy.sh measured for one predictor on kernels of one class (their
/// roof's bound on the device predicted): the absolute error of its predicted times against the
/// measured ones, over the public captures (perfgate/model/accuracy.json, docs/accuracy.md).
struct measured_accuracy {
  double median_abs_error_pct = 0;
  double mean_abs_error_pct = 0;
  std::size_t predictions = 0;
};
/// Empty where the benchmark measured no such kernel (the roofline model of declared work).
[[nodiscard]] std::optional<measured_accuracy> accuracy_of(std::string_view predictor,
                                                           bound_class bound);

/// Clock readings (sampled, rounded to MHz, the datasheet's boost clock vs the one the driver
/// reports) differ by a few MHz with nothing throttled: within this relative distance two clocks
/// are one, and scaling peaks between them would only add noise. (Between two runs, clocks
/// compare within device_identity.hpp's clock_tolerance.)
inline constexpr double clock_reading_noise = 0.005;

/// Prediction error, thesis eq. 5.12: (t_pred - t_meas) / t_meas; negative = optimistic.
[[nodiscard]] double prediction_error(double predicted_s, double measured_s);

/// Utilization factor E_util = t_meas(ref) / t_pred(ref) (>= 1 for a kernel that respects its
/// bound). Multiplying another device's predicted time by it improves average accuracy, but the
/// result is then an estimate, no longer a bound.
[[nodiscard]] double utilization_factor(double measured_ref_s, double predicted_ref_s);

} // namespace perfgate
