// SPDX-License-Identifier: Apache-2.0
// Which stream the L2 flush of a launch goes to, from parameter blocks laid out as CUPTI hands
// them to a launch callback (no driver needed).
#include "collectors/cupti/launch_stream.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h> // the runtime launches' parameter blocks come with cupti.h

namespace perfgate::cupti {
namespace {

const auto stream = reinterpret_cast<CUstream>(0x1234);

TEST(LaunchStream, DriverLaunchesNameTheirStream) {
  cuLaunchKernel_params plain{};
  plain.hStream = stream;
  EXPECT_EQ(
      launch_stream(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &plain),
      stream);
  CUlaunchConfig config{};
  config.hStream = stream;
  cuLaunchKernelEx_params ex{};
  ex.config = &config;
  EXPECT_EQ(
      launch_stream(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex),
      stream);
  cuLaunchCooperativeKernel_params cooperative{};
  cooperative.hStream = stream;
  EXPECT_EQ(launch_stream(CUPTI_CB_DOMAIN_DRIVER_API,
                          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, &cooperative),
            stream);
}

TEST(LaunchStream, RuntimeLaunchesNameTheirStream) {
  cudaLaunchKernel_v7000_params plain{};
  plain.stream = stream;
  EXPECT_EQ(launch_stream(CUPTI_CB_DOMAIN_RUNTIME_API,
                          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &plain),
            stream);
  cudaLaunchConfig_t config{};
  config.stream = stream;
  cudaLaunchKernelExC_v11060_params ex{};
  ex.config = &config;
  EXPECT_EQ(launch_stream(CUPTI_CB_DOMAIN_RUNTIME_API,
                          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &ex),
            stream);
}

TEST(LaunchStream, PerThreadLaunchesOnTheNullStreamUseThePerThreadStream) {
  cuLaunchKernel_ptsz_params driver{};
  EXPECT_EQ(launch_stream(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                          &driver),
            CU_STREAM_PER_THREAD);
  cudaLaunchKernel_ptsz_v7000_params runtime{};
  EXPECT_EQ(launch_stream(CUPTI_CB_DOMAIN_RUNTIME_API,
                          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000, &runtime),
            CU_STREAM_PER_THREAD);
  runtime.stream = stream;
  EXPECT_EQ(launch_stream(CUPTI_CB_DOMAIN_RUNTIME_API,
                          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000, &runtime),
            stream);
}

TEST(LaunchStream, OtherCallsAndMissingParametersGoToTheLegacyStream) {
  cuLaunchKernel_params plain{};
  plain.hStream = stream;
  EXPECT_EQ(
      launch_stream(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &plain),
      nullptr);
  EXPECT_EQ(
      launch_stream(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, nullptr),
      nullptr);
  cuLaunchKernelEx_params no_config{};
  EXPECT_EQ(launch_stream(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                          &no_config),
            nullptr);
}

} // namespace
} // namespace perfgate::cupti
