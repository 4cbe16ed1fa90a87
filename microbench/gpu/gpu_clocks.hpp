// SPDX-License-Identifier: Apache-2.0
// The SM (shader) clock and, on NVIDIA, the throttle reasons, read before and after the run from
// NVML / ROCm SMI through dlopen: no headers, no link dependency, nothing reported without them.
// The same libraries give the driver's version; with the runtime's UUID, the card's identity.
#pragma once

#include "gpu_compat.hpp"
#if PGPU_CUDA
#include "util/nvml_library.hpp"
#endif

#include <cstdint>
#include <optional>
#include <string>

namespace perfgate::microbench::gpu {

struct clock_sample {
  std::optional<unsigned> sm_mhz;
  std::optional<unsigned long long> reasons;
};

class clock_reader {
public:
  clock_reader(const pgpu::device_prop& prop, int index);
  clock_reader(const clock_reader&) = delete;
  clock_reader& operator=(const clock_reader&) = delete;
  ~clock_reader();
  clock_sample sample();
  // The driver's version as the vendor's tool prints it ("550.54.15"); empty when the library
  // did not load or answer.
  std::string driver() const;

private:
#if PGPU_CUDA
  perfgate::detail::nvml_library nvml_;
  perfgate::detail::nvml_library::device_handle dev_ = nullptr;
#else
  void* lib_ = nullptr;
  bool ready_ = false;
  int (*shutdown_)() = nullptr;
  int (*clk_)(std::uint32_t, int, void*) = nullptr;
  int (*version_str_)(int, char*, std::uint32_t) = nullptr;
  std::uint32_t dev_ = 0;
  unsigned lib_major_ = 0;
#endif
};

// Which card and driver measured (a baseline's device identity); empty where unknown.
struct card_identity {
  std::string uuid;   // "GPU-8f3a9c1e-52b4-..." as nvidia-smi / rocminfo print it
  std::string driver; // NVML's or ROCm SMI's driver version, else the runtime's ("CUDA 12.4")
};
card_identity identify_card(const pgpu::device_prop& prop, int index, const clock_reader& clocks);

} // namespace perfgate::microbench::gpu
