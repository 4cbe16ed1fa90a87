// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/collectors.hpp"
#include "importers/counter_mapping.hpp"
#include "importers/ncu_importer.hpp"
#include "src/subprocess.hpp"

#include <filesystem>
#include <iostream>

#include <dlfcn.h>
#include <unistd.h>

namespace perfgate::detail {

namespace fs = std::filesystem;

std::optional<std::string> nvidia_gpu_unavailable() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return std::string("no NVIDIA driver: libcuda.so.1 cannot be loaded (") +
           (why != nullptr ? why : "unknown reason") + ")";
  }
  using init_fn = int (*)(unsigned);
  using count_fn = int (*)(int*);
  auto cu_init = reinterpret_cast<init_fn>(::dlsym(lib, "cuInit"));
  auto cu_count = reinterpret_cast<count_fn>(::dlsym(lib, "cuDeviceGetCount"));
  if (cu_init == nullptr || cu_count == nullptr) {
    return std::string("the NVIDIA driver library lacks cuInit/cuDeviceGetCount");
  }
  if (const int rc = cu_init(0); rc != 0) {
    return "cuInit failed with CUDA driver error " + std::to_string(rc) +
           (rc == 100 ? " (no CUDA-capable device)" : "");
  }
  int count = 0;
  if (cu_count(&count) != 0 || count == 0) {
    return std::string("no CUDA device");
  }
  return std::nullopt;
}

profile collect_ncu(const collect_request& request) {
  if (auto why = nvidia_gpu_unavailable()) {
    throw skip_error(*why);
  }
  const fs::path log =
      fs::temp_directory_path() / ("perfgate-ncu-" + std::to_string(::getpid()) + ".csv");
  std::string metrics = "gpu__time_duration.sum";
  for (auto m : metrics_used(ncu_counter_sources())) {
    metrics += "," + std::string(m);
  }
  std::vector<std::string> argv = {"ncu",  "--csv",     "--page", "raw",        "--print-units",
                                   "base", "--metrics", metrics,  "--log-file", log.string()};
  argv.insert(argv.end(), request.program.begin(), request.program.end());
  process_options o;
  o.timeout_s = request.timeout_s;
  o.environment = {{"LC_ALL", "C"}}; // plain numbers: no locale's thousands separators
  o.on_stderr_line = [](std::string_view line) { std::cerr << line << "\n"; };
  const auto result = run_process(argv, o);
  if (result.not_found) {
    fs::remove(log);
    throw skip_error("Nsight Compute (ncu) is not on PATH");
  }
  const std::string text = fs::exists(log) ? read_text_file(log) : std::string();
  fs::remove(log);
  if (text.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    throw skip_error("no permission to read GPU performance counters (ERR_NVGPUCTRPERM): an "
                     "administrator must allow it, e.g. the driver option "
                     "NVreg_RestrictProfilingToAdminUsers=0, or run as root");
  }
  if (result.timed_out || result.signal != 0 || result.exit_code != 0) {
    throw target_error("ncu " + request.program.front() + " " + result.describe() +
                       (result.last_stderr_line.empty() ? "" : ": " + result.last_stderr_line));
  }
  auto p = import_ncu_csv_raw(text, request.program.front() + " (ncu output)");
  p.source_file = request.program.front();
  return p;
}

} // namespace perfgate::detail
