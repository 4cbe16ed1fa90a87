// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/collectors.hpp"
#include "importers/counter_mapping.hpp"
#include "importers/ncu_importer.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

#include <algorithm>
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

namespace {
// The first line of `text` that contains `needle`, without its line break.
std::optional<std::string> line_containing(std::string_view text, std::string_view needle) {
  const auto at = text.find(needle);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  const auto begin = text.rfind('\n', at);
  const auto first = begin == std::string_view::npos ? 0 : begin + 1;
  auto last = text.find('\n', at);
  if (last == std::string_view::npos) {
    last = text.size();
  }
  if (last > first && text[last - 1] == '\r') {
    --last;
  }
  return std::string(text.substr(first, last - first));
}
} // namespace

std::vector<std::string> ncu_default_metrics() {
  // Only the preferred alternative of each counter: ncu fails the whole run when --metrics names
  // a metric the chip does not have (e.g. dram__bytes_op_read.sum on GH100). It prints
  // `==ERROR== Failed to find metric ...` (for NAME without a roll-up suffix: `regex:^NAME\.
  // (sum|min|max|avg|pct|ratio|max_rate)$`) right after `==PROF== Connected to process ...` and
  // profiles nothing, no kernel and no other metric. Seen in public logs: an ncu run on a GCP L4
  // with nvprof-era names, notes from a Blackwell (sm_120) port where PC-sampling metrics make "any
  // NCU command requesting these metrics" fail, and tools that parse that line to drop the metric
  // and rerun. CUPTI, which ncu is built on, rejects such a configuration too (PLATFORM-NOTES.md:
  // ConfigAddMetrics). Asking for every alternative would thus fail on GH100 (no dram__bytes_op_*)
  // and on GB202 (no dram__bytes_read/write) alike. A list per chip replaces this one where it is
  // known.
  std::vector<std::string> metrics = {"gpu__time_duration.sum",
                                      "sm__cycles_elapsed.avg.per_second"};
  const auto& tensor = counter::tensor_ops;
  for (const auto& source : ncu_counter_sources()) {
    if (std::find(tensor.begin(), tensor.end(), source.canonical) != tensor.end() ||
        source.canonical == counter::tensor_inst_hfma2) {
      continue; // named differently on every chip: only a chip's plan can ask for them
    }
    for (auto m : source.alternatives.front().metrics) {
      if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) {
        metrics.emplace_back(m);
      }
    }
  }
  return metrics;
}

std::vector<std::string> ncu_command_line(const collect_request& request,
                                          const std::vector<std::string>& metrics,
                                          const std::string& log_file) {
  // --clock-control none: the kernel at the clocks the GPU chooses, as it runs in production
  // (ncu's default locks the SM near base clock, 1290 MHz on an H200, and changes a shared
  // card's settings while it profiles). The roof follows the SM clock each kernel ran at
  // (sm__cycles_elapsed.avg.per_second), so no clock needs to be held.
  std::vector<std::string> argv = {"ncu",           "--csv",           "--page",    "raw",
                                   "--print-units", "base",            "--metrics", join(metrics, ","),
                                   "--clock-control", "none",          "--log-file", log_file};
  if (!request.kernel_regex.empty()) {
    // ncu matches --kernel-name against the function name alone by default (no return type,
    // parameters or template arguments); --kernel-name-base demangled makes it match the full
    // signature the CSV prints, the string `--kernels` is searched in afterwards, so a regex
    // that names a parameter or a template argument works the same in both places. The
    // `regex:` prefix makes ncu search a regular expression instead of comparing exactly
    // ("Profile kernels which have 'Bar' in function name: --kernel-name regex:Bar"). Kernels
    // that do not match are not replayed at all, which is the point on large programs; perfgate
    // still filters the imported kernels with its own ECMAScript regex.
    // https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html (Profile options
    // --kernel-name, --kernel-name-base), https://docs.nvidia.com/nsight-compute/Training/
    // index.html (Filter Options, examples 5, 6 and 10).
    argv.insert(argv.end(), {"--kernel-name-base", "demangled", "--kernel-name",
                             "regex:" + request.kernel_regex});
  }
  argv.insert(argv.end(), request.program.begin(), request.program.end());
  return argv;
}

void check_ncu_log(std::string_view log_text) {
  if (log_text.find("ERR_NVGPUCTRPERM") != std::string_view::npos) {
    throw skip_error("no permission to read GPU performance counters (ERR_NVGPUCTRPERM): an "
                     "administrator must allow it, e.g. the driver option "
                     "NVreg_RestrictProfilingToAdminUsers=0, or run as root");
  }
  // DESIGN.md maps an unsupported chip to a skip (77): the program did not fail, and a run on
  // another GPU may still work.
  if (auto line = line_containing(log_text, "Failed to find metric")) {
    throw skip_error("Nsight Compute cannot collect a metric perfgate asked for on this GPU (" +
                     *line + "); see `perfgate metrics --chip NAME` for the names it has");
  }
}

profile collect_ncu(const collect_request& request, const std::vector<std::string>& metrics) {
  if (auto why = nvidia_gpu_unavailable()) {
    throw skip_error(*why);
  }
  const fs::path log =
      fs::temp_directory_path() / ("perfgate-ncu-" + std::to_string(::getpid()) + ".csv");
  process_options o;
  o.timeout_s = request.time_left();
  o.environment = {{"LC_ALL", "C"}}; // plain numbers: no locale's thousands separators
  o.forward_stderr = true;
  const auto result = run_process(ncu_command_line(request, metrics, log.string()), o);
  if (result.not_found) {
    fs::remove(log);
    throw skip_error("Nsight Compute (ncu) is not on PATH");
  }
  const std::string text = fs::exists(log) ? read_text_file(log) : std::string();
  fs::remove(log);
  check_ncu_log(text);
  if (result.timed_out || result.signal != 0 || result.exit_code != 0) {
    throw target_error("ncu " + request.program.front() + " " + result.describe() +
                       (result.last_stderr_line.empty() ? "" : ": " + result.last_stderr_line));
  }
  // Only now: a program that failed before its first launch also leaves ncu with no kernel.
  if (text.find("No kernels were profiled") != std::string::npos) {
    if (request.kernel_regex.empty()) {
      throw usage_error("ncu profiled no kernel: " + request.program.front() +
                        " launched no CUDA kernel");
    }
    throw usage_error("kernel_regex", "'" + request.kernel_regex + "' matches no kernel " +
                                          request.program.front() +
                                          " launched (ncu profiled none)");
  }
  // ncu exits 0 and leaves a metric it does not know out of the table: the run cannot be
  // judged without it (the same case as "Failed to find metric" above).
  if (const auto missing = ncu_raw_missing_metrics(text, metrics); !missing.empty()) {
    throw skip_error("Nsight Compute did not return metric" +
                     std::string(missing.size() == 1 ? " " : "s ") + join(missing, ", ") +
                     " that perfgate asked for (ncu leaves out metrics this GPU or version does "
                     "not know, with exit code 0); see `perfgate metrics --chip NAME` for the "
                     "names it has");
  }
  auto p = import_ncu_csv_raw(text, request.program.front() + " (ncu output)");
  p.source_file = request.program.front();
  return p;
}

profile collect_ncu_runs(const collect_request& request, const ncu_metric_sets& sets) {
  profile p = collect_ncu(request, sets.metrics);
  if (!sets.tensor_metrics.empty() && needs_tensor_run(p)) {
    std::cerr << "perfgate: ncu: kernels executed matrix instructions: a second run for their "
                 "tensor operations ("
              << sets.tensor_metrics.size() << " metrics)\n";
    add_tensor_counters(p, collect_ncu(request, sets.tensor_metrics));
  }
  return p;
}

} // namespace perfgate::detail
