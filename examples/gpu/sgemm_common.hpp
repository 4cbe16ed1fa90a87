// SPDX-License-Identifier: Apache-2.0
// sgemm_common.hpp: what the two SGEMM examples (sgemm_naive.cu, sgemm_tiled.cu) share: the
// problem (C = A * B, square fp32 matrices, n = 2048, row-major), the inputs, the driver and
// the check. Each example supplies only its kernel and how it is launched.
//
// The inputs are multiples of 1/8 in [-1, 1], so every product is a multiple of 1/64 and every
// partial sum stays below 2^11 in magnitude: all of them are exact in fp32 whatever the order
// of summation, and the device result must equal the host's bit for bit.
#pragma once

#include "example_compat.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace sgemm {

constexpr int kN = 2048;
constexpr int kRepetitions = 3;

__host__ __device__ inline float aAt(int i, int k) {
  return static_cast<float>((i * 3 + k * 7) % 17 - 8) * 0.125f;
}
__host__ __device__ inline float bAt(int k, int j) {
  return static_cast<float>((k * 5 + j * 11) % 13 - 6) * 0.125f;
}

} // namespace sgemm

__global__ void fill_matrices(int n, float* a, float* b) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    a[i * n + j] = sgemm::aAt(i, j);
    b[i * n + j] = sgemm::bAt(i, j);
  }
}

namespace sgemm {

// Allocates A, B and C, fills A and B, calls launch(n, a, b, c) kRepetitions times (each call
// overwrites C with A * B), then checks 1024 sampled elements of C and the four corners.
template <class Launch> int run(const char* program, Launch launch) {
  if (const int skip = ex::requireGpu(program))
    return skip;
  const std::size_t count = static_cast<std::size_t>(kN) * kN;
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  EX_CHECK(ex::deviceMalloc(&a, count));
  EX_CHECK(ex::deviceMalloc(&b, count));
  EX_CHECK(ex::deviceMalloc(&c, count));
  const dim3 block(32, 8);
  fill_matrices<<<dim3(kN / block.x, kN / block.y), block>>>(kN, a, b);
  EX_CHECK_LAUNCH();
  for (int r = 0; r < kRepetitions; ++r) {
    launch(kN, a, b, c);
    EX_CHECK_LAUNCH();
  }
  EX_CHECK(ex::synchronize());

  std::vector<float> result(count);
  EX_CHECK(ex::copyToHost(result.data(), c, count * sizeof(float)));
  int bad = 0;
  const auto check = [&](int i, int j) {
    double want = 0.0;
    for (int k = 0; k < kN; ++k)
      want += static_cast<double>(aAt(i, k)) * bAt(k, j);
    const float got = result[static_cast<std::size_t>(i) * kN + j];
    if (got != static_cast<float>(want) && ++bad <= 5)
      std::fprintf(stderr, "%s: C[%d][%d] = %.9g, expected %.9g\n", program, i, j, got, want);
  };
  std::uint32_t state = 12345u; // a fixed pseudo-random sample (LCG)
  for (int s = 0; s < 1024; ++s) {
    state = state * 1664525u + 1013904223u;
    const int i = static_cast<int>(state >> 8) % kN;
    state = state * 1664525u + 1013904223u;
    check(i, static_cast<int>(state >> 8) % kN);
  }
  for (const int i : {0, kN - 1})
    for (const int j : {0, kN - 1})
      check(i, j);

  EX_CHECK(ex::deviceFree(a));
  EX_CHECK(ex::deviceFree(b));
  EX_CHECK(ex::deviceFree(c));
  if (bad) {
    std::fprintf(stderr, "%s: wrong result: %d sampled elements differ\n", program, bad);
    return 1;
  }
  std::printf("%s: ok: %d x SGEMM, n = %d\n", program, kRepetitions, kN);
  return 0;
}

} // namespace sgemm
