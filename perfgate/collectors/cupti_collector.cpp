// SPDX-License-Identifier: Apache-2.0
// `perfgate run --collector cupti`: the program runs twice with libperfgate_cupti.so injected
// by the CUDA driver (CUDA_INJECTION64_PATH), once for kernel times and once for counters, and
// the two `perfgate-cupti/1` files become one profile.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/version.hpp>

#include "collectors/collectors.hpp"
#include "collectors/cupti/kernel_book.hpp"
#include "importers/counter_mapping.hpp"
#include "util/json_fields.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

#ifdef PERFGATE_HAVE_CUPTI
#include "collectors/cupti/chip_metrics.hpp"
#include "collectors/cupti/cupti_host.hpp"
#include "util/runtime_library.hpp"
#endif

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <unistd.h>

namespace perfgate::detail {

namespace fs = std::filesystem;

namespace {

constexpr const char* sm_clock_metric_name = "sm__cycles_elapsed.avg.per_second";

std::vector<std::string> strings(const json_fields& f, std::string_view key) {
  return f.has(key) ? f.strings(key) : std::vector<std::string>{};
}

} // namespace

cupti_run cupti_run_from_json(std::string_view text, const std::string& file) {
  const auto root_json = json_fields::parse(text, file);
  const json_fields root(root_json, file, "");
  (void)root.schema({cupti_run_schema});
  cupti_run run;
  run.file = file;
  run.mode = root.string("mode");
  if (run.mode != "timing" && run.mode != "counters") {
    root.fail("mode", "expected \"timing\" or \"counters\", found \"" + run.mode + "\"");
  }
  run.status = root.string("status");
  if (run.status != "ok" && run.status != "skipped" && run.status != "failed") {
    root.fail("status", "expected \"ok\", \"skipped\" or \"failed\", found \"" + run.status + "\"");
  }
  run.reason = root.string_or("reason", "");
  if (root.has("device")) {
    const auto device = root.object("device");
    run.device_name = device.string_or("name", "");
    run.chip = device.string_or("chip", "");
  }
  run.metrics = strings(root, "metrics");
  run.passes = root.has("passes") ? root.count("passes") : 0;
  run.ranges_dropped = root.has("ranges_dropped") ? root.count("ranges_dropped") : 0;
  run.warnings = strings(root, "warnings");
  for (const auto& k : root.elements("kernels")) {
    cupti_kernel_run kr;
    kr.name = k.string("name");
    kr.launches = k.count("launches");
    if (k.has("durations_ns")) {
      const auto& durations = k.array("durations_ns");
      for (std::size_t d = 0; d < durations.size(); ++d) {
        if (!durations[d].is_number() || durations[d].get<double>() < 0) {
          k.fail("durations_ns[" + std::to_string(d) + "]", "expected a number >= 0");
        }
        kr.durations_ns.push_back(durations[d].get<double>());
      }
    }
    if (k.has("launch_configs")) {
      const auto& configs = k.array("launch_configs");
      if (configs.size() != kr.durations_ns.size()) {
        k.fail("launch_configs", "expected one per entry of durations_ns (" +
                                     std::to_string(kr.durations_ns.size()) + "), found " +
                                     std::to_string(configs.size()));
      }
      for (std::size_t c = 0; c < configs.size(); ++c) {
        const auto& v = configs[c];
        const auto positive = [&](std::size_t i) {
          return v[i].is_number_unsigned() && (i == 6 || v[i].get<std::uint64_t>() > 0);
        };
        if (!v.is_array() || v.size() != 7 ||
            !std::all_of(v.begin(), v.end(),
                         [](const auto& x) { return x.is_number_unsigned(); }) ||
            !positive(0) || !positive(1) || !positive(2) || !positive(3) || !positive(4) ||
            !positive(5)) {
          k.fail("launch_configs[" + std::to_string(c) + "]",
                 "expected [grid x, y, z, block x, y, z, dynamic shared bytes], grid and block "
                 "> 0, found " +
                     v.dump());
        }
        launch_shape s;
        s.grid = {v[0].get<std::uint64_t>(), v[1].get<std::uint64_t>(), v[2].get<std::uint64_t>()};
        s.block = {v[3].get<std::uint64_t>(), v[4].get<std::uint64_t>(), v[5].get<std::uint64_t>()};
        s.shared_bytes = v[6].get<std::uint64_t>();
        kr.shapes.push_back(s);
      }
    }
    if (k.has("grid") && k.has("block")) {
      kr.launch = launch_config{k.dim3("grid"), k.dim3("block")};
    }
    kr.profiled_launches = k.has("profiled_launches") ? k.count("profiled_launches") : 0;
    if (k.has("metrics")) {
      const auto metrics = k.object("metrics");
      for (const auto& [name, value] : metrics.raw().items()) {
        kr.metrics[name] = metrics.non_negative(name);
      }
    }
    if (k.has("range_values")) {
      const auto& ranges = k.array("range_values");
      for (std::size_t r = 0; r < ranges.size(); ++r) {
        const auto& v = ranges[r];
        if (!v.is_array() || v.size() != run.metrics.size() ||
            !std::all_of(v.begin(), v.end(), [](const auto& x) {
              return x.is_number() && x.template get<double>() >= 0;
            })) {
          k.fail("range_values[" + std::to_string(r) + "]", "expected " +
                                                                std::to_string(run.metrics.size()) +
                                                                " numbers >= 0, one per metric");
        }
        kr.range_values.push_back(v.get<std::vector<double>>());
      }
      if (kr.range_values.size() != kr.profiled_launches) {
        k.fail("range_values", "expected one per profiled launch (" +
                                   std::to_string(kr.profiled_launches) + "), found " +
                                   std::to_string(kr.range_values.size()));
      }
    }
    if (k.has("sm_clock_mhz")) {
      kr.nvml_clock_mhz = k.object("sm_clock_mhz").positive("mean");
    }
    kr.clock_limits = strings(k, "clock_limits");
    run.kernels.push_back(std::move(kr));
  }
  return run;
}

namespace {

constexpr std::string_view work_metric = "smsp__inst_executed.sum";

// One kernel per launch group of `t` (timing) and `c` (counters), when both runs recorded every
// launch and the launches form more than one group; else nothing (one kernel, as before).
std::vector<kernel_profile> launch_group_kernels(const cupti_kernel_run& t,
                                                 const cupti_kernel_run& c,
                                                 const std::vector<std::string>& metrics) {
  const std::size_t n = t.durations_ns.size();
  if (n == 0 || t.shapes.size() != n || c.range_values.size() != n) {
    return {};
  }
  const auto at = std::find(metrics.begin(), metrics.end(), work_metric);
  std::vector<double> work(n, 0.0);
  if (at != metrics.end()) {
    for (std::size_t i = 0; i < n; ++i) {
      work[i] = c.range_values[i][static_cast<std::size_t>(at - metrics.begin())];
    }
  }
  const auto groups = group_launches(t.shapes, work);
  if (groups.size() < 2) {
    return {};
  }
  std::vector<kernel_profile> out;
  for (const auto& g : groups) {
    kernel_profile k;
    k.name = t.name + g.suffix;
    std::vector<double> seconds;
    std::map<std::string, double, std::less<>> totals;
    std::map<std::string, double, std::less<>> rate_sums;
    for (std::size_t i : g.launches) {
      seconds.push_back(t.durations_ns[i] * 1e-9);
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        (cupti::is_rate_metric(metrics[m]) ? rate_sums : totals)[metrics[m]] +=
            c.range_values[i][m];
      }
    }
    k.duration = duration_stats::from_samples(seconds);
    k.time_s = k.duration->total_s;
    k.invocations = k.duration->samples;
    k.launch = launch_config{g.shape.grid, g.shape.block};
    k.counters = resolve_counters(ncu_counter_sources(), totals);
    if (const auto clock = rate_sums.find(sm_clock_metric_name); clock != rate_sums.end()) {
      k.sm_clock_mhz = clock->second / static_cast<double>(g.launches.size()) / 1e6;
    }
    if (t.nvml_clock_mhz) {
      k.sm_clock_mhz = t.nvml_clock_mhz;
      k.clock_limits = t.clock_limits;
    }
    out.push_back(std::move(k));
  }
  return out;
}

} // namespace

profile profile_from_cupti_runs(const cupti_run& timing, const cupti_run& counters) {
  profile p;
  p.format = profile_format::cupti;
  p.device_name = !timing.device_name.empty() ? timing.device_name : counters.device_name;
  p.warp_size = 32;
  p.native_counter_names = native_names(ncu_counter_sources());
  auto find = [](const cupti_run& run, const std::string& name) -> const cupti_kernel_run* {
    for (const auto& k : run.kernels) {
      if (k.name == name) {
        return &k;
      }
    }
    return nullptr;
  };
  auto add = [&](const cupti_kernel_run* t, const cupti_kernel_run* c) {
    kernel_profile k;
    k.name = t != nullptr ? t->name : c->name;
    k.invocations = t != nullptr ? t->launches : c->launches;
    if (t != nullptr && !t->durations_ns.empty()) {
      std::vector<double> seconds;
      for (double ns : t->durations_ns) {
        seconds.push_back(ns * 1e-9);
      }
      k.duration = duration_stats::from_samples(seconds);
      k.time_s = k.duration->total_s;
      k.invocations = k.duration->samples;
    }
    k.launch = t != nullptr && t->launch ? t->launch : (c != nullptr ? c->launch : std::nullopt);
    if (c != nullptr && c->profiled_launches > 0) {
      std::map<std::string, double, std::less<>> totals(c->metrics.begin(), c->metrics.end());
      k.counters = resolve_counters(ncu_counter_sources(), totals);
      // The counters must describe the launches that were timed: per-launch counts are the
      // same from run to run, so a different number of profiled launches is scaled.
      const double scale =
          static_cast<double>(k.invocations) / static_cast<double>(c->profiled_launches);
      for (auto& [name, value] : k.counters) {
        value *= scale;
      }
      if (const auto clock = c->metrics.find(sm_clock_metric_name); clock != c->metrics.end()) {
        k.sm_clock_mhz = clock->second / 1e6;
      }
    }
    // NVML sampled in the timed run beats the clock under replay.
    if (t != nullptr && t->nvml_clock_mhz) {
      k.sm_clock_mhz = t->nvml_clock_mhz;
      k.clock_limits = t->clock_limits;
    }
    p.kernels.push_back(std::move(k));
  };
  for (const auto& t : timing.kernels) {
    if (t.launches > 0 || !t.durations_ns.empty()) {
      const cupti_kernel_run* c = find(counters, t.name);
      auto groups = c != nullptr ? launch_group_kernels(t, *c, counters.metrics)
                                 : std::vector<kernel_profile>{};
      if (groups.empty()) {
        add(&t, c);
      }
      for (auto& k : groups) {
        p.kernels.push_back(std::move(k));
      }
    }
  }
  for (const auto& c : counters.kernels) {
    if (find(timing, c.name) == nullptr && c.launches > 0) {
      add(nullptr, &c);
    }
  }
  return p;
}

std::vector<std::pair<std::string, std::string>>
cupti_run_environment(const std::string& mode, const std::string& library,
                      const std::string& output, const std::vector<std::string>& metrics,
                      bool flush_l2) {
  std::vector<std::pair<std::string, std::string>> env = {{"CUDA_INJECTION64_PATH", library},
                                                          {"PERFGATE_CUPTI_MODE", mode},
                                                          {"PERFGATE_CUPTI_OUTPUT", output}};
  if (mode == "counters") {
    env.emplace_back("PERFGATE_CUPTI_METRICS", join(metrics, ","));
  }
  if (mode == "timing" && flush_l2) {
    env.emplace_back("PERFGATE_CUPTI_FLUSH_L2", "1");
  }
  return env;
}

#ifdef PERFGATE_HAVE_CUPTI
namespace {

std::string injection_library() {
  if (const char* env = std::getenv("PERFGATE_CUPTI_INJECTION"); env != nullptr && *env != 0) {
    return env;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = self.parent_path() / PERFGATE_CUPTI_INJECTION_RELATIVE;
    if (fs::exists(installed)) {
      return fs::weakly_canonical(installed).string();
    }
  }
  if (fs::exists(PERFGATE_CUPTI_INJECTION_BUILT)) {
    return PERFGATE_CUPTI_INJECTION_BUILT;
  }
  throw skip_error(std::string("the CUPTI injection library is missing: neither ") +
                   PERFGATE_CUPTI_INJECTION_RELATIVE + " beside the perfgate command nor " +
                   PERFGATE_CUPTI_INJECTION_BUILT + " exists (set PERFGATE_CUPTI_INJECTION)");
}

} // namespace

cupti_run run_injected(const collect_request& request, const std::string& mode,
                       const std::string& library, const std::vector<std::string>& metrics,
                       const std::string& what, std::string* text) {
  const fs::path output = fs::temp_directory_path() /
                          ("perfgate-cupti-" + mode + "-" + std::to_string(::getpid()) + ".json");
  fs::remove(output);
  process_options o;
  o.timeout_s = request.time_left();
  o.environment = cupti_run_environment(mode, library, output.string(), metrics, request.flush_l2);
  // The injection library links libcupti without a search path of its own (the package has
  // none into a toolkit): the program finds the one this command loaded.
  if (const auto cupti_file = cupti::library_path(); !cupti_file.empty()) {
    o.environment.emplace_back(
        "LD_LIBRARY_PATH", prepend_search_path(fs::path(cupti_file).parent_path().string(),
                                               std::getenv("LD_LIBRARY_PATH")));
  }
  const auto result = run_process(request.program, o);
  const std::string program = request.program.front();
  if (result.not_found) {
    throw target_error("cannot start " + program + ": not found or not executable");
  }
  if (result.timed_out || result.signal != 0 || result.exit_code != 0) {
    fs::remove(output);
    throw target_error(program + " " + result.describe() + " in the " + what +
                       (mode == "counters" ? " (kernel replay serialises launches and replays "
                                             "each kernel once per pass; a longer TIMEOUT or a "
                                             "smaller problem may be needed)"
                                           : ""));
  }
  if (!fs::exists(output)) {
    throw target_error(program + " exited without the injection library's results from the " +
                       what +
                       ": it never initialised CUDA, or it ended through _exit()/abort "
                       "before the library's exit handler ran");
  }
  const std::string json = read_text_file(output);
  auto run = cupti_run_from_json(json, output.string());
  fs::remove(output);
  if (text != nullptr) {
    *text = json;
  }
  for (const auto& w : run.warnings) {
    std::cerr << "perfgate: warning (" << what << "): " << w << "\n";
  }
  if (run.status == "skipped") {
    throw skip_error(run.reason);
  }
  if (run.status == "failed") {
    throw target_error("profiling " + program + " failed in the " + what + ": " + run.reason);
  }
  if (run.ranges_dropped > 0) {
    std::cerr << "perfgate: warning: " << run.ranges_dropped
              << " kernel ranges were dropped by the Range Profiler\n";
  }
  return run;
}

cupti_session open_cupti_session() {
  cupti_session session;
  session.library = injection_library();
  try {
    session.chip = cupti::chip_of_device(0);
  } catch (const cupti::cupti_failure& e) {
    throw skip_error(std::string("cannot identify the GPU's chip: ") + e.what());
  } catch (const cupti::cupti_unavailable& e) {
    throw skip_error(e.what());
  }
  try {
    session.plan = plan_chip_metrics(session.chip);
  } catch (const usage_error& e) {
    throw skip_error(std::string("unsupported chip: ") + e.what());
  }
  for (const auto& missing : session.plan.missing_model_inputs()) {
    std::cerr << "perfgate: warning: chip " << session.chip << " has no metric for " << missing
              << "\n";
  }
  return session;
}
#endif

ncu_metric_sets ncu_metrics_for_local_gpu() {
#ifdef PERFGATE_HAVE_CUPTI
  // Only after the device check: naming the chip is a target-side CUPTI call.
  if (!nvidia_gpu_unavailable()) {
    try {
      auto plan = plan_chip_metrics(cupti::chip_of_device(0));
      return {std::move(plan.metrics), std::move(plan.tensor_metrics)};
    } catch (const std::exception& e) {
      std::cerr << "perfgate: warning: no per-chip metric plan (" << e.what()
                << "); asking ncu for the default names, without tensor operations\n";
    }
  }
#endif
  return {ncu_default_metrics(), {}};
}

#ifdef PERFGATE_HAVE_CUPTI // the counter runs' memo serves the CUPTI runs alone
namespace {

std::string memo_key(const std::vector<std::string>& program) {
  std::string key;
  for (const auto& a : program) {
    key += a + '\x1f';
  }
  return key;
}

// The counter run of `key` made by an earlier collection when the request keeps them, else
// `run()`'s, kept for the next.
template <class Run>
cupti_run memoised(const collect_request& request, const std::string& key, Run run) {
  if (request.counter_runs == nullptr) {
    return run();
  }
  if (const auto it = request.counter_runs->find(key); it != request.counter_runs->end()) {
    std::cerr << "perfgate: cupti: counters of this build as counted in its first run\n";
    return it->second;
  }
  return request.counter_runs->emplace(key, run()).first->second;
}

} // namespace
#endif

profile collect_cupti(const collect_request& request) {
  if (auto why = nvidia_gpu_unavailable()) {
    throw skip_error(*why);
  }
#ifndef PERFGATE_HAVE_CUPTI
  (void)request;
  throw skip_error("this perfgate was built without CUPTI (no CUDA toolkit with CUPTI was found "
                   "at configure time): use COLLECTOR ncu, or rebuild with the toolkit");
#else
  const auto [library, chip, plan] = open_cupti_session();
  std::cerr << "perfgate: cupti: timing run of " << request.program.front() << "\n";
  const auto timing = run_injected(request, "timing", library, {}, "timing run");
  if (request.counter_runs == nullptr || !request.counter_runs->count(memo_key(request.program))) {
    std::cerr << "perfgate: cupti: counter run on " << chip << " (" << plan.metrics.size()
              << " metrics, kernel replay with " << plan.passes << " pass"
              << (plan.passes == 1 ? "" : "es") << " per kernel)\n";
  }
  const std::string key = memo_key(request.program);
  // Structured bindings are captured by name (init-captures): clang before 16 refuses them.
  const auto counters = memoised(request, key, [&request, &lib = library, &pl = plan] {
    return run_injected(request, "counters", lib, pl.metrics, "counter run");
  });
  auto p = profile_from_cupti_runs(timing, counters);
  if (!plan.tensor_metrics.empty() && needs_tensor_run(p)) {
    std::cerr << "perfgate: cupti: kernels executed matrix instructions: tensor counter run ("
              << plan.tensor_metrics.size() << " metrics, " << plan.tensor_passes << " pass"
              << (plan.tensor_passes == 1 ? "" : "es") << " per kernel)\n";
    const auto tensor =
        memoised(request, key + "\x1ftensor", [&request, &lib = library, &pl = plan] {
          return run_injected(request, "counters", lib, pl.tensor_metrics, "tensor counter run");
        });
    add_tensor_counters(p, profile_from_cupti_runs(timing, tensor));
  }
  p.source_file = request.program.front();
  return p;
#endif
}

} // namespace perfgate::detail
