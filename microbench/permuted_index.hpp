// SPDX-License-Identifier: Apache-2.0
// The pseudo-random permutation of [0, 2^bits) the gather/scatter benchmarks walk, shared by the
// CPU (cpu_kernels.cpp) and GPU (gpu/gpu_uncoalesced.cu) benchmarks: rounds of the murmur3
// finalizer, each a bijection modulo 2^bits (xor with a constant, multiplication by an odd
// number, x ^= x >> s with s >= 1), so position i's entry is computed alone and an index array
// fills in one sequential (or coalesced) pass instead of a shuffle's random swaps.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PERFGATE_HOST_DEVICE __host__ __device__
#else
#define PERFGATE_HOST_DEVICE
#endif

namespace perfgate::microbench {

/// Position i's entry of the permutation of [0, 2^bits) that `seed` selects (1 <= bits <= 32).
PERFGATE_HOST_DEVICE inline std::uint32_t permuted_index(std::uint64_t i, unsigned bits,
                                                         std::uint32_t seed) {
  const std::uint32_t mask = bits >= 32 ? ~0U : (1U << bits) - 1;
  const unsigned s = (bits + 1) / 2 > 1 ? (bits + 1) / 2 : 1;
  auto x = static_cast<std::uint32_t>(i) & mask;
  x = (x ^ seed) & mask;
  x = (x * 0x9e3779b1U) & mask;
  x ^= x >> s;
  x = (x * 0x85ebca6bU) & mask;
  x ^= x >> s;
  x = (x * 0xc2b2ae35U) & mask;
  x ^= x >> s;
  return x;
}

} // namespace perfgate::microbench
