// SPDX-License-Identifier: Apache-2.0
// What rate a device offers a kernel's work: peaks by scope and kind, clocks, the DRAM roof of a
// read/write mix, the cache that holds a working set (model/device_rates.hpp).
#include "model/device_rates.hpp"

#include <perfgate/error.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace perfgate {

std::optional<double> peak_clock_mhz(const device& d, std::string_view key) {
  if (const auto it = d.peak_clocks_mhz.find(key); it != d.peak_clocks_mhz.end()) {
    return it->second;
  }
  return d.sm_clock_mhz;
}

scope_peaks peaks_of_scope(const device& d, bool one_core) {
  if (one_core && d.one_core_peaks) {
    return {*d.one_core_peaks, d.one_core_extra_peaks, true};
  }
  return {d.peaks, d.extra_peaks, false};
}

double memory_roof_gbs(const device& d, bool one_core) {
  const scope_peaks s = peaks_of_scope(d, one_core);
  if (s.peaks.dram_roof_gbs > 0) {
    return s.peaks.dram_roof_gbs;
  }
  double best = s.peaks.dram_gbs;
  for (const auto& [key, value] : s.extra) {
    if (key.starts_with("dram_") && key.ends_with("_gbs")) {
      best = std::max(best, value);
    }
  }
  return best;
}

std::vector<dram_pattern> dram_patterns(const device& d, bool one_core) {
  // STREAM's byte counts per element: what each pattern reads and writes.
  struct shape {
    std::string_view name;
    double reads, writes;
  };
  static constexpr shape shapes[] = {
      {"dram_read", 1, 0},     {"dram_write", 0, 1},    {"dram_copy", 1, 1},
      {"dram_triad", 2, 1},    {"dram_write_nt", 0, 1}, {"dram_copy_nt", 1, 1},
      {"dram_triad_nt", 2, 1},
  };
  const scope_peaks s = peaks_of_scope(d, one_core);
  std::vector<dram_pattern> out;
  for (const auto& sh : shapes) {
    const auto rate = s.extra.find(std::string(sh.name) + "_gbs");
    if (rate != s.extra.end() && rate->second > 0) {
      const double total = sh.reads + sh.writes;
      out.push_back({std::string(sh.name), rate->second * sh.reads / total,
                     rate->second * sh.writes / total});
    }
  }
  return out;
}

std::optional<dram_mix_roof> dram_roof_for_mix(const device& d, bool one_core, double read_bytes,
                                               double write_bytes, bool ordinary_stores) {
  const double R = std::max(0.0, read_bytes), W = std::max(0.0, write_bytes);
  if (!(R + W > 0)) {
    return std::nullopt;
  }
  // The fastest pattern of each read share (1: read, 2/3: triad, 1/2: copy, 0: write).
  std::map<double, dram_pattern> best_of_share;
  for (auto& p : dram_patterns(d, one_core)) {
    if (ordinary_stores && p.name.ends_with("_nt")) {
      continue;
    }
    // Rounded: 2/3 of 17 GB/s over 17 and 2/3 of 18 over 18 differ in the last bit.
    const double share = std::round(p.read_gbs / (p.read_gbs + p.write_gbs) * 1e9) / 1e9;
    auto [it, fresh] = best_of_share.try_emplace(share, p);
    if (!fresh && p.read_gbs + p.write_gbs > it->second.read_gbs + it->second.write_gbs) {
      it->second = p;
    }
  }
  const double share = R / (R + W);
  constexpr double same = 1e-9;
  const auto above = best_of_share.lower_bound(share - same);
  if (above != best_of_share.end() && above->first <= share + same) {
    const dram_pattern& p = above->second;
    return dram_mix_roof{p.read_gbs + p.write_gbs, p.name};
  }
  if (above == best_of_share.end() || above == best_of_share.begin()) {
    return std::nullopt; // a mix beyond the measured ones: no pattern shows its rate
  }
  // Between two measured mixes: time-share the neighbours on either side, so that together
  // they move exactly R and W (t_a r_a + t_b r_b = R, t_a w_a + t_b w_b = W).
  const dram_pattern& a = above->second;
  const dram_pattern& b = std::prev(above)->second;
  const double det = (a.read_gbs * b.write_gbs - b.read_gbs * a.write_gbs) * 1e9;
  const double t =
      (R * b.write_gbs - W * b.read_gbs) / det + (W * a.read_gbs - R * a.write_gbs) / det;
  return dram_mix_roof{(R + W) / t / 1e9, a.name + " + " + b.name};
}

namespace {
// The cache levels a scope has, fastest first, with their capacities (all cores of a CPU see one
// private L1/L2 per core; a GPU's L2 is the chip's) and read bandwidths (a level without a
// measured rate gets the next faster level's; L1: ldst_ginst x 4 B).
std::vector<cache_level> cache_levels(const device& d, bool one_core) {
  const auto [peaks, extra, use_one_core] = peaks_of_scope(d, one_core);
  const double cores =
      use_one_core ? 1.0 : static_cast<double>(std::max<std::uint64_t>(1, d.compute_units));
  std::vector<cache_level> levels;
  double faster_gbs = 0;
  for (const std::string_view name : {"l1", "l2", "llc"}) {
    double gbs = faster_gbs;
    if (name == "l1") {
      gbs = peaks.ldst_ginst * 4; // 32-bit lanes loaded or stored from L1 per second
    } else if (const auto rate = extra.find(std::string(name) + "_gbs"); rate != extra.end()) {
      gbs = rate->second;
    }
    faster_gbs = gbs;
    const auto size = d.cache_bytes.find(name);
    if (size == d.cache_bytes.end() || !(gbs > 0)) {
      continue;
    }
    // A GPU's L2 is one cache all SMs share; a CPU's L1 and L2 are each core's own.
    const double capacity = size->second * (name == "llc" || d.kind == "gpu" ? 1.0 : cores);
    levels.push_back(cache_level{std::string(name), capacity, gbs});
  }
  return levels;
}
} // namespace

std::optional<cache_level> cache_holding(const device& d, double working_set_bytes, bool one_core) {
  if (!(working_set_bytes > 0)) {
    return std::nullopt;
  }
  for (const auto& level : cache_levels(d, one_core)) {
    if (working_set_bytes <= 2 * level.capacity_bytes) {
      return level;
    }
  }
  return std::nullopt;
}

std::optional<cache_level> last_cache_level(const device& d, bool one_core) {
  const auto levels = cache_levels(d, one_core);
  return levels.empty() ? std::nullopt : std::optional<cache_level>(levels.back());
}

device at_sm_clock(const device& d, double sm_clock_mhz) {
  if (!d.sm_clock_mhz || !(*d.sm_clock_mhz > 0)) {
    throw usage_error("device '" + d.id +
                      "' does not say which SM clock its peaks hold at (sm_clock_mhz, "
                      "boost_clock_mhz or clocks): its compute peaks cannot be scaled to "
                      "another clock");
  }
  if (!std::isfinite(sm_clock_mhz) || !(sm_clock_mhz > 0)) {
    std::ostringstream s;
    s << "cannot scale device '" << d.id << "' to an SM clock of " << sm_clock_mhz
      << " MHz: expected a clock > 0";
    throw usage_error(s.str());
  }
  // Issue rates are per-clock rates x the SM clock, each from the clock its peak was measured
  // at; DRAM and caches (the `gbs` rates) run on their own clocks, which the SM clock does not
  // move.
  device out = d;
  const auto scaled = [&](std::string_view key, double value) {
    return value * sm_clock_mhz / *peak_clock_mhz(d, key);
  };
  const auto scale_compute = [&](device_peaks& p) {
    p.fp32_gflops = scaled("fp32_gflops", p.fp32_gflops);
    p.fp64_gflops = scaled("fp64_gflops", p.fp64_gflops);
    p.int_mad_gops = scaled("int_mad_gops", p.int_mad_gops);
    p.int_add_gops = scaled("int_add_gops", p.int_add_gops);
    p.ldst_ginst = scaled("ldst_ginst", p.ldst_ginst);
  };
  scale_compute(out.peaks);
  if (out.one_core_peaks) {
    scale_compute(*out.one_core_peaks);
  }
  for (auto& [key, value] : out.extra_peaks) {
    if (key.find("gbs") == std::string::npos) {
      value = scaled(key, value);
    }
  }
  out.sm_clock_mhz = sm_clock_mhz;
  out.sustained_clock_mhz.reset(); // the clock it runs at is now known
  out.peak_clocks_mhz.clear();     // every peak now holds at the one clock
  return out;
}

namespace detail {

std::optional<std::string> acc16_peak_key(kernel_type t) {
  switch (t) {
  case kernel_type::tensor_fp16: return "tensor_fp16_acc16_gflops";
  case kernel_type::tensor_fp8: return "tensor_fp8_acc16_gflops";
  default: return std::nullopt;
  }
}

accumulate_precision predicted_accumulate(accumulate_precision declared) {
  return declared == accumulate_precision::unknown ? accumulate_precision::fp32 : declared;
}

double peak_of(kernel_type t, const device& d, const scope_peaks& scope, accumulate_precision acc) {
  switch (t) {
  case kernel_type::fp32: return scope.peaks.fp32_gflops;
  case kernel_type::fp64:
    if (!(scope.peaks.fp64_gflops > 0)) { // compute capability 1.1 and older have no FP64
      throw no_path_error("device '" + d.id + "' has no fp64 path: " + d.origin +
                        " states no fp64_gflops (the hardware lacks double precision); predict "
                        "the kernel on a device that has it");
    }
    return scope.peaks.fp64_gflops;
  case kernel_type::integer: return scope.peaks.int_mad_gops;
  default: break;
  }
  const tensor_path& path = tensor_path_of(t);
  const auto it = scope.extra.find(path.peak_key);
  if (it == scope.extra.end()) {
    throw no_path_error("device '" + d.id + "' has no " + std::string(to_string(t)) +
                      " path: no peak '" + std::string(path.peak_key) + "' in " + d.origin +
                      " (the hardware lacks that precision, or the device file does not state "
                      "its peak); predict the kernel on a device that has it");
  }
  const auto acc16_key = acc16_peak_key(t);
  const auto acc16 = acc16_key ? scope.extra.find(*acc16_key) : scope.extra.end();
  if (acc16 == scope.extra.end() || acc == accumulate_precision::fp32) {
    return it->second;
  }
  return acc == accumulate_precision::fp16 ? acc16->second : std::max(it->second, acc16->second);
}

} // namespace detail

} // namespace perfgate
