// SPDX-License-Identifier: Apache-2.0
#include "decide/ab_session.hpp"

#include <perfgate/error.hpp>

#include "collectors/collectors.hpp"
#include "decide/collect.hpp"
#include "decide/decide.hpp"
#include "decide/stopping_rule.hpp"
#include "gate/efficiency_change.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace perfgate::decide {

namespace {

// One run of one build: its kernels predicted on every device, not gated (the roofs its times
// are judged against; the times stay as measured). CUPTI's counters of each build are counted
// in its first run and reused (`counter_runs`): the rounds time it.
report measure(const ab_session& s, const std::string& binary, const std::vector<device>& devices,
               const run_meta& meta, std::map<std::string, detail::cupti_run>& counter_runs) {
  program_collection c = s.collection;
  c.program = {binary};
  c.program.insert(c.program.end(), s.args.begin(), s.args.end());
  c.counter_runs = &counter_runs;
  report r = predict_report(collect_program(c), devices, c.kernels, true);
  r.meta = meta;
  return r;
}

// A run's kernel by name; null when the run did not measure it.
const kernel_report* measured_kernel(const report& r, const std::string& kernel) {
  const auto k = std::find_if(r.kernels.begin(), r.kernels.end(),
                              [&](const kernel_report& x) { return x.name == kernel; });
  return k == r.kernels.end() || !k->measured || !(k->measured->time_s > 0) ? nullptr : &*k;
}

// The times of one invocation a run measured of a kernel: its samples, or its one time.
std::vector<double> invocation_times(const kernel_report& k) {
  if (k.measured->stats && !k.measured->stats->samples_s.empty()) {
    return k.measured->stats->samples_s;
  }
  return {k.measured->time_s / static_cast<double>(std::max<std::uint64_t>(k.invocations, 1))};
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

// Every kernel the head's first run measured: both builds' runs of it, as measured.
std::map<std::string, interleaved_runs, std::less<>>
runs_of(const ab_session& s, const std::vector<report>& base, const std::vector<report>& head) {
  std::map<std::string, interleaved_runs, std::less<>> out;
  for (const auto& first : head.front().kernels) {
    if (measured_kernel(head.front(), first.name) == nullptr || first.predictions.empty()) {
      continue; // skipped or unmeasured: its own verdict says why
    }
    interleaved_runs runs;
    runs.base_name = s.base_binary;
    for (std::size_t i = 0; i < base.size() && i < head.size(); ++i) {
      const auto* b = measured_kernel(base[i], first.name);
      const auto* h = measured_kernel(head[i], first.name);
      if (b == nullptr || h == nullptr) {
        throw target_error("round " + std::to_string(i + 1) + " did not measure '" + first.name +
                           "' in both builds: their kernels differ (--kernels selects those "
                           "both have)");
      }
      runs.base_s.push_back(invocation_times(*b));
      runs.head_s.push_back(invocation_times(*h));
      if (i == 0) {
        runs.base_roof_s = detail::roof_per_invocation_s(*b);
        runs.head_roof_s = detail::roof_per_invocation_s(*h);
      }
    }
    runs.base_mhz = run_clocks(base, first.name);
    runs.head_mhz = run_clocks(head, first.name);
    out.emplace(first.name, std::move(runs));
  }
  return out;
}

// One line a round: the order it ran in and, when the gate was asked, what it left undecided.
void print_round(const stopping_rule& rule, bool head_first, const report* judged,
                 const std::vector<std::string>& open) {
  const auto& limits = rule.limits();
  std::cerr << "perfgate: ab round " << rule.runs() << " of at most " << limits.max_runs << " ("
            << (head_first ? "head, base" : "base, head") << "; " << detail::fixed(rule.spent_s(), 1)
            << " s of " << detail::fixed(limits.budget_s, 0) << " s)";
  if (judged == nullptr) {
    std::cerr << (rule.runs() < limits.min_runs
                      ? ": judged from round " + std::to_string(limits.min_runs)
                      : std::string(": judged after the next (whole ABBA pairs)"))
              << "\n";
    return;
  }
  std::size_t kernels = 0;
  for (const auto& k : judged->kernels) {
    kernels += k.result.ab ? 1 : 0;
  }
  std::cerr << ": " << kernels - open.size() << " of " << kernels << " kernel(s) settled";
  for (const auto& name : open) {
    const auto k = std::find_if(judged->kernels.begin(), judged->kernels.end(),
                                [&](const kernel_report& x) { return x.name == name; });
    const auto& a = *k->result.ab;
    std::cerr << "; " << name << " AMBIGUOUS (" << detail::fixed(a.ratio.lo, 3) << "x .. "
              << detail::fixed(a.ratio.hi, 3) << "x against " << detail::fixed(a.allowed, 3)
              << "x allowed, about " << a.rounds_to_settle << " rounds needed)";
  }
  std::cerr << "\n";
}

} // namespace

ab_outcome run_ab_session(const ab_session& s, const gate_policy& policy,
                          const std::vector<device>& devices, const run_meta& meta) {
  using clock = std::chrono::steady_clock;
  stopping_rule rule({s.min_rounds, s.max_rounds, s.time_budget_s, 2});
  std::vector<report> base, head;
  std::map<std::string, detail::cupti_run> counter_runs;
  std::size_t undecided = 1; // nothing judged yet
  std::optional<stop_reason> stop;
  while (!(stop = rule.finished(undecided))) {
    // ABBA: every other round the head goes first, so a drift within the session (a
    // neighbour's job starting, a warming machine) falls on both sides alike.
    const bool head_first = rule.runs() % 2 == 1;
    const auto started = clock::now();
    for (const bool head_now : {head_first, !head_first}) {
      (head_now ? head : base)
          .push_back(
              measure(s, head_now ? s.head_binary : s.base_binary, devices, meta, counter_runs));
    }
    rule.add_run(std::chrono::duration<double>(clock::now() - started).count());
    if (!rule.time_to_judge()) {
      print_round(rule, head_first, nullptr, {});
      continue;
    }
    report judged = head.front();
    gate_measurements measured;
    measured.ab_runs = runs_of(s, base, head);
    const auto open = ask_gate(judged, policy, measured);
    undecided = open.size();
    print_round(rule, head_first, &judged, open);
  }
  if (stop == stop_reason::budget_spent) {
    std::cerr << "perfgate: ab: the time budget of " << detail::fixed(s.time_budget_s, 0)
              << " s ends before another round\n";
  }
  return {head.front(), runs_of(s, base, head)};
}

report judge_ab_outcome(const ab_outcome& outcome, const gate_policy& policy) {
  report r = outcome.head_first;
  gate_measurements measured;
  measured.ab_runs = outcome.runs;
  (void)ask_gate(r, policy, measured);
  return r;
}

} // namespace perfgate::decide
