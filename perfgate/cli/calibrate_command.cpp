// SPDX-License-Identifier: Apache-2.0
// perfgate calibrate [--backend auto|cuda|hip|cpu] [--device-index N] [--id ID] [--quick] -o FILE
#include <perfgate/calibration.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/run_meta.hpp>

#include "cli/commands.hpp"
#include "cpu_microbench.hpp"
#include "importers/latency_sweep.hpp"
#include "util/subprocess.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

#include <unistd.h>

namespace perfgate::cli {

namespace {
namespace fs = std::filesystem;

// The GPU micro-benchmark executable: in PERFGATE_MICROBENCH_DIR, beside this `perfgate`, or
// on PATH.
std::optional<std::string> find_microbench(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* dir = std::getenv("PERFGATE_MICROBENCH_DIR")) {
    dirs.emplace_back(dir);
  }
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(self.parent_path().string());
  }
  return detail::find_executable(name, dirs);
}

// Runs the backend's micro-benchmark executable with `args`; skip_error on its exit 77.
void run_microbench_exe(const std::string& backend, const std::vector<std::string>& args) {
  const std::string name = "perfgate-microbench-" + backend;
  const auto exe = find_microbench(name);
  if (!exe) {
    throw skip_error("no " + backend + " micro-benchmarks: " + name +
                     " was not built (perfgate was configured without " +
                     (backend == "cuda" ? "a CUDA toolkit" : "HIP") + ")");
  }
  std::vector<std::string> argv = {*exe};
  argv.insert(argv.end(), args.begin(), args.end());
  detail::process_options opt;
  opt.on_stderr_line = [](std::string_view line) { std::cerr << "  " << line << "\n"; };
  const auto result = detail::run_process(argv, opt);
  if (result.exit_code == 77) {
    throw skip_error(result.last_stderr_line.empty() ? name + ": no usable GPU"
                                                     : result.last_stderr_line);
  }
  if (result.exit_code != 0) {
    throw target_error(name + " " + result.describe() +
                       (result.last_stderr_line.empty() ? "" : ": " + result.last_stderr_line));
  }
}

// The latency chains on the calibrated GPU, fitted by Eq. 1 (docs/pipeline.md).
void calibrate_latencies(const std::string& backend, int device_index, bool quick,
                         const std::string& device_id, int warp_size, const std::string& output) {
  const fs::path csv =
      fs::temp_directory_path() / ("perfgate-latency-" + std::to_string(::getpid()) + ".csv");
  std::vector<std::string> args = {"--device-index", std::to_string(device_index),
                                   "--latency-sweep", csv.string()};
  if (quick) {
    args.emplace_back("--quick");
  }
  std::cerr << "perfgate calibrate: " << backend << " latency chains on device " << device_index
            << "\n";
  try {
    run_microbench_exe(backend, args);
  } catch (...) {
    fs::remove(csv);
    throw;
  }
  const std::string text = read_text_file(csv.string());
  fs::remove(csv);
  detail::latency_fit_request request;
  request.csv_text = text;
  request.file = "perfgate-microbench-" + backend + " --latency-sweep";
  request.device = device_id;
  request.warp_size = warp_size;
  const auto fit = detail::fit_latency_sweep(request);
  std::cerr << fit.table;
  emit(fit.json, output);
}

microbench_run run_gpu_microbench(const std::string& backend, int device_index, bool quick) {
  const fs::path out =
      fs::temp_directory_path() / ("perfgate-microbench-" + std::to_string(::getpid()) + ".json");
  std::vector<std::string> args = {"--device-index", std::to_string(device_index), "-o",
                                   out.string()};
  if (quick) {
    args.emplace_back("--quick");
  }
  try {
    run_microbench_exe(backend, args);
  } catch (...) {
    fs::remove(out);
    throw;
  }
  const std::string text = read_text_file(out);
  fs::remove(out);
  return microbench_run_from_json(text, "perfgate-microbench-" + backend + " output");
}
} // namespace

action add_calibrate_command(CLI::App& app, const std::vector<std::string>& argv) {
  struct options {
    std::string backend = "auto";
    int device_index = 0;
    std::string id;
    bool quick = false;
    std::string output;
    std::string latencies;
    std::string from;
  };
  auto opt = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Measure this machine's peaks with micro-benchmarks and write a device file");
  cmd->add_option("--backend", opt->backend,
                  "What to measure: cuda or hip (a GPU), cpu, or auto (the GPU if there is one, "
                  "else the CPU)")
      ->check(CLI::IsMember({"auto", "cuda", "hip", "cpu"}))
      ->capture_default_str();
  cmd->add_option("--device-index", opt->device_index, "GPU to measure (cuda, hip)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--id", opt->id,
                  "Device id to write (default local-cpu, local-cuda-N or local-hip-N)");
  cmd->add_flag("--quick", opt->quick,
                "Tiny sizes and few repetitions: checks the benchmarks run, measures nothing");
  cmd->add_option("-o,--output", opt->output, "perfgate-device/1 file to write (atomically)")
      ->required();
  cmd->add_option("--latencies", opt->latencies,
                  "GPU: also time chains of dependent instructions per class and write their "
                  "latencies (perfgate-latencies/1, the pipeline model's; docs/pipeline.md)");
  cmd->add_option("--from-microbench", opt->from,
                  "Make the device from this perfgate-microbench/1 file (what "
                  "perfgate-microbench-cuda / -hip -o wrote) instead of running the benchmarks")
      ->check(CLI::ExistingFile)
      ->excludes("--quick");
  return [opt, argv]() {
    calibration_request request;
    request.backends = {opt->backend};
    if (opt->backend == "auto") {
      request.backends = {"cuda", "hip", "cpu"};
    }
    request.device_index = opt->device_index;
    request.id = opt->id;
    request.quick = opt->quick;
    request.output = opt->output;
    request.argv = argv;
    request.latencies_output = opt->latencies;
    request.from_microbench = opt->from;
    if (!request.from_microbench.empty() && !request.latencies_output.empty()) {
      throw usage_error("--latencies runs the latency chains on this machine's GPU; with "
                        "--from-microbench nothing runs here (fit a latency sweep with "
                        "`perfgate pipeline fit`)");
    }
    calibrate_device(request);
    return 0;
  };
}

// The CPU micro-benchmarks, their progress on stderr.
microbench_run measure_cpu(bool quick) {
  microbench::cpu_options cpu;
  cpu.quick = quick;
  cpu.progress = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
  try {
    return microbench::run_cpu_microbench(cpu);
  } catch (const error&) {
    throw;
  } catch (const std::runtime_error& e) {
    // The micro-benchmark refused a rate physics rules out: a failed measurement of this
    // machine (exit 3), not the user's input and not a bug in perfgate.
    throw target_error(std::string("the CPU micro-benchmarks: ") + e.what());
  }
}

// Every benchmark the run could not measure (no path on this device, or refused by its own
// physics check), on stderr: it is no peak, and the reader should know why.
void report_not_measured(const microbench_run& run) {
  for (const auto& r : run.results) {
    if (!r.measured) {
      std::cerr << "perfgate calibrate: not measured: " << r.key << " (" << r.note << ")\n";
    }
  }
}

void calibrate_device(const calibration_request& request) {
  microbench_run run;
  if (!request.from_microbench.empty()) {
    run =
        microbench_run_from_json(read_text_file(request.from_microbench), request.from_microbench);
    report_not_measured(run);
    const device d = device_from_microbench(
        run, request.id.empty() ? "local-" + run.backend + "-" + std::to_string(run.dev.index)
                                : request.id);
    emit(calibration_to_json(d, run, request.argv), request.output);
    std::cerr << "perfgate calibrate: " << d.name << " from " << request.from_microbench
              << (d.datasheet_id.empty() ? "" : " (datasheet entry " + d.datasheet_id + ")")
              << "\n";
    return;
  }
  std::vector<std::string> order = request.backends;
  if (!request.latencies_output.empty()) {
    std::erase(order, "cpu"); // the latency chains are GPU micro-benchmarks
    if (order.empty()) {
      throw usage_error("--latencies: the latency chains are GPU micro-benchmarks (--backend "
                        "cuda or hip)");
    }
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string& backend = order[i];
    std::cerr << "perfgate calibrate: " << backend << " micro-benchmarks"
              << (backend == "cpu" ? "" : " on device " + std::to_string(request.device_index))
              << (request.quick ? " (quick: a smoke run, not a measurement)" : "") << "\n";
    try {
      if (backend == "cpu") {
        run = measure_cpu(request.quick);
      } else {
        run = run_gpu_microbench(backend, request.device_index, request.quick);
      }
      break;
    } catch (const skip_error& e) {
      if (i + 1 == order.size()) {
        throw;
      }
      std::cerr << "perfgate calibrate: skipping " << backend << ": " << e.what() << "\n";
    }
  }
  std::string id = request.id;
  if (id.empty()) {
    id = run.backend == "cpu" ? "local-cpu"
                              : "local-" + run.backend + "-" + std::to_string(run.dev.index);
  }
  report_not_measured(run);
  // A recalibration keeps the highest rates this machine has shown: a shared runner's memory
  // moves by a quarter within minutes, and the roof must hold on its best minute.
  if (!request.output.empty() && request.output != "-" && std::filesystem::exists(request.output)) {
    for (const auto& line : keep_highest_rates(run, read_text_file(request.output), request.output,
                                               make_run_meta("calibrate", {}).host)) {
      std::cerr << "perfgate calibrate: kept the higher " << line << "\n";
    }
  }
  const device d = device_from_microbench(run, id);
  emit(calibration_to_json(d, run, request.argv), request.output);
  if (!request.latencies_output.empty()) {
    calibrate_latencies(run.backend, request.device_index, request.quick, d.id, run.dev.warp_size,
                        request.latencies_output);
  }
  const std::string card =
      d.uuid.empty() ? "" : " (" + d.uuid + (d.driver.empty() ? "" : ", driver " + d.driver) + ")";
  std::cerr << "perfgate calibrate: " << d.name << card << ": FP32 " << d.peaks.fp32_gflops
            << " GFLOPS, FP64 " << d.peaks.fp64_gflops << " GFLOPS, DRAM roof "
            << memory_roof_gbs(d) << " GB/s (mean of read, write and copy " << d.peaks.dram_gbs
            << ")\n";
}

std::optional<device> measure_local_cpu_again(const device& d, const std::string& device_arg) {
  std::error_code ec;
  if (d.kind != "cpu" || d.source != "measured" || !fs::is_regular_file(device_arg, ec)) {
    return std::nullopt;
  }
  const std::string text = read_text_file(device_arg);
  const std::string host = make_run_meta("calibrate", {}).host;
  if (!is_cpu_calibration_of(text, host)) {
    return std::nullopt;
  }
  std::cerr << "perfgate: a kernel beat a roof of " << d.id << ", this machine's calibration ("
            << device_arg << ", " << d.provenance_date
            << "): measuring this machine again, as a calibration taken while it was busier "
               "reads low\n";
  microbench_run run = measure_cpu(false);
  (void)keep_highest_rates(run, text, device_arg, host);
  device again = device_from_microbench(run, d.id);
  again.origin = d.origin;
  again.provenance_how = "measured again by the gate (a kernel beat its roof), each peak the "
                         "higher of this run's and " + device_arg + "'s (" + d.provenance_date +
                         "); " + again.provenance_how;
  return again;
}

} // namespace perfgate::cli
