// SPDX-License-Identifier: Apache-2.0
// The NVIDIA collectors' second counter run for tensor operations (collectors/tensor_counters.cpp).
#include <perfgate/profile.hpp>

#include "collectors/collectors.hpp"

#include <gtest/gtest.h>

// The second counter run: only when a kernel executed matrix instructions no operations counter
// measured, and its counters go to the kernel of the same name, per invocation of the first.
TEST(TensorCounterRun, NeededOnlyForUncountedMatrixInstructions) {
  perfgate::profile p;
  perfgate::kernel_profile rng; // GH100: HFMA2 on the tensor pipe, no matrix work
  rng.name = "rng";
  rng.counters = {{"tensor_inst", 143616}, {"inst_fp16_fma", 4595712}};
  p.kernels.push_back(rng);
  EXPECT_FALSE(perfgate::detail::needs_tensor_run(p));
  perfgate::kernel_profile gemm;
  gemm.name = "gemm";
  gemm.invocations = 3;
  gemm.counters = {{"tensor_inst", 6291456}, {"inst_fp16_fma", 0}};
  p.kernels.push_back(gemm);
  EXPECT_TRUE(perfgate::detail::needs_tensor_run(p));

  perfgate::profile tensor;
  perfgate::kernel_profile t;
  t.name = "gemm";
  t.invocations = 1; // the second run replayed one launch
  t.counters = {{"tensor_fp16_ops", 137438953472.0}, {"tensor_inst", 2097152}};
  tensor.kernels.push_back(t);
  perfgate::detail::add_tensor_counters(p, tensor);
  EXPECT_EQ(p.kernels[1].counter("tensor_fp16_ops"), 3 * 137438953472.0);
  EXPECT_EQ(p.kernels[1].counter("tensor_inst"), 6291456.0); // the first run's, untouched
  EXPECT_FALSE(p.kernels[0].counter("tensor_fp16_ops"));
  EXPECT_FALSE(perfgate::detail::needs_tensor_run(p));
}
