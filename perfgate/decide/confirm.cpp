// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/statistics.hpp>

#include "decide/decide.hpp"
#include "gate/efficiency_change.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <iostream>

namespace perfgate::decide {

namespace {

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

// One confirmation run: the program again, its `open` kernels' efficiency samples added to
// `measured` as a run each (a round's own efficiencies come from a gate without a baseline).
void measure_again(int round, const program_collection& c, const std::vector<std::string>& open,
                   const report& r, const gate_policy& policy, gate_measurements& measured,
                   const std::vector<device>& devices) {
  report again = predict_report(collect_program(c), devices, c.kernels, true);
  again.meta = r.meta;
  gate_measurements measure_only;
  measure_only.pipeline = measured.pipeline;
  apply_gate(again, policy, measure_only);
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
    measured.confirmation_runs[name].push_back(std::move(samples));
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

} // namespace

// A fresh process, not more repetitions: what moves a run on a shared machine (its neighbours,
// where its memory landed) holds for the whole process. Confirmation runs are runs of the
// program too: with --timeout they end within it.
void confirm(report& r, const gate_policy& policy, gate_measurements& measured,
             const further_runs& o, const std::vector<device>& devices) {
  std::vector<std::string> open = unsettled(r);
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
  const auto begin = clock::now();
  double last_round_s = 0;
  const std::string budget = detail::fixed(budget_s, budget_s < 10 ? 1 : 0);
  for (int round = 1; !open.empty(); ++round) {
    const double spent = std::chrono::duration<double>(clock::now() - begin).count();
    const char* const stay =
        open.size() == 1 ? " kernel stays AMBIGUOUS" : " kernels stay AMBIGUOUS";
    if (spent + last_round_s > budget_s) {
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
    c.only_benchmarks = collector == "gbench" ? open : std::vector<std::string>{};
    measure_again(round, c, open, r, policy, measured, devices);
    apply_gate(r, policy, measured);
    last_round_s = std::chrono::duration<double>(clock::now() - started).count();
    print_round(round, std::chrono::duration<double>(clock::now() - begin).count(), budget, open,
                r);
    open = unsettled(r);
  }
}

} // namespace perfgate::decide
