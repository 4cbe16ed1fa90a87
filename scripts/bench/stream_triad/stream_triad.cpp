// SPDX-License-Identifier: Apache-2.0
// A user's STREAM triad as issue 13 measured it: portable C++ (no -march), one thread and every
// thread, each declaring the bytes it moves and the part it writes. scripts/bench-roof.sh gates
// it with perfgate beside the examples: neither may beat its roof, and both should come close.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

namespace {
// Per thread: 3 arrays of 8 Mi doubles (192 MiB), far beyond any last-level cache.
constexpr std::size_t n = std::size_t{1} << 23;

void BM_stream_triad(benchmark::State& state) {
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.5); // touched by the thread that streams them
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = b[i] + 3.0 * c[i];
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  // Per thread; Google Benchmark sums a counter over the threads.
  state.counters["perfgate_fp64_flops"] = 2.0 * n;
  state.counters["perfgate_bytes"] = 3.0 * sizeof(double) * n;
  state.counters["perfgate_write_bytes"] = 1.0 * sizeof(double) * n;
}
} // namespace

BENCHMARK(BM_stream_triad)->Name("BM_stream_triad_one")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_stream_triad)
    ->Name("BM_stream_triad_all")
    ->Threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())))
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
