// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/statistics.hpp>

#include "decide/decide.hpp"
#include "decide/stopping_rule.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <iostream>

namespace perfgate::decide {

namespace {

// The most runs of one kernel confirmation makes, the first included: where fewer do not
// settle it, its runs seldom land near their floor and more rarely would.
constexpr int max_confirmation_runs = 20;

// One confirmation run: the program again, the times of one invocation of each of its `open`
// kernels added to `measured` as a run each, as measured (the gate judges them).
void measure_again(int round, const program_collection& c, const std::vector<std::string>& open,
                   gate_measurements& measured) {
  const profile again = collect_program(c);
  for (const auto& name : open) {
    const auto k = std::find_if(again.kernels.begin(), again.kernels.end(),
                                [&](const kernel_profile& x) { return x.name == name; });
    if (k == again.kernels.end() || !k->time_s || !(*k->time_s > 0)) {
      throw target_error("confirmation run " + std::to_string(round) + " did not measure '" +
                         name + "' (" + std::to_string(again.kernels.size()) +
                         " kernel(s) in it): the program's kernels differ from run to run");
    }
    std::vector<double> times;
    if (k->duration && !k->duration->samples_s.empty()) {
      times = k->duration->samples_s;
    } else { // a profile without samples: its one time of an invocation
      times.push_back(*k->time_s / static_cast<double>(std::max<std::uint64_t>(k->invocations, 1)));
    }
    measured.confirmation_runs[name].push_back(std::move(times));
  }
}

// One line a round: what was settled and how, what is still open.
void print_round(int round, double spent_s, const std::string& budget,
                 const std::vector<std::string>& open, const report& r) {
  std::cerr << "perfgate: confirmation run " << round << " (" << detail::fixed(spent_s, 1)
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
}

// Why confirmation stopped with kernels still open, on stderr.
void print_stop(stop_reason why, const std::string& budget, std::size_t open) {
  const char* const stay = open == 1 ? " kernel stays AMBIGUOUS" : " kernels stay AMBIGUOUS";
  if (why == stop_reason::budget_spent) {
    std::cerr << "perfgate: confirmation: the budget of " << budget
              << " s ends before another run; " << open << stay << "\n";
  } else if (why == stop_reason::runs_spent) {
    // Runs so far: about none land near their floor, so more would not settle it either.
    std::cerr << "perfgate: confirmation: " << max_confirmation_runs << " runs made; " << open
              << stay << "\n";
  }
}

} // namespace

// A fresh process, not more repetitions: what moves a run on a shared machine (its neighbours,
// where its memory landed) holds for the whole process. Confirmation runs are runs of the
// program too: with --timeout they end within it.
void confirm(report& r, const gate_policy& policy, gate_measurements& measured,
             const further_runs& o) {
  std::vector<std::string> open = undecided_kernels(r);
  program_collection c = o.collection;
  double budget_s = o.confirm_budget_s;
  if (const auto left = timeout_left(c.timeout_s, o.begun)) {
    budget_s = std::min(budget_s, *left);
    c.timeout_s = std::max(*left, 1e-3);
  }
  if (open.empty() || !measured.base || budget_s <= 0) {
    return;
  }
  if (measured.base->build && o.ab_budget_s > 0) {
    // The kept build decides instead (decide_by_stored_build): the floor rule compares with
    // the stored runs' floor, which moves with the runner in either direction, so a confirmed
    // SAME could hide a regression as a confirmed SLOWER could invent one (docs/statistics.md).
    return;
  }
  const std::string collector =
      c.collector == "profile" ? "profile" : resolved_collector(c.collector, c.program);
  if (collector == "profile") {
    return; // a recorded profile measures nothing again
  }
  using clock = std::chrono::steady_clock;
  // The first run counts among the kernel's runs: max_confirmation_runs - 1 more at most.
  stopping_rule rule({0, max_confirmation_runs - 1, budget_s, 1});
  const std::string budget = detail::fixed(budget_s, budget_s < 10 ? 1 : 0);
  std::optional<stop_reason> stop;
  while (!(stop = rule.finished(open.size()))) {
    const auto started = clock::now();
    c.only_benchmarks = collector == "gbench" ? open : std::vector<std::string>{};
    measure_again(rule.runs() + 1, c, open, measured);
    const auto asked = open;
    open = ask_gate(r, policy, measured);
    rule.add_run(std::chrono::duration<double>(clock::now() - started).count());
    print_round(rule.runs(), rule.spent_s(), budget, asked, r);
  }
  if (!open.empty()) {
    print_stop(*stop, budget, open.size());
  }
}

} // namespace perfgate::decide
