// SPDX-License-Identifier: Apache-2.0
// DRAM bandwidth (read, write, copy streams over buffers far larger than L2, flushed between
// repetitions, checksum verified) and the measured roofline sweep.
#pragma once

#include "gpu_measure.hpp"

#include <cstddef>
#include <vector>

namespace perfgate::microbench::gpu {

// The memory benchmarks' buffers, sized together against one budget of free device memory; the
// L2 working set (gpu_caches.hpp) is part of it.
struct bandwidth_buffers {
  device_buffer src, dst, flush, l2, checksum;
  std::size_t stream_bytes = 0, flush_bytes = 0, l2_bytes = 0;
  int stream_blocks = 1; // grid of the read, write and copy kernels
  unsigned flushes = 0;
};

/// Allocates and fills the buffers; gpu_failure when the device has too little free memory.
[[nodiscard]] bandwidth_buffers allocate_bandwidth_buffers(const bench& b);

[[nodiscard]] result run_dram_read(const bench& b, bandwidth_buffers& buf);  // dram_read_gbs
[[nodiscard]] result run_dram_write(const bench& b, bandwidth_buffers& buf); // dram_write_gbs
[[nodiscard]] result run_dram_copy(const bench& b, bandwidth_buffers& buf);  // dram_copy_gbs

struct sweep_point {
  int fma_per_element;
  double intensity, gflops, gbs;
};

/// The roofline sweep: 1 to 256 FMAs per element of a DRAM stream.
[[nodiscard]] std::vector<sweep_point> run_sweep(const bench& b, bandwidth_buffers& buf);

} // namespace perfgate::microbench::gpu
