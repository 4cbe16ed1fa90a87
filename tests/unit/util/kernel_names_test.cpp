// SPDX-License-Identifier: Apache-2.0
// Short kernel names, on names from the real captures (tests/data/h200/torch_ncu_raw_h200*.csv).
#include "util/kernel_names.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

TEST(KernelNames, TheFunctionNameAsNsightComputeShowsIt) {
  EXPECT_EQ(short_kernel_name(
                "void native::reduce_kernel<512, 1, native::ReduceOp<double, native::func_wrapper_"
                "t<double, native::sum_functor<double, double, double>::operator ()(at::TensorItera"
                "tor &)::[lambda(double, double) (instance 1)]>, unsigned int, double, 4, 4>>(T3)"),
            "reduce_kernel");
  EXPECT_EQ(short_kernel_name("void native::<unnamed>::distribution_elementwise_grid_stride_kernel<"
                              "float, 4, void templates::uniform_and_transform<float, float, at::"
                              "CUDAGeneratorImpl *>(at::TensorIteratorBase &, T3, T4)::[lambda("
                              "curandStatePhilox4_32_10 *) (instance 2)]>(long, at::PhiloxCudaSta"
                              "te, T3, T4)"),
            "distribution_elementwise_grid_stride_kernel");
  EXPECT_EQ(short_kernel_name("saxpy(int, float, float const*, float*)"), "saxpy");
  EXPECT_EQ(short_kernel_name("sgemm_kernel<int=32>(float const *, float const *, float*, int, "
                              "int, int)"),
            "sgemm_kernel");
}

TEST(KernelNames, SuffixesAndNamesThatAreNoSignatureAreKept) {
  EXPECT_EQ(short_kernel_name("saxpy(int, float, float const*, float*) [grid 4096x1x1 block "
                              "256x1x1 #2]"),
            "saxpy [grid 4096x1x1 block 256x1x1 #2]");
  EXPECT_EQ(short_kernel_name("copy [Device=0 T=I32 Elements=2^20]"),
            "copy [Device=0 T=I32 Elements=2^20]");
  EXPECT_EQ(short_kernel_name("BM_UFlat/2"), "BM_UFlat/2");
  EXPECT_EQ(short_kernel_name("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_"
                              "warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"),
            "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_"
            "aligna4_alignc4_execute_kernel__5x_..."); // 125 characters: cut at 120
  const std::string long_name(300, 'k');
  const auto cut = short_kernel_name(long_name);
  EXPECT_EQ(cut.size(), k_short_name_max);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
}

TEST(KernelNames, SharedShortNamesAreNumbered) {
  EXPECT_EQ(short_kernel_names({"void f<int>(int*)", "g()", "void f<float>(float*)", "g()",
                                "void f<int>(int*)"}),
            (std::vector<std::string>{"f (1)", "g", "f (2)", "g", "f (1)"}));
}

} // namespace
} // namespace perfgate::detail
