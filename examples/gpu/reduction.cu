// SPDX-License-Identifier: Apache-2.0
// Sum reduction (fp64, n = 2^26): each thread sums a grid-strided slice in a register, each
// block combines its threads in a shared-memory tree and adds its partial sum to the result
// with one atomicAdd. One flop (DADD) per 8 bytes read: O_krn ~0.125 flop/B, memory-bound on
// every GPU (even where fp64 runs at 1/64 rate); gated with EXPECT_BOUND memory.
// Built with nvcc as example_reduction and, through reduction_hip.hip, as HIP.
#include "example_compat.hpp"

#include <cstdio>

namespace {

constexpr int kN = 1 << 26;
constexpr int kBlock = 256;  // a multiple of both warp sizes (32, 64); a power of two
constexpr int kBlocks = 2048;
constexpr int kRepetitions = 5;

// The input: multiples of 1/8 below 125, so every partial sum (< 2^33) is exact in fp64 in any
// order of summation, and the device's sum must equal the host's exactly.
__host__ __device__ inline double xAt(int i) { return static_cast<double>(i % 1000) * 0.125; }
static_assert(kN < (1 << 30), "int indexing, i + 3 * stride included");

} // namespace

__global__ void __launch_bounds__(kBlock)
    reduce_sum(int n, const double* __restrict__ x, double* __restrict__ result) {
  __shared__ double partial[kBlock];
  const int t = threadIdx.x;
  // Each thread sums a grid-strided slice, four independent loads in flight at a time.
  const int stride = gridDim.x * kBlock;
  int i = blockIdx.x * kBlock + t;
  double sum = 0.0;
  for (; i + 3 * stride < n; i += 4 * stride)
    sum += (x[i] + x[i + stride]) + (x[i + 2 * stride] + x[i + 3 * stride]);
  for (; i < n; i += stride)
    sum += x[i];
  partial[t] = sum;
  __syncthreads();
  // A plain tree with a barrier per level: correct for any warp / wavefront size.
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (t < half)
      partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t == 0)
    atomicAdd(result, partial[0]);
}

__global__ void fill_input(int n, double* x) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = xAt(i);
}

int main() {
  const char* program = EX_PROGRAM("reduction");
  if (const int skip = ex::requireGpu(program))
    return skip;

  double* x = nullptr;
  double* result = nullptr;
  EX_CHECK(ex::deviceMalloc(&x, kN));
  EX_CHECK(ex::deviceMalloc(&result, 1));
  fill_input<<<(kN + kBlock - 1) / kBlock, kBlock>>>(kN, x);
  EX_CHECK_LAUNCH();
  double want = 0.0;
  for (int i = 0; i < kN; ++i)
    want += xAt(i);

  int bad = 0;
  for (int r = 0; r < kRepetitions; ++r) {
    EX_CHECK(ex::memset(result, 0, sizeof(double)));
    reduce_sum<<<kBlocks, kBlock>>>(kN, x, result);
    EX_CHECK_LAUNCH();
    double got = 0.0;
    EX_CHECK(ex::copyToHost(&got, result, sizeof got)); // waits for the kernel
    if (got != want && ++bad <= 5)
      std::fprintf(stderr, "%s: repetition %d: sum = %.17g, expected %.17g\n", program, r, got,
                   want);
  }
  EX_CHECK(ex::deviceFree(x));
  EX_CHECK(ex::deviceFree(result));
  if (bad) {
    std::fprintf(stderr, "%s: wrong result in %d of %d repetitions\n", program, bad, kRepetitions);
    return 1;
  }
  std::printf("%s: ok: %d x sum of %d doubles = %.3f\n", program, kRepetitions, kN, want);
  return 0;
}
