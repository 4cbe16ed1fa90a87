// SPDX-License-Identifier: Apache-2.0
// Tiled SGEMM (C = A * B, fp32, n = 2048, 32 x 32 tiles in shared memory): each block stages a
// 32 x 32 tile of A and of B in shared memory, so each element loaded from global memory feeds
// 32 FMAs; the inner loop is shared-memory loads and FMAs only. O_krn is in the hundreds of
// flop/B (DRAM traffic is little more than reading A and B once): compute-bound on every GPU;
// gated with EXPECT_BOUND compute. The thesis's second case study (sgemm_32x32) is this kernel.
// Built with nvcc as example_sgemm_tiled and, through sgemm_tiled_hip.hip, as HIP.
#include "sgemm_common.hpp"

constexpr int kTile = 32;

// Block (bx, by) computes the tile C[by*32 .. +32][bx*32 .. +32], thread (x, y) its element
// (y, x). Requires n % 32 == 0 (checked by the caller).
__global__ void __launch_bounds__(kTile * kTile)
    sgemm_tiled(int n, const float* __restrict__ a, const float* __restrict__ b,
                float* __restrict__ c) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int t = 0; t < n; t += kTile) {
    as[ty][tx] = a[row * n + t + tx];   // coalesced along a row of A
    bs[ty][tx] = b[(t + ty) * n + col]; // coalesced along a row of B
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k)
      sum += as[ty][k] * bs[k][tx]; // as[ty][k]: one address per warp row (broadcast)
    __syncthreads();
  }
  c[row * n + col] = sum;
}

int main() {
  static_assert(sgemm::kN % kTile == 0, "the tiled kernel needs n to be a multiple of 32");
  return sgemm::run(EX_PROGRAM("sgemm_tiled"), [](int n, const float* a, const float* b, float* c) {
    sgemm_tiled<<<dim3(n / kTile, n / kTile), dim3(kTile, kTile)>>>(n, a, b, c);
  });
}
