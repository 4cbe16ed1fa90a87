// SPDX-License-Identifier: Apache-2.0
// SAXPY (y = a*x + y, fp32, n = 2^26): memory-bound, 2 flops per 12 bytes of DRAM traffic
// (O_krn ~0.17 flop/B, far below any GPU's ridge point); gated with EXPECT_BOUND memory.
// Built with nvcc as example_saxpy and, through saxpy_hip.hip, as HIP (example_hip_saxpy).
#include "example_compat.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

// One thread per element: one load of x, one load and one store of y, one FMA.
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

namespace {

constexpr int kN = 1 << 26;
constexpr int kBlock = 256;
constexpr int kRepetitions = 5;
constexpr float kA = 0.5f;

// Inputs, the same on the device and on the host: exact in fp32.
__host__ __device__ inline float xAt(int i) { return static_cast<float>(i % 1000) * 0.001f; }
__host__ __device__ inline float yAt(int i) { return 1.0f - static_cast<float>(i % 777) * 0.001f; }

} // namespace

__global__ void fill_inputs(int n, float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = xAt(i);
    y[i] = yAt(i);
  }
}

int main() {
  const char* program = EX_PROGRAM("saxpy");
  if (const int skip = ex::requireGpu(program))
    return skip;

  float* x = nullptr;
  float* y = nullptr;
  EX_CHECK(ex::deviceMalloc(&x, kN));
  EX_CHECK(ex::deviceMalloc(&y, kN));
  const int blocks = (kN + kBlock - 1) / kBlock;
  fill_inputs<<<blocks, kBlock>>>(kN, x, y);
  EX_CHECK_LAUNCH();
  for (int r = 0; r < kRepetitions; ++r) {
    saxpy<<<blocks, kBlock>>>(kN, kA, x, y);
    EX_CHECK_LAUNCH();
  }
  EX_CHECK(ex::synchronize());

  // Check every 4099th element and the last one against the host doing the same steps.
  std::vector<float> result(kN);
  EX_CHECK(ex::copyToHost(result.data(), y, kN * sizeof(float)));
  int bad = 0;
  const auto check = [&](int i) {
    float want = yAt(i);
    for (int r = 0; r < kRepetitions; ++r)
      want = kA * xAt(i) + want;
    // The device fuses a*x + y into one FMA, the host may not: allow a few ulp.
    if (!(std::fabs(result[i] - want) <= 4e-6f * std::fabs(want)) && ++bad <= 5) // NaN too
      std::fprintf(stderr, "%s: y[%d] = %.9g, expected %.9g\n", program, i, result[i], want);
  };
  for (int i = 0; i < kN; i += 4099)
    check(i);
  check(kN - 1);
  EX_CHECK(ex::deviceFree(x));
  EX_CHECK(ex::deviceFree(y));
  if (bad) {
    std::fprintf(stderr, "%s: wrong result: %d sampled elements differ\n", program, bad);
    return 1;
  }
  std::printf("%s: ok: %d x saxpy over %d floats\n", program, kRepetitions, kN);
  return 0;
}
