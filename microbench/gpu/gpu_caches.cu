// SPDX-License-Identifier: Apache-2.0
#include "gpu_caches.hpp"
#include "gpu_checksum.hpp"

#include <algorithm>
#include <string>

namespace perfgate::microbench::gpu {

namespace {

// Shared-memory (LDS) 32-bit loads and stores. Each thread copies its `chains` words from the
// source half of the buffer to the destination half, UNROLL times per iteration. Thread t
// touches word t + k*stride, so a warp hits 32 consecutive words: no bank conflicts, and no
// thread reads another thread's words (no barriers needed). stride and dst_offset are kernel
// arguments: the compiler cannot prove that a store does not alias the next load (so it must
// keep every load and store), and it cannot merge two accesses into one wider instruction
// (no ds_read2 / LDS.64), so each source access is exactly one instruction.
template <int UNROLL>
__global__ __launch_bounds__(block_threads) void lds_kernel(unsigned* sink, int iters, int stride,
                                                            int dst_offset) {
  __shared__ unsigned buf[2 * chains * block_threads];
  const int t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < chains; ++k) {
    buf[t + k * stride] = static_cast<unsigned>(t + k);
    buf[t + k * stride + dst_offset] = 0u;
  }
  unsigned r[chains];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
      for (int k = 0; k < chains; ++k)
        r[k] = buf[t + k * stride];
#pragma unroll
      for (int k = 0; k < chains; ++k)
        buf[t + k * stride + dst_offset] = r[k];
    }
  }
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < chains; ++k)
    s += buf[t + k * stride + dst_offset];
  if (s == 0xffffffffu)
    sink[blockIdx.x * blockDim.x + t] = s;
}

// Reads an L2-resident buffer `passes` times (L2-only loads where the ISA has them).
__global__ __launch_bounds__(block_threads) void l2_read_kernel(const uint4* __restrict__ p,
                                                                std::size_t n, int passes,
                                                                unsigned* checksum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned s = 0;
  for (int r = 0; r < passes; ++r) {
    std::size_t i = first;
    for (; i + 3 * stride < n; i += 4 * stride) {
      const uint4 a = pgpu::load_l2_only(p + i), b = pgpu::load_l2_only(p + i + stride);
      const uint4 c = pgpu::load_l2_only(p + i + 2 * stride);
      const uint4 d = pgpu::load_l2_only(p + i + 3 * stride);
      s += sum4(a) + sum4(b) + sum4(c) + sum4(d);
    }
    for (; i < n; i += stride)
      s += sum4(pgpu::load_l2_only(p + i));
  }
  warp_sum_to_global(s, checksum);
}

} // namespace

result run_ldst(const bench& b) {
  constexpr int lds_unroll = 16;
  result r{"ldst_ginst", std::nullopt, 0,
           "shared-memory (LDS) 32-bit load and store instructions, thread level, "
           "bank-conflict free; 8 loads + 8 stores per step"};
  auto kernel = lds_kernel<lds_unroll>;
  const int blocks = blocks_for(kernel, b.dev.cus);
  r.threads = static_cast<long long>(blocks) * block_threads;
  device_buffer sink(static_cast<std::size_t>(r.threads) * sizeof(unsigned));
  auto launch = [&](long long iters) {
    kernel<<<blocks, block_threads>>>(sink.as<unsigned>(), static_cast<int>(iters), block_threads,
                                      chains * block_threads);
    PG_LAUNCH_CHECK();
  };
  const double work = static_cast<double>(r.threads) * lds_unroll * chains * 2.0;
  r.stats = measure(b.timer, b.p, launch, work, b.p.quick ? 4 : 16, 1LL << 30);
  return r;
}

result run_l2(const bench& b, bandwidth_buffers& buf) {
  const int blocks = std::min(blocks_for(l2_read_kernel, b.dev.cus), b.dev.cus * 8);
  result r{"l2_gbs", std::nullopt, static_cast<long long>(blocks) * block_threads,
           "bytes read from a " + std::to_string(buf.l2_bytes / mib) +
               " MiB working set (about half of L2) read repeatedly" +
               (PGPU_CUDA ? ", L2-only loads (ld.global.cg)" : "")};
  const std::size_t n = buf.l2_bytes / 16;
  auto launch = [&](long long passes) {
    l2_read_kernel<<<blocks, block_threads>>>(buf.l2.as<uint4>(), n, static_cast<int>(passes),
                                              buf.checksum.as<unsigned>());
    PG_LAUNCH_CHECK();
  };
  r.stats = measure(b.timer, b.p, launch, static_cast<double>(buf.l2_bytes), 4, 1 << 20);
  PG_CHECK(pgpu::device_memset(buf.checksum.as<void>(), 0, sizeof(unsigned)));
  l2_read_kernel<<<blocks, block_threads>>>(buf.l2.as<uint4>(), n, 3, buf.checksum.as<unsigned>());
  PG_LAUNCH_CHECK();
  unsigned v = 0;
  PG_CHECK(pgpu::memcpy_to_host(&v, buf.checksum.as<void>(), sizeof v));
  if (v != expected_checksum(buf.l2_bytes, 0x01010101u, 3))
    throw gpu_failure("L2 checksum mismatch: the kernel did not read the whole working set");
  return r;
}

} // namespace perfgate::microbench::gpu
