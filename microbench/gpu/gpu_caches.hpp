// SPDX-License-Identifier: Apache-2.0
// On-chip memory: shared-memory (LDS) load/store instruction throughput and L2 read bandwidth.
#pragma once

#include "gpu_measure.hpp"
#include "gpu_memory.hpp"

namespace perfgate::microbench::gpu {

[[nodiscard]] result run_ldst(const bench& b); // ldst_ginst

/// l2_gbs: reads buf.l2 (about half of L2), allocated with the DRAM buffers.
[[nodiscard]] result run_l2(const bench& b, bandwidth_buffers& buf);

} // namespace perfgate::microbench::gpu
