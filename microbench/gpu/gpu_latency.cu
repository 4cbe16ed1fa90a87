// SPDX-License-Identifier: Apache-2.0
#include "gpu_latency.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>

namespace perfgate::microbench::gpu {

namespace {

enum op_id { op_ffma, op_dfma, op_imad, op_ex2, op_lds, op_ldg_l2, op_ldg_dram, op_bar };

constexpr int alu_chain = 1024;     // the capture's N for arithmetic and shared memory
constexpr int load_chain = 128;     // and for the global-memory chases
constexpr int lds_entries = 2048;   // 8 KB of shared memory chased
constexpr unsigned line_words = 32; // a chase step moves 128 bytes: one line per load

// N dependent instructions of one class per thread; thread 0 of the block records the block's
// cycles between two barriers. Operands come from kernel arguments so the compiler can neither
// fold the chain nor strength-reduce it; the result goes to `sink` only if it is impossible, so
// the chain is kept.
template <int Op, int N>
__global__ void chain_kernel(long long* cycles, unsigned* sink, const unsigned* table,
                             unsigned lines, float fa, float fb, unsigned ia, unsigned ib) {
  __shared__ unsigned lds[Op == op_lds ? lds_entries : 1];
  const unsigned warp = threadIdx.x / warpSize;
  if (Op == op_lds) {
    for (unsigned i = threadIdx.x; i < lds_entries; i += blockDim.x)
      lds[i] = (i + ib) % lds_entries; // ib: a stride co-prime with the table
  }
  __syncthreads();
  long long t0 = 0;
  if (threadIdx.x == 0)
    t0 = clock64();
  unsigned result = 0;
  if (Op == op_ffma) {
    float x = fa * static_cast<float>(threadIdx.x);
#pragma unroll
    for (int i = 0; i < N; ++i)
      x = fmaf(x, fb, fa);
    result = __float_as_uint(x);
  } else if (Op == op_dfma) {
    double x = static_cast<double>(fa) * threadIdx.x;
    const double b = fb, c = fa;
#pragma unroll
    for (int i = 0; i < N; ++i)
      x = fma(x, b, c);
    result = static_cast<unsigned>(__double_as_longlong(x));
  } else if (Op == op_imad) {
    unsigned x = threadIdx.x;
#pragma unroll
    for (int i = 0; i < N; ++i)
      x = x * ia + ib;
    result = x;
  } else if (Op == op_ex2) {
    float x = fa * static_cast<float>(threadIdx.x);
#pragma unroll
    for (int i = 0; i < N; ++i)
      x = __expf(-x); // MUFU.EX2 with its FMUL, as the capture; stays in (0, 1]
    result = __float_as_uint(x);
  } else if (Op == op_lds) {
    unsigned p = warp % lds_entries;
#pragma unroll
    for (int i = 0; i < N; ++i)
      p = lds[p];
    result = p;
  } else if (Op == op_bar) {
    // Barriers one after another: each waits for every warp of the block at the previous one.
#pragma unroll
    for (int i = 0; i < N; ++i)
      __syncthreads();
    result = threadIdx.x;
  } else { // a warp's lanes chase the same line: one transaction per load
    // Each warp enters the cycle of `lines` lines at its own place.
    unsigned p = (blockIdx.x * 64u + warp) * 2654435761u % lines * line_words;
#pragma unroll
    for (int i = 0; i < N; ++i)
      p = table[p];
    result = p;
  }
  __syncthreads();
  if (threadIdx.x == 0)
    cycles[blockIdx.x] = clock64() - t0;
  if (result == 0xdeadbeefu && ia == 0u)
    sink[blockIdx.x] = result;
}

using chain_fn = void (*)(long long*, unsigned*, const unsigned*, unsigned, float, float, unsigned,
                          unsigned);

chain_fn kernel_of(int op) {
  switch (op) {
  case op_ffma: return chain_kernel<op_ffma, alu_chain>;
  case op_dfma: return chain_kernel<op_dfma, alu_chain>;
  case op_imad: return chain_kernel<op_imad, alu_chain>;
  case op_ex2: return chain_kernel<op_ex2, alu_chain>;
  case op_lds: return chain_kernel<op_lds, alu_chain>;
  case op_ldg_l2: return chain_kernel<op_ldg_l2, load_chain>;
  case op_bar: return chain_kernel<op_bar, alu_chain>;
  default: return chain_kernel<op_ldg_dram, load_chain>;
  }
}

// A random cycle through `lines` lines of a table (Sattolo's algorithm, fixed seed): each entry
// of a line's first word holds the next line's first word index, so no prefetcher or cache line
// reuse shortens a step.
device_buffer chase_table(std::size_t lines) {
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0U);
  std::mt19937 rng(20261125);
  for (std::size_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<std::uint32_t> host(lines * line_words, 0);
  for (std::size_t i = 0; i < lines; ++i)
    host[order[i] * line_words] = order[(i + 1) % lines] * line_words;
  device_buffer table(host.size() * sizeof(std::uint32_t));
  void* staging = nullptr;
  PG_CHECK(pgpu::host_malloc(&staging, host.size() * sizeof(std::uint32_t)));
  std::copy(host.begin(), host.end(), static_cast<std::uint32_t*>(staging));
  const pgpu::error e =
      pgpu::memcpy_h2d_async(table.as<void>(), staging, host.size() * sizeof(std::uint32_t));
  const pgpu::error s = pgpu::device_synchronize();
  (void)pgpu::host_free(staging);
  PG_CHECK(e);
  PG_CHECK(s);
  return table;
}

} // namespace

std::vector<latency_point> run_latency_sweep(const bench& b, const std::vector<int>& warps) {
  const int cus = b.dev.cus;
  const int warp_size = b.dev.prop.warpSize;
  device_buffer cycles(sizeof(long long) * cus);
  device_buffer sink(sizeof(unsigned) * cus);
  // L2: 16 MiB (the capture's), within the L2 of the GPUs that have one that large, else half
  // of it; DRAM: 1 GiB (64 MiB quick), within a quarter of the free memory.
  const std::size_t l2_bytes =
      std::min<std::size_t>(16 * mib, std::max<std::size_t>(b.dev.l2 / 2, mib));
  std::size_t free_bytes = 0, total_bytes = 0;
  PG_CHECK(pgpu::mem_get_info(&free_bytes, &total_bytes));
  const std::size_t dram_bytes =
      std::min<std::size_t>(b.p.quick ? 64 * mib : 1024 * mib, free_bytes / 4);
  const std::size_t line_bytes = line_words * sizeof(std::uint32_t);
  device_buffer l2_table = chase_table(l2_bytes / line_bytes);
  device_buffer dram_table = chase_table(dram_bytes / line_bytes);
  std::vector<long long> host(cus);
  std::vector<latency_point> points;
  for (int op = 0; op < latency_op_count; ++op) {
    const bool chase = op == op_ldg_l2 || op == op_ldg_dram;
    const device_buffer& table = op == op_ldg_l2 ? l2_table : dram_table;
    const unsigned lines =
        static_cast<unsigned>((op == op_ldg_l2 ? l2_bytes : dram_bytes) / line_bytes);
    for (const int w : warps) {
      const int threads = std::min(w * warp_size, 1024);
      const auto launch = [&] {
        kernel_of(op)<<<cus, threads>>>(cycles.as<long long>(), sink.as<unsigned>(),
                                        table.as<const unsigned>(), chase ? lines : 1U, 1e-7f,
                                        0.9999f, 3U, 7U);
      };
      launch(); // warm-up: instruction cache, TLB
      PG_LAUNCH_CHECK();
      const double ms = b.timer.time_ms(launch);
      PG_LAUNCH_CHECK();
      PG_CHECK(pgpu::memcpy_to_host(host.data(), cycles.as<void>(), sizeof(long long) * cus));
      latency_point pt;
      pt.op = latency_ops[op];
      pt.warps = threads / warp_size;
      pt.n = chase ? load_chain : alu_chain;
      pt.cycles_max = *std::max_element(host.begin(), host.end());
      pt.cycles_min = *std::min_element(host.begin(), host.end());
      pt.wall_us = ms * 1e3;
      points.push_back(pt);
    }
  }
  return points;
}

std::string latency_sweep_csv(const std::vector<latency_point>& points, int clock_khz,
                              int compute_units) {
  std::string csv =
      "op,warps_per_sm,n_dependent,cycles_max,cycles_min,wall_us,sm_clock_attr_khz,sms\n";
  for (const auto& p : points) {
    char wall[32];
    std::snprintf(wall, sizeof wall, "%.2f", p.wall_us);
    csv += p.op + "," + std::to_string(p.warps) + "," + std::to_string(p.n) + "," +
           std::to_string(p.cycles_max) + "," + std::to_string(p.cycles_min) + "," + wall + "," +
           std::to_string(clock_khz) + "," + std::to_string(compute_units) + "\n";
  }
  return csv;
}

} // namespace perfgate::microbench::gpu
