// SPDX-License-Identifier: Apache-2.0
// The compute peaks: fp32, fp64 and packed-fp16 FMA (GFLOPS), 32-bit integer multiply-add and
// integer add (GOPS), each at full occupancy with independent chains per thread.
#pragma once

#include "gpu_measure.hpp"

namespace perfgate::microbench::gpu {

[[nodiscard]] result run_fp32_fma(const bench& b); // fp32_gflops
[[nodiscard]] result run_fp64_fma(const bench& b); // fp64_gflops
[[nodiscard]] result run_fp16_fma(const bench& b); // fp16_gflops; null without fp16 arithmetic
[[nodiscard]] result run_int_mad(const bench& b);  // int_mad_gops
[[nodiscard]] result run_int_add(const bench& b);  // int_add_gops

} // namespace perfgate::microbench::gpu
