// SPDX-License-Identifier: Apache-2.0
// perfgate-microbench-cuda / perfgate-microbench-hip: peak-rate micro-benchmarks for perfgate's
// device model (T_SP, T_DP, T_int, T_add, T_ldst, B_mem, plus fp16, L2 bandwidth, the tensor
// (matrix) unit per precision and a measured roofline sweep) and the boat hull model's
// P_uncoalesced (random gather/scatter) and B_bus (pinned host-device copies). This file: the
// command line, the order of the runs and the JSON output.
//
// One source for two back ends: compiled by nvcc it is perfgate-microbench-cuda; compiled as
// HIP (hipcc / clang -x hip, AMD) it is perfgate-microbench-hip. Everything that differs
// between the runtimes lives in gpu_compat.hpp.
//
// Method (after Konstantinidis 2017, ch. 4, and the roofline paper of Williams et al. 2009):
// every kernel is sized so that one timed run lasts about 20 ms (the iteration or pass count
// is calibrated on the device), warmed up once at that size, then timed `reps` times with GPU
// events; "best" is the highest rate. Compute kernels keep 8 independent dependency chains per
// thread at full occupancy; their results feed a store that never happens but that the
// compiler cannot rule out, so no chain can be removed. Memory kernels stream 16-byte vectors
// over buffers far larger than L2 (flushed between repetitions) and verify a checksum, so a
// kernel that skipped data would be reported as an error rather than as bandwidth.
//   gpu_measure: timing and sizing     gpu_compute: FMA, integer mad and add peaks
//   gpu_caches:  shared memory, L2     gpu_memory:  DRAM streams, roofline sweep
//   gpu_tensor:  mma.sync / MFMA per precision   gpu_tensor_async: wgmma, tcgen05 (run last)
//   gpu_uncoalesced: random 4-byte gather/scatter   gpu_bus: pinned host-device copies
//   gpu_clocks:  NVML / ROCm SMI clock reader
//   gpu_latency: dependent chains per instruction class (the pipeline model's latencies)
#include "gpu_bus.hpp"
#include "gpu_caches.hpp"
#include "gpu_clocks.hpp"
#include "gpu_compat.hpp"
#include "gpu_compute.hpp"
#include "gpu_latency.hpp"
#include "gpu_measure.hpp"
#include "gpu_memory.hpp"
#include "gpu_tensor.hpp"
#include "gpu_uncoalesced.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace perfgate::microbench::gpu {

namespace {

// ---- command line --------------------------------------------------------------------------

struct options {
  int device = 0;
  bool quick = false;
  std::string output;        // empty: stdout
  std::string latency_sweep; // set: run the latency chains only, write their CSV here
};

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: %s [--device-index N] [--quick] [-o FILE | --latency-sweep CSV]\n"
               "  Measures the peak rates of one %s GPU and prints perfgate-microbench/1 JSON.\n"
               "  --device-index N     device to measure (default 0)\n"
               "  --quick              small sizes and 3 repetitions (a smoke run)\n"
               "  -o FILE              write the JSON to FILE instead of stdout\n"
               "  --latency-sweep CSV  instead: chains of dependent instructions per class, one\n"
               "                       block per compute unit of 1..32 warps, cycles to CSV\n"
               "                       (what `perfgate pipeline fit` reads)\n"
               "exit status: 0 ok, 1 GPU error during a run, 2 bad arguments, 77 no usable GPU\n",
               pgpu::program, pgpu::runtime_name);
}

// Returns -1 when parsing succeeded, else the exit status.
int parse_args(int argc, char** argv, options& o) {
  auto bad = [](const std::string& msg) {
    std::fprintf(stderr, "%s: %s\n", pgpu::program, msg.c_str());
    usage(stderr);
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::string value;
    auto take_value = [&](const std::string& name) -> bool {
      if (a.size() > name.size() && a.compare(0, name.size() + 1, name + "=") == 0) {
        value = a.substr(name.size() + 1);
        return true;
      }
      if (a != name)
        return false;
      if (i + 1 >= argc)
        throw std::invalid_argument(name + " needs a value");
      value = argv[++i];
      return true;
    };
    try {
      if (a == "-h" || a == "--help") {
        usage(stdout);
        return 0;
      } else if (a == "--quick") {
        o.quick = true;
      } else if (take_value("--device-index")) {
        char* end = nullptr;
        errno = 0;
        const long v = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || errno != 0 || v < 0 || v > 1024)
          return bad("--device-index: not a device index: '" + value + "'");
        o.device = static_cast<int>(v);
      } else if (take_value("-o") || take_value("--output")) {
        if (value.empty())
          return bad("-o: empty file name");
        o.output = value;
      } else if (take_value("--latency-sweep")) {
        if (value.empty())
          return bad("--latency-sweep: empty file name");
        o.latency_sweep = value;
      } else {
        return bad("unknown argument '" + a + "'");
      }
    } catch (const std::invalid_argument& e) {
      return bad(e.what());
    }
  }
  if (!o.output.empty() && !o.latency_sweep.empty())
    return bad("-o and --latency-sweep: one run writes one of them");
  return -1;
}

// Writes `text` to `path` through path.tmp and a rename: a reader never sees half a file.
bool write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  const bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = f && std::fclose(f) == 0;
  if (!ok || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "%s: cannot write '%s': %s\n", pgpu::program, path.c_str(),
                 std::strerror(errno));
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

// --latency-sweep: the chains at 1 warp and a full block, and the occupancies between for
// checking Eq. 1's predictions (quick: the two the fit needs).
int run_latency(const device& dev, const options& opt) {
  plan p;
  p.quick = opt.quick;
  p.reps = 1;
  int khz = 0;
  PG_CHECK(pgpu::clock_rate_khz(&khz, dev.index));
  const int full = 1024 / dev.prop.warpSize;
  std::vector<int> warps = {1, full};
  if (!opt.quick) {
    warps = {1, 2, 4, 8, 16};
    for (int w = 24; w <= full; w += 8)
      warps.push_back(w);
  }
  event_timer timer;
  const bench b{dev, p, timer};
  std::fprintf(stderr, "%s: latency chains at %zu occupancies ...\n", pgpu::program, warps.size());
  const auto points = run_latency_sweep(b, warps);
  for (const auto& pt : points)
    if (pt.warps == 1)
      std::fprintf(stderr, "  %-15s %5d dependent: %lld cycles at 1 warp\n", pt.op.c_str(), pt.n,
                   pt.cycles_max);
  return write_atomically(opt.latency_sweep, latency_sweep_csv(points, khz, dev.cus)) ? 0 : 1;
}

// ---- JSON ----------------------------------------------------------------------------------

std::string json_string(const std::string& in) {
  std::string out = "\"";
  for (const unsigned char c : in) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", c);
        out += b;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v))
    return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

template <class T> std::string json_optional(const std::optional<T>& v) {
  return v ? std::to_string(*v) : std::string("null");
}

std::string render(const device& dev, const card_identity& card, const clock_sample& before,
                   const clock_sample& after, const std::vector<result>& results,
                   const std::vector<sweep_point>& sweep, bool quick) {
  std::string j;
  j += "{\n  \"schema\": \"perfgate-microbench/1\",\n  \"backend\": " + json_string(pgpu::backend) +
       ",\n";
  j += std::string("  \"quick\": ") + (quick ? "true" : "false") + ",\n";
  j += "  \"device\": {\n";
  j += "    \"index\": " + std::to_string(dev.index) + ",\n";
  j += "    \"name\": " + json_string(dev.prop.name) + ",\n";
  j += "    \"vendor\": " + json_string(pgpu::vendor) + ",\n";
  j += "    \"arch\": " + json_string(pgpu::arch_name(dev.prop)) + ",\n";
  j += "    \"compute_units\": " + std::to_string(dev.prop.multiProcessorCount) + ",\n";
  j += "    \"warp_size\": " + std::to_string(dev.prop.warpSize) + ",\n";
  j += "    \"l2_bytes\": " + std::to_string(dev.prop.l2CacheSize) + ",\n";
  j += "    \"memory_bytes\": " + std::to_string(dev.prop.totalGlobalMem) + ",\n";
  // Which card and driver measured, only where known: the reader takes absent as unknown.
  if (!card.uuid.empty())
    j += "    \"uuid\": " + json_string(card.uuid) + ",\n";
  if (!card.driver.empty())
    j += "    \"driver\": " + json_string(card.driver) + ",\n";
  j += "    \"sm_clock_mhz_before\": " + json_optional(before.sm_mhz) + ",\n";
  j += "    \"sm_clock_mhz_after\": " + json_optional(after.sm_mhz) + ",\n";
  if (after.reasons) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", *after.reasons);
    j += "    \"throttle_reasons\": " + json_string(b) + "\n";
  } else {
    j += "    \"throttle_reasons\": null\n";
  }
  j += "  },\n  \"results\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const result& r = results[i];
    const stats s = r.stats.value_or(stats{});
    j += "    { \"key\": " + json_string(r.key) + ", \"scope\": \"all\", \"unit\": \"1e9/s\", ";
    j += "\"repetitions\": " + std::to_string(s.reps) + ",\n      ";
    j += "\"best\": " + json_number(s.best) + ", \"median\": " + json_number(s.median) +
         ", \"min\": " + json_number(s.min) + ", \"max\": " + json_number(s.max) + ",\n      ";
    j += "\"sm_clock_mhz\": " + json_number(s.best_clock_mhz) + ", ";
    j += "\"threads\": " + std::to_string(r.threads) + ", \"note\": " + json_string(r.note) + " }";
    j += i + 1 < results.size() ? ",\n" : "\n";
  }
  j += "  ],\n  \"sweep\": [\n";
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const sweep_point& p = sweep[i];
    j += "    { \"fma_per_element\": " + std::to_string(p.fma_per_element) +
         ", \"intensity_flop_per_byte\": " + json_number(p.intensity) +
         ", \"gflops\": " + json_number(p.gflops) + ", \"gbs\": " + json_number(p.gbs) + " }";
    j += i + 1 < sweep.size() ? ",\n" : "\n";
  }
  j += "  ]\n}\n";
  return j;
}

// ---- physics -------------------------------------------------------------------------------

// The most work one compute unit can retire per clock for a compute key, above every NVIDIA SM
// and AMD CU made so far (FP32: 128 lanes x 2; tensor: Blackwell's FP4 per SM with room): a
// rate above it x the clock x the units is a timing or counting error, never a peak.
double max_per_clock_per_unit(const std::string& key) {
  if (key.find("gbs") != std::string::npos)
    return 0; // memory: no SM-clock bound
  if (key.rfind("tensor_", 0) == 0 || key.rfind("mma_sync_", 0) == 0)
    return 65536;
  if (key == "fp16_gflops")
    return 1024;
  if (key == "ldst_ginst")
    return 128;
  return 512; // fp32, fp64, int_mad (2 ops), int_add
}

// A result that physics rules out is not written as a peak: its clock first (a probe reading
// above the maximum clock or far below it is no clock), then the rate against clock x units.
void refuse_impossible(result& r, int cus, double max_mhz) {
  if (!r.stats)
    return;
  stats& s = *r.stats;
  if (std::isfinite(s.best_clock_mhz) && max_mhz > 0 &&
      (s.best_clock_mhz > 1.05 * max_mhz || s.best_clock_mhz < 0.05 * max_mhz)) {
    r.note += "; SM clock reading " + json_number(s.best_clock_mhz) + " MHz dropped (max " +
              json_number(max_mhz) + ")";
    s.best_clock_mhz = NAN;
  }
  const double per_clock = max_per_clock_per_unit(r.key);
  const double mhz = std::isfinite(s.best_clock_mhz) ? s.best_clock_mhz : max_mhz;
  if (per_clock > 0 && mhz > 0) {
    const double bound = per_clock * cus * mhz / 1e3; // 1e9 per second
    if (s.best > bound) {
      r.note = "refused: " + json_number(s.best) + " 1e9/s exceeds " + json_number(per_clock) +
               " per clock per unit x " + std::to_string(cus) + " units x " + json_number(mhz) +
               " MHz = " + json_number(bound) + " (a timing or counting error, not a peak); " +
               r.note;
      r.stats.reset();
    }
  }
}

// ---- the run -------------------------------------------------------------------------------

// "[3/19] fp16_gflops ..." before and the rate (or why there is none) after each benchmark.
class progress_log {
public:
  // fp32 ... ldst (6), DRAM read, write, copy, L2 (4), the tensor precisions, the sweep, the
  // gather/scatter and the bus copies, then the asynchronous tensor precisions the device has.
  explicit progress_log(int async_tensor_steps)
      : steps_(10 + tensor_precisions + 3 + async_tensor_steps) {}

  void start(const std::string& key) {
    ++step_;
    std::fprintf(stderr, "[%d/%d] %s ...\n", step_, steps_, key.c_str());
  }
  void done(const result& r) const {
    if (r.stats)
      std::fprintf(stderr, "[%d/%d] %s = %.1f (1e9/s, best of %d)\n", step_, steps_, r.key.c_str(),
                   r.stats->best, r.stats->reps);
    else
      std::fprintf(stderr, "[%d/%d] %s: not measured (%s)\n", step_, steps_, r.key.c_str(),
                   r.note.c_str());
  }

private:
  int steps_;
  int step_ = 0;
};

// Opens --device-index: -1 when it is usable (`dev` filled in), else the exit status (77: no
// usable GPU, 2: an index out of range).
int open_device(const options& opt, device& dev) {
  // Device count first; after an error the count is not touched, so it is never read then.
  int count = 0;
  const pgpu::error ce = pgpu::get_device_count(&count);
  if (ce != pgpu::success) {
    std::fprintf(stderr, "%s: no %s device: %s\n", pgpu::program, pgpu::runtime_name,
                 pgpu::error_string(ce));
    return 77;
  }
  if (count <= 0) {
    std::fprintf(stderr, "%s: no %s device: the runtime reports 0 devices\n", pgpu::program,
                 pgpu::runtime_name);
    return 77;
  }
  if (opt.device >= count) {
    std::fprintf(stderr, "%s: --device-index %d out of range: %d device(s)\n", pgpu::program,
                 opt.device, count);
    return 2;
  }
  dev.index = opt.device;
  pgpu::error e = pgpu::set_device(opt.device);
  if (e == pgpu::success)
    e = pgpu::init_context();
  if (e == pgpu::success)
    e = pgpu::get_device_properties(&dev.prop, opt.device);
  if (e != pgpu::success) {
    std::fprintf(stderr, "%s: no %s device: device %d is not usable: %s\n", pgpu::program,
                 pgpu::runtime_name, opt.device, pgpu::error_string(e));
    return 77;
  }
  dev.cus = std::max(dev.prop.multiProcessorCount, 1);
  dev.l2 = static_cast<std::size_t>(std::max(dev.prop.l2CacheSize, 0));
  return -1;
}

int run(const options& opt) {
  device dev;
  if (const int status = open_device(opt, dev); status >= 0)
    return status;
  if (!opt.latency_sweep.empty()) {
    try {
      return run_latency(dev, opt);
    } catch (const gpu_failure& err) {
      std::fprintf(stderr, "%s: latency chains: %s\n", pgpu::program, err.what());
      return 1;
    }
  }

  // Check the output path before spending the run.
  std::string tmp;
  if (!opt.output.empty()) {
    tmp = opt.output + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "%s: cannot write '%s': %s\n", pgpu::program, tmp.c_str(),
                   std::strerror(errno));
      return 2;
    }
    std::fclose(f);
  }

  std::fprintf(stderr, "%s: device %d: %s (%s, %d compute units)%s\n", pgpu::program, dev.index,
               dev.prop.name, pgpu::arch_name(dev.prop).c_str(), dev.cus,
               opt.quick ? ", quick run" : "");
  plan p;
  p.quick = opt.quick;
  p.target_ms = opt.quick ? 1.0 : 20.0;
  p.reps = opt.quick ? 3 : 10;

  clock_reader clocks(dev.prop, dev.index);
  const clock_sample before = clocks.sample();
  const card_identity card = identify_card(dev.prop, dev.index, clocks);
  std::vector<result> results;
  std::vector<sweep_point> sweep;
  std::string current = "setup";
  try {
    event_timer timer(dev.cus);
    const bench b{dev, p, timer};
    const int async_tensor = tensor_async_precisions(dev.prop);
    progress_log log(async_tensor);
    int max_khz = 0;
    PG_CHECK(pgpu::clock_rate_khz(&max_khz, dev.index));
    auto keep = [&](result r) {
      refuse_impossible(r, dev.cus, max_khz / 1000.0);
      results.push_back(std::move(r));
      log.done(results.back());
    };
    auto step = [&](const std::string& key, const std::function<result()>& f) {
      current = key;
      log.start(key);
      keep(f());
    };
    // One step that reports several results.
    auto steps = [&](const std::string& key, const std::function<std::vector<result>()>& f) {
      current = key;
      log.start(key);
      for (result& r : f())
        keep(std::move(r));
    };
    step("fp32_gflops", [&] { return run_fp32_fma(b); });
    step("fp64_gflops", [&] { return run_fp64_fma(b); });
    step("fp16_gflops", [&] { return run_fp16_fma(b); });
    step("int_mad_gops", [&] { return run_int_mad(b); });
    step("int_add_gops", [&] { return run_int_add(b); });
    step("ldst_ginst", [&] { return run_ldst(b); });
    { // the streaming buffers, freed before the gather/scatter arrays are allocated
      current = "dram_read_gbs"; // the buffers are set up for it
      bandwidth_buffers buffers = allocate_bandwidth_buffers(b);
      step("dram_read_gbs", [&] { return run_dram_read(b, buffers); });
      step("dram_write_gbs", [&] { return run_dram_write(b, buffers); });
      step("dram_copy_gbs", [&] { return run_dram_copy(b, buffers); });
      step("l2_gbs", [&] { return run_l2(b, buffers); });
      for (int i = 0; i < tensor_precisions; ++i)
        step(tensor_key(dev.prop, i), [&] { return run_tensor(b, i); });
      current = "roofline_sweep";
      log.start(current);
      sweep = run_sweep(b, buffers);
      for (const sweep_point& sp : sweep)
        std::fprintf(stderr, "      %3d FMA/element  %7.3f flop/B  %10.1f GFLOPS  %8.1f GB/s\n",
                     sp.fma_per_element, sp.intensity, sp.gflops, sp.gbs);
    }
    steps("uncoalesced_gbs", [&] { return run_uncoalesced(b); });
    steps("bus_gbs", [&] { return run_bus(b); });
    // Last: a fault in these ends the context, so it costs them alone; the rest is kept.
    for (int i = 0; i < async_tensor; ++i) {
      try {
        step(tensor_async_key(i), [&] { return run_tensor_async(b, i); });
      } catch (const gpu_failure& err) {
        for (int j = i; j < async_tensor; ++j) {
          results.push_back({tensor_async_key(j), std::nullopt, 0,
                             std::string(j == i ? "failed: " : "not run after ") +
                                 tensor_async_key(i) + " failed: " + err.what()});
          log.done(results.back());
        }
        break;
      }
    }
  } catch (const gpu_failure& err) {
    std::fprintf(stderr, "%s: %s: %s\n", pgpu::program, current.c_str(), err.what());
    if (!tmp.empty())
      std::remove(tmp.c_str());
    return 1;
  }
  const clock_sample after = clocks.sample();

  const std::string json = render(dev, card, before, after, results, sweep, opt.quick);
  if (opt.output.empty()) {
    std::fwrite(json.data(), 1, json.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  return write_atomically(opt.output, json) ? 0 : 1;
}

} // namespace

} // namespace perfgate::microbench::gpu

int main(int argc, char** argv) {
  namespace gpu = perfgate::microbench::gpu;
  gpu::options opt;
  const int parsed = gpu::parse_args(argc, argv, opt);
  if (parsed >= 0)
    return parsed;
  return gpu::run(opt);
}
