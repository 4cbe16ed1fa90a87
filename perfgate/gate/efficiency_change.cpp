// SPDX-License-Identifier: Apache-2.0
#include "gate/efficiency_change.hpp"

#include "report/finding_text.hpp"

#include <algorithm>
#include <cmath>

namespace perfgate::detail {

namespace {

// Every sample's time relative to the roof, the runs pooled: what the suite's bootstrap
// resamples of a kernel.
std::vector<double> pooled_times(const stats::runs& efficiencies) {
  std::vector<double> out;
  for (const auto& run : stats::relative_times(efficiencies)) {
    out.insert(out.end(), run.begin(), run.end());
  }
  return out;
}

// The time ratio MAX_EFFICIENCY_DROP allows: an efficiency (1 - drop) of the base's is a time
// 1 / (1 - drop) of it.
double allowed_ratio(double max_drop) { return 1 / (1 - max_drop); }

// A side's runs as times relative to its roof: what the statistical judges compare.
stats::runs times(const efficiency_sides& side) { return stats::relative_times(side.runs); }

stats::kernel_ratio suite_part(double ratio, std::optional<stats::change> kind,
                               const efficiency_sides& base, const efficiency_sides& head) {
  return {ratio, kind, pooled_times(base.runs), pooled_times(head.runs)};
}

// What every finding of a change names: `said`'s device and base, MAX_EFFICIENCY_DROP, and
// both sides' work where both are known.
finding_context change_context(const finding_context& said, double max_drop,
                               const efficiency_sides& base, const efficiency_sides& head) {
  finding_context c = said;
  c.figures["max_efficiency_drop"] = max_drop;
  if (base.work && head.work) {
    c.figures["base_W_comp"] = base.work->W_comp;
    c.figures["base_W_traf"] = base.work->W_traf;
    c.figures["W_comp"] = head.work->W_comp;
    c.figures["W_traf"] = head.work->W_traf;
  }
  return c;
}

using numbers = std::map<std::string, double, std::less<>>;

// Where a change verdict's finding goes: its code, and the list of its severity.
struct filing {
  const char* code;
  std::vector<finding> efficiency_judgement::*list;
};
using judgement = efficiency_judgement;

// A verdict by samples or by an A/B session: a slowdown within the allowance is a note.
filing change_filing(stats::change kind, bool beyond_allowed) {
  if (kind == stats::change::slower) {
    return beyond_allowed ? filing{"slower_than_base", &judgement::failures}
                          : filing{"slower_within_allowance", &judgement::notes};
  }
  static const std::map<stats::change, filing> others = {
      {stats::change::faster, {"faster", &judgement::notes}},
      {stats::change::same, {"same", &judgement::notes}},
      {stats::change::ambiguous, {"ambiguous", &judgement::warnings}}};
  return others.at(kind);
}

// The floor rule's verdict. A baseline from another session carries that session's floor, and
// a shared runner's floor moves over minutes: on the 2-core VM, 7 of 20 unchanged runs
// confirmed like this. Only runs of both builds in one session (perfgate ab) fail on it, so a
// SLOWER by the floor rule warns.
filing confirmed_filing(stats::change kind) {
  static const std::map<stats::change, filing> by_kind = {
      {stats::change::slower, {"slower_by_floor_rule", &judgement::warnings}},
      {stats::change::ambiguous, {"ambiguous_after_confirmation", &judgement::warnings}},
      {stats::change::faster, {"faster_confirmed", &judgement::notes}},
      {stats::change::same, {"same_confirmed", &judgement::notes}}};
  return by_kind.at(kind);
}

void file(efficiency_judgement& out, finding f, filing where) {
  f.code = where.code;
  (out.*where.list).push_back(std::move(f));
}

} // namespace

std::size_t efficiency_sides::samples() const {
  std::size_t n = 0;
  for (const auto& run : runs) {
    n += run.size();
  }
  return n;
}

std::vector<double> efficiency_samples(const kernel_report& k, double efficiency) {
  std::vector<double> out;
  if (!k.measured || !k.measured->stats || k.invocations == 0) {
    return out;
  }
  // The efficiency is the roof time over time_s; time_s / invocations is what one sample
  // would measure at that efficiency (a profiler's mean launch, a benchmark's median).
  const double typical = k.measured->time_s / static_cast<double>(k.invocations);
  for (double s : k.measured->stats->samples_s) {
    if (s > 0) {
      out.push_back(efficiency * typical / s);
    }
  }
  return out;
}

double roof_per_invocation_s(const kernel_report& k) {
  return gated_time_s(k.predictions.front()) / static_cast<double>(std::max<std::uint64_t>(k.invocations, 1));
}

stats::runs efficiencies_of(const stats::runs& runs_s, double roof_s) {
  stats::runs out;
  for (const auto& run : runs_s) {
    std::vector<double> e;
    for (const double t : run) {
      if (t > 0) {
        e.push_back(roof_s / t);
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

bool work_changed(const work_numbers& base, const work_numbers& head) {
  return work_term_changed(base.W_comp, head.W_comp) || work_term_changed(base.W_traf, head.W_traf);
}

efficiency_judgement judge_efficiency(const efficiency_sides& base, const efficiency_sides& head,
                                      double max_drop, double confidence, double run_spread,
                                      const finding_context& said) {
  efficiency_judgement out;
  finding_context context = change_context(said, max_drop, base, head);
  if (base.samples() < min_change_samples || head.samples() < min_change_samples) {
    const double drop = (base.efficiency - head.efficiency) / base.efficiency;
    out.suite_part = suite_part(base.efficiency / head.efficiency, std::nullopt, base, head);
    const numbers values = {{"base_efficiency", base.efficiency},
                            {"efficiency", head.efficiency},
                            {"drop", drop},
                            {"max_efficiency_drop", max_drop},
                            {"base_samples", static_cast<double>(base.samples())},
                            {"samples", static_cast<double>(head.samples())}};
    context.figures["min_samples"] = static_cast<double>(min_change_samples);
    if (drop > max_drop) {
      out.failures.push_back({"efficiency_dropped", {}, values, std::move(context)});
    } else {
      out.notes.push_back({"efficiency_compared", {}, values, std::move(context)});
    }
    return out;
  }
  const double allowed = allowed_ratio(max_drop);
  const auto v = stats::judge_change(times(base), times(head), allowed, confidence, run_spread);
  out.change = v;
  out.suite_part = suite_part(v.ratio.estimate, v.kind, base, head);
  const auto& r = v.ratio;
  const numbers values = {{"base_efficiency", base.efficiency},
                          {"efficiency", head.efficiency},
                          {"time_ratio", r.estimate},
                          {"time_ratio_lo", r.lo},
                          {"time_ratio_hi", r.hi},
                          {"allowed", allowed},
                          {"confidence", confidence},
                          {"p_value", v.test.p_two_sided()},
                          {"base_samples", static_cast<double>(base.samples())},
                          {"samples", static_cast<double>(head.samples())},
                          {"base_runs", static_cast<double>(base.runs.size())},
                          {"samples_to_settle", static_cast<double>(v.samples_to_settle)}};
  finding f{"", {}, values, std::move(context)};
  if (run_spread > 0) {
    f.numbers["run_spread"] = run_spread;
  }
  file(out, std::move(f), change_filing(v.kind, v.beyond_allowed));
  return out;
}

efficiency_judgement judge_confirmed(const efficiency_sides& base, const efficiency_sides& head,
                                     double max_drop, double confidence,
                                     const finding_context& said) {
  efficiency_judgement out;
  const double allowed = allowed_ratio(max_drop);
  const auto v = stats::judge_floor(times(base), times(head), allowed, confidence);
  out.confirmation = v;
  out.suite_part = suite_part(v.ratio, v.kind, base, head);
  // The floors' efficiencies read base -> head like judge_efficiency's.
  const numbers values = {{"floor_ratio", v.ratio},
                          {"base_efficiency", 1 / v.base_floor},
                          {"efficiency", 1 / v.head_floor},
                          {"allowed", allowed},
                          {"false_alarm", v.false_alarm},
                          {"p_within", v.p_within},
                          {"base_runs", static_cast<double>(v.base_runs)},
                          {"runs", static_cast<double>(v.head_runs)},
                          {"runs_to_settle", static_cast<double>(v.runs_to_settle)}};
  finding f{"", {}, values, change_context(said, max_drop, base, head)};
  file(out, std::move(f), confirmed_filing(v.kind));
  return out;
}

efficiency_judgement judge_interleaved(const std::vector<double>& base,
                                       const std::vector<double>& head, double base_efficiency,
                                       double head_efficiency, double max_drop, double confidence,
                                       const finding_context& said) {
  efficiency_judgement out;
  const double allowed = allowed_ratio(max_drop);
  const stats::ab_verdict v = stats::judge_ab(base, head, allowed, confidence);
  out.ab = v;
  out.suite_part = stats::kernel_ratio{v.ratio.estimate, v.kind, base, head};
  const numbers values = {{"base_efficiency", base_efficiency},
                          {"efficiency", head_efficiency},
                          {"time_ratio", v.ratio.estimate},
                          {"time_ratio_lo", v.ratio.lo},
                          {"time_ratio_hi", v.ratio.hi},
                          {"allowed", allowed},
                          {"confidence", confidence},
                          {"rounds", static_cast<double>(v.rounds)},
                          {"rounds_to_settle", static_cast<double>(v.rounds_to_settle)}};
  finding_context context = said;
  context.figures["max_efficiency_drop"] = max_drop;
  finding f{"", {}, values, std::move(context)};
  file(out, std::move(f), change_filing(v.kind, true)); // SLOWER is beyond the allowance
  return out;
}

efficiency_judgement compare_ab_clocks(const std::vector<double>& base_mhz,
                                       const std::vector<double>& head_mhz) {
  efficiency_judgement out;
  if (base_mhz.empty() || head_mhz.empty()) {
    return out;
  }
  const double base = stats::median(base_mhz), head = stats::median(head_mhz);
  finding f{"", {}, {{"base_mhz", base}, {"mhz", head}}, {}};
  f.context.figures = {{"runs", static_cast<double>(head_mhz.size())},
                       {"base_runs", static_cast<double>(base_mhz.size())},
                       {"clock_tolerance", clock_tolerance}};
  if (std::fabs(head / base - 1) > clock_tolerance) {
    f.code = "ab_clocks_differ";
    out.warnings.push_back(std::move(f));
  } else {
    f.code = "ab_clocks_equal";
    out.notes.push_back(std::move(f));
  }
  return out;
}

std::vector<double> relative_run_times(const stats::runs& runs_s, double roof_s) {
  std::vector<double> out;
  for (const auto& run : runs_s) {
    if (!run.empty()) {
      out.push_back(stats::median(run) / roof_s);
    }
  }
  return out;
}

efficiency_judgement judge_ab_runs(const interleaved_runs& runs, double max_drop, double confidence,
                                   const finding_context& said) {
  const auto base = relative_run_times(runs.base_s, runs.base_roof_s);
  const auto head = relative_run_times(runs.head_s, runs.head_roof_s);
  auto judged = judge_interleaved(base, head, 1 / stats::median(base), 1 / stats::median(head),
                                  max_drop, confidence, said);
  const auto clocks = compare_ab_clocks(runs.base_mhz, runs.head_mhz);
  judged.warnings.insert(judged.warnings.end(), clocks.warnings.begin(), clocks.warnings.end());
  judged.notes.insert(judged.notes.end(), clocks.notes.begin(), clocks.notes.end());
  return judged;
}

} // namespace perfgate::detail
