// SPDX-License-Identifier: Apache-2.0
// The GPUs of this machine as NVML and ROCm SMI describe them, for `perfgate resources`. The
// libraries' answers are plain data, so that they can be recorded on a GPU host and replayed
// where there is none (tests, bug reports): ask_gpu_libraries() asks, gpu_inventory_from()
// reads them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

/// One library call: its status (0: success), the library's words for a failure, its value.
template <class T> struct call_answer {
  int status = 0;
  std::string message;
  T value{};
};

/// One device as a library described it.
struct device_answers {
  /// NVML: the UUID ("GPU-8f3a..."); ROCm SMI: the unique id in hex ("0x4b8f9d2a7c1e0d36").
  call_answer<std::string> id;
  call_answer<std::string> name;
  call_answer<std::uint64_t> memory_total; ///< bytes
};

/// What one library (NVML or ROCm SMI) answered, in the order it was asked.
struct library_answers {
  std::string load_error; ///< non-empty: the library did not load, nothing else was asked
  call_answer<int> init;
  call_answer<std::uint32_t> count;
  std::vector<device_answers> devices; ///< by the library's index
};

struct gpu_answers {
  library_answers nvml;
  library_answers rocm_smi;
};

/// Asks NVML (libnvidia-ml.so.1) and ROCm SMI (librocm_smi64.so) through dlopen: nothing is
/// linked, and a machine without either answers with their load errors.
[[nodiscard]] gpu_answers ask_gpu_libraries();

/// The `perfgate-gpu-answers/1` JSON of recorded answers, and back (input_error naming the
/// file and key on a malformed one).
[[nodiscard]] std::string gpu_answers_to_json(const gpu_answers& answers);
[[nodiscard]] gpu_answers gpu_answers_from_json(std::string_view text, const std::string& file);

struct gpu_info {
  std::string vendor;             ///< nvidia or amd
  unsigned index = 0;             ///< the library's index (PCI order)
  std::string ctest_id;           ///< ctest_gpu_id(), or the index when the GPU has no unique id
  std::string name;               ///< empty when the library did not say
  std::uint64_t memory_bytes = 0; ///< 0 when the library did not say
};

struct gpu_inventory {
  std::vector<gpu_info> gpus;
  /// Why a library listed nothing, or a GPU was left out or is pinned by index: one line each.
  std::vector<std::string> notes;
};

/// The GPUs the answers describe. A GPU without a usable id is left out with a note (it could
/// not be pinned); a missing name or memory size is only left empty.
[[nodiscard]] gpu_inventory gpu_inventory_from(const gpu_answers& answers);

} // namespace perfgate::detail
