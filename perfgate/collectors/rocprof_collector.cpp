// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/collectors.hpp"
#include "importers/amd_counters.hpp"
#include "importers/rocpd_importer.hpp"
#include "importers/rocprof_importer.hpp"
#include "util/subprocess.hpp"

#include <filesystem>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace perfgate::detail {

namespace fs = std::filesystem;

namespace {
// The GPU's architecture ("gfx90a"): PERFGATE_AMD_ARCH, else the first GPU agent that
// rocm_agent_enumerator lists (it prints gfx000 for the CPU).
std::string local_amd_arch() {
  if (const char* arch = std::getenv("PERFGATE_AMD_ARCH")) {
    return arch;
  }
  process_options o;
  o.capture_stdout = true;
  o.timeout_s = 30;
  const auto r = run_process({"rocm_agent_enumerator"}, o);
  if (r.not_found) {
    throw skip_error("rocm_agent_enumerator is not on PATH: no ROCm installation to find the AMD "
                     "GPU with (set PERFGATE_AMD_ARCH=gfx90a to name it)");
  }
  std::istringstream lines(r.stdout_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("gfx", 0) == 0 && line != "gfx000") {
      return line;
    }
  }
  throw skip_error("no AMD GPU: rocm_agent_enumerator lists no GPU agent");
}

// The counter_collection.csv / kernel_trace.csv rocprofv3 wrote somewhere under `dir`.
std::optional<fs::path> find_output(const fs::path& dir, std::string_view suffix) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && it->path().filename().string().ends_with(suffix)) {
      return it->path();
    }
  }
  return std::nullopt;
}
} // namespace

profile collect_rocprof(const collect_request& request) {
  if (!find_executable("rocprofv3")) {
    throw skip_error("rocprofv3 is not on PATH (no rocprofiler-sdk installation; Debian 12 "
                     "packages none): install ROCm's rocprofiler-sdk, or record a profile "
                     "elsewhere and gate that file");
  }
  const std::string arch = local_amd_arch();
  const auto passes = amd_counter_passes(arch);
  // The format perfgate reads best: rocpd, rocprofv3's own default since ROCm 7.0 (CSV output is
  // deprecated there), which carries each dispatch's timestamps and the agent's architecture;
  // CSV only for a perfgate built without SQLite (and ROCm 6.x, whose rocprofv3 has no rocpd).
  const bool database = rocpd_supported();
  const fs::path dir = fs::temp_directory_path() /
                       ("perfgate-rocprof-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::vector<amd_record_file> records;
  std::string trace_text, trace_file;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const fs::path out = dir / ("pass_" + std::to_string(i + 1));
    // One run per pass: counters that do not fit the hardware's counter slots together are
    // never requested in one oversized set. Kernel timing rides along with the first pass.
    std::vector<std::string> argv = {"rocprofv3", "--pmc"};
    argv.insert(argv.end(), passes[i].begin(), passes[i].end());
    if (i == 0 && !database) {
      argv.emplace_back("--kernel-trace");
    }
    argv.insert(argv.end(), {"--output-format", database ? "rocpd" : "csv", "--output-directory",
                             out.string(), "--"});
    argv.insert(argv.end(), request.program.begin(), request.program.end());
    std::cerr << "perfgate: rocprofv3 pass " << i + 1 << "/" << passes.size() << " on " << arch
              << "\n";
    process_options o;
    o.timeout_s = request.time_left();
    o.forward_stderr = true;
    const auto r = run_process(argv, o);
    if (r.timed_out || r.signal != 0 || r.exit_code != 0) {
      fs::remove_all(dir);
      throw target_error("rocprofv3 " + request.program.front() + " " + r.describe() +
                         (r.last_stderr_line.empty() ? "" : ": " + r.last_stderr_line));
    }
    const auto counters = find_output(out, database ? "_results.db" : "counter_collection.csv");
    if (!counters) {
      fs::remove_all(dir);
      throw target_error(std::string("rocprofv3 wrote no ") +
                         (database ? "*_results.db" : "counter_collection.csv") + " under " +
                         out.string());
    }
    if (database) {
      records.push_back(read_rocpd_file(*counters).records);
    } else {
      const std::string text = read_text_file(*counters);
      records.push_back(read_rocprof_csv_records(text, counters->string()));
    }
    if (i == 0 && !database) {
      if (const auto trace = find_output(out, "kernel_trace.csv")) {
        trace_text = read_text_file(*trace);
        trace_file = trace->string();
      }
    }
  }
  profile p = import_amd_records(records, arch,
                                 database ? profile_format::rocpd_db : profile_format::rocprof_csv);
  if (!trace_text.empty()) {
    attach_rocprof_kernel_trace(p, trace_text, trace_file);
  }
  fs::remove_all(dir);
  p.source_file = request.program.front();
  return p;
}

} // namespace perfgate::detail
