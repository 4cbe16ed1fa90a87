// SPDX-License-Identifier: Apache-2.0
// Memory kernels stream 16-byte vectors over buffers far larger than L2 (flushed between
// repetitions) and verify a checksum, so a kernel that skipped data would be reported as an
// error rather than as bandwidth.
#include "gpu_checksum.hpp"
#include "gpu_memory.hpp"

#include <algorithm>
#include <string>

namespace perfgate::microbench::gpu {

namespace {

__global__ __launch_bounds__(block_threads) void read_kernel(const uint4* __restrict__ p,
                                                             std::size_t n, unsigned* checksum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned s = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    s += sum4(a) + sum4(b) + sum4(c) + sum4(d);
  }
  for (; i < n; i += stride)
    s += sum4(p[i]);
  warp_sum_to_global(s, checksum);
}

__global__ __launch_bounds__(block_threads) void write_kernel(uint4* __restrict__ p, std::size_t n,
                                                              unsigned v) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 w = make_uint4(v, v, v, v);
  for (; i + 3 * stride < n; i += 4 * stride) {
    p[i] = w;
    p[i + stride] = w;
    p[i + 2 * stride] = w;
    p[i + 3 * stride] = w;
  }
  for (; i < n; i += stride)
    p[i] = w;
}

__global__ __launch_bounds__(block_threads) void copy_kernel(const uint4* __restrict__ src,
                                                             uint4* __restrict__ dst,
                                                             std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}

// Roofline sweep: y = f(x) element-wise, f = K dependent FMAs per fp32 element; 8 bytes of
// DRAM traffic (4 read, 4 written) and 2K flops per element.
template <int K>
__global__ __launch_bounds__(block_threads) void sweep_kernel(const float4* __restrict__ x,
                                                              float4* __restrict__ y, std::size_t n,
                                                              float m, float a) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    float4 v = x[i];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      v.x = fmaf(v.x, m, a);
      v.y = fmaf(v.y, m, a);
      v.z = fmaf(v.z, m, a);
      v.w = fmaf(v.w, m, a);
    }
    y[i] = v;
  }
}

void flush_l2(bandwidth_buffers& buf) {
  write_kernel<<<buf.stream_blocks, block_threads>>>(buf.flush.as<uint4>(), buf.flush_bytes / 16,
                                                     0x5a5a5a5au + ++buf.flushes);
  PG_LAUNCH_CHECK();
}

unsigned checksum_of(bandwidth_buffers& buf, const device_buffer& data, std::size_t bytes) {
  PG_CHECK(pgpu::device_memset(buf.checksum.as<void>(), 0, sizeof(unsigned)));
  read_kernel<<<buf.stream_blocks, block_threads>>>(data.as<uint4>(), bytes / 16,
                                                    buf.checksum.as<unsigned>());
  PG_LAUNCH_CHECK();
  unsigned v = 0;
  PG_CHECK(pgpu::memcpy_to_host(&v, buf.checksum.as<void>(), sizeof v));
  return v;
}

std::string mem_note(const bandwidth_buffers& buf, const char* what) {
  return std::string(what) + "; " + std::to_string(buf.stream_bytes / mib) +
         " MiB buffers, 16-byte accesses, L2 flushed (" + std::to_string(buf.flush_bytes / mib) +
         " MiB written) before each repetition, checksum verified";
}

template <int K>
void measure_sweep_point(const bench& b, bandwidth_buffers& buf, std::vector<sweep_point>& out) {
  auto kernel = sweep_kernel<K>;
  const int blocks = std::min(blocks_for(kernel, b.dev.cus), b.dev.cus * 8);
  const std::size_t n = buf.stream_bytes / 16; // float4 elements
  auto launch = [&](long long passes) {
    for (long long p = 0; p < passes; ++p) {
      kernel<<<blocks, block_threads>>>(buf.src.as<float4>(), buf.dst.as<float4>(), n, 0.5f, 0.25f);
      PG_LAUNCH_CHECK();
    }
  };
  const double elements = static_cast<double>(n) * 4.0;
  const double flops = elements * 2.0 * K;
  const double bytes = elements * 8.0;
  const stats s = measure(b.timer, b.p, launch, flops, 1, 4096, [&] { flush_l2(buf); });
  const double gbs = s.best * bytes / flops; // same run as the best GFLOPS
  out.push_back({K, 2.0 * K / 8.0, s.best, gbs});
}

} // namespace

bandwidth_buffers allocate_bandwidth_buffers(const bench& b) {
  bandwidth_buffers buf;
  const std::size_t l2 = std::max<std::size_t>(b.dev.l2, 4 * mib);
  std::size_t free_b = 0, total_b = 0;
  PG_CHECK(pgpu::mem_get_info(&free_b, &total_b));
  // Streaming buffers: >= 16x L2 and >= 1 GiB (a quick run: >= 2x L2, >= 64 MiB); the
  // flush buffer: >= 4x L2 and >= 512 MiB (also past a 256 MiB last-level cache such as
  // MI300's Infinity Cache). All bounded by 80% of the free device memory.
  const std::size_t budget = free_b / 10 * 8;
  buf.flush_bytes = b.p.quick ? std::max<std::size_t>(2 * l2, 32 * mib)
                              : std::max<std::size_t>(4 * l2, 512 * mib);
  buf.flush_bytes = std::max(std::min(buf.flush_bytes, budget / 4 / mib * mib), 2 * l2);
  buf.l2_bytes = std::max<std::size_t>(l2 / 2 / mib * mib, mib);
  std::size_t want = b.p.quick ? std::max<std::size_t>(2 * l2, 64 * mib)
                               : std::max<std::size_t>(16 * l2, 1024 * mib);
  const std::size_t fixed = buf.flush_bytes + buf.l2_bytes + 16 * mib;
  const std::size_t floor = std::max<std::size_t>(4 * l2, 64 * mib);
  if (budget < fixed + 2 * floor)
    throw gpu_failure(
        "not enough free device memory for the bandwidth buffers: " + std::to_string(free_b / mib) +
        " MiB free, " + std::to_string((fixed + 2 * floor) * 10 / 8 / mib) + " MiB needed");
  want = std::min(want, (budget - fixed) / 2);
  buf.stream_bytes = want / (16 * mib) * (16 * mib);
  buf.src = device_buffer(buf.stream_bytes);
  buf.dst = device_buffer(buf.stream_bytes);
  buf.flush = device_buffer(buf.flush_bytes);
  buf.l2 = device_buffer(buf.l2_bytes);
  buf.checksum = device_buffer(sizeof(unsigned));
  PG_CHECK(pgpu::device_memset(buf.src.as<void>(), 0x01, buf.stream_bytes));
  PG_CHECK(pgpu::device_memset(buf.dst.as<void>(), 0, buf.stream_bytes));
  PG_CHECK(pgpu::device_memset(buf.l2.as<void>(), 0x01, buf.l2_bytes));
  buf.stream_blocks =
      std::max({blocks_for(read_kernel, b.dev.cus), blocks_for(write_kernel, b.dev.cus),
                blocks_for(copy_kernel, b.dev.cus)});
  buf.stream_blocks = std::min(buf.stream_blocks, b.dev.cus * 8);
  return buf;
}

result run_dram_read(const bench& b, bandwidth_buffers& buf) {
  result r{"dram_read_gbs", std::nullopt, static_cast<long long>(buf.stream_blocks) * block_threads,
           mem_note(buf, "bytes read")};
  const std::size_t n = buf.stream_bytes / 16;
  auto launch = [&](long long passes) {
    for (long long p = 0; p < passes; ++p) {
      read_kernel<<<buf.stream_blocks, block_threads>>>(buf.src.as<uint4>(), n,
                                                        buf.checksum.as<unsigned>());
      PG_LAUNCH_CHECK();
    }
  };
  r.stats = measure(b.timer, b.p, launch, static_cast<double>(buf.stream_bytes), 1, 4096,
                    [&] { flush_l2(buf); });
  if (checksum_of(buf, buf.src, buf.stream_bytes) !=
      expected_checksum(buf.stream_bytes, 0x01010101u))
    throw gpu_failure("read checksum mismatch: the kernel did not read the whole buffer");
  return r;
}

result run_dram_write(const bench& b, bandwidth_buffers& buf) {
  result r{"dram_write_gbs", std::nullopt,
           static_cast<long long>(buf.stream_blocks) * block_threads,
           mem_note(buf, "bytes written")};
  const std::size_t n = buf.stream_bytes / 16;
  auto launch = [&](long long passes) {
    for (long long p = 0; p < passes; ++p) {
      write_kernel<<<buf.stream_blocks, block_threads>>>(buf.dst.as<uint4>(), n, 0x02020202u);
      PG_LAUNCH_CHECK();
    }
  };
  r.stats = measure(b.timer, b.p, launch, static_cast<double>(buf.stream_bytes), 1, 4096,
                    [&] { flush_l2(buf); });
  if (checksum_of(buf, buf.dst, buf.stream_bytes) !=
      expected_checksum(buf.stream_bytes, 0x02020202u))
    throw gpu_failure("write checksum mismatch: the kernel did not write the whole buffer");
  return r;
}

result run_dram_copy(const bench& b, bandwidth_buffers& buf) {
  result r{"dram_copy_gbs", std::nullopt, static_cast<long long>(buf.stream_blocks) * block_threads,
           mem_note(buf, "bytes read + bytes written")};
  const std::size_t n = buf.stream_bytes / 16;
  auto launch = [&](long long passes) {
    for (long long p = 0; p < passes; ++p) {
      copy_kernel<<<buf.stream_blocks, block_threads>>>(buf.src.as<uint4>(), buf.dst.as<uint4>(),
                                                        n);
      PG_LAUNCH_CHECK();
    }
  };
  r.stats = measure(b.timer, b.p, launch, 2.0 * static_cast<double>(buf.stream_bytes), 1, 4096,
                    [&] { flush_l2(buf); });
  if (checksum_of(buf, buf.dst, buf.stream_bytes) !=
      expected_checksum(buf.stream_bytes, 0x01010101u))
    throw gpu_failure("copy checksum mismatch: the kernel did not copy the whole buffer");
  return r;
}

std::vector<sweep_point> run_sweep(const bench& b, bandwidth_buffers& buf) {
  std::vector<sweep_point> out;
  measure_sweep_point<1>(b, buf, out);
  measure_sweep_point<2>(b, buf, out);
  measure_sweep_point<4>(b, buf, out);
  measure_sweep_point<8>(b, buf, out);
  measure_sweep_point<16>(b, buf, out);
  measure_sweep_point<32>(b, buf, out);
  measure_sweep_point<64>(b, buf, out);
  measure_sweep_point<128>(b, buf, out);
  measure_sweep_point<256>(b, buf, out);
  return out;
}

} // namespace perfgate::microbench::gpu
