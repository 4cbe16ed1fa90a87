// SPDX-License-Identifier: Apache-2.0
// perfgate ab --base BIN --head BIN --device DEV... [-- ARGS...]: the base build and the head
// build of one program measured alternately on this machine in one session (ABBA), and the
// head's run medians judged against the base's (stats::judge_ab, docs/statistics.md).
// What moves a shared runner over minutes (its neighbours, its clocks) moves both sides
// alike, so it cancels where a stored baseline from another hour cannot.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>
#include <perfgate/run_meta.hpp>
#include <perfgate/writers.hpp>

#include "cli/commands.hpp"
#include "gate/efficiency_change.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

namespace perfgate::cli {

namespace {

struct ab_options {
  std::string base_binary;
  std::string head_binary;
  std::vector<std::string> devices;
  std::string collector = "auto";
  std::string kernels;
  double max_efficiency_drop = 0.10;
  double confidence = 0.95;
  int repetitions = 5;
  int min_rounds = 6; // three ABBA pairs of rounds: stats::ab_min_rounds
  // 60: simulated by resampling BM_triad's measured run medians, a 5% slowdown against a 2%
  // allowance was settled in 95% of sessions by 60 rounds, in 73% by 30 (docs/statistics.md).
  int max_rounds = 60;
  double time_budget_s = 600;
  std::optional<double> timeout_s;
  bool keep_warm_up = false;
  std::string report_file;
  std::vector<std::string> args;
};

// One run of one build: its kernels predicted on every device and their efficiencies on the
// first (a gate without criteria: efficiencies, no verdicts to speak of).
report measure(const ab_options& o, const std::string& binary,
               const std::vector<device>& devices, const run_meta& meta) {
  program_collection c;
  c.collector = o.collector;
  c.program = {binary};
  c.program.insert(c.program.end(), o.args.begin(), o.args.end());
  c.kernels = o.kernels;
  c.repetitions = o.repetitions;
  c.timeout_s = o.timeout_s;
  c.keep_warm_up = o.keep_warm_up;
  report r = predict_report(collect_program(c), devices, o.kernels, true);
  r.meta = meta;
  apply_gate(r, gate_policy{});
  return r;
}

// A run's time for one kernel: the median of 1 / efficiency over its samples (time over the
// roof's), which is what both builds share; nothing when the run did not measure it.
std::optional<double> run_time(const report& r, const std::string& kernel) {
  const auto k = std::find_if(r.kernels.begin(), r.kernels.end(),
                              [&](const kernel_report& x) { return x.name == kernel; });
  if (k == r.kernels.end() || !k->result.efficiency) {
    return std::nullopt;
  }
  const auto times =
      stats::relative_times({detail::efficiency_samples(*k, *k->result.efficiency)});
  return times.empty() ? 1 / *k->result.efficiency : stats::median(times.front());
}

// The SM clock each run measured while `kernel` ran (GPU collectors), in round order.
std::vector<double> run_clocks(const std::vector<report>& runs, const std::string& kernel) {
  std::vector<double> mhz;
  for (const auto& r : runs) {
    for (const auto& k : r.kernels) {
      if (k.name == kernel && k.measured && k.measured->sm_clock_mhz) {
        mhz.push_back(*k.measured->sm_clock_mhz);
      }
    }
  }
  return mhz;
}

// The head's first run with every kernel judged against the base over all rounds
// (detail::judge_interleaved): the verdict, its reasons, the efficiencies' medians.
report judge(const ab_options& o, const std::vector<report>& base,
             const std::vector<report>& head) {
  report r = head.front();
  const std::string on = " on " + r.devices.front().id;
  for (auto& k : r.kernels) {
    if (!k.result.efficiency) {
      continue; // skipped or unmeasured: its own verdict says why
    }
    std::vector<double> b, h;
    for (std::size_t i = 0; i < base.size() && i < head.size(); ++i) {
      const auto bt = run_time(base[i], k.name), ht = run_time(head[i], k.name);
      if (!bt || !ht) {
        throw target_error("round " + std::to_string(i + 1) + " did not measure '" + k.name +
                           "' in both builds: their kernels differ (--kernels selects those "
                           "both have)");
      }
      b.push_back(*bt);
      h.push_back(*ht);
    }
    const double base_eff = 1 / stats::median(b), head_eff = 1 / stats::median(h);
    auto judged = detail::judge_interleaved(b, h, base_eff, head_eff, o.max_efficiency_drop,
                                            o.confidence, on, "the base build " + o.base_binary);
    const auto clocks =
        detail::compare_ab_clocks(run_clocks(base, k.name), run_clocks(head, k.name));
    judged.warnings.insert(judged.warnings.end(), clocks.warnings.begin(), clocks.warnings.end());
    judged.notes.insert(judged.notes.end(), clocks.notes.begin(), clocks.notes.end());
    k.result.ab = judged.ab;
    k.result.baseline_efficiency = base_eff;
    auto& reasons = k.result.reasons;
    reasons.insert(reasons.begin(), judged.notes.begin(), judged.notes.end());
    reasons.insert(reasons.begin(), judged.warnings.begin(), judged.warnings.end());
    reasons.insert(reasons.begin(), judged.failures.begin(), judged.failures.end());
    if (!judged.failures.empty()) {
      k.result.status = verdict_status::fail;
    } else if (!judged.warnings.empty() && k.result.status != verdict_status::fail) {
      k.result.status = verdict_status::warn;
    }
  }
  return r;
}

std::vector<std::string> undecided(const report& r) {
  std::vector<std::string> names;
  for (const auto& k : r.kernels) {
    if (k.result.ab && k.result.ab->kind == stats::change::ambiguous) {
      names.push_back(k.name);
    }
  }
  return names;
}

// One line a round: the order it ran in, how many kernels are settled, the open ones.
void print_round(int round, const ab_options& o, bool head_first, double spent_s,
                 const report* judged) {
  std::cerr << "perfgate: ab round " << round << " of at most " << o.max_rounds << " ("
            << (head_first ? "head, base" : "base, head") << "; "
            << detail::fixed(spent_s, 1) << " s of " << detail::fixed(o.time_budget_s, 0)
            << " s)";
  if (judged == nullptr) {
    std::cerr << (round < o.min_rounds ? ": judged from round " + std::to_string(o.min_rounds)
                                       : std::string(": judged after the next (whole ABBA pairs)"))
              << "\n";
    return;
  }
  const auto open = undecided(*judged);
  std::cerr << ": " << judged->kernels.size() - open.size() << " of " << judged->kernels.size()
            << " kernel(s) settled";
  for (const auto& k : judged->kernels) {
    if (const auto& a = k.result.ab; a && a->kind == stats::change::ambiguous) {
      std::cerr << "; " << k.name << " AMBIGUOUS (" << detail::fixed(a->ratio.lo, 3) << "x .. "
                << detail::fixed(a->ratio.hi, 3) << "x against " << detail::fixed(a->allowed, 3)
                << "x allowed, about " << a->rounds_to_settle << " rounds needed)";
    }
  }
  std::cerr << "\n";
}

void print_verdicts(const report& r) {
  std::cout << "perfgate ab: " << r.kernels.size() << " kernel"
            << (r.kernels.size() == 1 ? "" : "s") << ", head against base on "
            << r.devices.front().id << "\n";
  for (const auto& k : r.kernels) {
    std::string status(to_string(k.result.status));
    std::transform(status.begin(), status.end(), status.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    std::cout << "  " << status << "  " << k.name << "\n";
    for (const auto& reason : k.result.reasons) {
      std::cout << "        " << reason << "\n";
    }
  }
}

} // namespace

action add_ab_command(CLI::App& app, const std::vector<std::string>& argv,
                      const std::vector<std::string>& program) {
  auto o = std::make_shared<ab_options>();
  auto* cmd = app.add_subcommand(
      "ab", "Run a base build and a head build of a program alternately on this machine and "
            "gate the head against the base (an interleaved A/B comparison)");
  cmd->add_option("--base", o->base_binary, "The base build's executable")->required();
  cmd->add_option("--head", o->head_binary, "The head build's executable")->required();
  cmd->add_option("--device", o->devices,
                  "Device (built-in id or perfgate-device/1 file); the first is the local device "
                  "both builds run on")
      ->required();
  cmd->add_option("--collector", o->collector,
                  "How kernels are measured: auto (gbench for a Google Benchmark binary, else "
                  "cupti), cupti, ncu, rocprof, gbench, nvbench")
      ->check(CLI::IsMember({"auto", "cupti", "ncu", "rocprof", "gbench", "nvbench"}))
      ->capture_default_str();
  cmd->add_option("--kernels", o->kernels, "Only kernels / benchmarks matching this regex");
  cmd->add_option("--max-efficiency-drop", o->max_efficiency_drop,
                  "Allowed relative efficiency drop of the head against the base")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  cmd->add_option("--confidence", o->confidence,
                  "A drop beyond --max-efficiency-drop fails only with this confidence")
      ->check(CLI::Range(0.5, 0.9999))
      ->capture_default_str();
  cmd->add_option("--repetitions", o->repetitions, "gbench: repetitions per benchmark and run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--min-rounds", o->min_rounds,
                  "Rounds (a run of each build, the order alternating) before the first verdict")
      ->check(CLI::Range(6, 1000))
      ->capture_default_str();
  cmd->add_option("--max-rounds", o->max_rounds,
                  "Rounds at most: a kernel still undecided then is AMBIGUOUS (a warning)")
      ->check(CLI::Range(6, 1000))
      ->capture_default_str();
  cmd->add_option("--time-budget", o->time_budget_s,
                  "Start no round that would end after this many seconds (the first "
                  "--min-rounds rounds always run)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s,
                  "Kill a run of either build after this many seconds (exit 3)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--keep-warm-up", o->keep_warm_up,
                "cupti, ncu, rocprof: keep each kernel's first launch");
  cmd->add_option("--report", o->report_file,
                  "Write the head's perfgate-report/1 JSON, judged against the base, here");
  cmd->footer("After --: ARGS..., the arguments both builds are run with");
  return [o, argv, program]() {
    o->args = program;
    if (o->max_rounds < o->min_rounds) {
      throw usage_error("--max-rounds " + std::to_string(o->max_rounds) + " is below --min-rounds " +
                        std::to_string(o->min_rounds));
    }
    for (const auto* binary : {&o->base_binary, &o->head_binary}) {
      if (!std::filesystem::exists(*binary)) {
        throw usage_error(*binary + ": no such file (--base and --head name executables)");
      }
    }
    std::vector<device> devices;
    for (const auto& d : o->devices) {
      devices.push_back(resolve_device(d));
    }
    const run_meta meta = make_run_meta("ab", argv);
    using clock = std::chrono::steady_clock;
    const auto begin = clock::now();
    std::vector<report> base, head;
    std::optional<report> judged;
    double last_round_s = 0;
    for (int round = 1; round <= o->max_rounds; ++round) {
      const double spent = std::chrono::duration<double>(clock::now() - begin).count();
      if (round > o->min_rounds && spent + last_round_s > o->time_budget_s) {
        std::cerr << "perfgate: ab: the time budget of " << detail::fixed(o->time_budget_s, 0)
                  << " s ends before another round\n";
        break;
      }
      // ABBA: every other round the head goes first, so a drift within the session (a
      // neighbour's job starting, a warming machine) falls on both sides alike.
      const bool head_first = round % 2 == 0;
      const auto started = clock::now();
      for (const bool head_now : {head_first, !head_first}) {
        (head_now ? head : base)
            .push_back(measure(*o, head_now ? o->head_binary : o->base_binary, devices, meta));
      }
      last_round_s = std::chrono::duration<double>(clock::now() - started).count();
      const double now_s = std::chrono::duration<double>(clock::now() - begin).count();
      if (round < o->min_rounds || round % 2 != 0) { // judged on whole ABBA pairs
        print_round(round, *o, head_first, now_s, nullptr);
        continue;
      }
      judged = judge(*o, base, head);
      print_round(round, *o, head_first, now_s, &*judged);
      if (undecided(*judged).empty()) {
        break;
      }
    }
    print_verdicts(*judged);
    if (!o->report_file.empty()) {
      const std::filesystem::path path(o->report_file);
      create_parent_directories(path);
      write_files_atomically({{path, report_to_json(*judged)}});
      std::cout << "perfgate: report " << o->report_file << "\n";
    }
    return static_cast<int>(gate_exit_status(*judged));
  };
}

} // namespace perfgate::cli
