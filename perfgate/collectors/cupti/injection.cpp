// SPDX-License-Identifier: Apache-2.0
// libperfgate_cupti.so: loaded into any CUDA program by the driver through
// CUDA_INJECTION64_PATH, no source changes. `perfgate run --collector cupti` runs the program
// twice with it, never mixing the two kinds of run, so counter collection cannot distort times:
//   PERFGATE_CUPTI_MODE=timing    Activity API kernel records (GPU start/end, grid, block) and
//                                 NVML's SM clock sampled at each launch; no counters.
//   PERFGATE_CUPTI_MODE=counters  Range Profiler, auto range + kernel replay, the metrics in
//                                 PERFGATE_CUPTI_METRICS (comma-separated, from the chip plan).
// Results go to PERFGATE_CUPTI_OUTPUT (perfgate-cupti/1 JSON, written atomically at exit);
// PERFGATE_CUPTI_BATCH sets the ranges decoded at a time (default 256). In a timing run,
// PERFGATE_CUPTI_FLUSH_L2=1 overwrites a buffer twice the L2's size on each launch's stream
// right before the launch: every kernel then starts with a cold L2, as under Nsight Compute's
// default --cache-control all.
#include "collectors/cupti/cupti_host.hpp"
#include "collectors/cupti/kernel_book.hpp"
#include "collectors/cupti/launch_stream.hpp"
#include "collectors/cupti/range_session.hpp"
#include "util/nvml_library.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

namespace {

using namespace perfgate::cupti;

// Driver entry points, from the libcuda.so.1 the driver already loaded into this process (the
// library must not link libcuda: it would not even load where there is no driver).
struct driver_api {
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_name)(char*, int, CUdevice) = nullptr;
  CUresult (*pci_bus_id)(char*, int, CUdevice) = nullptr;
  CUresult (*ctx_get_device)(CUdevice*) = nullptr;
  CUresult (*device_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*memset_async)(CUdeviceptr, unsigned char, size_t, CUstream) = nullptr;
};

// The buffer a context's L2 flushes overwrite.
struct flush_buffer {
  CUdeviceptr ptr = 0;
  std::size_t bytes = 0;
};

struct injection_state {
  // Recursive: should CUPTI ever call back into us from inside a CUPTI call we make while
  // holding it, a hang in the user's program would be the worst outcome.
  std::recursive_mutex mutex;
  std::string mode;
  std::string output;
  std::vector<std::string> metrics;
  std::size_t batch = 256;
  kernel_book book;
  run_info run;
  bool written = false;
  driver_api driver;
  std::unique_ptr<perfgate::detail::nvml_library> nvml;
  std::map<CUcontext, void*> nvml_device; ///< per context, null when NVML has no handle
  std::map<CUcontext, std::unique_ptr<range_session>> sessions;
  CUpti_SubscriberHandle subscriber = nullptr;
  bool flush_l2 = false; ///< PERFGATE_CUPTI_FLUSH_L2=1 in a timing run
  std::map<CUcontext, flush_buffer> flush_buffers;
};

injection_state& state() {
  static auto* s = new injection_state(); // never destroyed: callbacks may run during exit
  return *s;
}

thread_local int runtime_launch_depth = 0;

void fail(injection_state& s, const std::string& status, const std::string& reason) {
  if (s.run.status == "ok") { // the first problem is the one to report
    s.run.status = status;
    s.run.reason = reason;
  }
  std::fprintf(stderr, "perfgate-cupti: %s\n", reason.c_str());
}

std::string describe_device(injection_state& s, CUcontext ctx, std::string* pci_bus_id) {
  std::uint32_t index = 0;
  if (cuptiGetDeviceId(ctx, &index) != CUPTI_SUCCESS || s.driver.device_get == nullptr) {
    return "";
  }
  CUdevice dev = 0;
  if (s.driver.device_get(&dev, static_cast<int>(index)) != CUDA_SUCCESS) {
    return "";
  }
  char name[256] = {};
  if (s.driver.device_name != nullptr) {
    (void)s.driver.device_name(name, sizeof name, dev);
  }
  char bus[64] = {};
  if (pci_bus_id != nullptr && s.driver.pci_bus_id != nullptr &&
      s.driver.pci_bus_id(bus, sizeof bus, dev) == CUDA_SUCCESS) {
    *pci_bus_id = bus;
  }
  return name;
}

void on_context_created(injection_state& s, CUcontext ctx) {
  std::string bus;
  const std::string name = describe_device(s, ctx, &bus);
  if (s.run.device_name.empty()) {
    s.run.device_name = name;
  }
  if (s.mode == "timing") {
    s.nvml_device[ctx] = s.nvml ? s.nvml->device_by_pci_bus_id(bus.c_str()) : nullptr;
    return;
  }
  if (s.run.status != "ok") {
    return; // an earlier context already failed: keep that reason, profile nothing more
  }
  try {
    std::uint32_t index = 0;
    if (cuptiGetDeviceId(ctx, &index) != CUPTI_SUCCESS) {
      throw std::runtime_error("cuptiGetDeviceId failed for a new context");
    }
    const std::string chip = chip_of_device(index);
    s.run.chip = chip;
    const auto chips = supported_chips();
    if (std::find(chips.begin(), chips.end(), chip) == chips.end()) {
      fail(s, "skipped",
           "chip " + chip + " (" + name +
               ") is not supported by this CUPTI's "
               "Range Profiler");
      return;
    }
    s.sessions[ctx] = std::make_unique<range_session>(ctx, chip, s.metrics, s.batch, s.book);
    s.run.passes = passes(host_object(chip).config_image(s.metrics));
  } catch (const cupti_failure& e) {
    if (e.code() == result_insufficient_privileges ||
        e.code() == result_virtualized_insufficient_privileges) {
      fail(s, "skipped",
           "no permission to read GPU performance counters (" + std::string(e.what()) +
               "): an administrator must allow it, e.g. load the driver with "
               "NVreg_RestrictProfilingToAdminUsers=0, or run as root");
    } else if (e.code() == result_not_supported) {
      fail(s, "skipped",
           "the Range Profiler does not support this device: " + std::string(e.what()));
    } else {
      fail(s, "failed", "setting up the Range Profiler: " + std::string(e.what()));
    }
  } catch (const std::exception& e) {
    fail(s, "failed", "setting up the Range Profiler: " + std::string(e.what()));
  }
}

void finish_session(injection_state& s, CUcontext ctx) {
  const auto it = s.sessions.find(ctx);
  if (it == s.sessions.end()) {
    return;
  }
  try {
    it->second->finish();
  } catch (const std::exception& e) {
    fail(s, "failed", "reading the counters: " + std::string(e.what()));
  }
  s.run.ranges_dropped += it->second->ranges_dropped();
  s.sessions.erase(it);
}

void on_launch(injection_state& s, const CUpti_CallbackData* call) {
  if (s.mode == "counters") {
    if (call->callbackSite != CUPTI_API_ENTER) {
      return;
    }
    s.book.kernel(call->symbolName).launches++;
    const auto it = s.sessions.find(call->context);
    if (it != s.sessions.end()) {
      try {
        it->second->before_launch(call->symbolName);
      } catch (const std::exception& e) {
        fail(s, "failed", "between kernel launches: " + std::string(e.what()));
        s.sessions.erase(it);
      }
    }
    return;
  }
  // Timing run: the clock right after the launch was issued, while the kernel starts.
  if (call->callbackSite != CUPTI_API_EXIT || !s.nvml) {
    return;
  }
  void* dev = s.nvml_device[call->context];
  const auto sm_mhz = s.nvml->sm_clock_mhz(dev);
  if (!sm_mhz) {
    return;
  }
  const unsigned mhz = *sm_mhz;
  const unsigned long long reasons = s.nvml->clock_event_reasons(dev).value_or(0);
  kernel_record& k = s.book.kernel(call->symbolName);
  k.clock_mhz_min = k.clock_samples == 0 ? mhz : std::min<double>(k.clock_mhz_min, mhz);
  k.clock_mhz_max = std::max<double>(k.clock_mhz_max, mhz);
  k.clock_mhz_sum += mhz;
  ++k.clock_samples;
  k.clock_limit_mask |= reasons;
}

// Before a launch in a timing run with flush_l2: the launch's stream first overwrites a buffer
// twice the L2's size, so the kernel's data is not in L2. The memset is no kernel: the Activity
// API's kernel records (the times) do not include it.
void flush_l2_before(injection_state& s, const CUpti_CallbackData* call,
                     CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  if (!s.flush_l2 || call->callbackSite != CUPTI_API_ENTER) {
    return;
  }
  flush_buffer& buffer = s.flush_buffers[call->context];
  if (buffer.bytes == 0) {
    CUdevice device = 0;
    int l2_bytes = 0;
    if (s.driver.ctx_get_device(&device) != CUDA_SUCCESS ||
        s.driver.device_attribute(&l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device) !=
            CUDA_SUCCESS ||
        l2_bytes <= 0 ||
        s.driver.mem_alloc(&buffer.ptr, 2 * static_cast<std::size_t>(l2_bytes)) != CUDA_SUCCESS) {
      s.flush_l2 = false;
      s.book.warn("PERFGATE_CUPTI_FLUSH_L2: no L2 flush buffer could be allocated on this "
                  "device; the launches were timed with warm caches");
      return;
    }
    buffer.bytes = 2 * static_cast<std::size_t>(l2_bytes);
  }
  if (s.driver.memset_async(buffer.ptr, 0, buffer.bytes,
                            launch_stream(domain, id, call->functionParams)) != CUDA_SUCCESS) {
    s.flush_l2 = false;
    s.book.warn("PERFGATE_CUPTI_FLUSH_L2: the L2 flush failed on a launch's stream; later "
                "launches were timed with warm caches");
  }
}

constexpr std::array<CUpti_CallbackId, 6> runtime_launches = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000};
constexpr std::array<CUpti_CallbackId, 6> driver_launches = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};

template <std::size_t N>
bool contains(const std::array<CUpti_CallbackId, N>& ids, CUpti_CallbackId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

void CUPTIAPI on_callback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  auto& s = state();
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto* resource = static_cast<const CUpti_ResourceData*>(data);
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      on_context_created(s, resource->context);
    } else if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      finish_session(s, resource->context);
    }
    return;
  }
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  // A runtime launch calls a driver launch: count the pair once, by the outer (runtime) call.
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && contains(runtime_launches, id)) {
    runtime_launch_depth += call->callbackSite == CUPTI_API_ENTER ? 1 : 0;
    {
      std::lock_guard<std::recursive_mutex> lock(s.mutex);
      flush_l2_before(s, call, domain, id);
      on_launch(s, call);
    }
    runtime_launch_depth -= call->callbackSite == CUPTI_API_EXIT ? 1 : 0;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && contains(driver_launches, id) &&
             runtime_launch_depth == 0) {
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    flush_l2_before(s, call, domain, id);
    on_launch(s, call);
  }
}

constexpr std::size_t activity_buffer_bytes = 8u << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, activity_buffer_bytes));
  *size = *buffer != nullptr ? activity_buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext /*ctx*/, uint32_t /*stream*/, uint8_t* buffer,
                               size_t /*size*/, size_t valid) {
  auto& s = state();
  {
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
          record->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
        continue;
      }
      const auto* kr = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      launch_entry l;
      l.correlation = kr->correlationId;
      l.grid = {static_cast<std::uint32_t>(kr->gridX), static_cast<std::uint32_t>(kr->gridY),
                static_cast<std::uint32_t>(kr->gridZ)};
      l.block = {static_cast<std::uint32_t>(kr->blockX), static_cast<std::uint32_t>(kr->blockY),
                 static_cast<std::uint32_t>(kr->blockZ)};
      l.shared_bytes = static_cast<std::uint32_t>(kr->dynamicSharedMemory);
      l.duration_ns = static_cast<double>(kr->end - kr->start);
      s.book.add_launch(s.book.kernel(kr->name), l);
    }
  }
  std::free(buffer);
}

void write_output(injection_state& s) {
  if (s.written || s.output.empty()) {
    return;
  }
  s.written = true;
  if (!write_atomically(s.output, s.book.to_json(s.run))) {
    std::fprintf(stderr, "perfgate-cupti: cannot write %s\n", s.output.c_str());
  }
}

void at_exit() {
  auto& s = state();
  if (s.mode == "timing") {
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); // calls buffer_completed
  }
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  while (!s.sessions.empty()) {
    finish_session(s, s.sessions.begin()->first);
  }
  write_output(s);
}

std::vector<std::string> split_commas(const char* text) {
  std::vector<std::string> out;
  std::stringstream in(text != nullptr ? text : "");
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) {
      out.push_back(item);
    }
  }
  return out;
}

// Sets everything up; returns the reason it cannot, or "".
std::string initialize(injection_state& s) {
  const char* mode = std::getenv("PERFGATE_CUPTI_MODE");
  s.mode = mode != nullptr ? mode : "";
  s.run.mode = s.mode;
  if (s.mode != "timing" && s.mode != "counters") {
    return "PERFGATE_CUPTI_MODE must be 'timing' or 'counters', not '" + s.mode + "'";
  }
  // The driver calls InitializeInjection from cuInit, with libcuda.so.1 loaded. Anyone else
  // calling it (a test, a stray dlopen) must get a clean refusal: target-side CUPTI without a
  // driver crashes.
  void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (cuda == nullptr) {
    return "not called by the CUDA driver: libcuda.so.1 is not loaded in this process (load "
           "this library through CUDA_INJECTION64_PATH)";
  }
  s.driver.device_get =
      reinterpret_cast<decltype(driver_api::device_get)>(::dlsym(cuda, "cuDeviceGet"));
  s.driver.device_name =
      reinterpret_cast<decltype(driver_api::device_name)>(::dlsym(cuda, "cuDeviceGetName"));
  s.driver.pci_bus_id =
      reinterpret_cast<decltype(driver_api::pci_bus_id)>(::dlsym(cuda, "cuDeviceGetPCIBusId"));
  s.driver.ctx_get_device =
      reinterpret_cast<decltype(driver_api::ctx_get_device)>(::dlsym(cuda, "cuCtxGetDevice"));
  s.driver.device_attribute = reinterpret_cast<decltype(driver_api::device_attribute)>(
      ::dlsym(cuda, "cuDeviceGetAttribute"));
  s.driver.mem_alloc =
      reinterpret_cast<decltype(driver_api::mem_alloc)>(::dlsym(cuda, "cuMemAlloc_v2"));
  s.driver.memset_async =
      reinterpret_cast<decltype(driver_api::memset_async)>(::dlsym(cuda, "cuMemsetD8Async"));
  if (const char* flush = std::getenv("PERFGATE_CUPTI_FLUSH_L2");
      flush != nullptr && std::strcmp(flush, "1") == 0 && s.mode == "timing") {
    if (s.driver.ctx_get_device == nullptr || s.driver.device_attribute == nullptr ||
        s.driver.mem_alloc == nullptr || s.driver.memset_async == nullptr) {
      return "PERFGATE_CUPTI_FLUSH_L2: the driver lacks cuCtxGetDevice, cuDeviceGetAttribute, "
             "cuMemAlloc_v2 or cuMemsetD8Async";
    }
    s.flush_l2 = true;
  }
  if (const char* batch = std::getenv("PERFGATE_CUPTI_BATCH")) {
    s.batch = std::max<std::size_t>(1, std::strtoul(batch, nullptr, 10));
  }
  if (s.mode == "counters") {
    s.metrics = split_commas(std::getenv("PERFGATE_CUPTI_METRICS"));
    s.run.metrics = s.metrics;
    if (s.metrics.empty()) {
      return "PERFGATE_CUPTI_METRICS names no metric";
    }
  } else {
    s.nvml = std::make_unique<perfgate::detail::nvml_library>();
  }
  if (cuptiSubscribe(&s.subscriber, on_callback, nullptr) != CUPTI_SUCCESS) {
    return "cuptiSubscribe failed (is another CUPTI client, such as a profiler, attached?)";
  }
  (void)cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  (void)cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  // Launches only: a whole API domain would cost a callback on every CUDA call.
  for (const CUpti_CallbackId id : runtime_launches) {
    (void)cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  }
  for (const CUpti_CallbackId id : driver_launches) {
    (void)cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  }
  if (s.mode == "timing") {
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
      return "the CUPTI Activity API could not be enabled for kernel records";
    }
  }
  std::atexit(at_exit);
  return "";
}

} // namespace

/// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library.
/// Returns 1 when profiling is set up, 0 otherwise (the reason goes to PERFGATE_CUPTI_OUTPUT).
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  auto& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  const char* output = std::getenv("PERFGATE_CUPTI_OUTPUT");
  s.output = output != nullptr ? output : "";
  if (s.output.empty()) {
    std::fprintf(stderr, "perfgate-cupti: PERFGATE_CUPTI_OUTPUT is not set: nothing to do\n");
    return 0;
  }
  if (const std::string why = initialize(s); !why.empty()) {
    fail(s, "failed", why);
    write_output(s);
    return 0;
  }
  return 1;
}
