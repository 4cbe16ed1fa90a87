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

// rocpd (SQLite), rocprofv3's default since ROCm 7.0 (CSV is deprecated there), carries each
// dispatch's timestamps and the agent's architecture; ROCm 6.x's rocprofv3 writes CSV only. Its
// --help lists the --output-format choices.
bool use_rocpd() {
  if (!rocpd_supported()) {
    return false; // perfgate built without SQLite
  }
  process_options o;
  o.capture_stdout = true;
  o.timeout_s = 60;
  const auto r = run_process({"rocprofv3", "--help"}, o);
  return r.exit_code == 0 && r.stdout_text.find("rocpd") != std::string::npos;
}

// One rocprofv3 run of the program per pass, each pass's counter records read back.
class rocprof_runs {
public:
  rocprof_runs(const collect_request& request, std::string arch, bool database)
      : request_(request), arch_(std::move(arch)), database_(database),
        scratch_("perfgate-rocprof-") {}

  // `what`: "pass" or "matrix counter pass". Kernel timing rides along with the first pass of
  // the first call (rocpd has it in every pass).
  std::vector<amd_record_file> run(const std::vector<std::vector<std::string>>& passes,
                                   const std::string& what) {
    std::vector<amd_record_file> records;
    for (std::size_t i = 0; i < passes.size(); ++i) {
      const bool trace = !database_ && runs_ == 0;
      const fs::path out = scratch_.path() / ("run_" + std::to_string(++runs_));
      // One run per pass: counters that do not fit the hardware's counter slots together are
      // never requested in one oversized set.
      std::vector<std::string> argv = {"rocprofv3", "--pmc"};
      argv.insert(argv.end(), passes[i].begin(), passes[i].end());
      if (trace) {
        argv.emplace_back("--kernel-trace");
      }
      argv.insert(argv.end(), {"--output-format", database_ ? "rocpd" : "csv", "--output-directory",
                               out.string(), "--"});
      argv.insert(argv.end(), request_.program.begin(), request_.program.end());
      std::cerr << "perfgate: rocprofv3 " << what << " " << i + 1 << "/" << passes.size() << " on "
                << arch_ << "\n";
      process_options o;
      o.timeout_s = request_.time_left();
      o.forward_stderr = true;
      const auto r = run_process(argv, o);
      if (r.timed_out || r.signal != 0 || r.exit_code != 0) {
        throw target_error("rocprofv3 " + request_.program.front() + " " + r.describe() +
                           (r.last_stderr_line.empty() ? "" : ": " + r.last_stderr_line));
      }
      const auto counters = find_output(out, database_ ? "_results.db" : "counter_collection.csv");
      if (!counters) {
        throw target_error(std::string("rocprofv3 wrote no ") +
                           (database_ ? "*_results.db" : "counter_collection.csv") + " under " +
                           out.string());
      }
      if (database_) {
        records.push_back(read_rocpd_file(*counters).records);
      } else {
        records.push_back(read_rocprof_csv_records(read_text_file(*counters), counters->string()));
      }
      if (trace) {
        if (const auto t = find_output(out, "kernel_trace.csv")) {
          trace_text_ = read_text_file(*t);
          trace_file_ = t->string();
        }
      }
    }
    return records;
  }

  [[nodiscard]] profile import(const std::vector<amd_record_file>& records) const {
    return import_amd_records(records, arch_,
                              database_ ? profile_format::rocpd_db : profile_format::rocprof_csv);
  }
  [[nodiscard]] const std::string& trace_text() const { return trace_text_; }
  [[nodiscard]] const std::string& trace_file() const { return trace_file_; }

private:
  const collect_request& request_;
  std::string arch_;
  bool database_;
  scratch_dir scratch_; // every run's output folder
  int runs_ = 0;
  std::string trace_text_, trace_file_;
};
} // namespace

profile collect_rocprof(const collect_request& request) {
  if (!find_executable("rocprofv3")) {
    throw skip_error("rocprofv3 is not on PATH (no rocprofiler-sdk installation; Debian 12 "
                     "packages none): install ROCm's rocprofiler-sdk, or record a profile "
                     "elsewhere and gate that file");
  }
  const std::string arch = local_amd_arch();
  rocprof_runs runs(request, arch, use_rocpd());
  profile p = runs.import(runs.run(amd_counter_passes(arch), "pass"));
  if (!runs.trace_text().empty()) {
    attach_rocprof_kernel_trace(p, runs.trace_text(), runs.trace_file());
  }
  // The matrix operations counters cost passes of their own: a second run only when a kernel
  // executed MFMA instructions (SQ_INSTS_MFMA), as the NVIDIA collectors do (docs/tensor.md).
  const auto tensor_passes = amd_tensor_counter_passes(arch);
  if (!tensor_passes.empty() && needs_tensor_run(p)) {
    std::cerr << "perfgate: MFMA instructions executed: a second rocprofv3 run for the matrix "
                 "operations counters ("
              << tensor_passes.size() << " pass" << (tensor_passes.size() == 1 ? "" : "es")
              << ")\n";
    add_tensor_counters(p, runs.import(runs.run(tensor_passes, "matrix counter pass")));
  }
  p.source_file = request.program.front();
  return p;
}

} // namespace perfgate::detail
