// SPDX-License-Identifier: Apache-2.0
#include "gpu_clocks.hpp"
#include "util/gpu_identity_text.hpp"

#include <dlfcn.h>

namespace perfgate::microbench::gpu {

#if PGPU_CUDA
clock_reader::clock_reader(const pgpu::device_prop&, int index) {
  if (!nvml_.ok())
    return;
  // NVML numbers devices in PCI order, CUDA fastest-first and after CUDA_VISIBLE_DEVICES:
  // match by PCI bus id, fall back to the index.
  char bus[32] = {};
  if (pgpu::pci_bus_id(bus, sizeof bus, index) == pgpu::success)
    dev_ = nvml_.device_by_pci_bus_id(bus);
  if (!dev_)
    dev_ = nvml_.device_by_index(static_cast<unsigned>(index));
}

clock_reader::~clock_reader() = default;

clock_sample clock_reader::sample() {
  return {nvml_.sm_clock_mhz(dev_), nvml_.clock_event_reasons(dev_)};
}

std::string clock_reader::driver() const { return nvml_.driver_version().value; }

card_identity identify_card(const pgpu::device_prop& prop, int, const clock_reader& clocks) {
  card_identity card{perfgate::detail::nvidia_uuid_text(prop.uuid.bytes), clocks.driver()};
  int version = 0; // the CUDA version the driver supports, where NVML gave no driver version
  if (card.driver.empty() && cudaDriverGetVersion(&version) == cudaSuccess)
    card.driver = perfgate::detail::cuda_driver_text(version);
  return card;
}
#else
namespace {
template <class F> F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}
} // namespace

namespace rsmi {
// rsmi_frequencies_t changed layout in ROCm SMI 6 (a leading bool, 33 entries): read it into
// a buffer large enough for either and interpret it by the library's major version.
struct frequencies_v5 {
  std::uint32_t num_supported, current;
  std::uint64_t frequency[32];
};
struct frequencies_v6 {
  bool has_deep_sleep;
  std::uint32_t num_supported, current;
  std::uint64_t frequency[33];
};
struct version {
  std::uint32_t major, minor, patch;
  const char* build;
};
constexpr int clk_type_sys = 0;   // RSMI_CLK_TYPE_SYS: the shader (graphics) clock
constexpr int sw_comp_driver = 0; // RSMI_SW_COMP_DRIVER: the amdgpu kernel driver
} // namespace rsmi

clock_reader::clock_reader(const pgpu::device_prop& prop, int index) {
  for (const char* name :
       {"librocm_smi64.so.1", "librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6",
        "librocm_smi64.so.5", "librocm_smi64.so.2", "/opt/rocm/lib/librocm_smi64.so"}) {
    lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib_)
      break;
  }
  if (!lib_)
    return;
  auto init = symbol<int (*)(std::uint64_t)>(lib_, "rsmi_init");
  auto count = symbol<int (*)(std::uint32_t*)>(lib_, "rsmi_num_monitor_devices");
  auto pci = symbol<int (*)(std::uint32_t, std::uint64_t*)>(lib_, "rsmi_dev_pci_id_get");
  auto version = symbol<int (*)(rsmi::version*)>(lib_, "rsmi_version_get");
  shutdown_ = symbol<int (*)()>(lib_, "rsmi_shut_down");
  clk_ = symbol<int (*)(std::uint32_t, int, void*)>(lib_, "rsmi_dev_gpu_clk_freq_get");
  version_str_ = symbol<int (*)(int, char*, std::uint32_t)>(lib_, "rsmi_version_str_get");
  if (!init || !clk_ || init(0) != 0)
    return;
  rsmi::version v{};
  lib_major_ = (version && version(&v) == 0) ? v.major : 0;
  std::uint32_t n = 0;
  if (!count || count(&n) != 0 || n == 0)
    return;
  // BDF id: domain << 32 | bus << 8 | device << 3 | function. Match HIP's PCI location.
  bool found = false;
  for (std::uint32_t d = 0; pci && d < n && !found; ++d) {
    std::uint64_t bdf = 0;
    if (pci(d, &bdf) != 0)
      continue;
    const auto bus = static_cast<int>((bdf >> 8) & 0xffu);
    const auto dev = static_cast<int>((bdf >> 3) & 0x1fu);
    const auto dom = static_cast<int>((bdf >> 32) & 0xffffffffu);
    if (bus == prop.pciBusID && dev == prop.pciDeviceID && dom == prop.pciDomainID) {
      dev_ = d;
      found = true;
    }
  }
  if (!found && static_cast<std::uint32_t>(index) < n) {
    dev_ = static_cast<std::uint32_t>(index);
    found = true;
  }
  ready_ = found;
}

clock_reader::~clock_reader() {
  if (lib_) {
    if (shutdown_ && ready_)
      shutdown_();
    dlclose(lib_);
  }
}

std::string clock_reader::driver() const {
  char buf[256] = {};
  if (!ready_ || !version_str_ || version_str_(rsmi::sw_comp_driver, buf, sizeof buf) != 0)
    return "";
  buf[sizeof buf - 1] = '\0';
  return buf;
}

clock_sample clock_reader::sample() {
  clock_sample s;
  if (!ready_)
    return s;
  alignas(8) unsigned char buf[512] = {};
  if (clk_(dev_, rsmi::clk_type_sys, buf) != 0)
    return s;
  std::uint32_t num = 0, cur = 0;
  const std::uint64_t* freq = nullptr;
  std::uint32_t cap = 0;
  if (lib_major_ >= 6) {
    const auto* f = reinterpret_cast<const rsmi::frequencies_v6*>(buf);
    num = f->num_supported, cur = f->current, freq = f->frequency, cap = 33;
  } else {
    const auto* f = reinterpret_cast<const rsmi::frequencies_v5*>(buf);
    num = f->num_supported, cur = f->current, freq = f->frequency, cap = 32;
  }
  if (num == 0 || num > cap || cur >= num)
    return s;                                             // layout guess wrong: report nothing
  s.sm_mhz = static_cast<unsigned>(freq[cur] / 1000000u); // Hz -> MHz
  return s;
}

card_identity identify_card(const pgpu::device_prop&, int index, const clock_reader& clocks) {
  card_identity card{"", clocks.driver()};
  hipUUID uuid{};
  if (hipDeviceGetUuid(&uuid, index) == hipSuccess)
    card.uuid = perfgate::detail::amd_uuid_text(uuid.bytes);
  int version = 0; // HIP 5 answers 4: no version (hip_driver_text)
  if (card.driver.empty() && hipDriverGetVersion(&version) == hipSuccess)
    card.driver = perfgate::detail::hip_driver_text(version);
  return card;
}
#endif

} // namespace perfgate::microbench::gpu
