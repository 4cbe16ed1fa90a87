// SPDX-License-Identifier: Apache-2.0
// SAXPY on the GPU: memory-bound (2 flops per 12 bytes).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

int main() {
  const int n = 1 << 26;
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "gpu_saxpy: cudaMalloc failed\n");
    return 1;
  }
  for (int rep = 0; rep < 10; ++rep) {
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  }
  const cudaError_t err = cudaDeviceSynchronize();
  cudaFree(x);
  cudaFree(y);
  return err == cudaSuccess ? 0 : 1;
}
