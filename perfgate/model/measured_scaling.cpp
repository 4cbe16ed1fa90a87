// SPDX-License-Identifier: Apache-2.0
// The second predictor beside the thesis model: a kernel's measured time on one device, scaled
// to another by what limits it (docs/model.md, "Predicting from a measurement"). The thesis
// model predicts from counters alone and misses what they do not show (latency, synchronisation,
// the rate a kernel's access pattern really reaches); a measurement contains all of it, and
// only the part the limiting resource explains changes with that resource's rate.
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include <algorithm>
#include <cmath>

namespace perfgate {

namespace {

// The side of the roof that limits the kernel on the source: its time on a roof.
double limiting_side_s(const roof_bound& r, bound_class side) {
  return side == bound_class::compute ? r.compute_time_s : r.memory_time_s;
}

// The roof a measurement scales by: on a GPU, the DRAM traffic even where a declared working set
// fits L2. NeuSight-style times (the best of repeated calls) find the data in L2 partly or not
// at all; the roof (a bound) assumes it all there, and scaling by L2 rates would scale by
// bandwidth the kernel did not use.
roof_bound scaling_roof_of(const kernel_params& k, const device& d, bool one_core) {
  if (d.kind != "gpu" || !k.working_set_bytes) {
    return roof_of(k, d, one_core);
  }
  kernel_params streamed = k;
  streamed.working_set_bytes.reset();
  return roof_of(streamed, d, one_core);
}

// A device at the clock it holds under sustained load (its power limit), for a prediction; the
// device itself where it sustains the clock its peaks hold at.
device at_sustained_clock(const device& d) {
  return d.sustained_clock_mhz && d.sm_clock_mhz &&
                 std::fabs(*d.sustained_clock_mhz / *d.sm_clock_mhz - 1) > clock_tolerance
             ? at_sm_clock(d, *d.sustained_clock_mhz)
             : d;
}

// A device whose fp32 rate is the one library GEMMs sustain on it (`fp32_gemm_gflops`, at the
// clock its peaks hold at): what a GEMM's measured time scales by between two GPUs that state
// it. Their peaks are no such rate: an SGEMM fills 0.94 of a V100's FP32 lanes, 0.71 of an
// H100's and 0.54 of an MI210's FP32 MFMA (NeuSight's calibration half).
device at_gemm_rate(const device& d) {
  device out = d;
  out.peaks.fp32_gflops = d.extra_peaks.at("fp32_gemm_gflops");
  out.extra_peaks.erase("tensor_fp32_gflops");
  return out;
}

} // namespace

std::string_view predictor_of(const prediction& p, const kernel_params& k) {
  return p.scaling ? std::string_view("measured-scaling") : to_string(k.model);
}

prediction predict_from_measurement(const kernel_params& k, double measured_s,
                                    std::optional<double> measured_clock_mhz, const device& src,
                                    const device& dst, bool one_core) {
  if (!std::isfinite(measured_s) || measured_s <= 0) {
    throw usage_error("measured time", "expected a time > 0 s to scale from, got " +
                                           std::to_string(measured_s));
  }
  // The source's rates at the clock the kernel ran at: a measurement under a power cap or a
  // profiler's locked clock is explained by the peaks of that clock. A profile that does not
  // say ran at the source's sustained clock (a power-limited part), else its peaks' clock.
  const bool off_clock = measured_clock_mhz && src.sm_clock_mhz &&
                         std::fabs(*measured_clock_mhz / *src.sm_clock_mhz - 1) > clock_tolerance;
  const device source = off_clock ? at_sm_clock(src, *measured_clock_mhz)
                        : measured_clock_mhz ? src
                                             : at_sustained_clock(src);
  const device target = at_sustained_clock(dst);
  const bool gemm_rates = k.matrix && k.simt_type == kernel_type::fp32 &&
                          src.extra_peaks.contains("fp32_gemm_gflops") &&
                          dst.extra_peaks.contains("fp32_gemm_gflops");
  const roof_bound from =
      scaling_roof_of(k, gemm_rates ? at_gemm_rate(source) : source, one_core);
  const roof_bound to_rates =
      scaling_roof_of(k, gemm_rates ? at_gemm_rate(target) : target, one_core);
  prediction p = predict(k, dst, one_core);
  const roof_bound& to = *p.roof; // the bound stays at the clock the peaks hold at

  measured_scaling s;
  s.measured_on = src.id;
  s.measured_time_s = measured_s;
  s.utilisation = std::min(1.0, from.time_s / measured_s);
  s.limiter = from.limiter;
  s.resource_scale = limiting_side_s(to_rates, from.bound) / limiting_side_s(from, from.bound);
  const std::optional<double> src_clock = measured_clock_mhz ? measured_clock_mhz
                                                             : source.sm_clock_mhz;
  if (src_clock && target.sm_clock_mhz) {
    s.clock_scale = *src_clock / *target.sm_clock_mhz;
  }
  // The share the roof does not explain. Issue-bound work: latency and synchronisation in SM
  // cycles, which move with the clock. Memory-bound work between GPUs: bandwidth a stream did
  // not reach because its SMs kept too few requests in flight (Little's law), which moves with
  // the rate the SMs issue loads and stores (ldst_ginst: SMs x lanes x clock, at the clocks the
  // GPUs run at). Same SMs (an H100 and an H200): the clock alone; an L4's 58 SMs to an A100's
  // 108: 1.9x the clock ratio; a Fermi SM to a Kepler SMX: their measured rates.
  s.leftover_scale = from.bound == bound_class::memory && src.kind == "gpu" &&
                             dst.kind == "gpu" && source.peaks.ldst_ginst > 0 &&
                             target.peaks.ldst_ginst > 0
                         ? source.peaks.ldst_ginst / target.peaks.ldst_ginst
                         : s.clock_scale;
  const double scaled =
      measured_s * (s.utilisation * s.resource_scale + (1 - s.utilisation) * s.leftover_scale);
  s.at_roof = scaled < to.time_s;
  p.predicted_time_s = std::max(scaled, to.time_s);
  p.scaling = s;
  return p;
}

} // namespace perfgate
