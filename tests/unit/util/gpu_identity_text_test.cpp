// SPDX-License-Identifier: Apache-2.0
// The GPU micro-benchmarks' UUID and driver text, from the runtimes' bytes and numbers: the
// UUID as nvidia-smi prints it (one from the recorded NVML answers in tests/data/resources),
// AMD's as rocminfo does, and no text where the runtime gave nothing.
#include "util/gpu_identity_text.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace {
std::array<char, 16> bytes_of_hex(const std::string& hex) {
  std::array<char, 16> out{};
  for (std::size_t i = 0; i < 16; ++i) {
    out[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}
} // namespace

TEST(GpuIdentityText, NvidiaUuidAsNvidiaSmiPrintsIt) {
  const auto bytes = bytes_of_hex("8f3a9c1e52b47d0ea1c63e9b0f2d4a71");
  EXPECT_EQ(perfgate::detail::nvidia_uuid_text(bytes.data()),
            "GPU-8f3a9c1e-52b4-7d0e-a1c6-3e9b0f2d4a71");
  const std::array<char, 16> none{};
  EXPECT_EQ(perfgate::detail::nvidia_uuid_text(none.data()), "");
}

TEST(GpuIdentityText, AmdUuidIsItsUniqueIdsDigits) {
  const char digits[] = "4b8f9d2a7c1e0d36";
  EXPECT_EQ(perfgate::detail::amd_uuid_text(digits), "GPU-4b8f9d2a7c1e0d36");
  const std::array<char, 16> none{}; // a GPU without a unique id
  EXPECT_EQ(perfgate::detail::amd_uuid_text(none.data()), "");
}

TEST(GpuIdentityText, DriverVersions) {
  EXPECT_EQ(perfgate::detail::cuda_driver_text(12040), "CUDA 12.4");
  EXPECT_EQ(perfgate::detail::cuda_driver_text(13000), "CUDA 13.0");
  EXPECT_EQ(perfgate::detail::cuda_driver_text(0), "");
  EXPECT_EQ(perfgate::detail::hip_driver_text(60342134), "HIP 6.3.42134");
  EXPECT_EQ(perfgate::detail::hip_driver_text(4), ""); // HIP 5's runtime: no version
}
