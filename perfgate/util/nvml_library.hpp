// SPDX-License-Identifier: Apache-2.0
// NVML, loaded at run time with dlopen: it exists only where the NVIDIA driver is installed, and
// neither the CUPTI injection library nor the GPU micro-benchmarks may link it (they must load
// on machines without a driver). Header-only: the micro-benchmarks are built by nvcc apart from
// the library. Clocks, clock-event reasons and the inventory `perfgate resources` lists; no
// headers of NVML needed. The driver's version for a calibration's device identity.
#pragma once

#include <array>
#include <optional>
#include <string>

#include <dlfcn.h>

namespace perfgate::detail {

class nvml_library {
public:
  using device_handle = void*; ///< nvmlDevice_t is an opaque pointer

  nvml_library() {
    m_lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (m_lib == nullptr) {
      const char* why = ::dlerror();
      m_load_error = why != nullptr ? why : "libnvidia-ml.so.1 not found";
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
    m_count = symbol<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
    m_uuid = symbol<int (*)(device_handle, char*, unsigned)>("nvmlDeviceGetUUID");
    m_name = symbol<int (*)(device_handle, char*, unsigned)>("nvmlDeviceGetName");
    m_memory = symbol<int (*)(device_handle, memory_info*)>("nvmlDeviceGetMemoryInfo");
    m_driver = symbol<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
    m_error_string = symbol<const char* (*)(int)>("nvmlErrorString");
    m_init_status = init != nullptr ? init() : -1;
    m_ok = m_clock != nullptr && m_init_status == 0;
  }
  nvml_library(const nvml_library&) = delete;
  nvml_library& operator=(const nvml_library&) = delete;
  ~nvml_library() {
    if (m_lib != nullptr) {
      if (m_init_status == 0 && m_shutdown != nullptr) {
        (void)m_shutdown();
      }
      ::dlclose(m_lib);
    }
  }

  /// Whether NVML loaded and initialised (there is a driver).
  [[nodiscard]] bool ok() const { return m_ok; }
  /// Why libnvidia-ml.so.1 did not load (dlerror); empty when it did.
  [[nodiscard]] const std::string& load_error() const { return m_load_error; }
  /// nvmlInit_v2's status (0: success); -1 when the library did not load.
  [[nodiscard]] int init_status() const { return m_init_status; }
  /// NVML's words for a status ("Driver Not Loaded").
  [[nodiscard]] std::string error_string(int status) const {
    const char* s = m_error_string != nullptr ? m_error_string(status) : nullptr;
    return s != nullptr ? s : "NVML status " + std::to_string(status);
  }

  /// The answers of one call: NVML's status and what it wrote.
  template <class T> struct answer {
    int status = -1;
    T value{};
  };
  [[nodiscard]] answer<unsigned> device_count() const {
    answer<unsigned> a;
    if (m_init_status == 0 && m_count != nullptr) {
      a.status = m_count(&a.value);
    }
    return a;
  }
  [[nodiscard]] answer<std::string> uuid(device_handle dev) const { return text(m_uuid, dev); }
  [[nodiscard]] answer<std::string> name(device_handle dev) const { return text(m_name, dev); }
  /// The driver's version as nvidia-smi prints it ("550.54.15").
  [[nodiscard]] answer<std::string> driver_version() const {
    answer<std::string> a;
    std::array<char, 96> buffer{}; // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
    if (m_init_status == 0 && m_driver != nullptr) {
      a.status = m_driver(buffer.data(), static_cast<unsigned>(buffer.size()));
      buffer.back() = '\0';
      a.value = a.status == 0 ? buffer.data() : "";
    }
    return a;
  }
  /// Total device memory in bytes.
  [[nodiscard]] answer<unsigned long long> memory_total(device_handle dev) const {
    answer<unsigned long long> a;
    memory_info m;
    if (m_init_status == 0 && m_memory != nullptr && dev != nullptr) {
      a.status = m_memory(dev, &m);
      a.value = m.total;
    }
    return a;
  }
  /// The handle of NVML's device `index`, with NVML's status.
  [[nodiscard]] answer<device_handle> handle_by_index(unsigned index) const {
    answer<device_handle> a;
    if (m_init_status == 0 && m_by_index != nullptr) {
      a.status = m_by_index(index, &a.value);
    }
    return a;
  }

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
  struct memory_info { // nvmlMemory_t (v1)
    unsigned long long total = 0, free = 0, used = 0;
  };
  using text_call = int (*)(device_handle, char*, unsigned);

  template <class F> F symbol(const char* name) const {
    return reinterpret_cast<F>(::dlsym(m_lib, name));
  }
  [[nodiscard]] answer<std::string> text(text_call call, device_handle dev) const {
    answer<std::string> a;
    std::array<char, 96> buffer{}; // NVML_DEVICE_UUID_V2_BUFFER_SIZE, ..._NAME_V2_...
    if (m_init_status == 0 && call != nullptr && dev != nullptr) {
      a.status = call(dev, buffer.data(), static_cast<unsigned>(buffer.size()));
      buffer.back() = '\0';
      a.value = a.status == 0 ? buffer.data() : "";
    }
    return a;
  }

  void* m_lib = nullptr;
  std::string m_load_error;
  int m_init_status = -1;
  bool m_ok = false;
  int (*m_shutdown)() = nullptr;
  int (*m_by_bus)(const char*, device_handle*) = nullptr;
  int (*m_by_index)(unsigned, device_handle*) = nullptr;
  int (*m_clock)(device_handle, int, unsigned*) = nullptr;
  int (*m_reasons)(device_handle, unsigned long long*) = nullptr;
  int (*m_count)(unsigned*) = nullptr;
  text_call m_uuid = nullptr;
  text_call m_name = nullptr;
  int (*m_memory)(device_handle, memory_info*) = nullptr;
  int (*m_driver)(char*, unsigned) = nullptr;
  const char* (*m_error_string)(int) = nullptr;
};

} // namespace perfgate::detail
