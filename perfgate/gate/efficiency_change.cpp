// SPDX-License-Identifier: Apache-2.0
#include "gate/efficiency_change.hpp"

#include "util/number_format.hpp"

#include <cctype>
#include <cmath>

namespace perfgate::detail {

namespace {

// "3.100 GB", "0 op": an SI count with its unit.
std::string amount(double v, const char* unit) {
  const std::string count = si_count(v);
  return count + (std::isdigit(static_cast<unsigned char>(count.back())) ? " " : "") + unit;
}

bool differs(double base, double head) {
  return base > 0 ? std::fabs(head - base) / base > 0.01 : head > 0;
}

std::string p_value(double p) { return p < 1e-4 ? "< 0.0001" : fixed(p, 4); }

// Every sample's time relative to the roof, the runs pooled: what the suite's bootstrap
// resamples of a kernel.
std::vector<double> pooled_times(const stats::runs& efficiencies) {
  std::vector<double> out;
  for (const auto& run : stats::relative_times(efficiencies)) {
    out.insert(out.end(), run.begin(), run.end());
  }
  return out;
}

stats::kernel_ratio suite_part(double ratio, std::optional<stats::change> kind,
                               const efficiency_sides& base, const efficiency_sides& head) {
  return {ratio, kind, pooled_times(base.runs), pooled_times(head.runs)};
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

bool work_changed(const work_numbers& base, const work_numbers& head) {
  return differs(base.W_comp, head.W_comp) || differs(base.W_traf, head.W_traf);
}

std::string work_change_text(const work_numbers& base, const work_numbers& head) {
  if (!work_changed(base, head)) {
    return "same work (W_comp and W_traf within 1%)";
  }
  std::string s;
  auto add = [&](const char* what, double b, double h, const char* unit) {
    if (!differs(b, h)) {
      return;
    }
    s += (s.empty() ? "" : ", ") + std::string(what) + " " +
         (b > 0 ? signed_percent((h - b) / b, 1) + " " : std::string()) + "(" + amount(b, unit) +
         " -> " + amount(h, unit) + ")";
  };
  add("W_comp", base.W_comp, head.W_comp, "op");
  add("W_traf", base.W_traf, head.W_traf, "B");
  return s;
}

efficiency_judgement judge_efficiency(const efficiency_sides& base, const efficiency_sides& head,
                                      double max_drop, double confidence, const std::string& on,
                                      const std::string& against) {
  efficiency_judgement out;
  const std::string drop_text = "MAX_EFFICIENCY_DROP " + fixed(max_drop * 100, 1) + "%";
  const std::string effs = fixed(base.efficiency, 2) + " -> " + fixed(head.efficiency, 2);
  const std::string work =
      base.work && head.work ? "; " + work_change_text(*base.work, *head.work) : std::string();
  if (base.samples() < min_change_samples || head.samples() < min_change_samples) {
    const double drop = (base.efficiency - head.efficiency) / base.efficiency;
    out.suite_part = suite_part(base.efficiency / head.efficiency, std::nullopt, base, head);
    const std::string counts =
        std::to_string(base.samples()) + " vs " + std::to_string(head.samples()) + " samples";
    const std::map<std::string, double, std::less<>> numbers = {
        {"base_efficiency", base.efficiency},
        {"efficiency", head.efficiency},
        {"drop", drop},
        {"max_efficiency_drop", max_drop},
        {"base_samples", static_cast<double>(base.samples())},
        {"samples", static_cast<double>(head.samples())}};
    if (drop > max_drop) {
      out.failures.push_back(
          {"efficiency_dropped", numbers, "efficiency dropped " + fixed(drop * 100, 2) + "% vs " + against + on + " (" + effs +
          "), more than " + drop_text + " (a point comparison: " + counts + ", at least " +
          std::to_string(min_change_samples) + " a side give a statistical verdict)" + work});
    } else {
      out.notes.push_back({"efficiency_compared", numbers,
                           "efficiency " + effs + " vs " + against + on +
                               " (a point comparison: " + counts + ")" + work});
    }
    return out;
  }
  const double allowed = 1 / (1 - max_drop);
  const stats::change_verdict v =
      stats::judge_change(stats::relative_times(base.runs), stats::relative_times(head.runs),
                          allowed, confidence);
  out.change = v;
  out.suite_part = suite_part(v.ratio.estimate, v.kind, base, head);
  const auto& r = v.ratio;
  const std::string numbers =
      "efficiency " + effs + " vs " + against + on + ": time ratio " + fixed(r.estimate, 3) +
      "x, " + fixed(confidence * 100, 0) + "% interval " + fixed(r.lo, 3) + "x .. " +
      fixed(r.hi, 3) + "x, Mann-Whitney p " + p_value(v.test.p_two_sided()) + " (" +
      std::to_string(base.samples()) + " vs " + std::to_string(head.samples()) + " samples" +
      (base.runs.size() > 1 ? ", the baseline's from " + std::to_string(base.runs.size()) + " runs"
                            : std::string()) +
      ")";
  const std::string allowance = fixed(allowed, 3) + "x that " + drop_text + " allows";
  const std::map<std::string, double, std::less<>> values = {
      {"base_efficiency", base.efficiency},
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
  switch (v.kind) {
  case stats::change::slower:
    if (v.beyond_allowed) {
      out.failures.push_back({"slower_than_base", values,
                              "SLOWER: " + numbers + "; the whole interval lies above the " +
                                  allowance + work});
    } else {
      out.notes.push_back(
          {"slower_within_allowance", values, "SLOWER, within " + drop_text + ": " + numbers + work});
    }
    break;
  case stats::change::faster: out.notes.push_back({"faster", values, "FASTER: " + numbers + work}); break;
  case stats::change::same: out.notes.push_back({"same", values, "SAME: " + numbers + work}); break;
  case stats::change::ambiguous:
    out.warnings.push_back(
        {"ambiguous", values, "AMBIGUOUS: " + numbers + "; the interval reaches past the " + allowance +
        " without lying beyond it" + work + "; " +
        (v.samples_to_settle > 0
             ? "about " + std::to_string(v.samples_to_settle) +
                   " samples a side (REPETITIONS, or TARGET_CI for adaptive repetitions) or a "
                   "quieter runner would settle it"
         : base.runs.size() > 1
             ? "the baseline's runs differ by more than the change: more baseline runs "
               "(perfgate baseline accept RUN.json...) or a quieter runner would settle it"
             : "the slowdown sits at the allowance itself: no number of samples settles it")});
    break;
  }
  return out;
}


efficiency_judgement judge_confirmed(const efficiency_sides& base, const efficiency_sides& head,
                                     double max_drop, double confidence, const std::string& on,
                                     const std::string& against) {
  efficiency_judgement out;
  const double allowed = 1 / (1 - max_drop);
  const stats::floor_verdict v =
      stats::judge_floor(stats::relative_times(base.runs), stats::relative_times(head.runs),
                         allowed, confidence);
  out.confirmation = v;
  out.suite_part = suite_part(v.ratio, v.kind, base, head);
  const std::string drop_text = "MAX_EFFICIENCY_DROP " + fixed(max_drop * 100, 1) + "%";
  const std::string work =
      base.work && head.work ? "; " + work_change_text(*base.work, *head.work) : std::string();
  const std::string runs = std::to_string(v.head_runs) + " runs (the first and " +
                           std::to_string(v.head_runs - 1) + " confirmation run" +
                           (v.head_runs == 2 ? "" : "s") + " in fresh processes)";
  // The floors' efficiencies read base -> head like judge_efficiency's.
  const std::string floors = "efficiency " + fixed(1 / v.base_floor, 2) + " -> " +
                             fixed(1 / v.head_floor, 2) + " at the floors";
  const std::string said = "the fastest of " + runs + " took " + fixed(v.ratio, 3) +
                           "x the fastest of the " + std::to_string(v.base_runs) + " run" +
                           (v.base_runs == 1 ? "" : "s") + " of " + against + on + " (" + floors +
                           ", floor rule)";
  const std::string allowance = fixed(allowed, 3) + "x that " + drop_text + " allows";
  const std::map<std::string, double, std::less<>> values = {
      {"floor_ratio", v.ratio},
      {"base_efficiency", 1 / v.base_floor},
      {"efficiency", 1 / v.head_floor},
      {"allowed", allowed},
      {"false_alarm", v.false_alarm},
      {"p_within", v.p_within},
      {"base_runs", static_cast<double>(v.base_runs)},
      {"runs", static_cast<double>(v.head_runs)},
      {"runs_to_settle", static_cast<double>(v.runs_to_settle)}};
  const std::string chance = "a build no slower would miss it in every run with chance " +
                             percent(v.false_alarm, 2) + " (" + percent(v.p_within, 0) +
                             " of runs land within the allowance of their floor)";
  switch (v.kind) {
  case stats::change::slower:
    // A baseline from another session carries that session's floor, and a shared runner's
    // floor moves over minutes: on the 2-core VM, 7 of 20 unchanged runs confirmed like this.
    // Only runs of both builds in one session (perfgate ab) fail on it.
    out.warnings.push_back({"slower_by_floor_rule", values,
                            "SLOWER by the floor rule: " + said + ", beyond the " + allowance +
                                "; " + chance +
                                ", but the baseline's runs were another session's "
                                "and a runner's floor can move between sessions: perfgate ab "
                                "(AB_BASE_BINARY) decides" +
                                work});
    break;
  case stats::change::ambiguous:
    out.warnings.push_back({"ambiguous_after_confirmation", values,
                            "AMBIGUOUS after confirmation: " + said + ", beyond the " +
                                allowance + ", but " + chance + "; about " +
                                std::to_string(v.runs_to_settle) +
                                " runs in all (--confirm-budget, CONFIRM_BUDGET) would settle it" +
                                work});
    break;
  case stats::change::faster:
    out.notes.push_back({"faster_confirmed", values, "FASTER, confirmed: " + said + work});
    break;
  case stats::change::same:
    out.notes.push_back(
        {"same_confirmed", values, "SAME, confirmed: " + said + ", within the " + allowance + work});
    break;
  }
  return out;
}


efficiency_judgement judge_interleaved(const std::vector<double>& base,
                                       const std::vector<double>& head, double base_efficiency,
                                       double head_efficiency, double max_drop, double confidence,
                                       const std::string& on, const std::string& against) {
  efficiency_judgement out;
  const double allowed = 1 / (1 - max_drop);
  const stats::ab_verdict v = stats::judge_ab(base, head, allowed, confidence);
  out.ab = v;
  out.suite_part = stats::kernel_ratio{v.ratio.estimate, v.kind, base, head};
  const std::string drop_text = "MAX_EFFICIENCY_DROP " + fixed(max_drop * 100, 1) + "%";
  const std::string allowance = fixed(allowed, 3) + "x that " + drop_text + " allows";
  const std::string said =
      "efficiency " + fixed(base_efficiency, 2) + " -> " + fixed(head_efficiency, 2) + " vs " +
      against + on + ": time ratio " + fixed(v.ratio.estimate, 3) + "x, " +
      fixed(confidence * 100, 0) + "% interval " + fixed(v.ratio.lo, 3) + "x .. " +
      fixed(v.ratio.hi, 3) + "x over " + std::to_string(v.rounds) +
      " rounds (each build run once a round, ABBA)";
  const std::map<std::string, double, std::less<>> values = {
      {"base_efficiency", base_efficiency},
      {"efficiency", head_efficiency},
      {"time_ratio", v.ratio.estimate},
      {"time_ratio_lo", v.ratio.lo},
      {"time_ratio_hi", v.ratio.hi},
      {"allowed", allowed},
      {"confidence", confidence},
      {"rounds", static_cast<double>(v.rounds)},
      {"rounds_to_settle", static_cast<double>(v.rounds_to_settle)}};
  switch (v.kind) {
  case stats::change::slower:
    out.failures.push_back({"slower_than_base", values,
                            "SLOWER: " + said + "; the whole interval lies above the " + allowance});
    break;
  case stats::change::faster: out.notes.push_back({"faster", values, "FASTER: " + said}); break;
  case stats::change::same:
    out.notes.push_back({"same", values, "SAME: " + said + ", within the " + allowance});
    break;
  case stats::change::ambiguous:
    out.warnings.push_back(
        {"ambiguous", values, "AMBIGUOUS: " + said + "; the interval reaches past the " + allowance +
        " without lying beyond it; " +
        (v.rounds_to_settle > 0 ? "about " + std::to_string(v.rounds_to_settle) +
                                      " rounds in all (--max-rounds, --time-budget) would "
                                      "settle it"
                                : "the slowdown sits at the allowance itself")});
    break;
  }
  return out;
}

efficiency_judgement compare_ab_clocks(const std::vector<double>& base_mhz,
                                       const std::vector<double>& head_mhz) {
  efficiency_judgement out;
  if (base_mhz.empty() || head_mhz.empty()) {
    return out;
  }
  const double base = stats::median(base_mhz), head = stats::median(head_mhz);
  const std::string clocks = "SM clock " + fixed(head, 0) + " MHz in the head's runs vs " +
                             fixed(base, 0) + " MHz in the base's (medians of " +
                             std::to_string(head_mhz.size()) + " and " +
                             std::to_string(base_mhz.size()) + " runs)";
  const std::map<std::string, double, std::less<>> values = {{"base_mhz", base},
                                                              {"mhz", head}};
  if (std::fabs(head / base - 1) > clock_tolerance) {
    out.warnings.push_back({"ab_clocks_differ", values,
                            clocks +
                                ": the builds ran at different clocks, so the time ratio holds "
                                "the clocks' as well as the code's (" +
                                lock_clocks_advice + ")"});
  } else {
    out.notes.push_back({"ab_clocks_equal", values,
                         clocks + ": equal within " + fixed(clock_tolerance * 100, 0) + "%"});
  }
  return out;
}

efficiency_judgement judge_ab_runs(const interleaved_runs& runs, double max_drop,
                                   double confidence, const std::string& on,
                                   const std::string& against) {
  auto judged = judge_interleaved(runs.base, runs.head, 1 / stats::median(runs.base),
                                  1 / stats::median(runs.head), max_drop, confidence, on, against);
  const auto clocks = compare_ab_clocks(runs.base_mhz, runs.head_mhz);
  judged.warnings.insert(judged.warnings.end(), clocks.warnings.begin(), clocks.warnings.end());
  judged.notes.insert(judged.notes.end(), clocks.notes.begin(), clocks.notes.end());
  return judged;
}

} // namespace perfgate::detail
