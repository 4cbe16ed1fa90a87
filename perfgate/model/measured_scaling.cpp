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
  // profiler's locked clock is explained by the peaks of that clock.
  const bool off_clock = measured_clock_mhz && src.sm_clock_mhz &&
                         std::fabs(*measured_clock_mhz / *src.sm_clock_mhz - 1) > clock_tolerance;
  const device source = off_clock ? at_sm_clock(src, *measured_clock_mhz) : src;
  const roof_bound from = roof_of(k, source, one_core);
  prediction p = predict(k, dst, one_core);
  const roof_bound& to = *p.roof;

  measured_scaling s;
  s.measured_on = src.id;
  s.measured_time_s = measured_s;
  s.utilisation = std::min(1.0, from.time_s / measured_s);
  s.limiter = from.limiter;
  s.resource_scale = limiting_side_s(to, from.bound) / limiting_side_s(from, from.bound);
  const std::optional<double> src_clock = measured_clock_mhz ? measured_clock_mhz : src.sm_clock_mhz;
  if (src_clock && dst.sm_clock_mhz) {
    s.clock_scale = *src_clock / *dst.sm_clock_mhz;
  }
  const double scaled =
      measured_s * (s.utilisation * s.resource_scale + (1 - s.utilisation) * s.clock_scale);
  s.at_roof = scaled < to.time_s;
  p.predicted_time_s = std::max(scaled, to.time_s);
  p.scaling = s;
  return p;
}

} // namespace perfgate
