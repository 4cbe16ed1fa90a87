// SPDX-License-Identifier: Apache-2.0
// The pipeline model's latencies (docs/pipeline.md): chains of dependent instructions, one block
// of W warps per compute unit, timed in cycles with clock64(). W = 1 gives Lambda, a full block
// lambda (Eq. 1 inverted by `perfgate pipeline fit`, which reads the CSV this writes).
#pragma once

#include "gpu_measure.hpp"

#include <string>
#include <vector>

namespace perfgate::microbench::gpu {

/// The instruction classes chained, by the names `perfgate pipeline fit` and the SASS graphs use.
inline constexpr const char* latency_ops[] = {
    "ffma", "dfma", "imad", "sfu_ex2", "lds_chase", "ldg_chase_l2", "ldg_chase_dram", "bar"};
inline constexpr int latency_op_count = 8;

/// One launch of the sweep: every block's cycles from its first to its last warp's end.
struct latency_point {
  std::string op;
  int warps = 0;            ///< per block, one block per compute unit
  int n = 0;                ///< dependent instructions per thread
  long long cycles_max = 0; ///< over the blocks
  long long cycles_min = 0;
  double wall_us = 0;
};

/// The chains of every op at each of `warps` (capped at the block's 1024 threads).
[[nodiscard]] std::vector<latency_point> run_latency_sweep(const bench& b,
                                                           const std::vector<int>& warps);

/// Throws gpu_failure when a point is physically impossible: fewer cycles than `min_cycles`
/// (N x the class's least latency), or more cycles than fit in the launch's wall time at the
/// `max_mhz` maximum clock. The sweep refuses to write such a row.
void check_physics(const latency_point& p, long long min_cycles, double max_mhz);

/// The sweep as CSV: op,warps_per_sm,n_dependent,cycles_max,cycles_min,wall_us,
/// sm_clock_attr_khz,sms (the columns of tests/data/h100/pipeline_latency_h100.csv).
[[nodiscard]] std::string latency_sweep_csv(const std::vector<latency_point>& points, int clock_khz,
                                            int compute_units);

} // namespace perfgate::microbench::gpu
