// SPDX-License-Identifier: Apache-2.0
// The physical floor under a latency chain, shared by the GPU micro-benchmark that times the
// chains (microbench/gpu/gpu_latency.cu, compiled by nvcc and hipcc: C++17, header only) and by
// `perfgate pipeline fit`, which reads what it wrote: N dependent instructions cannot complete in
// fewer than N x the least latency of their class, so a chain under it was not timed.
#pragma once

#include <string_view>

namespace perfgate::detail {

/// The fewest cycles one dependent instruction of a chain's class takes on any GPU perfgate
/// knows (NVIDIA since Fermi, AMD GCN, CDNA and RDNA): 4 for arithmetic (FFMA, DFMA, IMAD and the
/// special-function unit), shared memory and global memory, 1 for a barrier.
inline long long min_cycles_per_dependent_instruction(std::string_view op) {
  return op.substr(0, 3) == "bar" ? 1 : 4;
}

} // namespace perfgate::detail
