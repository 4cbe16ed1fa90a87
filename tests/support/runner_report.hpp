// SPDX-License-Identifier: Apache-2.0
// Test helper: a CI runner's report as `perfgate run` writes it and merge or baseline accept read
// it back: one memory-bound kernel (BM_kernel, 1e9 B) of 10 timed samples, measured on the
// runner's calibrated GPU, named `local-cuda-0` on every runner as perfgate calibrate names it,
// with the built-in h100-sxm predicted too; gated on host `host`.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include <string>
#include <vector>

namespace perfgate::test {

/// The first kernel's verdict reasons, one per line: what the gate's tests search.
inline std::string reasons(const report& r) {
  std::string all;
  for (const auto& s : r.kernels.at(0).result.reasons) {
    all += s + "\n";
  }
  return all;
}

// A calibrated GPU whose DRAM roof is `dram_gbs` (BM_kernel's roof: 1 / dram_gbs s).
inline device calibrated_gpu(double dram_gbs, std::string id = "local-cuda-0") {
  device d;
  d.id = std::move(id);
  d.name = "NVIDIA test GPU";
  d.vendor = "nvidia";
  d.kind = "gpu";
  d.source = "measured";
  d.origin = "/home/ci/.cache/perfgate/local-cuda-0.json";
  d.peaks = {1000.0, 500.0, 250.0, 400.0, 200.0, dram_gbs};
  return d;
}

// BM_kernel timed at 10 samples around `median_s` (1% spread) on `gpu`, gated by `policy` against `measured` on
// `host`, through JSON.
inline report runner_report(const std::string& host, const device& gpu, double median_s,
                            const gate_policy& policy = {},
                            const gate_measurements& measured = {}) {
  profile p;
  p.source_file = "bench.json";
  kernel_profile k;
  k.name = "BM_kernel";
  k.work = declared_work{0, 1e8, 0, 1e9};
  std::vector<double> samples;
  for (double f : {1.0, 0.99, 1.01, 0.995, 1.005, 0.985, 1.015, 0.998, 1.002, 1.0}) {
    samples.push_back(median_s * f);
  }
  k.duration = duration_stats::from_samples(std::move(samples));
  k.time_s = k.duration->median_s;
  p.kernels.push_back(k);
  report r = predict_report(p, {gpu, resolve_device("h100-sxm")});
  r.meta.host = host;
  apply_gate(r, policy, measured);
  return report_from_json(report_to_json(r), host + ".json");
}

} // namespace perfgate::test
