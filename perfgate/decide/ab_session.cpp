// SPDX-License-Identifier: Apache-2.0
#include "decide/ab_session.hpp"

#include <perfgate/error.hpp>
#include <perfgate/statistics.hpp>

#include "decide/collect.hpp"
#include "collectors/collectors.hpp"
#include "gate/efficiency_change.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace perfgate::decide {

namespace {

// One run of one build: its kernels predicted on every device and their efficiencies on the
// first (a gate without criteria: efficiencies, no verdicts to speak of). CUPTI's counters of
// each build are counted in its first run and reused (`counter_runs`): the rounds time it.
report measure(const ab_session& s, const std::string& binary, const std::vector<device>& devices,
               const run_meta& meta, std::map<std::string, detail::cupti_run>& counter_runs) {
  program_collection c = s.collection;
  c.program = {binary};
  c.program.insert(c.program.end(), s.args.begin(), s.args.end());
  c.counter_runs = &counter_runs;
  report r = predict_report(collect_program(c), devices, c.kernels, true);
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
  const auto times = stats::relative_times({detail::efficiency_samples(*k, *k->result.efficiency)});
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

// Every kernel of the head's first run with an efficiency: both builds' runs of it.
std::map<std::string, interleaved_runs, std::less<>>
runs_of(const ab_session& s, const std::vector<report>& base, const std::vector<report>& head) {
  std::map<std::string, interleaved_runs, std::less<>> out;
  for (const auto& k : head.front().kernels) {
    if (!k.result.efficiency) {
      continue; // skipped or unmeasured: its own verdict says why
    }
    interleaved_runs runs;
    runs.base_name = s.base_binary;
    for (std::size_t i = 0; i < base.size() && i < head.size(); ++i) {
      const auto bt = run_time(base[i], k.name), ht = run_time(head[i], k.name);
      if (!bt || !ht) {
        throw target_error("round " + std::to_string(i + 1) + " did not measure '" + k.name +
                           "' in both builds: their kernels differ (--kernels selects those "
                           "both have)");
      }
      runs.base.push_back(*bt);
      runs.head.push_back(*ht);
    }
    runs.base_mhz = run_clocks(base, k.name);
    runs.head_mhz = run_clocks(head, k.name);
    out.emplace(k.name, std::move(runs));
  }
  return out;
}

// Kernels whose runs do not settle a verdict yet, with that verdict.
std::vector<std::pair<std::string, stats::ab_verdict>>
undecided(const ab_session& s, const std::map<std::string, interleaved_runs, std::less<>>& runs) {
  std::vector<std::pair<std::string, stats::ab_verdict>> open;
  for (const auto& [name, r] : runs) {
    auto v = stats::judge_ab(r.base, r.head, 1 / (1 - s.max_efficiency_drop), s.confidence);
    if (v.kind == stats::change::ambiguous) {
      open.emplace_back(name, std::move(v));
    }
  }
  return open;
}

// One line a round: the order it ran in, how many kernels are settled, the open ones.
void print_round(int round, const ab_session& s, bool head_first, double spent_s,
                 const std::map<std::string, interleaved_runs, std::less<>>* runs) {
  std::cerr << "perfgate: ab round " << round << " of at most " << s.max_rounds << " ("
            << (head_first ? "head, base" : "base, head") << "; " << detail::fixed(spent_s, 1)
            << " s of " << detail::fixed(s.time_budget_s, 0) << " s)";
  if (runs == nullptr) {
    std::cerr << (round < s.min_rounds ? ": judged from round " + std::to_string(s.min_rounds)
                                       : std::string(": judged after the next (whole ABBA pairs)"))
              << "\n";
    return;
  }
  const auto open = undecided(s, *runs);
  std::cerr << ": " << runs->size() - open.size() << " of " << runs->size() << " kernel(s) settled";
  for (const auto& [name, a] : open) {
    std::cerr << "; " << name << " AMBIGUOUS (" << detail::fixed(a.ratio.lo, 3) << "x .. "
              << detail::fixed(a.ratio.hi, 3) << "x against " << detail::fixed(a.allowed, 3)
              << "x allowed, about " << a.rounds_to_settle << " rounds needed)";
  }
  std::cerr << "\n";
}

} // namespace

ab_outcome run_ab_session(const ab_session& s, const std::vector<device>& devices,
                          const run_meta& meta) {
  using clock = std::chrono::steady_clock;
  const auto begin = clock::now();
  std::vector<report> base, head;
  std::map<std::string, interleaved_runs, std::less<>> runs;
  std::map<std::string, detail::cupti_run> counter_runs;
  double last_round_s = 0;
  for (int round = 1; round <= s.max_rounds; ++round) {
    const double spent = std::chrono::duration<double>(clock::now() - begin).count();
    if (round > s.min_rounds && spent + last_round_s > s.time_budget_s) {
      std::cerr << "perfgate: ab: the time budget of " << detail::fixed(s.time_budget_s, 0)
                << " s ends before another round\n";
      break;
    }
    // ABBA: every other round the head goes first, so a drift within the session (a
    // neighbour's job starting, a warming machine) falls on both sides alike.
    const bool head_first = round % 2 == 0;
    const auto started = clock::now();
    for (const bool head_now : {head_first, !head_first}) {
      (head_now ? head : base)
          .push_back(
              measure(s, head_now ? s.head_binary : s.base_binary, devices, meta, counter_runs));
    }
    last_round_s = std::chrono::duration<double>(clock::now() - started).count();
    const double now_s = std::chrono::duration<double>(clock::now() - begin).count();
    if (round < s.min_rounds || round % 2 != 0) { // judged on whole ABBA pairs
      print_round(round, s, head_first, now_s, nullptr);
      continue;
    }
    runs = runs_of(s, base, head);
    print_round(round, s, head_first, now_s, &runs);
    if (undecided(s, runs).empty()) {
      break;
    }
  }
  if (runs.empty() || runs.begin()->second.base.size() != base.size()) {
    runs = runs_of(s, base, head); // the budget ended the session between judged rounds
  }
  return {head.front(), std::move(runs)};
}

report judge_ab_outcome(const ab_outcome& outcome, const gate_policy& policy) {
  report r = outcome.head_first;
  gate_measurements measured;
  measured.ab_runs = outcome.runs;
  apply_gate(r, policy, measured);
  return r;
}

} // namespace perfgate::decide
