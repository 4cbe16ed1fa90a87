// SPDX-License-Identifier: Apache-2.0
// One sentence per finding code, from the finding alone: a table of code -> writer, grouped by
// the judge that finds them (gate/judges.cpp, gate/efficiency_change.cpp, report.cpp).
#include "report/finding_text.hpp"

#include "util/number_format.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>

namespace perfgate::detail {

namespace {

using writer = std::string (*)(const finding&);

[[noreturn]] void missing(const finding& f, std::string_view what, std::string_view name) {
  throw std::logic_error("finding '" + f.code + "' has no " + std::string(what) + " '" +
                         std::string(name) + "' for its sentence");
}

bool has(const finding& f, std::string_view name) {
  return f.numbers.count(name) > 0 || f.context.figures.count(name) > 0;
}

// A number the finding rests on, else one its context holds for the sentence.
double num(const finding& f, std::string_view name) {
  if (const auto it = f.numbers.find(name); it != f.numbers.end()) {
    return it->second;
  }
  if (const auto it = f.context.figures.find(name); it != f.context.figures.end()) {
    return it->second;
  }
  missing(f, "number", name);
}

// A count (samples, runs, rounds, groups) as an integer.
std::string count(const finding& f, std::string_view name) {
  return std::to_string(static_cast<std::int64_t>(std::llround(num(f, name))));
}

const std::string& word(const finding& f, std::string_view name) {
  if (const auto it = f.context.words.find(name); it != f.context.words.end()) {
    return it->second;
  }
  missing(f, "word", name);
}

bool has_word(const finding& f, std::string_view name) { return f.context.words.count(name) > 0; }

std::string list(const finding& f, std::string_view name) {
  const auto it = f.context.lists.find(name);
  return it == f.context.lists.end() ? std::string() : join(it->second, ", ");
}

std::string ratio(double v) { return fixed(v, 2); }
std::string mhz(double v) { return fixed(v, 0) + " MHz"; }
std::string p_value(double p) { return p < 1e-4 ? "< 0.0001" : fixed(p, 4); }
std::string on(const finding& f) { return " on " + word(f, "device"); }

// "the baseline perf/baseline.json", "the base build ./old", "the base".
std::string against(const finding& f) {
  return "the " + word(f, "base") +
         (has_word(f, "base_name") ? " " + word(f, "base_name") : std::string());
}

std::string drop_text(const finding& f) {
  return "MAX_EFFICIENCY_DROP " + threshold_text(num(f, "max_efficiency_drop") * 100, 1) + "%";
}

// The decimals of a verdict's time ratios and its allowed ratio: three, or more where a ratio
// and the allowance would print alike ("1.1112x .. above the 1.1111x allowed").
int ratio_decimals(const finding& f) {
  int d = 3;
  if (!has(f, "allowed")) {
    return d;
  }
  for (const char* name : {"time_ratio", "time_ratio_lo", "time_ratio_hi", "floor_ratio"}) {
    if (has(f, name)) {
      d = std::max(d, decimals_beside(num(f, name), num(f, "allowed"), 3));
    }
  }
  return d;
}

std::string allowance(const finding& f) {
  return fixed(num(f, "allowed"), ratio_decimals(f)) + "x that " + drop_text(f) + " allows";
}

// "; W_traf +38.0% (...)" where both sides' work is known, else nothing.
std::string work(const finding& f) {
  if (!has(f, "base_W_traf") || !has(f, "W_traf")) {
    return "";
  }
  return "; " + work_change_text(num(f, "base_W_comp"), num(f, "base_W_traf"), num(f, "W_comp"),
                                 num(f, "W_traf"));
}

const class_facts& facts(const finding& f) {
  if (!f.context.bound) {
    missing(f, "class", "bound");
  }
  return *f.context.bound;
}

const pipeline::launch_estimate& estimate(const finding& f) {
  if (!f.context.estimate) {
    missing(f, "estimate", "estimate");
  }
  return *f.context.estimate;
}

// "memory-bound (O_krn 0.250 <= O_ridge 13.400 op/B, limited by dram)".
std::string describe_class(const class_facts& c) {
  const std::string limiter = c.roof ? ", limited by " + limiter_text(*c.roof) : std::string();
  if (!c.compute_declared) { // no operations: no intensity to set against a ridge
    return "memory-bound (bytes alone" + limiter + ")";
  }
  return std::string(to_string(c.bound)) + "-bound (O_krn " + fixed(c.O_krn, 3) + " " +
         (c.O_krn > c.ridge ? ">" : "<=") + (c.roof ? " O_ridge " : " O_dev ") + fixed(c.ridge, 3) +
         " op/B" + limiter + ")";
}

// "latency-bound by the pipeline model: utilisation 0.31 of gmem (theta 0.80) at 2 resident
// groups of 32 warps (limited by warps), 1.2 ms per launch (sgemm.idg.json)".
std::string describe_estimate(const pipeline::launch_estimate& e) {
  return std::string(e.latency_bound ? "latency" : "throughput") +
         "-bound by the pipeline model: utilisation " + fixed(e.utilisation, 2) + " of " +
         std::string(pipeline::to_string(e.busiest)) + " (theta " + fixed(e.theta, 2) + ") at " +
         std::to_string(e.resident_groups) + " resident group" +
         (e.resident_groups == 1 ? "" : "s") + " of " + std::to_string(e.warps_per_group) +
         " warps (limited by " + e.limited_by + "), " + duration(e.seconds) + " per launch (" +
         e.idg + ")";
}

// "the dram peak (3350.00 1e9/s, dram_triad_nt)": the rate the roof's limiting term held the
// kernel to, the peak a kernel above its roof shows to be too low.
std::string stale_peak(const roof_bound& r) {
  for (const auto& t : r.terms) {
    if (t.resource == r.limiter) {
      return "the " + t.resource + " peak (" + fixed(t.rate, 2) + " 1e9/s" +
             (t.via.empty() ? "" : ", " + t.via) + ")";
    }
  }
  return "the " + r.limiter + " peaks"; // summed issue terms: several peaks together
}

// ---- the efficiency floor ----

// The models predict with every byte from DRAM (the thesis's B_mem); a roof holding the kernel's
// traffic to a cache is another bound, so the prediction names what it assumed.
bool roof_in_a_cache(const class_facts& c) {
  return c.roof && c.roof->bound == bound_class::memory && c.roof->limiter != "dram";
}

// "measured 62.500 ms, roof 50.000 ms, memory-bound (...); the roofline model predicts ...".
std::string measured_against_roof(const finding& f) {
  const class_facts& c = facts(f);
  std::string text = "measured " + duration(num(f, "measured_s")) +
                     (c.roof ? ", roof " : ", bound ") + duration(num(f, "roof_s")) + ", " +
                     describe_class(c);
  if (c.roof) {
    text +=
        has_word(f, "measured_on")
            ? "; scaled from the measurement on " + word(f, "measured_on") + ", predicted " +
                  duration(num(f, "predicted_s"))
            : "; the " + word(f, "model") + " model predicts " + duration(num(f, "predicted_s")) +
                  (roof_in_a_cache(c) ? " with every byte from DRAM, not from " + c.roof->limiter
                                      : "");
  }
  return text;
}

std::string latency_by_duration(const finding& f) {
  return "latency-bound by duration: " + duration(num(f, "per_invocation_s")) +
         " per invocation, under the " + duration(num(f, "latency_floor_s")) +
         " threshold (launch overhead, tails, clocks ramping), where the roof does not apply";
}

// An efficiency alone, with two significant digits at least (a bytes-only suite's 0.0149).
std::string efficiency_is(const finding& f) {
  return "efficiency " + with_digits(num(f, "efficiency"), 2);
}

// "efficiency 0.0123 below MIN_EFFICIENCY 0.0149": an efficiency and the threshold it is set
// against, with the digits that tell them apart.
std::string efficiency_against(const finding& f, std::string_view efficiency, std::string_view how,
                               std::string_view threshold) {
  const auto [value, limit] = beside_threshold(num(f, efficiency), num(f, threshold), 2);
  return "efficiency " + value + std::string(how) + limit;
}

std::string against_pipeline(const finding& f, const std::string& efficiency) {
  return efficiency + " against the pipeline model's " + duration(estimate(f).seconds) + on(f) +
         "; " + describe_estimate(estimate(f));
}

std::string against_pipeline(const finding& f) {
  return against_pipeline(f, "efficiency " + with_digits(num(f, "pipeline_efficiency"), 2));
}

std::string below_floor(const finding& f) {
  return efficiency_against(f, "efficiency", " below MIN_EFFICIENCY ", "min_efficiency") + on(f) +
         ": " + measured_against_roof(f);
}

const std::map<std::string_view, writer, std::less<>>& efficiency_floor_writers() {
  static const std::map<std::string_view, writer, std::less<>> table = {
      {"efficiency",
       [](const finding& f) {
         return efficiency_is(f) + on(f) + ": " + measured_against_roof(f) +
                (has_word(f, "latency_evidence") ? "; " + latency_by_duration(f) : "") +
                (f.context.estimate ? "; " + describe_estimate(*f.context.estimate) : "");
       }},
      {"efficiency_against_roof",
       [](const finding& f) {
         return efficiency_is(f) + " against the roof" + on(f) + ": " + measured_against_roof(f);
       }},
      {"pipeline_efficiency", [](const finding& f) { return against_pipeline(f); }},
      {"pipeline_efficiency_below_floor",
       [](const finding& f) {
         const auto [value, limit] =
             beside_threshold(num(f, "pipeline_efficiency"), num(f, "min_efficiency"), 2);
         return against_pipeline(f, "efficiency " + value) + ", below MIN_EFFICIENCY " + limit;
       }},
      {"pipeline_efficiency_above_max",
       [](const finding& f) {
         const auto [value, limit] =
             beside_threshold(num(f, "pipeline_efficiency"), num(f, "max_efficiency"), 2);
         return against_pipeline(f, "efficiency " + value) + ", above MAX_EFFICIENCY " + limit +
                ": the kernel beats the model, so its latencies or graph are wrong";
       }},
      {"efficiency_below_floor", [](const finding& f) { return below_floor(f); }},
      {"efficiency_below_floor_latency_bound",
       [](const finding& f) { return below_floor(f) + "; " + latency_by_duration(f); }},
      {"efficiency_above_max",
       [](const finding& f) {
         return efficiency_against(f, "efficiency", " above MAX_EFFICIENCY ", "max_efficiency") +
                on(f) + ": " + measured_against_roof(f) +
                "; the kernel beats its roof, so the device's peaks are too low "
                "(recalibrate) or the declared work is too small";
       }},
      {"efficiency_above_roof",
       [](const finding& f) {
         return efficiency_is(f) + " above 1" + on(f) + ": " + measured_against_roof(f) + "; " +
                stale_peak(*facts(f).roof) + " is stale: this run went faster (recalibrate)";
       }},
      {"roof_measured_again",
       [](const finding& f) {
         return "roof measured again" + on(f) + ": the kernel beat the calibration's roof (" +
                duration(num(f, "roof_before_s")) + ", efficiency " +
                with_digits(num(f, "efficiency_before"), 2) +
                "), so this machine was measured again and each peak kept at the higher of both "
                "runs: roof " + duration(num(f, "roof_s")) + ", efficiency " +
                with_digits(num(f, "efficiency"), 2);
       }},
      {"no_measured_time",
       [](const finding&) { return std::string("no measured time: prediction only"); }},
      {"not_on_local_device",
       [](const finding& f) {
         return "not judged: measured on " + word(f, "measured_on") + ", not on the local device " +
                word(f, "device");
       }},
      {"cannot_be_judged",
       [](const finding& f) { return "cannot be judged: " + word(f, "skip_reason"); }},
      {"prediction_only",
       [](const finding&) { return std::string("prediction only: no gate applied"); }},
  };
  return table;
}

// ---- the expected class, the class against the baseline's ----

std::string near_ridge(const finding& f) {
  return "; within " + ratio(num(f, "ridge_margin") * 100) + "% of the ridge, so a warning";
}

std::string class_unexpected(const finding& f) {
  if (f.context.estimate) { // EXPECT_BOUND latency against the pipeline model's class
    return "expected latency-bound" + on(f) + ", found " + describe_estimate(*f.context.estimate);
  }
  return "expected " + word(f, "expected") + "-bound" + on(f) + ", found " +
         describe_class(facts(f));
}

std::string class_changed(const finding& f) {
  return "class changed" + on(f) + ": " + word(f, "was") + "-bound -> " + describe_class(facts(f)) +
         " (baseline O_krn " +
         (has(f, "base_O_krn") ? fixed(num(f, "base_O_krn"), 3) : "not declared") + ")";
}

std::string latency_class_unavailable(const finding& f) {
  if (!has(f, "per_invocation_s")) {
    return "expected latency-bound" + on(f) +
           ": no measured time, and the pipeline model's class is unavailable";
  }
  return "expected latency-bound" + on(f) +
         ": the pipeline model's class is unavailable (no instruction graph and latencies for "
         "this kernel), and at " +
         duration(num(f, "per_invocation_s")) +
         " per invocation it is not latency-bound by duration (under " +
         duration(num(f, "latency_floor_s")) + "); the roof says " + describe_class(facts(f));
}

std::string latency_bound_as_expected(const finding& f) {
  if (f.context.estimate) {
    return "latency-bound as expected" + on(f) + ": " + describe_estimate(*f.context.estimate);
  }
  return "latency-bound as expected" + on(f) +
         ", by duration: " + duration(num(f, "per_invocation_s")) + " per invocation, under the " +
         duration(num(f, "latency_floor_s")) +
         " threshold (the pipeline model's class is unavailable: no instruction graph and "
         "latencies for this kernel)";
}

// The pipeline model's class against the baseline's: the finding is made only when they differ.
std::string pipeline_class_changed(const finding& f) {
  const auto& e = estimate(f);
  return "class changed" + on(f) +
         " by the pipeline model: " + (e.latency_bound ? "throughput" : "latency") + "-bound -> " +
         (e.latency_bound ? "latency" : "throughput") + "-bound, resident groups " +
         count(f, "base_resident_groups") + " (limited by " + word(f, "base_limited_by") + ") -> " +
         std::to_string(e.resident_groups) + " (limited by " + e.limited_by + "); utilisation " +
         fixed(e.utilisation, 2) + " of " + std::string(pipeline::to_string(e.busiest));
}

const std::map<std::string_view, writer, std::less<>>& class_writers() {
  static const std::map<std::string_view, writer, std::less<>> table = {
      {"class_unexpected", class_unexpected},
      {"class_unexpected_near_ridge",
       [](const finding& f) { return class_unexpected(f) + near_ridge(f); }},
      {"expected_compute_unchecked",
       [](const finding& f) {
         return "EXPECT_BOUND compute" + on(f) +
                " not checked: the benchmark declares no operations, so only its memory side "
                "is known";
       }},
      {"memory_roof_alone",
       [](const finding&) {
         return std::string(
             "judged against the memory roof alone: the benchmark declares bytes and no "
             "operations, so its compute side was not declared (set perfgate_fp32_flops, "
             "perfgate_fp64_flops or perfgate_int_ops to add it)");
       }},
      {"latency_bound_as_expected", latency_bound_as_expected},
      {"latency_class_unavailable", latency_class_unavailable},
      {"class_changed", class_changed},
      {"class_changed_near_ridge",
       [](const finding& f) { return class_changed(f) + near_ridge(f); }},
      {"turned_latency_bound", pipeline_class_changed},
      {"turned_throughput_bound", pipeline_class_changed},
  };
  return table;
}

// ---- against a baseline, a base build, a base report ----

std::string point_counts(const finding& f) {
  return count(f, "base_samples") + " vs " + count(f, "samples") + " samples";
}

std::string efficiencies(const finding& f) {
  const auto [base, head] = told_apart(num(f, "base_efficiency"), num(f, "efficiency"), 2);
  return base + " -> " + head;
}

std::string interval(const finding& f) {
  const int d = ratio_decimals(f);
  return "time ratio " + fixed(num(f, "time_ratio"), d) + "x, " +
         fixed(num(f, "confidence") * 100, 0) + "% interval " + fixed(num(f, "time_ratio_lo"), d) +
         "x .. " + fixed(num(f, "time_ratio_hi"), d) + "x";
}

// What a change verdict rests on: by samples (judge_efficiency) or by rounds of an A/B session.
std::string change_said(const finding& f) {
  const std::string head =
      "efficiency " + efficiencies(f) + " vs " + against(f) + on(f) + ": " + interval(f);
  if (has(f, "rounds")) {
    return head + " over " + count(f, "rounds") + " rounds (each build run once a round, ABBA)";
  }
  return head + ", Mann-Whitney p " + p_value(num(f, "p_value")) + " (" + point_counts(f) +
         (num(f, "base_runs") > 1 ? ", the baseline's from " + count(f, "base_runs") + " runs"
                                  : std::string()) +
         (has(f, "run_spread")
              ? ", RUN_SPREAD " + fixed(num(f, "run_spread"), 3) + " between runs carried"
              : std::string()) +
         ")";
}

std::string ambiguous(const finding& f) {
  const std::string head = "AMBIGUOUS: " + change_said(f) + "; the interval reaches past the " +
                           allowance(f) + " without lying beyond it";
  if (has(f, "rounds")) {
    return head + "; " +
           (num(f, "rounds_to_settle") > 0
                ? "about " + count(f, "rounds_to_settle") +
                      " rounds in all (--max-rounds, --time-budget) would settle it"
                : "the slowdown sits at the allowance itself");
  }
  return head + work(f) + "; " +
         (num(f, "samples_to_settle") > 0
              ? "about " + count(f, "samples_to_settle") +
                    " samples a side (REPETITIONS, or TARGET_CI for adaptive repetitions) or a "
                    "quieter runner would settle it"
          : num(f, "base_runs") > 1
              ? "the baseline's runs differ by more than the change: more baseline runs "
                "(perfgate baseline accept RUN.json...) or a quieter runner would settle it"
          : has(f, "run_spread")
              ? "runs on this runner spread by more than the change: more baseline runs "
                "(perfgate baseline accept RUN.json...) or a quieter runner would settle it"
              : "the slowdown sits at the allowance itself: no number of samples settles it");
}

// The floor rule over the first run and the confirmation runs (judge_confirmed).
std::string floor_said(const finding& f) {
  const double runs = num(f, "runs"), base_runs = num(f, "base_runs");
  return "the fastest of " + count(f, "runs") + " runs (the first and " +
         std::to_string(static_cast<std::int64_t>(runs) - 1) + " confirmation run" +
         (runs == 2 ? "" : "s") + " in fresh processes) took " +
         fixed(num(f, "floor_ratio"), ratio_decimals(f)) +
         "x the fastest of the " + count(f, "base_runs") + " run" + (base_runs == 1 ? "" : "s") +
         " of " + against(f) + on(f) + " (efficiency " + efficiencies(f) +
         " at the floors, floor rule)";
}

std::string floor_chance(const finding& f) {
  return "a build no slower would miss it in every run with chance " +
         percent(num(f, "false_alarm"), 2) + " (" + percent(num(f, "p_within"), 0) +
         " of runs land within the allowance of their floor)";
}

std::string ab_clocks(const finding& f) {
  return "SM clock " + fixed(num(f, "mhz"), 0) + " MHz in the head's runs vs " +
         fixed(num(f, "base_mhz"), 0) + " MHz in the base's (medians of " + count(f, "runs") +
         " and " + count(f, "base_runs") + " runs)";
}

constexpr const char* lock_clocks_advice =
    "lock them, e.g. nvidia-smi --lock-gpu-clocks, or keep the GPU cool";

const std::map<std::string_view, writer, std::less<>>& point_and_statistics_writers() {
  static const std::map<std::string_view, writer, std::less<>> table = {
      {"efficiency_dropped",
       [](const finding& f) {
         const double drop = num(f, "drop") * 100, limit = num(f, "max_efficiency_drop") * 100;
         return "efficiency dropped " + fixed(drop, decimals_beside(drop, limit, 2)) + "% vs " +
                against(f) + on(f) + " (" + efficiencies(f) + "), more than " + drop_text(f) +
                " (a point comparison: " + point_counts(f) + ", at least " +
                count(f, "min_samples") + " a side give a statistical verdict)" + work(f);
       }},
      {"efficiency_compared",
       [](const finding& f) {
         return "efficiency " + efficiencies(f) + " vs " + against(f) + on(f) +
                " (a point comparison: " + point_counts(f) + ")" + work(f);
       }},
      {"slower_than_base",
       [](const finding& f) {
         return "SLOWER: " + change_said(f) + "; the whole interval lies above the " +
                allowance(f) + (has(f, "rounds") ? "" : work(f));
       }},
      {"slower_within_allowance",
       [](const finding& f) {
         return "SLOWER, within " + drop_text(f) + ": " + change_said(f) + work(f);
       }},
      {"faster",
       [](const finding& f) {
         return "FASTER: " + change_said(f) + (has(f, "rounds") ? "" : work(f));
       }},
      {"same",
       [](const finding& f) {
         return "SAME: " + change_said(f) +
                (has(f, "rounds") ? ", within the " + allowance(f) : work(f));
       }},
      {"ambiguous", ambiguous},
  };
  return table;
}

const std::map<std::string_view, writer, std::less<>>& confirmation_and_ab_writers() {
  static const std::map<std::string_view, writer, std::less<>> table = {
      {"slower_by_floor_rule",
       [](const finding& f) {
         // Only runs of both builds in one session (perfgate ab) fail on it.
         return "SLOWER by the floor rule: " + floor_said(f) + ", beyond the " + allowance(f) +
                "; " + floor_chance(f) +
                ", but the baseline's runs were another session's and a runner's floor can "
                "move between sessions: perfgate ab (AB_BASE_BINARY) decides" +
                work(f);
       }},
      {"ambiguous_after_confirmation",
       [](const finding& f) {
         return "AMBIGUOUS after confirmation: " + floor_said(f) + ", beyond the " + allowance(f) +
                ", but " + floor_chance(f) + "; about " + count(f, "runs_to_settle") +
                " runs in all (--confirm-budget, CONFIRM_BUDGET) would settle it" + work(f);
       }},
      {"faster_confirmed",
       [](const finding& f) { return "FASTER, confirmed: " + floor_said(f) + work(f); }},
      {"same_confirmed",
       [](const finding& f) {
         return "SAME, confirmed: " + floor_said(f) + ", within the " + allowance(f) + work(f);
       }},
      {"ab_clocks_differ",
       [](const finding& f) {
         return ab_clocks(f) +
                ": the builds ran at different clocks, so the time ratio holds the clocks' as "
                "well as the code's (" +
                lock_clocks_advice + ")";
       }},
      {"ab_clocks_equal",
       [](const finding& f) {
         return ab_clocks(f) + ": equal within " + fixed(num(f, "clock_tolerance") * 100, 0) + "%";
       }},
      {"stored_runs_said",
       [](const finding& f) {
         if (f.context.earlier.empty()) {
           missing(f, "finding", "earlier");
         }
         return "the stored runs had said: " + finding_text(f.context.earlier.front());
       }},
  };
  return table;
}

const std::map<std::string_view, writer, std::less<>>& baseline_writers() {
  static const std::map<std::string_view, writer, std::less<>> table = {
      {"not_in_baseline",
       [](const finding& f) {
         const std::string elsewhere = list(f, "elsewhere");
         return "not in " + against(f) +
                (elsewhere.empty() ? std::string()
                                   : " for " + word(f, "device") + " (it holds this kernel on " +
                                         elsewhere + ")");
       }},
      {"baseline_not_comparable",
       [](const finding& f) {
         return against(f) +
                " holds efficiencies against the model's predicted time (format version 1), not "
                "against the roof: no efficiency-drop check; accept a new baseline";
       }},
      {"work_changed",
       [](const finding& f) {
         return "the work changed vs " + against(f) + ": " +
                work_change_text(num(f, "base_W_comp"), num(f, "base_W_traf"), num(f, "W_comp"),
                                 num(f, "W_traf"));
       }},
      {"clock_differs_from_baseline",
       [](const finding& f) {
         return "SM clock " + mhz(num(f, "mhz")) + " vs " + mhz(num(f, "base_mhz")) + " in " +
                against(f) + ": the times were taken at different clocks (" + lock_clocks_advice +
                ")";
       }},
      {"clocks_held_down_unlike_baseline",
       [](const finding& f) {
         return "clocks held down by " + list(f, "clock_limits") + ", which " + against(f) +
                " was not";
       }},
      {"other_hardware",
       [](const finding& f) {
         if (!f.context.hardware) {
           missing(f, "hardware change", "hardware");
         }
         const hardware_change& h = *f.context.hardware;
         return "other hardware: " + against(f) + " was measured on " + describe(h.stored) +
                ", this run on " + describe(h.now) + " (" + differences_text(h) +
                "): its stored runs are compared all the same, which measures the hardware as "
                "much as the code; keep the build with the baseline (baseline accept "
                "--keep-build) so that both builds are measured here, or accept a baseline on "
                "this hardware";
       }},
  };
  return table;
}

// ---- the hull band, the clocks ----

// "the boat hull band of stream 'a1b1' with f 1.00 on local-cpu (1.0 ms .. 2.0 ms, memory-bound)".
std::string hull_band(const finding& f) {
  const double lo = num(f, "band_lo_s"), hi = num(f, "band_hi_s");
  return "the boat hull band of " + word(f, "hull_class") + " '" + word(f, "species") +
         "' with f " + ratio(num(f, "f")) + " on " + word(f, "device") + " (" +
         (lo == hi ? duration(lo) : duration(lo) + " .. " + duration(hi)) + ", " +
         word(f, "hull_bound") + "-bound)";
}

std::string per_invocation(const finding& f) {
  return "measured " + duration(num(f, "per_invocation_s")) + " per invocation";
}

// "1.151x the upper end of ... , more than HULL_TOLERANCE 15.00%": the ratio to the band's top
// and the tolerance with the digits that tell 1 + tolerance and the ratio apart.
std::string past_band(const finding& f, std::string_view how) {
  const double r = num(f, "per_invocation_s") / num(f, "band_hi_s"), tolerance = num(f, "tolerance");
  const int d = decimals_beside(r, 1 + tolerance, 2);
  return per_invocation(f) + ", " + fixed(r, d) + "x the upper end of " + hull_band(f) + ", " +
         std::string(how) + " HULL_TOLERANCE " + fixed(tolerance * 100, std::max(2, d - 2)) + "%";
}

const std::map<std::string_view, writer, std::less<>>& hull_and_clock_writers() {
  static const std::map<std::string_view, writer, std::less<>> table = {
      {"hull_faster_than_band",
       [](const finding& f) {
         return per_invocation(f) + ", faster than " + hull_band(f) +
                " by more than MAX_EFFICIENCY " + threshold_text(num(f, "max_efficiency"), 2) +
                ": the class, f or the device data is wrong";
       }},
      {"hull_slower_than_band",
       [](const finding& f) { return past_band(f, "more than") + " past it"; }},
      {"hull_within_band",
       [](const finding& f) { return per_invocation(f) + ", within " + hull_band(f); }},
      {"hull_within_tolerance", [](const finding& f) { return past_band(f, "within"); }},
      {"clock_scaled",
       [](const finding& f) {
         const std::string scaled = "compute roof scaled by " + fixed(num(f, "clock_scale"), 3);
         if (has(f, "mhz")) {
           return "SM clock " + mhz(num(f, "mhz")) + " while the kernel ran vs " +
                  mhz(num(f, "peaks_mhz")) + " for " + word(f, "device") + "'s peaks: " + scaled;
         }
         return "the kernel ran at another SM clock than " + word(f, "device") +
                "'s peaks hold at: " + scaled;
       }},
      {"clocks_held_down",
       [](const finding& f) { return "clocks held down by: " + list(f, "clock_limits"); }},
      {"timed_on_cpu_time",
       [](const finding& f) {
         const double cpu = num(f, "cpu_time_s"), real = num(f, "real_time_s");
         return "timed on its thread's CPU time, " + duration(cpu) +
                " (Google Benchmark's clock for it); its real time was " + duration(real) +
                ": the thread had a core " + fixed(100 * cpu / real, 0) +
                "% of it, so others took the rest (a busy machine) or the benchmark waits (for "
                "a GPU or other threads: then UseRealTime() or UseManualTime())";
       }},
  };
  return table;
}

using table = std::map<std::string_view, writer, std::less<>>;

const std::vector<const table*>& tables() {
  static const std::vector<const table*> all = {
      &efficiency_floor_writers(),    &class_writers(),    &point_and_statistics_writers(),
      &confirmation_and_ab_writers(), &baseline_writers(), &hull_and_clock_writers()};
  return all;
}

// "3.100 GB", "0 op": an SI count with its unit.
std::string amount(double v, const char* unit) {
  const std::string count = si_count(v);
  return count + (std::isdigit(static_cast<unsigned char>(count.back())) ? " " : "") + unit;
}

} // namespace

std::string finding_text(const finding& f) {
  for (const table* t : tables()) {
    if (const auto it = t->find(f.code); it != t->end()) {
      return it->second(f);
    }
  }
  throw std::logic_error("finding code '" + f.code + "' has no sentence (report/finding_text.cpp)");
}

std::vector<std::string_view> finding_codes() {
  std::vector<std::string_view> out;
  for (const table* t : tables()) {
    for (const auto& entry : *t) {
      out.push_back(entry.first);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void add_finding(verdict& v, finding f) {
  v.reasons.push_back(finding_text(f));
  v.findings.push_back(std::move(f));
}

bool work_term_changed(double base, double head) {
  return base > 0 ? std::fabs(head - base) / base > 0.01 : head > 0;
}

std::string work_change_text(double base_W_comp, double base_W_traf, double W_comp, double W_traf) {
  if (!work_term_changed(base_W_comp, W_comp) && !work_term_changed(base_W_traf, W_traf)) {
    return "same work (W_comp and W_traf within 1%)";
  }
  std::string s;
  auto add = [&](const char* what, double b, double h, const char* unit) {
    if (!work_term_changed(b, h)) {
      return;
    }
    s += (s.empty() ? "" : ", ") + std::string(what) + " " +
         (b > 0 ? signed_percent((h - b) / b, 1) + " " : std::string()) + "(" + amount(b, unit) +
         " -> " + amount(h, unit) + ")";
  };
  add("W_comp", base_W_comp, W_comp, "op");
  add("W_traf", base_W_traf, W_traf, "B");
  return s;
}

std::string differences_text(const hardware_change& h) {
  std::string fields;
  for (const auto& d : h.differences) {
    fields += (fields.empty() ? "" : ", ") + d.field + " " + d.stored + " -> " + d.now +
              (d.matters ? "" : " (noted only)");
  }
  return fields;
}

std::string hardware_notice(const hardware_change& h) {
  const std::string others = h.runners > 1 ? " (the nearest of its " + std::to_string(h.runners) +
                                                 " runners of this device)"
                                           : "";
  return "the baseline was measured on " + describe(h.stored) + others + ", this run is on " +
         describe(h.now) + " (" + differences_text(h) + "): " +
         (h.action == "ab" ? "its stored runs are not compared; its kept build and this one "
                             "run alternately here and decide every kernel"
                           : "no kept build to measure here, so the stored runs are compared "
                             "and every verdict against them warns");
}

} // namespace perfgate::detail
