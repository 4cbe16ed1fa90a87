// SPDX-License-Identifier: Apache-2.0
// perfgate run [gate options] -- PROGRAM [ARGS...]: collect, predict, gate, report.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>
#include <perfgate/writers.hpp>

#include "cli/ab_session.hpp"
#include "cli/commands.hpp"
#include "collectors/collectors.hpp"
#include "collectors/ctest_gpus.hpp"
#include "collectors/nvbench_collector.hpp"
#include "gate/efficiency_change.hpp"
#include "importers/csv_reader.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace perfgate::cli {

namespace {
struct run_options {
  std::string collector = "auto";
  std::string profile_file;
  std::vector<std::string> devices;
  std::string kernels;
  std::optional<double> min_efficiency;
  double max_efficiency = 1.10;
  std::string expect_bound;
  std::string baseline_file;
  double max_efficiency_drop = 0.10;
  std::string hull_species;
  std::optional<double> hull_f;
  double hull_tolerance = 0.25;
  double hull_element_bytes = 4;
  std::string report_file;
  std::optional<double> timeout_s;
  int repetitions = 5;
  std::optional<double> target_ci;
  double time_budget_s = 60;
  double confirm_budget_s = 60;
  double ab_budget_s = 300;
  double confidence = 0.95;
  bool keep_warm_up = false;
  bool flush_l2 = false;
  std::string counter_cache; ///< nvbench: the folder of counter runs kept between runs
  std::string gpu_calibrations;
  std::vector<std::string> idg_files;
  std::string latencies_file;
  std::vector<std::string> program;
};

// An exclusive flock held for the object's life: tests sharing a GPU (slots > 1) calibrate it
// once, the others wait and reuse the file.
class file_lock {
public:
  explicit file_lock(const std::filesystem::path& path)
      : m_fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (m_fd < 0 || ::flock(m_fd, LOCK_EX) != 0) {
      throw input_error(path.string(), "", "cannot create or lock it: " + errno_text());
    }
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock() { ::close(m_fd); }

private:
  static std::string errno_text() { return std::strerror(errno); }
  int m_fd;
};

// The calibration of the GPU CTest pinned this test to, DIR/gpu-<id>.json: measured now when
// missing or older than this perfgate (a rebuilt perfgate may measure differently), else
// reused. Throws skip_error when that GPU cannot be measured here.
std::string pinned_gpu_calibration(const std::string& dir, const detail::gpu_pin& pin,
                                   const std::vector<std::string>& argv) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(dir) / ("gpu-" + pin.ctest_id + ".json");
  create_parent_directories(file);
  const file_lock lock(fs::path(file.string() + ".lock"));
  std::error_code ec;
  const auto self = fs::last_write_time(fs::read_symlink("/proc/self/exe", ec), ec);
  std::error_code file_ec;
  const auto made = fs::last_write_time(file, file_ec);
  if (!file_ec && (ec || made >= self)) {
    return file.string();
  }
  std::cerr << "perfgate: calibrating GPU " << pin.ctest_id << " (" << pin.describe() << ") into "
            << file.string() << "\n";
  calibration_request request;
  request.backends = pin.backend.empty() ? std::vector<std::string>{"cuda", "hip"}
                                         : std::vector<std::string>{pin.backend};
  request.id = "local-" + pin.ctest_id;
  request.output = file.string();
  request.argv = argv;
  calibrate_device(request);
  return file.string();
}

// The GPU CTest gave this test (a resource specification listing GPUs): the program and the
// calibration see that one GPU only, and with --gpu-calibrations it is the local device.
void pin_to_ctest_gpu(run_options& o, const std::vector<std::string>& argv) {
  const auto pin = detail::ctest_gpu_assignment([](const char* name) { return std::getenv(name); });
  if (!pin) {
    return;
  }
  for (const auto& [name, value] : pin->environment) {
    ::setenv(name.c_str(), value.c_str(), 1); // inherited by the program and the calibration
  }
  std::cerr << "perfgate: CTest gave this test the GPU " << pin->ctest_id << ": " << pin->describe()
            << "\n";
  if (!o.gpu_calibrations.empty()) {
    o.devices.front() = pinned_gpu_calibration(o.gpu_calibrations, *pin, argv);
  }
}

profile collect(const run_options& o, const std::vector<std::string>& only = {}) {
  check_flush_l2(o.flush_l2, o.collector);
  if (o.target_ci && o.collector == "profile") {
    throw usage_error("--target-ci: adaptive repetitions need a Google Benchmark binary to "
                      "repeat (the gbench collector), not a recorded profile");
  }
  if (o.collector == "profile") {
    if (o.profile_file.empty()) {
      throw usage_error("--collector profile needs --profile FILE");
    }
    if (!o.program.empty()) {
      detail::collect_request request;
      request.program = o.program;
      request.timeout_s = o.timeout_s;
      detail::run_plain(request);
    }
    return import_profile(o.profile_file);
  }
  program_collection c;
  c.collector = o.collector;
  c.program = o.program;
  c.kernels = o.kernels;
  c.repetitions = o.repetitions;
  c.timeout_s = o.timeout_s;
  c.target_ci = o.target_ci;
  c.time_budget_s = o.time_budget_s;
  c.flush_l2 = o.flush_l2;
  c.keep_warm_up = o.keep_warm_up;
  c.counter_cache_dir = o.counter_cache;
  c.only_benchmarks = only;
  return collect_program(c);
}
} // namespace

// --flush-l2 against the collector chosen: only CUPTI's timing run can flush before a launch.
CLI::Validator finite_seconds() {
  return CLI::Validator(
      [](const std::string& text) {
        // CLI::PositiveNumber lets nan and inf through.
        double v = 0;
        const bool number = CLI::detail::lexical_cast(text, v);
        return number && std::isfinite(v) && v > 0
                   ? std::string()
                   : "expected a finite number of seconds > 0, got '" + text + "'";
      },
      "SECONDS > 0");
}

void check_flush_l2(bool flush_l2, const std::string& collector) {
  if (flush_l2 && collector != "cupti" && collector != "auto") {
    throw usage_error("--flush-l2 is for the cupti collector, not " + collector +
                      ": ncu flushes every cache before each replay already (its "
                      "--cache-control all), nvbench before every cold sample; rocprof, gbench "
                      "and recorded profiles cannot");
  }
}

std::string resolved_collector(const std::string& collector,
                               const std::vector<std::string>& program) {
  if (collector != "auto") {
    return collector;
  }
  if (program.empty()) {
    return "cupti"; // collect_program refuses a missing program with its own message
  }
  return detail::choose_collector(program.front(), detail::program_facts_of(program.front()),
                                  detail::machine_facts_here());
}

profile collect_program(const program_collection& c) {
  detail::collect_request request;
  request.program = c.program;
  request.timeout_s = c.timeout_s;
  request.repetitions = c.repetitions;
  request.kernel_regex = c.kernels;
  request.target_ci = c.target_ci;
  request.flush_l2 = c.flush_l2;
  request.time_budget_s = c.time_budget_s;
  request.only_benchmarks = c.only_benchmarks;
  request.counter_runs = c.counter_runs;
  request.counter_cache_dir = c.counter_cache_dir;
  if (c.program.empty()) {
    throw usage_error("no program to run: give it after --, e.g. perfgate run ... -- ./bench");
  }
  const std::string collector = resolved_collector(c.collector, c.program);
  check_flush_l2(c.flush_l2, collector);
  if (c.target_ci && collector != "gbench") {
    throw usage_error("--target-ci: adaptive repetitions are for Google Benchmark binaries "
                      "(the gbench collector); the " +
                      collector + " collector records every launch the program makes");
  }
  if (collector == "gbench") {
    return detail::collect_gbench(request);
  }
  if (collector == "nvbench") {
    return detail::collect_nvbench(request); // its own cold times: no warm-up launch to drop
  }
  profile p = collector == "ncu"
                  ? detail::collect_ncu_runs(request, detail::ncu_metrics_for_local_gpu())
              : collector == "cupti" ? detail::collect_cupti(request)
                                     : detail::collect_rocprof(request);
  if (!c.keep_warm_up) {
    if (const std::size_t n = detail::leave_out_first_launch(p); n > 0) {
      std::cerr << "perfgate: the first launch of " << n << " kernel" << (n == 1 ? "" : "s")
                << " launched more than once is left out (warm-up; --keep-warm-up keeps it)\n";
    }
  }
  return p;
}

namespace {

// The quoted kernel names of the profiler's "Failed to profile \"NAME\"" errors.
std::vector<std::string> kernels_the_profiler_failed_on(const profile& p) {
  std::vector<std::string> names;
  for (const auto& e : p.tool_errors) {
    const auto at = e.find("Failed to profile \"");
    if (at == std::string::npos) {
      continue;
    }
    const auto begin = at + std::string_view("Failed to profile \"").size();
    const auto end = e.find('"', begin);
    if (end != std::string::npos) {
      names.push_back(e.substr(begin, end - begin));
    }
  }
  return names;
}

// A kernel the user gates must be in the profile: one the profiler failed on is exit 3 with the
// profiler's words; a --kernels that matches nothing is a gate failure (1). 0 when all is well.
int check_gated_kernels_present(const profile& p, const std::string& regex) {
  std::regex selector;
  try {
    selector = std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw usage_error("--kernels '" + regex + "' is not a valid regular expression: " + e.what());
  }
  const auto gated = [&](const std::string& name) {
    return regex.empty() || std::regex_search(name, selector);
  };
  for (const auto& name : kernels_the_profiler_failed_on(p)) {
    const bool present = std::any_of(p.kernels.begin(), p.kernels.end(), [&](const auto& k) {
      return k.name.find(name) != std::string::npos;
    });
    if (gated(name) && !present) {
      throw target_error("gated kernel '" + name + "' is missing from the profile " +
                         p.source_file + ": the profiler failed on it" +
                         detail::quote_tool_errors(p.tool_errors));
    }
  }
  if (!regex.empty() && std::none_of(p.kernels.begin(), p.kernels.end(),
                                     [&](const kernel_profile& k) { return gated(k.name); })) {
    std::cout << "perfgate: FAIL: --kernels '" << regex << "' matches no kernel of the profile "
              << p.source_file << " (" << p.kernels.size() << " kernel"
              << (p.kernels.size() == 1 ? "" : "s") << " in it)"
              << detail::quote_tool_errors(p.tool_errors) << "\n";
    return static_cast<int>(exit_status::gate_failure);
  }
  return 0;
}

// Kernels whose verdict against the stored baseline is a slowdown beyond the allowance or
// still undecided, after any confirmation runs.
std::vector<std::string> slower_or_undecided(const report& r) {
  std::vector<std::string> names;
  for (const auto& k : r.kernels) {
    const auto& v = k.result;
    const bool flagged =
        v.confirmation ? v.confirmation->kind == stats::change::slower ||
                             v.confirmation->kind == stats::change::ambiguous
        : v.change ? (v.change->kind == stats::change::slower && v.change->beyond_allowed) ||
                         v.change->kind == stats::change::ambiguous
                   : false;
    if (flagged) {
      names.push_back(k.name);
    }
  }
  return names;
}

// The baseline's stored build (`baseline accept --keep-build`), checked to be the file that
// was accepted.
std::filesystem::path stored_build_of(const run_options& o, const stored_build& build) {
  const std::filesystem::path exe =
      std::filesystem::path(o.baseline_file).parent_path() / build.executable;
  if (!std::filesystem::exists(exe)) {
    throw input_error(o.baseline_file, "build.executable",
                      exe.string() + ": no such file (the build the baseline keeps)");
  }
  const std::string hash = file_fnv1a64(exe);
  if (hash != build.fnv1a64) {
    throw input_error(o.baseline_file, "build.fnv1a64",
                      exe.string() + " changed since the baseline was accepted (FNV-1a " + hash +
                          ", the baseline says " + build.fnv1a64 + ")");
  }
  return exe;
}

// Where the baseline keeps its build and a kernel is slower than the stored runs or undecided
// (no confirmation runs then: confirm() leaves them to this): the stored build and this one
// run alternately in one session (perfgate ab's rule, --ab-budget seconds at most), and that
// session decides. The stored runs carry the speed of
// the session they were taken in; on a shared runner that moves by more than the allowance
// between sessions (docs/statistics.md).
void decide_by_stored_build(report& r, gate_policy& policy, const run_options& o,
                            const std::vector<device>& devices,
                            std::chrono::steady_clock::time_point begun) {
  if (!policy.base || !policy.base->build || o.ab_budget_s <= 0 || o.collector == "profile") {
    return;
  }
  const std::vector<std::string> names = slower_or_undecided(r);
  if (names.empty()) {
    return;
  }
  ab_session s;
  s.base_binary = stored_build_of(o, *policy.base->build).string();
  s.head_binary = o.program.front();
  s.args.assign(o.program.begin() + 1, o.program.end());
  s.collector = o.collector;
  s.kernels = o.kernels;
  if (resolved_collector(o.collector, o.program) == "gbench") {
    s.only_benchmarks = names;
  }
  s.max_efficiency_drop = o.max_efficiency_drop;
  s.confidence = o.confidence;
  s.repetitions = o.repetitions;
  s.keep_warm_up = o.keep_warm_up;
  s.time_budget_s = o.ab_budget_s;
  if (o.timeout_s) {
    const double left =
        *o.timeout_s -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
    s.time_budget_s = std::min(s.time_budget_s, left);
    s.timeout_s = std::max(left, 1e-3);
  }
  std::cerr << "perfgate: " << names.size() << " kernel" << (names.size() == 1 ? "" : "s")
            << " slower than the stored baseline or undecided: the baseline's build "
            << s.base_binary << " and this one run alternately to decide (--ab-budget "
            << detail::fixed(s.time_budget_s, 0) << " s)\n";
  auto outcome = run_ab_session(s, devices, r.meta);
  for (const auto& name : names) {
    if (const auto runs = outcome.runs.find(name); runs != outcome.runs.end()) {
      policy.ab_runs[name] = std::move(runs->second);
      policy.ab_runs[name].base_name = policy.base->build->executable;
    }
  }
  apply_gate(r, policy);
}

std::optional<bound_class> parse_bound(const std::string& s) {
  if (s.empty() || s == "latency") {
    return std::nullopt; // latency is the gate's class, not the roof's: expect_latency
  }
  return s == "memory" ? bound_class::memory : bound_class::compute;
}

// Kernels whose verdict against the baseline is still undecided: a first verdict AMBIGUOUS
// with no confirmation yet, or a confirmation still AMBIGUOUS.
std::vector<std::string> unsettled(const report& r) {
  std::vector<std::string> names;
  for (const auto& k : r.kernels) {
    const auto& v = k.result;
    const bool open = v.confirmation ? v.confirmation->kind == stats::change::ambiguous
                                     : v.change && v.change->kind == stats::change::ambiguous;
    if (open) {
      names.push_back(k.name);
    }
  }
  return names;
}

// The most runs of one kernel confirmation makes, the first included: where fewer do not
// settle it, its runs seldom land near their floor and more rarely would.
constexpr int max_confirmation_runs = 20;

// Confirmation (docs/statistics.md): while a kernel's verdict against the baseline is
// AMBIGUOUS, measure it again in a fresh process and judge all its runs by the floor rule,
// until every kernel is settled or the next run would end after `confirm_budget_s`. A fresh
// process, not more repetitions: what moves a run on a shared machine (its neighbours, where
// its memory landed) holds for the whole process.
// Confirmation runs are runs of the program too: with --timeout they end within it (`begun`:
// when this perfgate run began).
void confirm(report& r, gate_policy& policy, const run_options& options,
             const std::vector<device>& devices, std::chrono::steady_clock::time_point begun) {
  std::vector<std::string> open = unsettled(r);
  run_options o = options;
  if (o.timeout_s) {
    const double left =
        *o.timeout_s -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
    o.confirm_budget_s = std::min(o.confirm_budget_s, left);
    o.timeout_s = std::max(left, 1e-3);
  }
  if (open.empty() || !policy.base || o.confirm_budget_s <= 0) {
    return;
  }
  if (policy.base->build && o.ab_budget_s > 0) {
    // The kept build decides instead (decide_by_stored_build): the floor rule compares with
    // the stored runs' floor, which moves with the runner in either direction, so a confirmed
    // SAME could hide a regression as a confirmed SLOWER could invent one (docs/statistics.md).
    return;
  }
  const std::string collector =
      o.collector == "profile" ? "profile" : resolved_collector(o.collector, o.program);
  if (collector == "profile") {
    return; // a recorded profile measures nothing again
  }
  using clock = std::chrono::steady_clock;
  const auto begin = clock::now();
  double last_round_s = 0;
  gate_policy measure_only = policy; // a round's own efficiencies, not its verdicts
  measure_only.base.reset();
  measure_only.confirmation_runs.clear();
  const std::string budget = detail::fixed(o.confirm_budget_s, o.confirm_budget_s < 10 ? 1 : 0);
  for (int round = 1; !open.empty(); ++round) {
    const double spent = std::chrono::duration<double>(clock::now() - begin).count();
    const char* const stay =
        open.size() == 1 ? " kernel stays AMBIGUOUS" : " kernels stay AMBIGUOUS";
    if (spent + last_round_s > o.confirm_budget_s) {
      std::cerr << "perfgate: confirmation: the budget of " << budget
                << " s ends before another run; " << open.size() << stay << "\n";
      break;
    }
    if (round >= max_confirmation_runs) {
      // Runs so far: about none land near their floor, so more would not settle it either.
      std::cerr << "perfgate: confirmation: " << max_confirmation_runs << " runs made; "
                << open.size() << stay << "\n";
      break;
    }
    const auto started = clock::now();
    const profile p = collect(o, collector == "gbench" ? open : std::vector<std::string>{});
    report again = predict_report(p, devices, o.kernels, true);
    again.meta = r.meta;
    apply_gate(again, measure_only);
    for (const auto& name : open) {
      const auto k = std::find_if(again.kernels.begin(), again.kernels.end(),
                                  [&](const kernel_report& x) { return x.name == name; });
      if (k == again.kernels.end() || !k->result.efficiency) {
        throw target_error("confirmation run " + std::to_string(round) + " did not measure '" +
                           name + "' (" + std::to_string(again.kernels.size()) +
                           " kernel(s) in it): the program's kernels differ from run to run");
      }
      auto samples = detail::efficiency_samples(*k, *k->result.efficiency);
      if (samples.empty()) {
        samples.push_back(*k->result.efficiency); // a profile without samples: its one value
      }
      policy.confirmation_runs[name].push_back(std::move(samples));
    }
    apply_gate(r, policy);
    last_round_s = std::chrono::duration<double>(clock::now() - started).count();
    const std::vector<std::string> still = unsettled(r);
    // One line a round: what was settled and how, what is still open.
    std::cerr << "perfgate: confirmation run " << round << " ("
              << detail::fixed(std::chrono::duration<double>(clock::now() - begin).count(), 1)
              << " s of " << budget << " s):";
    for (const auto& name : open) {
      const auto k = std::find_if(r.kernels.begin(), r.kernels.end(),
                                  [&](const kernel_report& x) { return x.name == name; });
      const auto& c = *k->result.confirmation;
      std::cerr << " " << name << " " << stats::to_string(c.kind) << " (fastest "
                << detail::fixed(c.ratio, 3) << "x of " << detail::fixed(c.allowed, 3)
                << "x allowed, " << c.head_runs << " runs"
                << (c.kind == stats::change::ambiguous
                        ? ", about " + std::to_string(c.runs_to_settle) + " needed"
                        : std::string())
                << ")";
    }
    std::cerr << "\n";
    open = still;
  }
}

void print_summary(const report& r) {
  const auto& local = r.devices.front();
  std::cout << "perfgate: " << r.kernels.size() << " kernel" << (r.kernels.size() == 1 ? "" : "s")
            << " gated on " << local.id << " (" << local.name << ", " << local.source << " peaks)";
  if (r.devices.size() > 1) {
    std::cout << ", predicted for " << r.devices.size() - 1 << " more device"
              << (r.devices.size() == 2 ? "" : "s");
  }
  std::cout << "\n";
  for (const auto& k : r.kernels) {
    std::string status(to_string(k.result.status));
    for (auto& c : status) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    std::cout << "  " << status << "  " << k.name
              << (!k.predictions.empty() && k.predictions.front().one_core
                      ? " [1 thread: one-core peaks]"
                      : "")
              << (k.skip_reason.empty() && k.params.model == model_kind::roofline
                      ? " [declared work: roofline]"
                      : "")
              << "\n";
    for (const auto& reason : k.result.reasons) {
      std::cout << "        " << reason << "\n";
    }
  }
  for (const auto& k : r.kernels) {
    if (k.result.efficiency) {
      // CTest drops a measurement whose name holds < or &, and a " ends the attribute: the name
      // goes through the markup escaper like every other XML output.
      std::cout << "<CTestMeasurement type=\"numeric/double\" name=\""
                << detail::html_escape(k.name) << ".efficiency\">"
                << detail::fixed(*k.result.efficiency, 4) << "</CTestMeasurement>\n";
    }
  }
}
} // namespace

action add_run_command(CLI::App& app, const std::vector<std::string>& argv,
                       const std::vector<std::string>& program) {
  auto o = std::make_shared<run_options>();
  auto* cmd = app.add_subcommand(
      "run", "Run a program, profile its kernels, predict their bounds and gate on them");
  cmd->add_option("--collector", o->collector,
                  "How kernels are measured: auto (by what the program is and the machine "
                  "has: nvbench, gbench, cupti for CUDA, rocprof for HIP; else it says so), "
                  "cupti, ncu, rocprof, gbench, nvbench (an nvbench program: its times, "
                  "CUPTI's counters), or profile (a recorded --profile)")
      ->check(CLI::IsMember({"auto", "cupti", "ncu", "rocprof", "gbench", "nvbench", "profile"}))
      ->capture_default_str();
  cmd->add_option("--profile", o->profile_file, "With --collector profile: the recorded profile");
  cmd->add_option("--device", o->devices,
                  "Device (built-in id or perfgate-device/1 file); the first is the local device "
                  "the program runs on, the others are predicted for too")
      ->required();
  cmd->add_option("--kernels", o->kernels, "Only kernels / benchmarks matching this regex");
  cmd->add_option("--min-efficiency", o->min_efficiency,
                  "Fail when bound time / measured time falls below this")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-efficiency", o->max_efficiency,
                  "Fail when the kernel beats its bound by more than this ratio")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--expect-bound", o->expect_bound,
                  "Fail when the class on the local device differs (memory or compute); "
                  "latency: met by a kernel latency-bound by duration, else a warning (the "
                  "pipeline model's class needs the kernel's instruction graph)")
      ->check(CLI::IsMember({"memory", "compute", "latency"}));
  cmd->add_option("--baseline", o->baseline_file,
                  "Fail on a class flip or an efficiency drop against this baseline or report");
  cmd->add_option("--max-efficiency-drop", o->max_efficiency_drop,
                  "Allowed relative efficiency drop against the baseline")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--hull-species", o->hull_species,
                  "Hold each kernel to the boat hull band of this class on the local device "
                  "(`perfgate hull --list-classes`); needs --hull-f");
  cmd->add_option("--hull-f", o->hull_f,
                  "The class's operations per operator application (an FMA counts 2)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--hull-tolerance", o->hull_tolerance,
                  "Allowed relative slowdown past the band's upper end")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--hull-element-bytes", o->hull_element_bytes,
                  "Bytes per element of the class's data (8 for double)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--report", o->report_file,
                  "Write the " + std::string(report_schema) + " JSON here (atomically)");
  cmd->add_option("--timeout", o->timeout_s,
                  "Kill the program after this many seconds, all its runs together (exit 3)")
      ->check(finite_seconds());
  cmd->add_option("--repetitions", o->repetitions, "gbench: repetitions per benchmark")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--target-ci", o->target_ci,
                  "gbench: repeat in rounds of --repetitions (at least 6) until each median's "
                  "95% interval lies within +- this fraction of it (0.01: 1%)")
      ->check(CLI::Range(1e-4, 1.0));
  cmd->add_option("--time-budget", o->time_budget_s,
                  "gbench with --target-ci: start no round that would end after this many "
                  "seconds")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--confirm-budget", o->confirm_budget_s,
                  "With --baseline: while a kernel's verdict is AMBIGUOUS, run the program "
                  "again (a fresh process, only that benchmark for gbench) and judge all runs "
                  "by the floor rule, starting no run that would end after this many seconds; "
                  "0 turns it off. A recorded profile is never run again")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--ab-budget", o->ab_budget_s,
                  "Where the baseline keeps its build (baseline accept --keep-build) and a "
                  "kernel is slower than its stored runs or undecided: run that build and this "
                  "one alternately for this many seconds at most to decide, instead of "
                  "confirmation runs (0: confirm against the stored runs)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_flag("--flush-l2", o->flush_l2,
                "cupti: flush the GPU's L2 before every launch of the timing run (cold-cache "
                "times; ncu does so by default)");
  cmd->add_option("--counter-cache", o->counter_cache,
                  "nvbench: keep each state's counter run in this folder and reuse it while the "
                  "program's files are unchanged (counters repeat, times do not; "
                  "add_perf_prediction gives its build tree's)");
  cmd->add_flag("--keep-warm-up", o->keep_warm_up,
                "cupti, ncu, rocprof: keep each kernel's first launch (left out by default when "
                "a kernel is launched more than once: its warm-up)");
  cmd->add_option("--confidence", o->confidence,
                  "Of the statistical verdict against --baseline: a drop beyond "
                  "--max-efficiency-drop fails only with this confidence")
      ->check(CLI::Range(0.5, 0.9999))
      ->capture_default_str();
  cmd->add_option("--gpu-calibrations", o->gpu_calibrations,
                  "When CTest gives this test a GPU (RESOURCE_GROUPS gpus:1 and a resource "
                  "specification, `perfgate resources`): gate on DIR/gpu-<id>.json instead of "
                  "the first --device, calibrating that GPU first when the file is missing or "
                  "older than perfgate");
  cmd->add_option("--idg", o->idg_files,
                  "A kernel's instruction dependence graph (perfgate pipeline idg): the pipeline "
                  "model simulates its launch on the local device; where it is latency-bound, "
                  "that is its class and MIN_EFFICIENCY applies against the model's time");
  cmd->add_option("--latencies", o->latencies_file,
                  "With --idg: the local device's latencies (perfgate calibrate --latencies, "
                  "perfgate pipeline fit)");
  cmd->footer("After --: PROGRAM [ARGS...], the program to run, its arguments passed untouched");
  return [o, argv, program]() {
    const auto begun = std::chrono::steady_clock::now();
    o->program = program;
    gate_policy policy;
    policy.min_efficiency = o->min_efficiency;
    policy.max_efficiency = o->max_efficiency;
    policy.expect_bound = parse_bound(o->expect_bound);
    policy.expect_latency = o->expect_bound == "latency";
    policy.max_efficiency_drop = o->max_efficiency_drop;
    policy.confidence = o->confidence;
    if (!o->hull_species.empty() || o->hull_f) {
      if (o->hull_species.empty() || !o->hull_f) {
        throw usage_error("--hull-species and --hull-f go together: the band needs the class and "
                          "its operator complexity");
      }
      (void)hull::parse_species(o->hull_species); // a typo fails before the program runs
      policy.hull = hull_policy{o->hull_species, *o->hull_f, o->hull_tolerance, {}};
      policy.hull->assumed.element_bytes = o->hull_element_bytes;
    }
    if (!o->baseline_file.empty()) {
      policy.base = baseline_from_json(read_text_file(o->baseline_file), o->baseline_file);
      if (policy.base->build && o->ab_budget_s > 0) {
        (void)stored_build_of(*o, *policy.base->build); // a bad copy fails before any run
      }
    }
    pin_to_ctest_gpu(*o, argv);
    // Collect first: a collector that cannot work here skips (77) before a missing local
    // device file (a GPU calibration that found no GPU) is an error.
    const profile p = collect(*o);
    print_tool_errors(p);
    std::vector<device> devices;
    for (const auto& d : o->devices) {
      devices.push_back(resolve_device(d));
    }
    if (const int missing = check_gated_kernels_present(p, o->kernels); missing != 0) {
      return missing;
    }
    if (!o->idg_files.empty() || !o->latencies_file.empty()) {
      if (o->idg_files.empty() || o->latencies_file.empty()) {
        throw usage_error("--idg and --latencies go together: the pipeline model needs the "
                          "kernel's graph and the device's latencies");
      }
      policy.pipeline = pipeline_estimates(o->idg_files, o->latencies_file, p, devices.front());
    }
    report r = predict_report(p, devices, o->kernels, true);
    r.meta = make_run_meta("run", argv);
    apply_gate(r, policy);
    confirm(r, policy, *o, devices, begun);
    decide_by_stored_build(r, policy, *o, devices, begun);
    print_summary(r);
    if (!o->report_file.empty()) {
      const std::filesystem::path path(o->report_file);
      create_parent_directories(path);
      // The local device's roofline beside the report, attached to the test for CDash; the
      // two are written as one unit, so a report never sits beside another run's chart.
      std::filesystem::path chart = path;
      chart.replace_extension(".roofline.svg");
      const std::string json = report_to_json(r);
      const std::string svg = report_roofline_svg(r, 0);
      write_files_atomically({{path, json}, {chart, svg}});
      std::cout << "perfgate: report " << o->report_file << "\n"
                << "<CTestMeasurementFile type=\"image/svg+xml\" name=\"roofline\">"
                << detail::html_escape(std::filesystem::absolute(chart).string())
                << "</CTestMeasurementFile>\n";
    }
    return static_cast<int>(gate_exit_status(r));
  };
}

action add_baseline_command(CLI::App& app) {
  struct options {
    std::vector<std::string> report_files;
    std::string output;
    std::string keep_build;
  };
  auto o = std::make_shared<options>();
  auto* cmd =
      app.add_subcommand("baseline", "Record a report as the baseline later runs compare with");
  cmd->require_subcommand(1);
  auto* accept = cmd->add_subcommand(
      "accept", "Keep what a later comparison needs: per kernel, its class on every device, its "
                "efficiency on the local device and every sample's, by run");
  accept
      ->add_option("reports", o->report_files,
                   "perfgate-report files: one run, or several runs of the same tests (their "
                   "spread is what a later run is allowed)")
      ->required();
  accept->add_option("-o,--output", o->output, "perfgate-baseline/2 file to write (atomically)")
      ->required();
  accept->add_option("--keep-build", o->keep_build,
                     "The executable the reports measured: a copy is kept beside the baseline "
                     "(OUTPUT's name with .build/), so a later run slower than the stored runs "
                     "or undecided runs it alternately with itself to decide (run --ab-budget)");
  return [o]() {
    std::vector<report> runs;
    for (const auto& f : o->report_files) {
      runs.push_back(report_from_json(read_text_file(f), f));
    }
    std::string source = o->report_files.front();
    if (o->report_files.size() > 1) {
      source += " and " + std::to_string(o->report_files.size() - 1) + " more run" +
                (o->report_files.size() > 2 ? "s" : "");
    }
    baseline b = baseline_from_reports(runs, source);
    if (!o->keep_build.empty()) {
      // Beside the baseline, so the two travel together (a cache, an artifact, a commit).
      const std::filesystem::path out(o->output);
      const std::filesystem::path relative = std::filesystem::path(out.stem().string() + ".build") /
                                             std::filesystem::path(o->keep_build).filename();
      const std::filesystem::path copy = out.parent_path() / relative;
      copy_executable(o->keep_build, copy);
      b.build = stored_build{relative.string(), file_fnv1a64(copy)};
      std::cerr << "perfgate: kept " << o->keep_build << " as " << copy.string() << "\n";
    }
    emit(baseline_to_json(b), o->output);
    return 0;
  };
}

} // namespace perfgate::cli
