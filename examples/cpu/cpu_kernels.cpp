// SPDX-License-Identifier: Apache-2.0
// CPU kernels with declared work (perfgate_* counters, the work of ONE iteration; the bytes
// written are declared too, so each is held to the DRAM patterns of its read/write mix, and
// their ordinary stores, so the non-temporal patterns are left out):
//  - BM_triad:        STREAM triad, fp64, 3 x 128 MiB: memory-bound, streams near DRAM speed.
//  - BM_stencil_5pt:  2-D 5-point Jacobi sweep on 4096 x 4096 doubles: memory-bound; counts
//                     16 B per point (the grid read once, the result written once: neighbours
//                     come from cache).
//  - BM_dot:          dot product, fp64: memory-bound.
//  - BM_sgemm_naive:  C = A B, 512 x 512 floats, i-j-k loops walking B by columns:
//                     compute-bound by its work (85 flop/B) but starved by cache misses.
//  - BM_sgemm_blocked: the same product in 64 x 64 blocks with an i-k-j order that vectorizes.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <vector>

#include <benchmark/benchmark.h>

namespace {
// PERFGATE_EXAMPLE_SLOWDOWN=1.2 makes BM_triad take 1.2x its time, its declared work unchanged:
// the regression scripts/bench-stability.sh injects to see whether the gate catches it.
double injected_slowdown() {
  const char* text = std::getenv("PERFGATE_EXAMPLE_SLOWDOWN");
  const double f = text != nullptr ? std::strtod(text, nullptr) : 1.0;
  return f > 1.0 ? f : 1.0;
}

// Spins for (factor - 1) times the time since `start`, so the iteration takes `factor` times
// as long whatever this machine's speed is right now.
void spin_for_slowdown(std::chrono::steady_clock::time_point start, double factor) {
  if (factor <= 1.0) {
    return;
  }
  const auto extra = (std::chrono::steady_clock::now() - start) * (factor - 1.0);
  const auto until = std::chrono::steady_clock::now() + extra;
  while (std::chrono::steady_clock::now() < until) {
  }
}

void declare(benchmark::State& state, double fp32_flops, double fp64_flops, double bytes,
             double written) {
  state.counters["perfgate_fp32_flops"] = fp32_flops;
  state.counters["perfgate_fp64_flops"] = fp64_flops;
  state.counters["perfgate_bytes"] = bytes;
  state.counters["perfgate_write_bytes"] = written;
  // Plain C++ stores (write-allocate): held to the calibrated patterns without non-temporal
  // stores, which these loops cannot use.
  state.counters["perfgate_ordinary_stores"] = 1;
}

void BM_triad(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << 24;
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.5);
  const double slowdown = injected_slowdown();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = b[i] + 3.0 * c[i];
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
    spin_for_slowdown(start, slowdown);
  }
  declare(state, 0, 2.0 * n, 3.0 * sizeof(double) * n, 1.0 * sizeof(double) * n);
}

void BM_stencil_5pt(benchmark::State& state) {
  const std::size_t n = 4096;
  std::vector<double> in(n * n, 1.0), out(n * n, 0.0);
  for (auto _ : state) {
    for (std::size_t i = 1; i + 1 < n; ++i) {
      const double* up = &in[(i - 1) * n];
      const double* mid = &in[i * n];
      const double* down = &in[(i + 1) * n];
      double* o = &out[i * n];
      for (std::size_t j = 1; j + 1 < n; ++j) {
        o[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
      }
    }
    std::swap(in, out);
    benchmark::DoNotOptimize(in.data());
    benchmark::ClobberMemory();
  }
  const double points = static_cast<double>((n - 2) * (n - 2));
  declare(state, 0, 4.0 * points, 2.0 * sizeof(double) * points, sizeof(double) * points);
}

void BM_dot(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << 24;
  std::vector<double> x(n, 1.0), y(n, 0.5);
  for (auto _ : state) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::size_t i = 0; i < n; i += 4) {
      s0 += x[i] * y[i];
      s1 += x[i + 1] * y[i + 1];
      s2 += x[i + 2] * y[i + 2];
      s3 += x[i + 3] * y[i + 3];
    }
    double s = s0 + s1 + s2 + s3;
    benchmark::DoNotOptimize(s);
  }
  declare(state, 0, 2.0 * n, 2.0 * sizeof(double) * n, 0);
}

constexpr std::size_t gemm_n = 512;

void BM_sgemm_naive(benchmark::State& state) {
  const std::size_t n = gemm_n;
  std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n, 0.0f);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        float sum = 0.0f;
        for (std::size_t k = 0; k < n; ++k) {
          sum += a[i * n + k] * b[k * n + j];
        }
        c[i * n + j] = sum;
      }
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  // Compulsory traffic: A and B read once, C written once.
  declare(state, 2.0 * n * n * n, 0, 3.0 * sizeof(float) * n * n, sizeof(float) * n * n);
}

void BM_sgemm_blocked(benchmark::State& state) {
  const std::size_t n = gemm_n, bs = 64;
  std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n, 0.0f);
  for (auto _ : state) {
    std::fill(c.begin(), c.end(), 0.0f);
    for (std::size_t ii = 0; ii < n; ii += bs) {
      for (std::size_t kk = 0; kk < n; kk += bs) {
        for (std::size_t jj = 0; jj < n; jj += bs) {
          for (std::size_t i = ii; i < ii + bs; ++i) {
            for (std::size_t k = kk; k < kk + bs; ++k) {
              const float aik = a[i * n + k];
              float* ci = &c[i * n];
              const float* bk = &b[k * n];
              for (std::size_t j = jj; j < jj + bs; ++j) {
                ci[j] += aik * bk[j];
              }
            }
          }
        }
      }
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  declare(state, 2.0 * n * n * n, 0, 3.0 * sizeof(float) * n * n, sizeof(float) * n * n);
}
} // namespace

BENCHMARK(BM_triad)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_stencil_5pt)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_dot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sgemm_naive)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sgemm_blocked)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
