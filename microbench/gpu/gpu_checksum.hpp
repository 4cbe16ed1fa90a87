// SPDX-License-Identifier: Apache-2.0
// The checksum the read kernels compute: every 32-bit word they load is summed into one word, so
// a kernel that skipped data is reported as an error rather than as bandwidth.
#pragma once

#include "gpu_compat.hpp"

#include <cstddef>
#include <cstdint>

namespace perfgate::microbench::gpu {

__device__ inline unsigned sum4(uint4 v) { return v.x + v.y + v.z + v.w; }

// Adds each lane's value into *out: a butterfly reduction per warp, then one atomic per warp.
__device__ inline void warp_sum_to_global(unsigned s, unsigned* out) {
  for (int o = warpSize / 2; o > 0; o >>= 1)
    s += pgpu::shfl_xor(s, o);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(out, s);
}

inline unsigned expected_checksum(std::size_t bytes, unsigned word, unsigned times = 1) {
  // Sum of bytes/4 copies of `word`, `times` times, modulo 2^32.
  return static_cast<unsigned>(static_cast<std::uint64_t>(bytes / 4) * word * times);
}

} // namespace perfgate::microbench::gpu
