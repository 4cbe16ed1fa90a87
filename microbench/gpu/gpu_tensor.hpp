// SPDX-License-Identifier: Apache-2.0
// Tensor (matrix) unit peaks per precision, dense: every warp / wavefront issues independent
// matrix multiply-accumulates from registers at full occupancy. NVIDIA: warp-level mma.sync
// (sm_80+; FP8 sm_89+). AMD: MFMA (gfx90a, gfx94x). Keys are the device file's tensor peaks
// (tensor_fp16_gflops, ...) where this path is the device's fastest; on Hopper and datacenter
// Blackwell, whose fastest paths are wgmma / tcgen05, the same kernels report under
// mma_sync_* keys: a rate real kernels beat is no roof.
#pragma once

#include "gpu_measure.hpp"

#include <string>

namespace perfgate::microbench::gpu {

/// The precisions measured, in order: fp16, bf16, tf32, fp64, fp8, int8.
inline constexpr int tensor_precisions = 6;

/// The result key of precision `i`: "tensor_fp16_gflops" ... "tensor_int8_gops" where
/// warp-level MMA is the architecture's fastest matrix path (NVIDIA compute capability 8.x and
/// 12.x, AMD MFMA), "mma_sync_fp16_gflops" ... on compute capability 9.x and 10.x.
[[nodiscard]] std::string tensor_key(const pgpu::device_prop& prop, int i);

/// Precision `i` at full occupancy; null with the reason where the device, or the code this
/// build carries for it, has no such path.
[[nodiscard]] result run_tensor(const bench& b, int i);

/// How many precisions the device's asynchronous matrix path has a benchmark for: five (fp16,
/// bf16, tf32, fp8, int8) with wgmma on compute capability 9.x and tcgen05 on 10.x, else 0 (AMD
/// has no such path).
[[nodiscard]] int tensor_async_precisions(const pgpu::device_prop& prop);

/// The result key of asynchronous precision `i`: tensor_fp16_gflops ... tensor_int8_gops.
[[nodiscard]] std::string tensor_async_key(int i);

/// Precision `i` with wgmma / tcgen05 at full occupancy; null with the reason where the code
/// this build runs lacks the path or its result check fails. Run last: a fault would end the
/// CUDA context.
[[nodiscard]] result run_tensor_async(const bench& b, int i);

} // namespace perfgate::microbench::gpu
