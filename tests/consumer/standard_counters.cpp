// SPDX-License-Identifier: Apache-2.0
// Google Benchmark kernels as most existing suites write them: with the library's own counters
// (SetBytesProcessed, SetItemsProcessed), no perfgate_* counter, so perfgate judges them
// against the memory roof alone. tests/data/gbench/standard_counters.json is this program's
// output (see the README there); the consumer project gates BM_copy through add_perf_prediction.
//  - BM_copy:          64 MiB memcpy; SetBytesProcessed with what it reads and writes.
//  - BM_copy_items:    the same, plus SetItemsProcessed (doubles copied).
//  - BM_triad_declared: SetBytesProcessed says 3 arrays; the perfgate_* counters say 4
//                       (write-allocate) and the flops: the perfgate counters win.
//  - BM_no_work:       declares nothing: perfgate cannot judge it and says how to declare work.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
constexpr std::size_t n = std::size_t{1} << 23; // doubles: 64 MiB an array

void BM_copy(benchmark::State& state) {
  std::vector<double> src(n, 1.0), dst(n, 0.0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n * sizeof(double));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                          static_cast<std::int64_t>(n * sizeof(double)));
}

void BM_copy_items(benchmark::State& state) {
  std::vector<double> src(n, 1.0), dst(n, 0.0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n * sizeof(double));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * 2 * static_cast<std::int64_t>(n * sizeof(double)));
  state.SetItemsProcessed(iterations * static_cast<std::int64_t>(n));
}

void BM_triad_declared(benchmark::State& state) {
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.5);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = b[i] + 3.0 * c[i];
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 3 *
                          static_cast<std::int64_t>(n * sizeof(double)));
  state.counters["perfgate_fp64_flops"] = 2.0 * n;
  state.counters["perfgate_bytes"] = 4.0 * sizeof(double) * n;
}

void BM_no_work(benchmark::State& state) {
  std::vector<double> a(n, 1.0);
  for (auto _ : state) {
    std::memset(a.data(), 0, n * sizeof(double));
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
}
} // namespace

BENCHMARK(BM_copy);
// Two threads and the wall clock: the rates' time base changes, the bytes of one iteration not.
BENCHMARK(BM_copy)->Threads(2);
BENCHMARK(BM_copy)->UseRealTime();
BENCHMARK(BM_copy_items);
BENCHMARK(BM_triad_declared);
BENCHMARK(BM_no_work);

BENCHMARK_MAIN();
