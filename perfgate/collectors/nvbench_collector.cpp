// SPDX-License-Identifier: Apache-2.0
#include "collectors/nvbench_collector.hpp"

#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/counter_cache.hpp"
#include "collectors/cupti/kernel_book.hpp"
#include "importers/counter_mapping.hpp"
#include "util/subprocess.hpp"

#include <filesystem>
#include <iostream>
#include <regex>
#include <set>

namespace perfgate::detail {

namespace fs = std::filesystem;

std::vector<std::string> nvbench_program(const std::vector<std::string>& argv) {
  std::vector<std::string> program;
  for (const auto& arg : argv) {
    if (!program.empty() && arg.starts_with("-")) {
      break;
    }
    program.push_back(arg);
  }
  return program;
}

std::vector<std::string> nvbench_state_command(const std::vector<std::string>& program,
                                               const nvbench_state& state) {
  std::vector<std::string> argv = program;
  argv.insert(argv.end(), {"--benchmark", state.benchmark});
  for (const auto& axis : state.axis_args) {
    argv.insert(argv.end(), {"--axis", axis});
  }
  if (state.device) {
    argv.insert(argv.end(), {"--devices", std::to_string(*state.device)});
  }
  argv.emplace_back("--profile"); // each state's kernels once, no blocking kernel, no batch
  return argv;
}

std::vector<std::string>
nvbench_measured_kernels(const cupti_run& census,
                         const std::vector<std::optional<cupti_run>>& state_runs) {
  std::map<std::string, std::uint64_t> once;
  for (const auto& run : state_runs) {
    if (run) {
      for (const auto& k : run->kernels) {
        once[k.name] += k.launches;
      }
    }
  }
  std::vector<std::string> measured;
  for (const auto& k : census.kernels) {
    if (k.launches > once[k.name]) {
      measured.push_back(k.name);
    }
  }
  return measured;
}

namespace {

// The counters of one execution of a state: the measured kernels of its own run, each scaled to
// its launches where the Range Profiler dropped some, summed.
std::optional<kernel_profile> state_counters(const cupti_run& run,
                                             const std::set<std::string>& measured,
                                             std::string& counted, std::string& setup) {
  std::map<std::string, double, std::less<>> totals;
  std::optional<launch_config> launch;
  bool any = false;
  for (const auto& k : run.kernels) {
    if (!measured.contains(k.name)) {
      setup += (setup.empty() ? "" : ", ") + k.name;
      continue;
    }
    counted += (counted.empty() ? "" : ", ") + k.name + " (" + std::to_string(k.launches) +
               " launch" + (k.launches == 1 ? "" : "es") + ")";
    if (k.profiled_launches == 0) {
      continue;
    }
    const double scale = static_cast<double>(k.launches) / static_cast<double>(k.profiled_launches);
    for (const auto& [name, value] : k.metrics) {
      if (!cupti::is_rate_metric(name)) { // a clock or a ratio, not an amount to add up
        totals[name] += value * scale;
      }
    }
    launch = launch ? launch : k.launch;
    any = true;
  }
  if (!any) {
    return std::nullopt;
  }
  kernel_profile kp;
  kp.counters = resolve_counters(ncu_counter_sources(), totals);
  kp.launch = launch;
  return kp;
}

} // namespace

profile profile_from_nvbench_runs(const nvbench_file& f, const std::string& file,
                                  const cupti_run& census,
                                  const std::vector<std::optional<cupti_run>>& state_runs,
                                  std::vector<std::string>* notes) {
  if (state_runs.size() != f.states.size()) {
    throw std::logic_error("profile_from_nvbench_runs: one counter run (or none) per state");
  }
  profile p = profile_from_nvbench(f, file);
  p.native_counter_names = native_names(ncu_counter_sources());
  const auto names = nvbench_measured_kernels(census, state_runs);
  const std::set<std::string> measured(names.begin(), names.end());
  for (std::size_t i = 0; i < f.states.size(); ++i) {
    if (!state_runs[i]) {
      continue;
    }
    const auto& st = f.states[i];
    const auto k = std::find_if(p.kernels.begin(), p.kernels.end(),
                                [&](const kernel_profile& kp) { return kp.name == st.kernel; });
    if (k == p.kernels.end()) {
      continue; // skipped, or no time: already in tool_errors
    }
    std::string counted;
    std::string setup;
    auto counters = state_counters(*state_runs[i], measured, counted, setup);
    if (notes != nullptr) {
      notes->push_back(st.kernel + ": " +
                       (counters ? "counters of " + counted
                                 : std::string("no kernel of its own measurement in its run, "
                                               "judged on its declared bytes")) +
                       (setup.empty() ? "" : "; left out as setup: " + setup));
    }
    if (!counters) {
      continue;
    }
    // The counters describe the execution nvbench timed: they replace the declared bytes,
    // which were the benchmark's claim about the same traffic.
    k->counters = std::move(counters->counters);
    k->launch = counters->launch;
    k->work.reset();
  }
  return p;
}

namespace {

nvbench_file read_run_output(const fs::path& json, const std::string& program) {
  if (!fs::exists(json)) {
    throw target_error(program + " wrote no nvbench JSON (" + json.string() +
                       "): is it an nvbench program (NVBENCH_MAIN, or cuda.bench's "
                       "run_all_benchmarks)?");
  }
  return read_nvbench_json(read_text_file(json), json.string());
}

#ifndef PERFGATE_HAVE_CUPTI
void check_plain_run(const process_result& result, const std::string& program) {
  if (result.not_found) {
    throw target_error("cannot start " + program + ": not found or not executable");
  }
  if (result.timed_out || result.signal != 0 || result.exit_code != 0) {
    throw target_error(program + " " + result.describe());
  }
}
#endif

#ifdef PERFGATE_HAVE_CUPTI
// The states --kernels names (the CUPTI counter runs count those alone).
bool selected(const nvbench_state& st, const std::string& regex) {
  return regex.empty() || std::regex_search(st.kernel, std::regex(regex));
}

// The counter run of each state in `to_count`: from the request's counter cache while the
// program is unchanged, else a run of the state alone under kernel replay (kept for next time).
std::vector<std::optional<cupti_run>> count_states(const collect_request& request,
                                                   const nvbench_file& f,
                                                   const std::vector<std::size_t>& to_count,
                                                   const cupti_session& session,
                                                   const cupti_run& census) {
  std::optional<counter_cache> cache;
  if (!request.counter_cache_dir.empty()) {
    cache.emplace(request.counter_cache_dir);
  }
  const std::string device = census.device_name + " (" + session.chip + ")";
  std::vector<std::optional<cupti_run>> state_runs(f.states.size());
  const auto base = nvbench_program(request.program);
  std::size_t reused = 0;
  for (std::size_t n = 0; n < to_count.size(); ++n) {
    const auto& st = f.states[to_count[n]];
    collect_request one = request;
    one.program = nvbench_state_command(base, st);
    const auto key = counter_cache_key_of(one.program, device, session.plan.metrics);
    bool hit = false;
    state_runs[to_count[n]] = cached_counter_run(
        cache ? &*cache : nullptr, key,
        [&] {
          std::cerr << "perfgate: nvbench: counter run " << (n + 1) << " of " << to_count.size()
                    << ": " << st.kernel << " (" << session.plan.metrics.size() << " metrics, "
                    << session.plan.passes << " pass" << (session.plan.passes == 1 ? "" : "es")
                    << " per kernel)\n";
          std::string text;
          (void)run_injected(one, "counters", session.library, session.plan.metrics,
                             "counter run of " + st.kernel, &text);
          return text;
        },
        &hit);
    reused += hit ? 1 : 0;
  }
  if (reused > 0) {
    std::cerr << "perfgate: nvbench: counters of " << reused << " of " << to_count.size()
              << " states reused from " << request.counter_cache_dir
              << " (the program's files unchanged since they were counted)\n";
  }
  return state_runs;
}
#endif

} // namespace

profile collect_nvbench(const collect_request& request) {
  if (auto why = nvidia_gpu_unavailable()) {
    throw skip_error(*why + " (nvbench needs a CUDA device)");
  }
  const std::string program = request.program.front();
  const scratch_dir scratch("perfgate-nvbench-"); // the JSON and its sample files
  const fs::path json = scratch.path() / "nvbench.json";
  collect_request run = request;
  run.program.insert(run.program.end(), {"--jsonbin", json.string()});
#ifndef PERFGATE_HAVE_CUPTI
  std::cerr << "perfgate: warning: this perfgate was built without CUPTI: the nvbench states are "
               "judged on their declared global memory bytes alone (memory roof)\n";
  process_options o;
  o.timeout_s = request.time_left();
  check_plain_run(run_process(run.program, o), program);
  auto p = profile_from_nvbench(read_run_output(json, program), program);
  p.source_file = program;
  return p;
#else
  const auto session = open_cupti_session();
  std::cerr << "perfgate: nvbench: " << program
            << " with --jsonbin (times), kernel launches traced by CUPTI\n";
  const auto census = run_injected(run, "timing", session.library, {}, "nvbench run");
  const auto f = read_run_output(json, program);
  std::vector<std::size_t> to_count;
  for (std::size_t i = 0; i < f.states.size(); ++i) {
    if (!f.states[i].skipped && !f.states[i].cpu_only && selected(f.states[i], request.kernel_regex)) {
      to_count.push_back(i);
    }
  }
  const auto state_runs = count_states(request, f, to_count, session, census);
  std::vector<std::string> notes;
  auto p = profile_from_nvbench_runs(f, program, census, state_runs, &notes);
  for (const auto& note : notes) {
    std::cerr << "perfgate: nvbench: " << note << "\n";
  }
  p.source_file = program;
  return p;
#endif
}

} // namespace perfgate::detail
