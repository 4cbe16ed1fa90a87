// SPDX-License-Identifier: Apache-2.0
// The second predictor beside the thesis model: a kernel's measured time on one device, scaled
// to another by what limits it (docs/model.md, "Predicting from a measurement"). The thesis
// model predicts from counters alone and misses what they do not show (latency, synchronisation,
// the rate a kernel's access pattern really reaches); a measurement contains all of it, and
// only the part the limiting resource explains changes with that resource's rate.
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include "model/device_rates.hpp"

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
// Work that did not declare whether it runs on matrix units scales by the vector pipes: its roof
// allows the matrix units (a bound), its prediction keeps the path it is known to take.
roof_bound scaling_roof_of(const kernel_params& k, const device& d, bool one_core) {
  kernel_params scaled = k;
  scaled.matrix_undeclared = false;
  if (d.kind == "gpu") {
    scaled.working_set_bytes.reset();
  }
  return roof_of(scaled, d, one_core);
}

// A device at the clock it holds under sustained load (its power limit), for a prediction; the
// device itself where it sustains the clock its peaks hold at.
device at_sustained_clock(const device& d) {
  return d.sustained_clock_mhz && d.sm_clock_mhz &&
                 std::fabs(*d.sustained_clock_mhz / *d.sm_clock_mhz - 1) > clock_reading_noise
             ? at_sm_clock(d, *d.sustained_clock_mhz)
             : d;
}

// A device whose fp32 rate is the one library GEMMs sustain on it (`fp32_gemm_gflops`, at the
// clock its peaks hold at): what a GEMM's measured time scales by between two GPUs that state
// it. Their peaks are no such rate: an SGEMM's multiply fills 0.99 of a V100's FP32 lanes, 0.81
// of an H100's and 0.68 of an MI210's FP32 MFMA (NeuSight's calibration half).
device at_gemm_rate(const device& d) {
  device out = d;
  out.peaks.fp32_gflops = d.extra_peaks.at("fp32_gemm_gflops");
  out.extra_peaks.erase("tensor_fp32_gflops");
  return out;
}

// A device whose DRAM rate is the one library streaming kernels sustain on it
// (`elementwise_gbs`): what memory traffic scales by between two GPUs that state it. A GDDR6
// L4 streams at 0.78 of its datasheet rate, an HBM2 V100 at 0.91 (NeuSight's calibration
// half): the datasheet rates alone move a memory-bound time by the wrong ratio.
device at_stream_rate(const device& d) {
  device out = d;
  out.peaks.dram_gbs = d.extra_peaks.at("elementwise_gbs");
  out.peaks.dram_roof_gbs = 0;
  std::erase_if(out.extra_peaks, [](const auto& kv) {
    return kv.first.starts_with("dram_") && kv.first.ends_with("_gbs");
  });
  return out;
}

// How much of a GEMM's efficiency (the model's time / the measured time) carries to a GPU of
// another architecture: the destination's expected efficiency is the source's to this power.
// The least-squares slope of log efficiency on one GPU against another over NeuSight's
// calibration half (24,350 GEMM pairs of different architectures, 1 ms or more on both:
// scripts/bench/neusight.py --fit): 0.19. Little of it carries: the library picks its kernel
// per architecture (cuBLAS runs a bmm with K = 64 at 0.55 of an A100's rate and 0.92 of an
// H100's). On the same architecture the same kernels run, and all of it carries (exponent 1).
constexpr double gemm_efficiency_carried = 0.19;

// A GEMM's model time: the multiply at the rate library GEMMs sustain, plus its compulsory
// traffic (each operand once) at the stream rate. The two add: NeuSight's SGEMMs are slower
// than either alone by about the traffic's time, most where the arithmetic intensity is low
// (a bmm of K = 64 on an L4, whose DRAM is slow for its FP32 rate).
double gemm_model_time_s(const roof_bound& r) { return r.compute_time_s + r.memory_time_s; }

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
  const bool off_clock =
      measured_clock_mhz && src.sm_clock_mhz &&
      std::fabs(*measured_clock_mhz / *src.sm_clock_mhz - 1) > clock_reading_noise;
  const device source = off_clock ? at_sm_clock(src, *measured_clock_mhz)
                        : measured_clock_mhz ? src
                                             : at_sustained_clock(src);
  const bool streams = src.kind == "gpu" && dst.kind == "gpu" &&
                       src.extra_peaks.contains("elementwise_gbs") &&
                       dst.extra_peaks.contains("elementwise_gbs");
  const device target = at_sustained_clock(dst);
  const bool gemm_rates = k.matrix && k.simt_type == kernel_type::fp32 &&
                          src.extra_peaks.contains("fp32_gemm_gflops") &&
                          dst.extra_peaks.contains("fp32_gemm_gflops");
  const auto rates = [&](const device& d) {
    const device g = gemm_rates ? at_gemm_rate(d) : d;
    return streams ? at_stream_rate(g) : g;
  };
  // The rates a prediction assumes: the declared accumulate's, else FP32 accumulate (the roof
  // below keeps the faster rate where the accumulate is unknown: it is a bound).
  kernel_params as_predicted = k;
  as_predicted.accumulate = detail::predicted_accumulate(k.accumulate);
  const roof_bound from = scaling_roof_of(as_predicted, rates(source), one_core);
  const roof_bound to_rates = scaling_roof_of(as_predicted, rates(target), one_core);
  prediction p = predict(k, dst, one_core);
  const roof_bound& to = *p.roof; // the bound stays at the clock the peaks hold at

  measured_scaling s;
  s.measured_on = src.id;
  s.measured_time_s = measured_s;
  s.limiter = from.limiter;
  const std::optional<double> src_clock = measured_clock_mhz ? measured_clock_mhz
                                                             : source.sm_clock_mhz;
  if (src_clock && target.sm_clock_mhz) {
    s.clock_scale = *src_clock / *target.sm_clock_mhz;
  }
  if (gemm_rates) {
    // A library GEMM: the model's time (multiply plus traffic) scales between the GPUs; of the
    // source's efficiency below it, the share gemm_efficiency_carried says carries:
    //   t_dst = t_src x r x u^(1 - e),  e = 1 on the same architecture,
    // which is the general form below with the leftover scaled by r (u^(1-e) - u) / (1 - u).
    const double model_s = gemm_model_time_s(from);
    const bool same_arch = !src.arch.empty() && src.arch == dst.arch;
    const double carried = same_arch ? 1.0 : gemm_efficiency_carried;
    s.utilisation = std::min(1.0, model_s / measured_s);
    s.resource_scale = gemm_model_time_s(to_rates) / model_s;
    s.leftover_by = s.utilisation < 1 ? "gemm_efficiency" : "sm_clock";
    s.leftover_scale = s.utilisation < 1
                           ? s.resource_scale *
                                 (std::pow(s.utilisation, 1 - carried) - s.utilisation) /
                                 (1 - s.utilisation)
                           : s.clock_scale;
  } else {
    s.utilisation = std::min(1.0, from.time_s / measured_s);
    s.resource_scale =
        limiting_side_s(to_rates, from.bound) / limiting_side_s(from, from.bound);
    // The share the roof does not explain. Issue-bound work: latency and synchronisation in
    // SM cycles, which move with the clock. Memory-bound work between GPUs: bandwidth a stream
    // did not reach because its SMs kept too few requests in flight (Little's law), which
    // moves with the rate the SMs issue loads and stores (ldst_ginst: SMs x lanes x clock, at
    // the clocks the GPUs run at). Same SMs (an H100 and an H200): the clock alone; an L4's 58
    // SMs to an A100's 108: 1.9x the clock ratio; a Fermi SM to a Kepler SMX: their measured
    // rates.
    const bool by_ldst = from.bound == bound_class::memory && src.kind == "gpu" &&
                         dst.kind == "gpu" && source.peaks.ldst_ginst > 0 &&
                         target.peaks.ldst_ginst > 0;
    s.leftover_by = by_ldst ? "ldst_rate" : "sm_clock";
    s.leftover_scale = by_ldst ? source.peaks.ldst_ginst / target.peaks.ldst_ginst : s.clock_scale;
  }
  const double scaled =
      measured_s * (s.utilisation * s.resource_scale + (1 - s.utilisation) * s.leftover_scale);
  s.at_roof = scaled < to.time_s;
  p.predicted_time_s = std::max(scaled, to.time_s);
  p.scaling = s;
  return p;
}

} // namespace perfgate
