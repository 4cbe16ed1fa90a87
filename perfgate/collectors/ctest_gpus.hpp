// SPDX-License-Identifier: Apache-2.0
// CTest's GPU resources: the ids of GPUs in a resource specification file, the file itself, and
// the GPU CTest gave a test (CTEST_RESOURCE_GROUP_*), pinned through the runtimes' variables.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::detail {

/// A GPU as a resource specification file lists it.
struct ctest_gpu {
  std::string id;     ///< nvidia_<uuid> or amd_<unique id> (ctest_gpu_id), or an index
  unsigned slots = 1; ///< tests that may use it at once
};

/// The CTest resource id of a GPU: lowercase letters, digits and underscores, as CTest requires
/// ("GPU-8f3a...-..." of NVIDIA: nvidia_8f3a..._...; AMD's unique id: amd_<16 hex digits>).
/// Throws usage_error for a vendor other than nvidia or amd, or a uuid it cannot encode.
[[nodiscard]] std::string ctest_gpu_id(std::string_view vendor, std::string_view uuid);

/// A `--resource-spec-file` for CTest (version 1.0) listing `gpus` as the resource "gpus".
[[nodiscard]] std::string ctest_resource_spec(const std::vector<ctest_gpu>& gpus);

/// How a test is held to the GPU CTest gave it.
struct gpu_pin {
  std::string ctest_id;
  /// The calibration backend: cuda, hip, or empty for an index id (either).
  std::string backend;
  /// Variables to set in the program's environment (CUDA_VISIBLE_DEVICES, ...).
  std::vector<std::pair<std::string, std::string>> environment;
  /// How the pin reads in a message: "CUDA_VISIBLE_DEVICES=GPU-8f3a...".
  [[nodiscard]] std::string describe() const;
};

/// The pin of a CTest GPU id: nvidia_* and amd_* from ctest_gpu_id, or a device index (then
/// CUDA numbers devices in PCI order, like NVML and ROCm SMI). "default" (the one-GPU
/// specification perfgate's CMake module writes) pins nothing: nullopt. Any other id throws
/// usage_error saying which ids perfgate can pin.
[[nodiscard]] std::optional<gpu_pin> pin_for_ctest_gpu(std::string_view id);

/// The GPU CTest gave this test, from CTEST_RESOURCE_GROUP_COUNT, CTEST_RESOURCE_GROUP_<i> and
/// CTEST_RESOURCE_GROUP_<i>_GPUS read through `getenv`: nullopt when CTest gave none (no
/// resource specification, no gpus group) or the "default" GPU. Throws usage_error naming the
/// variable when one is malformed, or when CTest gave more than one GPU (a perf test gates
/// one).
[[nodiscard]] std::optional<gpu_pin>
ctest_gpu_assignment(const std::function<const char*(const char*)>& getenv);

} // namespace perfgate::detail
