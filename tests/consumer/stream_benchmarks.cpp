// SPDX-License-Identifier: Apache-2.0
// Google Benchmark kernels with declared work, as a perfgate user writes them: each sets the
// counters perfgate_* to the work of ONE iteration (default counter flags).
//  - BM_triad: STREAM triad, memory-bound, close to the calibrated DRAM bandwidth.
//  - BM_triad_strided: the same declared work, but walking the arrays with a 128-byte stride in
//    16 passes, so every pass drags every cache line from DRAM again: deliberately inefficient.
//  - BM_dot: a dot product, memory-bound (1/8 flop per byte), used with a wrong EXPECT_BOUND.
//  - BM_triad_llc: the triad over 3 x 2^18 doubles (6 MiB, the issue 53 report's case): its data
//    stay in a last-level cache of 3 MiB or more, where its roof must hold it (no working set
//    declared: one iteration's bytes stand for it), not in DRAM, which it beat 2.4x on Zen 5.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

namespace {
// 3 arrays of 16 Mi doubles (384 MiB): far outside any last-level cache.
constexpr std::size_t n = std::size_t{1} << 24;

void declare(benchmark::State& state, double flops, double bytes) {
  state.counters["perfgate_fp64_flops"] = flops;
  state.counters["perfgate_bytes"] = bytes;
}

void BM_triad(benchmark::State& state) {
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.5);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = b[i] + 3.0 * c[i];
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  declare(state, 2.0 * n, 3.0 * sizeof(double) * n);
}

void BM_triad_strided(benchmark::State& state) {
  constexpr std::size_t stride = 16; // doubles: 128 bytes, two cache lines
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.5);
  for (auto _ : state) {
    for (std::size_t start = 0; start < stride; ++start) {
      for (std::size_t i = start; i < n; i += stride) {
        a[i] = b[i] + 3.0 * c[i];
      }
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  declare(state, 2.0 * n, 3.0 * sizeof(double) * n);
}

void BM_triad_llc(benchmark::State& state) {
  constexpr std::size_t m = std::size_t{1} << 18;
  std::vector<double> a(m, 1.0), b(m, 2.0), c(m, 0.5);
  for (auto _ : state) {
    for (std::size_t i = 0; i < m; ++i) {
      a[i] = b[i] + 3.0 * c[i];
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  declare(state, 2.0 * m, 3.0 * sizeof(double) * m);
  state.counters["perfgate_write_bytes"] = 1.0 * sizeof(double) * m;
  state.counters["perfgate_ordinary_stores"] = 1; // plain C++ stores: write-allocate
}

void BM_dot(benchmark::State& state) {
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
  declare(state, 2.0 * n, 2.0 * sizeof(double) * n);
}
} // namespace

BENCHMARK(BM_triad)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_triad_strided)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_dot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_triad_llc)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
