// SPDX-License-Identifier: Apache-2.0
// SAXPY (y = a*x + y, fp32, n = 2^26): memory-bound, 2 flops per 12 bytes of DRAM traffic
// (O_krn ~0.17 flop/B, far below any GPU's ridge point); gated with EXPECT_BOUND memory.
// Built with nvcc as example_saxpy and, through saxpy_hip.hip, as HIP (example_hip_saxpy).
// PERFGATE_EXAMPLE_SLOWDOWN=1.05 makes each saxpy launch take about 1.05x its time, its work
// (bytes, flops, launch configuration and kernel name) unchanged: the regression
// scripts/bench-stability.sh injects on a GPU (PERFGATE_STABILITY_TARGET=cuda) to see whether the
// gate catches it. Each thread sleeps before its loads (no instructions issued, no traffic);
// how long is found at start-up by timing a copy of the kernel, so the factor holds on any GPU.
#include "example_compat.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Nanoseconds each thread sleeps before its loads: 0 unless a slowdown is injected.
__constant__ unsigned g_sleep_ns;

__device__ inline void injected_sleep() {
  const unsigned ns = g_sleep_ns;
  if (ns == 0)
    return;
#if EX_HIP
  for (unsigned t = 0; t < ns; t += 32) // s_sleep 1: about 64 clocks, ~32 ns at 2 GHz
    __builtin_amdgcn_s_sleep(1);
#else
  __nanosleep(ns);
#endif
}

__device__ inline void saxpy_body(int n, float a, const float* __restrict__ x,
                                  float* __restrict__ y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  injected_sleep();
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// One thread per element: one load of x, one load and one store of y, one FMA.
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  saxpy_body(n, a, x, y);
}

// The same body under another name: the start-up timing that sizes the injected sleep, never
// gated (the examples' kernel regex is "saxpy").
__global__ void slowdown_probe(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  saxpy_body(n, a, x, y);
}

namespace {

constexpr int kN = 1 << 26;
constexpr int kBlock = 256;
constexpr int kRepetitions = 5;
constexpr float kA = 0.5f;

// Inputs, the same on the device and on the host: exact in fp32.
__host__ __device__ inline float xAt(int i) { return static_cast<float>(i % 1000) * 0.001f; }
__host__ __device__ inline float yAt(int i) { return 1.0f - static_cast<float>(i % 777) * 0.001f; }

double injected_slowdown() {
  const char* text = std::getenv("PERFGATE_EXAMPLE_SLOWDOWN");
  const double f = text != nullptr ? std::strtod(text, nullptr) : 1.0;
  return f > 1.0 && f < 10.0 ? f : 1.0;
}

// Median time of 5 probe launches with `sleep_ns`, in ms.
float probe_ms(unsigned sleep_ns, int n, float* x, float* y) {
  EX_CHECK(ex::copyToSymbol(g_sleep_ns, sleep_ns));
  ex::Event start, stop;
  EX_CHECK(ex::eventCreate(&start));
  EX_CHECK(ex::eventCreate(&stop));
  std::vector<float> ms(5);
  for (float& m : ms) {
    EX_CHECK(ex::eventRecord(start));
    slowdown_probe<<<(n + kBlock - 1) / kBlock, kBlock>>>(n, 0.0f, x, y); // a = 0: y unchanged
    EX_CHECK_LAUNCH();
    EX_CHECK(ex::eventRecord(stop));
    EX_CHECK(ex::eventSynchronize(stop));
    EX_CHECK(ex::eventElapsedMs(&m, start, stop));
  }
  EX_CHECK(ex::eventDestroy(start));
  EX_CHECK(ex::eventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[2];
}

// The sleep that makes a launch take `factor` times its time: doubled until past the target,
// then bisected (about 20 probe launches of a millisecond each).
unsigned size_sleep(double factor, int n, float* x, float* y) {
  const double target = factor * probe_ms(0, n, x, y);
  unsigned lo = 0, hi = 16;
  while (hi < (1u << 20) && probe_ms(hi, n, x, y) < target)
    lo = hi, hi *= 2;
  for (int step = 0; step < 8 && hi - lo > 1; ++step) {
    const unsigned mid = lo + (hi - lo) / 2;
    (probe_ms(mid, n, x, y) < target ? lo : hi) = mid;
  }
  return hi;
}

} // namespace

__global__ void fill_inputs(int n, float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = xAt(i);
    y[i] = yAt(i);
  }
}

int main(int argc, char** argv) {
  const char* program = EX_PROGRAM("saxpy");
  // An optional argument: how many times saxpy runs (more samples for the statistics).
  const int repetitions = argc > 1 ? std::atoi(argv[1]) : kRepetitions;
  if (repetitions < 1 || repetitions > 10000) {
    std::fprintf(stderr, "usage: %s [REPETITIONS, 1..10000; default %d]\n", program, kRepetitions);
    return 2;
  }
  if (const int skip = ex::requireGpu(program))
    return skip;

  float* x = nullptr;
  float* y = nullptr;
  EX_CHECK(ex::deviceMalloc(&x, kN));
  EX_CHECK(ex::deviceMalloc(&y, kN));
  const int blocks = (kN + kBlock - 1) / kBlock;
  fill_inputs<<<blocks, kBlock>>>(kN, x, y);
  EX_CHECK_LAUNCH();
  if (const double factor = injected_slowdown(); factor > 1.0) {
    const unsigned ns = size_sleep(factor, kN, x, y);
    EX_CHECK(ex::copyToSymbol(g_sleep_ns, ns));
    std::fprintf(stderr, "%s: slowdown %.3fx injected: %u ns sleep per thread\n", program, factor,
                 ns);
  }
  for (int r = 0; r < repetitions; ++r) {
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
    for (int r = 0; r < repetitions; ++r)
      want = kA * xAt(i) + want;
    // The device fuses a*x + y into one FMA, the host may not: allow a few ulp a step.
    const float tolerance = (4e-6f + 1e-6f * static_cast<float>(repetitions)) * std::fabs(want);
    if (!(std::fabs(result[i] - want) <= tolerance) && ++bad <= 5) // NaN too
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
  std::printf("%s: ok: %d x saxpy over %d floats\n", program, repetitions, kN);
  return 0;
}
