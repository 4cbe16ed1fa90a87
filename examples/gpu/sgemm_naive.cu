// SPDX-License-Identifier: Apache-2.0
// Naive SGEMM (C = A * B, fp32, n = 2048): one thread per element of C, two global loads per
// FMA. It does the tiled kernel's 2n^3 flops for as little DRAM traffic (A, B and C fit in a
// modern L2), so it is compute-bound by O_krn; the quantitative model lowers its compute roof
// for the load per FMA (high D_ldst: about 1.7x the tiled kernel's bound on an H100). In
// practice the loads make it L1/L2-bound and slower still (the model does not see caches), so
// its class says little: no EXPECT_BOUND; a BASELINE or MIN_EFFICIENCY is what gates it.
// Built with nvcc as example_sgemm_naive and, through sgemm_naive_hip.hip, as HIP.
#include "sgemm_common.hpp"

// Thread (x, y) computes C[y][x]: a row of A (the same address for the whole warp: broadcast)
// against a column of B (consecutive addresses across the warp: coalesced).
__global__ void sgemm_naive(int n, const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n)
    return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

int main() {
  return sgemm::run(EX_PROGRAM("sgemm_naive"), [](int n, const float* a, const float* b, float* c) {
    const dim3 block(32, 8);
    const dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    sgemm_naive<<<grid, block>>>(n, a, b, c);
  });
}
