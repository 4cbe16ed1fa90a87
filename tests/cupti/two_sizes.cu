// SPDX-License-Identifier: Apache-2.0
// One kernel launched at two sizes with one grid-stride grid, as library code launches one
// kernel per tensor: a big launch (2^24 floats), then three small ones (2^20). perfgate must
// judge them as two kernels, each with its own launches' time and work
// (tests/cupti/check_two_sizes.sh).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float* x, unsigned long n, float a) {
  for (unsigned long i = blockIdx.x * static_cast<unsigned long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long>(gridDim.x) * blockDim.x) {
    x[i] *= a;
  }
}

int main() {
  const unsigned long big = 1UL << 24;
  const unsigned long small = 1UL << 20;
  float* x = nullptr;
  if (cudaMalloc(&x, big * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "two_sizes: cudaMalloc failed\n");
    return 1;
  }
  cudaMemset(x, 0, big * sizeof(float));
  scale<<<1024, 256>>>(x, big, 2.0f);
  for (int rep = 0; rep < 3; ++rep) {
    scale<<<1024, 256>>>(x, small, 2.0f);
  }
  const cudaError_t err = cudaDeviceSynchronize();
  cudaFree(x);
  return err == cudaSuccess ? 0 : 1;
}
