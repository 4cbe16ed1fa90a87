// SPDX-License-Identifier: Apache-2.0
// ROCm SMI, loaded at run time with dlopen: it exists only where ROCm is installed. The
// inventory `perfgate resources` lists (count, unique id, name, memory); no ROCm headers needed.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <dlfcn.h>

namespace perfgate::detail {

class rocm_smi_library {
public:
  rocm_smi_library() {
    for (const char* name :
         {"librocm_smi64.so.1", "librocm_smi64.so", "/opt/rocm/lib/librocm_smi64.so.1"}) {
      m_lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (m_lib != nullptr) {
        break;
      }
    }
    if (m_lib == nullptr) {
      const char* why = ::dlerror();
      m_load_error = why != nullptr ? why : "librocm_smi64.so.1 not found";
      return;
    }
    auto init = symbol<int (*)(std::uint64_t)>("rsmi_init");
    m_shutdown = symbol<int (*)()>("rsmi_shut_down");
    m_count = symbol<int (*)(std::uint32_t*)>("rsmi_num_monitor_devices");
    m_unique_id = symbol<int (*)(std::uint32_t, std::uint64_t*)>("rsmi_dev_unique_id_get");
    m_name = symbol<int (*)(std::uint32_t, char*, std::size_t)>("rsmi_dev_name_get");
    m_memory = symbol<int (*)(std::uint32_t, int, std::uint64_t*)>("rsmi_dev_memory_total_get");
    m_status_string = symbol<int (*)(int, const char**)>("rsmi_status_string");
    m_init_status = init != nullptr ? init(0) : -1;
  }
  rocm_smi_library(const rocm_smi_library&) = delete;
  rocm_smi_library& operator=(const rocm_smi_library&) = delete;
  ~rocm_smi_library() {
    if (m_lib != nullptr) {
      if (m_init_status == 0 && m_shutdown != nullptr) {
        (void)m_shutdown();
      }
      ::dlclose(m_lib);
    }
  }

  /// Why the library did not load (dlerror); empty when it did.
  [[nodiscard]] const std::string& load_error() const { return m_load_error; }
  /// rsmi_init's status (0: success); -1 when the library did not load.
  [[nodiscard]] int init_status() const { return m_init_status; }
  /// ROCm SMI's words for a status.
  [[nodiscard]] std::string error_string(int status) const {
    const char* s = nullptr;
    if (m_status_string != nullptr && m_status_string(status, &s) == 0 && s != nullptr) {
      return s;
    }
    return "ROCm SMI status " + std::to_string(status);
  }

  template <class T> struct answer {
    int status = -1;
    T value{};
  };
  [[nodiscard]] answer<std::uint32_t> device_count() const {
    answer<std::uint32_t> a;
    if (m_init_status == 0 && m_count != nullptr) {
      a.status = m_count(&a.value);
    }
    return a;
  }
  /// The unique id ROCR_VISIBLE_DEVICES accepts as "GPU-<16 hex digits>".
  [[nodiscard]] answer<std::uint64_t> unique_id(std::uint32_t index) const {
    answer<std::uint64_t> a;
    if (m_init_status == 0 && m_unique_id != nullptr) {
      a.status = m_unique_id(index, &a.value);
    }
    return a;
  }
  [[nodiscard]] answer<std::string> name(std::uint32_t index) const {
    answer<std::string> a;
    std::array<char, 128> buffer{};
    if (m_init_status == 0 && m_name != nullptr) {
      a.status = m_name(index, buffer.data(), buffer.size());
      buffer.back() = '\0';
      a.value = a.status == 0 ? buffer.data() : "";
    }
    return a;
  }
  /// Total VRAM in bytes.
  [[nodiscard]] answer<std::uint64_t> memory_total(std::uint32_t index) const {
    constexpr int vram = 0; // RSMI_MEM_TYPE_VRAM
    answer<std::uint64_t> a;
    if (m_init_status == 0 && m_memory != nullptr) {
      a.status = m_memory(index, vram, &a.value);
    }
    return a;
  }

private:
  template <class F> F symbol(const char* name) const {
    return reinterpret_cast<F>(::dlsym(m_lib, name));
  }

  void* m_lib = nullptr;
  std::string m_load_error;
  int m_init_status = -1;
  int (*m_shutdown)() = nullptr;
  int (*m_count)(std::uint32_t*) = nullptr;
  int (*m_unique_id)(std::uint32_t, std::uint64_t*) = nullptr;
  int (*m_name)(std::uint32_t, char*, std::size_t) = nullptr;
  int (*m_memory)(std::uint32_t, int, std::uint64_t*) = nullptr;
  int (*m_status_string)(int, const char**) = nullptr;
};

} // namespace perfgate::detail
