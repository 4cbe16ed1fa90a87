// SPDX-License-Identifier: Apache-2.0
// NVML, loaded at run time with dlopen: it exists only where the NVIDIA driver is installed, and
// neither the CUPTI injection library nor the GPU micro-benchmarks may link it (they must load
// on machines without a driver). Header-only: the micro-benchmarks are built by nvcc apart from
// the library. Clocks and clock-event reasons only; no headers of NVML needed.
#pragma once

#include <optional>

#include <dlfcn.h>

namespace perfgate::detail {

class nvml_library {
public:
  using device_handle = void*; ///< nvmlDevice_t is an opaque pointer

  nvml_library() {
    m_lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (m_lib == nullptr) {
      return;
    }
    auto init = symbol<int (*)()>("nvmlInit_v2");
    m_shutdown = symbol<int (*)()>("nvmlShutdown");
    m_by_bus = symbol<int (*)(const char*, device_handle*)>("nvmlDeviceGetHandleByPciBusId_v2");
    m_by_index = symbol<int (*)(unsigned, device_handle*)>("nvmlDeviceGetHandleByIndex_v2");
    m_clock = symbol<int (*)(device_handle, int, unsigned*)>("nvmlDeviceGetClockInfo");
    m_reasons = symbol<int (*)(device_handle, unsigned long long*)>(
        "nvmlDeviceGetCurrentClocksEventReasons");
    if (m_reasons == nullptr) { // before driver 535
      m_reasons = symbol<int (*)(device_handle, unsigned long long*)>(
          "nvmlDeviceGetCurrentClocksThrottleReasons");
    }
    m_ok = init != nullptr && m_clock != nullptr && init() == 0;
  }
  nvml_library(const nvml_library&) = delete;
  nvml_library& operator=(const nvml_library&) = delete;
  ~nvml_library() {
    if (m_lib != nullptr) {
      if (m_ok && m_shutdown != nullptr) {
        (void)m_shutdown();
      }
      ::dlclose(m_lib);
    }
  }

  /// Whether NVML loaded and initialised (there is a driver).
  [[nodiscard]] bool ok() const { return m_ok; }

  /// The handle of a CUDA device by its PCI bus id ("0000:41:00.0"): CUDA numbers devices
  /// fastest-first and after CUDA_VISIBLE_DEVICES, NVML in PCI order. Null when unknown.
  [[nodiscard]] device_handle device_by_pci_bus_id(const char* bus_id) const {
    device_handle h = nullptr;
    return m_ok && m_by_bus != nullptr && m_by_bus(bus_id, &h) == 0 ? h : nullptr;
  }
  /// The handle of NVML's device `index`. Null when unknown.
  [[nodiscard]] device_handle device_by_index(unsigned index) const {
    device_handle h = nullptr;
    return m_ok && m_by_index != nullptr && m_by_index(index, &h) == 0 ? h : nullptr;
  }

  /// The SM clock now, in MHz.
  [[nodiscard]] std::optional<unsigned> sm_clock_mhz(device_handle dev) const {
    constexpr int nvml_clock_sm = 1; // NVML_CLOCK_SM
    unsigned mhz = 0;
    if (!m_ok || dev == nullptr || m_clock(dev, nvml_clock_sm, &mhz) != 0) {
      return std::nullopt;
    }
    return mhz;
  }
  /// The clock-event (throttle) reasons now, as NVML's bit mask.
  [[nodiscard]] std::optional<unsigned long long> clock_event_reasons(device_handle dev) const {
    unsigned long long reasons = 0;
    if (!m_ok || dev == nullptr || m_reasons == nullptr || m_reasons(dev, &reasons) != 0) {
      return std::nullopt;
    }
    return reasons;
  }

private:
  template <class F> F symbol(const char* name) const {
    return reinterpret_cast<F>(::dlsym(m_lib, name));
  }

  void* m_lib = nullptr;
  bool m_ok = false;
  int (*m_shutdown)() = nullptr;
  int (*m_by_bus)(const char*, device_handle*) = nullptr;
  int (*m_by_index)(unsigned, device_handle*) = nullptr;
  int (*m_clock)(device_handle, int, unsigned*) = nullptr;
  int (*m_reasons)(device_handle, unsigned long long*) = nullptr;
};

} // namespace perfgate::detail
