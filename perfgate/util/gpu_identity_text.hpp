// SPDX-License-Identifier: Apache-2.0
// A GPU's UUID and driver version as the vendors' tools print them, from the bytes and numbers
// the CUDA and HIP runtimes give. Header-only: the GPU micro-benchmarks (built by nvcc and hipcc
// apart from the library) write them into their JSON, and the unit tests check them on a
// machine without a GPU.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace perfgate::detail {

/// CUDA's 16 UUID bytes (cudaDeviceProp::uuid) as nvidia-smi prints them:
/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower-case hex. Empty when every byte is 0 (the
/// runtime gave none).
inline std::string nvidia_uuid_text(const char* bytes) {
  std::string hex;
  bool any = false;
  for (std::size_t i = 0; i < 16; ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    any = any || b != 0;
    char two[3];
    std::snprintf(two, sizeof two, "%02x", b);
    hex += two;
  }
  if (!any) {
    return "";
  }
  return "GPU-" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

/// HIP's UUID on AMD (hipDeviceGetUuid): the runtime fills the 16 bytes with the GPU's unique
/// id as hex-digit characters; "GPU-" and those characters, as rocminfo prints it. Empty when
/// they are not 16 hex digits (a GPU without a unique id).
inline std::string amd_uuid_text(const char* bytes) {
  std::string id(bytes, 16);
  for (const char c : id) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex) {
      return "";
    }
  }
  return "GPU-" + id;
}

/// cudaDriverGetVersion's number (12040) as "CUDA 12.4": the CUDA version the driver supports,
/// the one driver figure the runtime gives (NVML's "550.54.15" is the driver's own, preferred
/// where NVML loads). Empty for 0 or less (no driver).
inline std::string cuda_driver_text(int version) {
  if (version <= 0) {
    return "";
  }
  return "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/// hipDriverGetVersion's number on AMD, major x 10,000,000 + minor x 100,000 + patch, as
/// "HIP 6.3.42134". Empty below 10,000,000: HIP 5's runtime answers 4, which is no version.
inline std::string hip_driver_text(int version) {
  if (version < 10000000) {
    return "";
  }
  return "HIP " + std::to_string(version / 10000000) + "." +
         std::to_string(version / 100000 % 100) + "." + std::to_string(version % 100000);
}

} // namespace perfgate::detail
