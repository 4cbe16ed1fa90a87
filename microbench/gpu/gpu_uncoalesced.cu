// SPDX-License-Identifier: Apache-2.0
// Random 4-byte gather (out[i] = in[idx[i]]) and scatter (out[idx[i]] = in[i]) over arrays far
// larger than L2, idx a pseudo-random permutation in device memory. Every warp's 32 (or 64)
// random accesses touch as many different sectors, so each 4-byte element costs a whole DRAM
// transaction: the rate is the useful bytes, 4 per element moved, as the boat hull model counts
// P_uncoalesced. The index reads and the other side's accesses are coalesced and not counted.
// A checksum of the result verifies that every element was moved.
#include "gpu_checksum.hpp"
#include "gpu_uncoalesced.hpp"

// After the runtime headers above: it needs __host__ __device__ defined.
#include "../permuted_index.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace perfgate::microbench::gpu {

namespace {

constexpr unsigned seed = 0x5eed1234U;

__global__ __launch_bounds__(block_threads) void fill_kernel(unsigned* __restrict__ in,
                                                             unsigned* __restrict__ idx,
                                                             std::size_t n, unsigned bits) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    in[i] = static_cast<unsigned>(i);
    idx[i] = permuted_index(static_cast<unsigned>(i), bits, seed);
  }
}

// Four independent elements per thread and step keep more random accesses in flight.
__global__ __launch_bounds__(block_threads) void gather_kernel(const unsigned* __restrict__ in,
                                                               const unsigned* __restrict__ idx,
                                                               unsigned* __restrict__ out,
                                                               std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const unsigned a = idx[i], b = idx[i + stride], c = idx[i + 2 * stride],
                   d = idx[i + 3 * stride];
    const unsigned va = in[a], vb = in[b], vc = in[c], vd = in[d];
    out[i] = va;
    out[i + stride] = vb;
    out[i + 2 * stride] = vc;
    out[i + 3 * stride] = vd;
  }
  for (; i < n; i += stride)
    out[i] = in[idx[i]];
}

__global__ __launch_bounds__(block_threads) void scatter_kernel(const unsigned* __restrict__ in,
                                                                const unsigned* __restrict__ idx,
                                                                unsigned* __restrict__ out,
                                                                std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const unsigned a = idx[i], b = idx[i + stride], c = idx[i + 2 * stride],
                   d = idx[i + 3 * stride];
    const unsigned va = in[i], vb = in[i + stride], vc = in[i + 2 * stride],
                   vd = in[i + 3 * stride];
    out[a] = va;
    out[b] = vb;
    out[c] = vc;
    out[d] = vd;
  }
  for (; i < n; i += stride)
    out[idx[i]] = in[i];
}

// Sum of n 32-bit words (n a multiple of 4) into *checksum.
__global__ __launch_bounds__(block_threads) void sum_kernel(const uint4* __restrict__ p,
                                                            std::size_t n4, unsigned* checksum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned s = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += stride)
    s += sum4(p[i]);
  warp_sum_to_global(s, checksum);
}

struct arrays {
  device_buffer in, idx, out, checksum;
  std::size_t n = 0;
  unsigned bits = 0;
  int blocks = 1;
};

// Three arrays of 2^bits elements: each >= 16x L2 and >= 2 GiB (past a 256 MiB last-level
// cache such as MI300's Infinity Cache, a random access hits it at most 1 time in 8); a quick
// run >= 2x L2 and 64 MiB. All three within 80% of the free device memory.
arrays allocate_arrays(const bench& b) {
  std::size_t free_b = 0, total_b = 0;
  PG_CHECK(pgpu::mem_get_info(&free_b, &total_b));
  const std::size_t l2 = std::max<std::size_t>(b.dev.l2, 4 * mib);
  const std::size_t want = b.p.quick ? std::max<std::size_t>(2 * l2, 64 * mib)
                                     : std::max<std::size_t>(16 * l2, 2048 * mib);
  const std::size_t floor = b.p.quick ? 64 * mib : std::max<std::size_t>(4 * l2, 256 * mib);
  const std::size_t budget = free_b / 10 * 8 / 3;
  arrays a;
  a.bits = 20;
  while (a.bits < 31 && (std::size_t{4} << a.bits) < want && (std::size_t{8} << a.bits) <= budget)
    ++a.bits;
  a.n = std::size_t{1} << a.bits;
  if (4 * a.n < floor)
    throw gpu_failure("not enough free device memory for the gather/scatter arrays: " +
                      std::to_string(free_b / mib) + " MiB free, " +
                      std::to_string(3 * floor * 10 / 8 / mib) + " MiB needed");
  a.in = device_buffer(4 * a.n);
  a.idx = device_buffer(4 * a.n);
  a.out = device_buffer(4 * a.n);
  a.checksum = device_buffer(sizeof(unsigned));
  a.blocks = std::max({blocks_for(gather_kernel, b.dev.cus), blocks_for(scatter_kernel, b.dev.cus),
                       blocks_for(fill_kernel, b.dev.cus), blocks_for(sum_kernel, b.dev.cus)});
  a.blocks = std::min(a.blocks, b.dev.cus * 8);
  fill_kernel<<<a.blocks, block_threads>>>(a.in.as<unsigned>(), a.idx.as<unsigned>(), a.n, a.bits);
  PG_LAUNCH_CHECK();
  PG_CHECK(pgpu::device_memset(a.out.as<void>(), 0, 4 * a.n));
  return a;
}

unsigned sum_of(arrays& a, const device_buffer& data) {
  PG_CHECK(pgpu::device_memset(a.checksum.as<void>(), 0, sizeof(unsigned)));
  sum_kernel<<<a.blocks, block_threads>>>(data.as<uint4>(), a.n / 4, a.checksum.as<unsigned>());
  PG_LAUNCH_CHECK();
  unsigned v = 0;
  PG_CHECK(pgpu::memcpy_to_host(&v, a.checksum.as<void>(), sizeof v));
  return v;
}

// 0 + 1 + ... + (n - 1) modulo 2^32: the sum of any permutation of the values in[i] = i.
unsigned permutation_sum(std::size_t n) {
  return static_cast<unsigned>(static_cast<std::uint64_t>(n) * (n - 1) / 2);
}

// Combined bytes over combined time of the two directions: the harmonic mean of their rates.
double mix(double gather, double scatter) {
  return gather > 0 && scatter > 0 ? 2.0 / (1.0 / gather + 1.0 / scatter) : NAN;
}

} // namespace

std::vector<result> run_uncoalesced(const bench& b) {
  arrays a = allocate_arrays(b);
  if (sum_of(a, a.idx) != permutation_sum(a.n))
    throw gpu_failure("gather/scatter: the index array is not a permutation");
  const std::string size = std::to_string(4 * a.n / mib) + " MiB arrays, idx a random permutation";
  const long long threads = static_cast<long long>(a.blocks) * block_threads;
  auto timed = [&](bool scattered) {
    auto launch = [&](long long passes) {
      for (long long p = 0; p < passes; ++p) {
        if (scattered)
          scatter_kernel<<<a.blocks, block_threads>>>(a.in.as<unsigned>(), a.idx.as<unsigned>(),
                                                      a.out.as<unsigned>(), a.n);
        else
          gather_kernel<<<a.blocks, block_threads>>>(a.in.as<unsigned>(), a.idx.as<unsigned>(),
                                                     a.out.as<unsigned>(), a.n);
        PG_LAUNCH_CHECK();
      }
    };
    PG_CHECK(pgpu::device_memset(a.out.as<void>(), 0, 4 * a.n));
    const stats s = measure(b.timer, b.p, launch, 4.0 * static_cast<double>(a.n), 1, 4096);
    if (sum_of(a, a.out) != permutation_sum(a.n))
      throw gpu_failure(std::string(scattered ? "scatter" : "gather") +
                        " checksum mismatch: the kernel did not move every element");
    return s;
  };
  result gather{"uncoalesced_gather_gbs", timed(false), threads,
                "out[i] = in[idx[i]], " + size + ": 4 bytes per element moved, checksum verified"};
  result scatter{"uncoalesced_scatter_gbs", timed(true), threads,
                 "out[idx[i]] = in[i], " + size + ": 4 bytes per element moved, checksum verified"};
  stats m;
  m.reps = std::min(gather.stats->reps, scatter.stats->reps);
  m.best = mix(gather.stats->best, scatter.stats->best);
  m.median = mix(gather.stats->median, scatter.stats->median);
  m.min = mix(gather.stats->min, scatter.stats->min);
  m.max = mix(gather.stats->max, scatter.stats->max);
  m.best_ms = gather.stats->best_ms + scatter.stats->best_ms;
  result both{"uncoalesced_gbs", m, threads,
              "random 4-byte gather and scatter, " + size +
                  ": both directions' bytes over their combined time (4 bytes per element moved)"};
  return {gather, scatter, both};
}

} // namespace perfgate::microbench::gpu
