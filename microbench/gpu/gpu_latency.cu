// SPDX-License-Identifier: Apache-2.0
#include "gpu_latency.hpp"

#include "model/latency_floor.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace perfgate::microbench::gpu {

namespace {

enum op_id { op_ffma, op_dfma, op_imad, op_ex2, op_lds, op_ldg_l2, op_ldg_dram, op_bar };

// The chains measure what the project's reference chains measure (tests/data/h100/
// pipeline_latency_h100.csv and its README): N dependent instructions per thread, every thread
// its own chain, a loop unrolled 128 times (16 for the loads), cycles from clock64() between two
// block barriers, one block of W warps per compute unit.
constexpr int alu_chain = 1024;     // arithmetic and shared memory
constexpr int load_chain = 128;     // global-memory chases
constexpr unsigned lds_entries = 1024;

// Keeps a value in a register from here on: the empty volatile asm cannot move across the
// barrier, so the value is computed before the timed region starts.
#if PGPU_CUDA
__device__ inline void ready(unsigned& v) { asm volatile("" : "+r"(v)); }
__device__ inline void ready(unsigned long long& v) { asm volatile("" : "+l"(v)); }
__device__ inline void ready(float& v) { asm volatile("" : "+f"(v)); }
__device__ inline void ready(double& v) { asm volatile("" : "+d"(v)); }
__device__ inline void ready(unsigned*& v) { asm volatile("" : "+l"(v)); }
#else // AMDGPU: a vector register (or pair) of any of these types
template <class T> __device__ inline void ready(T& v) { asm volatile("" : "+v"(v)); }
#endif

// What ties the chain to the clock reads. A chain whose result is only used after the second
// clock read is free to move past it (nvcc 13 did: 1024 FFMA "in" 491 cycles), so the chain's
// first operand depends on the first read (through `zero`, 0 at run time, unknown to the
// compiler), and every thread's last result decides a store before the closing barrier, which
// the second read follows. Its operands are computed before the first barrier, as the
// reference's are: only the chain lies between the reads.
template <int Op>
__global__ void chain_kernel(long long* cycles, unsigned* sink, const unsigned* table,
                             unsigned mask, float fa, float fb, unsigned ia, unsigned ib,
                             unsigned zero, unsigned impossible) {
  __shared__ unsigned lds[Op == op_lds ? lds_entries : 1];
  if (Op == op_lds) {
    // An affine permutation (33 is odd): a thread's next entry stays in its own bank
    // residue class, so a warp's 32 lanes never conflict.
    for (unsigned i = threadIdx.x; i < lds_entries; i += blockDim.x)
      lds[i] = (i * 33u + 1u) & (lds_entries - 1u);
  }
  // Each chain's start: a float or a double's bits, an integer, a table index.
  unsigned seed = 0;
  unsigned long long seed64 = 0;
  if (Op == op_ffma)
    seed = __float_as_uint(threadIdx.x * 1e-3f);
  else if (Op == op_ex2)
    seed = __float_as_uint(threadIdx.x * 1e-6f);
  else if (Op == op_dfma)
    seed64 = static_cast<unsigned long long>(__double_as_longlong(threadIdx.x * 1e-3));
  else if (Op == op_lds)
    seed = threadIdx.x & (lds_entries - 1u);
  else if (Op == op_ldg_l2 || Op == op_ldg_dram)
    seed = ((blockIdx.x * blockDim.x + threadIdx.x) * 97u + ib) & mask;
  else
    seed = threadIdx.x;
  // The FFMA chain's operands in per-thread registers, as a real kernel's (and the reference's:
  // FFMA R0, R0, R4, R5). Three register sources share two register banks, so at a full block
  // the issue rate halves (16642 cycles for 32 warps, not the 8192 of 128 FMA lanes); a
  // kernel-uniform operand (a uniform register) would hide that.
  float ra = __uint_as_float(__float_as_uint(fa) | (threadIdx.x & zero));
  float rb = __uint_as_float(__float_as_uint(fb) | (threadIdx.x & zero));
  unsigned rm = ia | (threadIdx.x & zero), rc = ib | (threadIdx.x & zero); // IMAD's, likewise
  double da = fa, db = fb; // the DFMA chain's operands
  unsigned* my_sink = sink + blockIdx.x;
  ready(seed);
  ready(seed64);
  ready(fa);
  ready(fb);
  ready(ra);
  ready(rb);
  ready(rm);
  ready(rc);
  ready(da);
  ready(db);
  ready(ia);
  ready(ib);
  ready(zero);
  ready(impossible);
  ready(my_sink);
  __syncthreads();
  const long long t0 = clock64();
  const unsigned after_t0 = static_cast<unsigned>(t0) & zero; // 0, but only once t0 is read
  unsigned result = 0;
  if (Op == op_ffma) {
    float x = __uint_as_float(seed | after_t0);
#pragma unroll 128
    for (int i = 0; i < alu_chain; ++i)
      x = fmaf(x, ra, rb);
    result = __float_as_uint(x);
  } else if (Op == op_dfma) {
    double x = __longlong_as_double(static_cast<long long>(seed64 | after_t0));
#pragma unroll 128
    for (int i = 0; i < alu_chain; ++i)
      x = fma(x, da, db);
    result = static_cast<unsigned>(__double_as_longlong(x));
  } else if (Op == op_imad) {
    unsigned x = seed | after_t0;
#pragma unroll 128
    for (int i = 0; i < alu_chain; ++i)
      x = x * rm + rc;
    result = x;
  } else if (Op == op_ex2) {
    // __expf is FMUL (x log2 e) and MUFU.EX2 with its range fix-ups; the product keeps x small:
    // as the reference's chain.
    float x = __uint_as_float(seed | after_t0);
#pragma unroll 128
    for (int i = 0; i < alu_chain; ++i)
      x = __expf(x) * fb;
    result = __float_as_uint(x);
  } else if (Op == op_lds) {
    unsigned p = seed | after_t0;
#pragma unroll 128
    for (int i = 0; i < alu_chain; ++i)
      p = lds[p];
    result = p;
  } else if (Op == op_bar) {
    // Barriers one after another: each waits for every warp of the block at the previous one.
#pragma unroll 128
    for (int i = 0; i < alu_chain; ++i)
      __syncthreads();
    result = seed | after_t0;
  } else {
    // Every thread chases its own entries of a table whose entry i holds (i a + c) mod 2^k, a
    // single cycle through all 2^k entries (Hull-Dobell: a = 1 mod 4, c odd): a warp's 32 loads
    // touch 32 lines, as the reference's chase does.
    unsigned p = seed | after_t0;
#pragma unroll 16
    for (int i = 0; i < load_chain; ++i)
      p = pgpu::load_l2_only(table + p);
    result = p;
  }
  if (result == impossible) // never; but the branch waits for the chain's last result
    *my_sink = result;
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0)
    cycles[blockIdx.x] = t1 - t0;
}

using chain_fn = void (*)(long long*, unsigned*, const unsigned*, unsigned, float, float, unsigned,
                          unsigned, unsigned, unsigned);

chain_fn kernel_of(int op) {
  switch (op) {
  case op_ffma: return chain_kernel<op_ffma>;
  case op_dfma: return chain_kernel<op_dfma>;
  case op_imad: return chain_kernel<op_imad>;
  case op_ex2: return chain_kernel<op_ex2>;
  case op_lds: return chain_kernel<op_lds>;
  case op_ldg_l2: return chain_kernel<op_ldg_l2>;
  case op_bar: return chain_kernel<op_bar>;
  default: return chain_kernel<op_ldg_dram>;
  }
}

constexpr unsigned lcg_a = 2654435761u, lcg_c = 12345u;

__global__ void fill_chase_table(unsigned* table, unsigned mask) {
  const std::size_t n = static_cast<std::size_t>(mask) + 1;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    table[i] = (static_cast<unsigned>(i) * lcg_a + lcg_c) & mask;
}

// The largest power of two <= n (n >= 1).
std::size_t floor_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p <= n / 2)
    p *= 2;
  return p;
}

// A chase table of `bytes` (a power of two) filled on the GPU.
device_buffer chase_table(std::size_t bytes, int cus) {
  device_buffer table(bytes);
  fill_chase_table<<<cus * 8, 256>>>(table.as<unsigned>(),
                                     static_cast<unsigned>(bytes / sizeof(unsigned) - 1));
  PG_LAUNCH_CHECK();
  PG_CHECK(pgpu::device_synchronize());
  return table;
}

// The fewest cycles a chain can take: N x the least latency of its class (model/
// latency_floor.hpp, also what `perfgate pipeline fit` holds the CSV to), three instructions a step
// for the ex2 chain.
long long min_cycles(int op, int n) {
  const long long per = perfgate::detail::min_cycles_per_dependent_instruction(latency_ops[op]);
  return (op == op_ex2 ? 3 : 1) * per * n;
}

} // namespace

std::vector<latency_point> run_latency_sweep(const bench& b, const std::vector<int>& warps) {
  const int cus = b.dev.cus;
  const int warp_size = b.dev.prop.warpSize;
  device_buffer cycles(sizeof(long long) * cus);
  device_buffer sink(sizeof(unsigned) * cus);
  // L2: the reference's 16 MiB where the L2 holds twice that, else the largest power of two
  // within half the L2. DRAM: the reference's 1 GiB, or 8 x the L2 where that is larger (the
  // 60 MB of an H200 and the larger L2s of newer parts), within a quarter of the free memory.
  const std::size_t l2_bytes =
      std::min<std::size_t>(16 * mib, floor_pow2(std::max<std::size_t>(b.dev.l2 / 2, mib)));
  std::size_t free_bytes = 0, total_bytes = 0;
  PG_CHECK(pgpu::mem_get_info(&free_bytes, &total_bytes));
  const std::size_t dram_bytes = std::min(
      floor_pow2(free_bytes / 4),
      b.p.quick ? 64 * mib : std::max<std::size_t>(1024 * mib, floor_pow2(8 * b.dev.l2) * 2));
  device_buffer l2_table = chase_table(l2_bytes, cus);
  device_buffer dram_table = chase_table(dram_bytes, cus);
  int max_khz = 0;
  PG_CHECK(pgpu::clock_rate_khz(&max_khz, b.dev.index));
  std::vector<long long> host(cus);
  std::vector<latency_point> points;
  for (int op = 0; op < latency_op_count; ++op) {
    const bool chase = op == op_ldg_l2 || op == op_ldg_dram;
    const device_buffer& table = op == op_ldg_l2 ? l2_table : dram_table;
    const auto mask = static_cast<unsigned>(
        (op == op_ldg_l2 ? l2_bytes : dram_bytes) / sizeof(unsigned) - 1);
    for (const int w : warps) {
      const int threads = std::min(w * warp_size, 1024);
      // ib: the chases' start offset (the DRAM warm-up starts half the cycle away) and the IMAD
      // addend; fa, fb as the reference (x converges, nothing overflows).
      const auto launch = [&](unsigned start) {
        kernel_of(op)<<<cus, threads>>>(cycles.as<long long>(), sink.as<unsigned>(),
                                        table.as<const unsigned>(), chase ? mask : 0U, 0.999f,
                                        1e-3f, 3U, start, 0U, 0xdeadbeefU);
      };
      // Warm-up: instruction cache and the table's pages in the TLB. The DRAM chase's starts
      // half the cycle away, so the timed run's lines are not in the L2 (even where the L2 holds
      // all the warm-up touched), and nothing is written to flush it: a flush leaves the L2 full
      // of dirty lines, and every miss then waits for a write-back too (measured on the H200:
      // 1315 cycles a load after a 240 MB memset, 1156 without, 1157 with the reference's
      // protocol of the same lines twice).
      // Each occupancy's DRAM chase runs from its own place of the cycle: no run reuses the lines
      // of the run before it. The L2 chase keeps the reference's start: its lines are meant to
      // hit, warmed by the run before the timed one.
      const unsigned start =
          op == op_ldg_dram ? 1U + static_cast<unsigned>(w) * ((mask + 1) / 64) : 1U;
      launch(op == op_ldg_dram ? start + (mask + 1) / 2 : start);
      PG_LAUNCH_CHECK();
      PG_CHECK(pgpu::device_synchronize());
      const double ms = b.timer.time_ms([&] { launch(start); });
      PG_LAUNCH_CHECK();
      PG_CHECK(pgpu::memcpy_to_host(host.data(), cycles.as<void>(), sizeof(long long) * cus));
      latency_point pt;
      pt.op = latency_ops[op];
      pt.warps = threads / warp_size;
      pt.n = chase ? load_chain : alu_chain;
      pt.cycles_max = *std::max_element(host.begin(), host.end());
      pt.cycles_min = *std::min_element(host.begin(), host.end());
      pt.wall_us = ms * 1e3;
      check_physics(pt, min_cycles(op, pt.n), max_khz / 1e3);
      points.push_back(pt);
    }
  }
  return points;
}

void check_physics(const latency_point& p, long long min_cycles, double max_mhz) {
  const auto refuse = [&](const std::string& why) {
    throw gpu_failure("latency chain " + p.op + " at " + std::to_string(p.warps) +
                      " warps: " + why + "; refusing to write it (the chain was not timed)");
  };
  if (p.cycles_min < min_cycles)
    refuse(std::to_string(p.n) + " dependent instructions in " + std::to_string(p.cycles_min) +
           " cycles, below the " + std::to_string(min_cycles) + " the class needs at least");
  // The cycles happened inside the launch: at no more than the maximum clock, they cannot take
  // longer than the launch's wall time.
  if (max_mhz > 0 && static_cast<double>(p.cycles_max) / max_mhz > 1.05 * p.wall_us + 5.0) {
    char b[160];
    std::snprintf(b, sizeof b, "%lld cycles take %.2f us at the %.0f MHz maximum clock, longer "
                               "than the launch's %.2f us", p.cycles_max,
                  static_cast<double>(p.cycles_max) / max_mhz, max_mhz, p.wall_us);
    refuse(b);
  }
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
