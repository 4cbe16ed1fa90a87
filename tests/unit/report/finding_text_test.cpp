// SPDX-License-Identifier: Apache-2.0
// The sentence of every finding code, from the finding alone (report/finding_text.cpp): one row
// per code and per variant its context selects, each the wording the gate has always written;
// the rows cover every code the writer knows, and an unknown code is an error.
#include <perfgate/file_io.hpp>

#include "report/finding_text.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace perfgate::detail {
namespace {

using numbers = std::map<std::string, double, std::less<>>;

// A finding about a kernel on `device`.
finding on(std::string code, numbers values, const std::string& device = "gtx-480") {
  finding f{std::move(code), verdict_status::pass, std::move(values), {}};
  f.context.words["device"] = device;
  return f;
}

// ... compared with `base` (and its name, unless empty).
finding against(std::string code, numbers values, const std::string& base,
                const std::string& name) {
  finding f = on(std::move(code), std::move(values));
  f.context.words["base"] = base;
  if (!name.empty()) {
    f.context.words["base_name"] = name;
  }
  return f;
}

// A dram-limited roof: 20 GB/s through the dram_triad pattern.
roof_bound dram_roof() {
  roof_bound r;
  r.limiter = "dram";
  r.terms = {{"fp64", 1e9, 50, 0.02, ""}, {"dram", 1e9, 20, 0.05, "dram_triad"}};
  return r;
}

class_facts memory_bound() { return {bound_class::memory, true, 0.25, 2.5, dram_roof()}; }

pipeline::launch_estimate estimate(bool latency_bound) {
  pipeline::launch_estimate e;
  e.idg = "sgemm.idg.json";
  e.seconds = 0.025;
  e.utilisation = latency_bound ? 0.31 : 0.92;
  e.busiest = pipeline::unit::gmem;
  e.theta = 0.8;
  e.latency_bound = latency_bound;
  e.resident_groups = latency_bound ? 1 : 4;
  e.limited_by = "registers";
  e.warps_per_group = 32;
  return e;
}

finding with_bound(finding f, class_facts c = memory_bound()) {
  f.context.bound = std::move(c);
  return f;
}

finding with_estimate(finding f, bool latency_bound) {
  f.context.estimate = estimate(latency_bound);
  return f;
}

finding with_words(finding f, std::map<std::string, std::string, std::less<>> words) {
  for (auto& [k, v] : words) {
    f.context.words[k] = v;
  }
  return f;
}

finding with_figures(finding f, numbers figures) {
  for (auto& [k, v] : figures) {
    f.context.figures[k] = v;
  }
  return f;
}

const numbers floor_numbers = {
    {"efficiency", 0.8},          {"measured_s", 0.0625},       {"roof_s", 0.05},
    {"predicted_s", 0.055},       {"max_efficiency", 1.1},      {"min_efficiency", 0.5},
    {"per_invocation_s", 0.0625}, {"pipeline_efficiency", 0.4}, {"latency_floor_s", 1e-4}};

// A finding of the efficiency floor: the roofline model's prediction on gtx-480.
finding judged(std::string code, numbers changed = {}) {
  numbers values = floor_numbers;
  for (auto& [k, v] : changed) {
    values[k] = v;
  }
  return with_words(with_bound(on(std::move(code), values)), {{"model", "roofline"}});
}

const std::string measured_text =
    "measured 62.500 ms, roof 50.000 ms, memory-bound (O_krn 0.250 <= O_ridge 2.500 op/B, "
    "limited by dram (dram_triad)); the roofline model predicts 55.000 ms";
const std::string latency_estimate =
    "latency-bound by the pipeline model: utilisation 0.31 of gmem (theta 0.80) at 1 resident "
    "group of 32 warps (limited by registers), 25.000 ms per launch (sgemm.idg.json)";
const std::string throughput_estimate =
    "throughput-bound by the pipeline model: utilisation 0.92 of gmem (theta 0.80) at 4 "
    "resident groups of 32 warps (limited by registers), 25.000 ms per launch (sgemm.idg.json)";

const numbers statistics_numbers = {
    {"base_efficiency", 0.8}, {"efficiency", 0.67},    {"time_ratio", 1.2},
    {"time_ratio_lo", 1.15},  {"time_ratio_hi", 1.25}, {"allowed", 1.111111111},
    {"confidence", 0.95},     {"p_value", 0.00001},    {"base_samples", 20},
    {"samples", 20},          {"base_runs", 1},        {"samples_to_settle", 0}};
const numbers ab_numbers = {
    {"base_efficiency", 0.8}, {"efficiency", 0.67},    {"time_ratio", 1.2},
    {"time_ratio_lo", 1.15},  {"time_ratio_hi", 1.25}, {"allowed", 1.111111111},
    {"confidence", 0.95},     {"rounds", 6},           {"rounds_to_settle", 0}};
const numbers floor_rule_numbers = {{"floor_ratio", 1.2},    {"base_efficiency", 0.8},
                                    {"efficiency", 0.67},    {"allowed", 1.111111111},
                                    {"false_alarm", 0.0001}, {"p_within", 0.5},
                                    {"base_runs", 3},        {"runs", 2},
                                    {"runs_to_settle", 5}};
const numbers work = {
    {"base_W_comp", 1e9}, {"base_W_traf", 3.1e9}, {"W_comp", 1e9}, {"W_traf", 4.278e9}};

finding change(std::string code, numbers values, bool with_work = false) {
  numbers figures = {{"max_efficiency_drop", 0.1}};
  if (with_work) {
    figures.insert(work.begin(), work.end());
  }
  return with_figures(against(std::move(code), std::move(values), "baseline", "perf/b.json"),
                      figures);
}

numbers with_spread(numbers n) {
  n["run_spread"] = 0.08;
  return n;
}
const std::string stats_said =
    "efficiency 0.80 -> 0.67 vs the baseline perf/b.json on gtx-480: time ratio 1.200x, 95% "
    "interval 1.150x .. 1.250x, Mann-Whitney p < 0.0001 (20 vs 20 samples)";
const std::string ab_said =
    "efficiency 0.80 -> 0.67 vs the baseline perf/b.json on gtx-480: time ratio 1.200x, 95% "
    "interval 1.150x .. 1.250x over 6 rounds (each build run once a round, ABBA)";
const std::string allowance = "1.111x that MAX_EFFICIENCY_DROP 10.0% allows";
const std::string floor_said =
    "the fastest of 2 runs (the first and 1 confirmation run in fresh processes) took 1.200x "
    "the fastest of the 3 runs of the baseline perf/b.json on gtx-480 (efficiency 0.80 -> 0.67 "
    "at the floors, floor rule)";
const std::string chance = "a build no slower would miss it in every run with chance 0.01% (50% "
                           "of runs land within the allowance of their floor)";
const std::string w = "; W_traf +38.0% (3.100 GB -> 4.278 GB)";

finding hull(std::string code, double per_invocation) {
  return with_words(on(std::move(code),
                       {{"per_invocation_s", per_invocation},
                        {"band_lo_s", 0.001},
                        {"band_hi_s", 0.002},
                        {"f", 1},
                        {"tolerance", 0.25},
                        {"max_efficiency", 1.1}},
                       "local-cpu"),
                    {{"hull_class", "stream"}, {"species", "a1b1"}, {"hull_bound", "memory"}});
}
const std::string band =
    "the boat hull band of stream 'a1b1' with f 1.00 on local-cpu (1.000 ms .. 2.000 ms, "
    "memory-bound)";

struct row {
  finding f;
  std::string sentence;
};

std::vector<row> rows() {
  finding scaled = with_words(judged("efficiency"), {{"measured_on", "h100-sxm"}});
  finding by_duration = with_words(judged("efficiency"), {{"latency_evidence", "duration"}});
  finding elsewhere = against("not_in_baseline", {}, "baseline", "perf/b.json");
  elsewhere.context.lists["elsewhere"] = {"a100", "h100-sxm"};
  finding limits = against("clocks_held_down_unlike_baseline", {}, "baseline", "perf/b.json");
  limits.context.lists["clock_limits"] = {"sw_power_cap", "hw_slowdown"};
  finding held = on("clocks_held_down", {});
  held.context.lists["clock_limits"] = {"sw_power_cap"};
  finding other = against("other_hardware", {}, "baseline", "perf/b.json");
  other.context.hardware = hardware_change{
      {"gpu", "h100", "NVIDIA H100", "", "550", 1980, ""},
      {"gpu", "h100", "NVIDIA H200", "", "560", 1980, ""},
      {{"name", "NVIDIA H100", "NVIDIA H200", true}, {"driver", "550", "560", false}},
      "warn"};
  finding earlier = change("slower_than_base", statistics_numbers);
  finding said = on("stored_runs_said", statistics_numbers);
  said.context.earlier.push_back(earlier);
  finding skipped{"cannot_be_judged", verdict_status::skip, {}, {}};
  skipped.context.words["skip_reason"] = "declared work has no bytes";
  finding bytes_alone =
      with_bound(judged("efficiency"), {bound_class::memory, false, 0, 2.5, std::nullopt});
  bytes_alone.context.words.erase("model");
  return {
      {judged("efficiency"), "efficiency 0.80 on gtx-480: " + measured_text},
      {scaled, "efficiency 0.80 on gtx-480: measured 62.500 ms, roof 50.000 ms, memory-bound "
               "(O_krn 0.250 <= O_ridge 2.500 op/B, limited by dram (dram_triad)); scaled from "
               "the measurement on h100-sxm, predicted 55.000 ms"},
      {bytes_alone, "efficiency 0.80 on gtx-480: measured 62.500 ms, bound 50.000 ms, "
                    "memory-bound (bytes alone)"},
      {by_duration, "efficiency 0.80 on gtx-480: " + measured_text +
                        "; latency-bound by duration: 62.500 ms per invocation, under the "
                        "100.000 us threshold (launch overhead, tails, clocks ramping), where "
                        "the roof does not apply"},
      {with_estimate(judged("efficiency"), false),
       "efficiency 0.80 on gtx-480: " + measured_text + "; " + throughput_estimate},
      {judged("efficiency_against_roof"),
       "efficiency 0.80 against the roof on gtx-480: " + measured_text},
      {with_estimate(judged("pipeline_efficiency"), true),
       "efficiency 0.40 against the pipeline model's 25.000 ms on gtx-480; " + latency_estimate},
      {with_estimate(judged("pipeline_efficiency_below_floor"), true),
       "efficiency 0.40 against the pipeline model's 25.000 ms on gtx-480; " + latency_estimate +
           ", below MIN_EFFICIENCY 0.50"},
      {with_estimate(judged("pipeline_efficiency_above_max"), true),
       "efficiency 0.40 against the pipeline model's 25.000 ms on gtx-480; " + latency_estimate +
           ", above MAX_EFFICIENCY 1.10: the kernel beats the model, so its latencies or graph "
           "are wrong"},
      {judged("efficiency_below_floor", {{"efficiency", 0.2}}),
       "efficiency 0.20 below MIN_EFFICIENCY 0.50 on gtx-480: " + measured_text},
      {judged("efficiency_below_floor_latency_bound", {{"efficiency", 0.2}}),
       "efficiency 0.20 below MIN_EFFICIENCY 0.50 on gtx-480: " + measured_text +
           "; latency-bound by duration: 62.500 ms per invocation, under the 100.000 us "
           "threshold (launch overhead, tails, clocks ramping), where the roof does not apply"},
      {judged("efficiency_above_max", {{"efficiency", 1.3}}),
       "efficiency 1.30 above MAX_EFFICIENCY 1.10 on gtx-480: " + measured_text +
           "; the kernel beats its roof, so the device's peaks are too low (recalibrate) or "
           "the declared work is too small"},
      {judged("efficiency_above_roof", {{"efficiency", 1.05}}),
       "efficiency 1.05 above 1 on gtx-480: " + measured_text +
           "; the dram peak (20.00 1e9/s, dram_triad) is stale: this run went faster "
           "(recalibrate)"},
      {on("roof_measured_again", {{"efficiency", 0.83},
                                  {"roof_s", 230.658e-6},
                                  {"efficiency_before", 2.05},
                                  {"roof_before_s", 568.112e-6}}),
       "roof measured again on gtx-480: the kernel beat the calibration's roof (568.112 us, "
       "efficiency 2.05), so this machine was measured again and each peak kept at the higher of "
       "both runs: roof 230.658 us, efficiency 0.83"},
      {on("no_measured_time", {}), "no measured time: prediction only"},
      {with_words(on("not_on_local_device", {}), {{"measured_on", "NVIDIA A100"}}),
       "not judged: measured on NVIDIA A100, not on the local device gtx-480"},
      {skipped, "cannot be judged: declared work has no bytes"},
      {{"prediction_only", verdict_status::skip, {}, {}}, "prediction only: no gate applied"},
      // The expected class.
      {with_words(with_bound(on("class_unexpected", {})), {{"expected", "compute"}}),
       "expected compute-bound on gtx-480, found memory-bound (O_krn 0.250 <= O_ridge 2.500 "
       "op/B, limited by dram (dram_triad))"},
      {with_estimate(on("class_unexpected", {}), false),
       "expected latency-bound on gtx-480, found " + throughput_estimate},
      {with_words(with_bound(on("class_unexpected_near_ridge", {{"ridge_margin", 0.1}}),
                             {bound_class::memory, true, 2.4, 2.5, std::nullopt}),
                  {{"expected", "compute"}}),
       "expected compute-bound on gtx-480, found memory-bound (O_krn 2.400 <= O_dev 2.500 op/B); "
       "within 10.00% of the ridge, so a warning"},
      {on("expected_compute_unchecked", {}),
       "EXPECT_BOUND compute on gtx-480 not checked: the benchmark declares no operations, so "
       "only its memory side is known"},
      {on("memory_roof_alone", {}),
       "judged against the memory roof alone: the benchmark declares bytes and no operations, so "
       "its compute side was not declared (set perfgate_fp32_flops, perfgate_fp64_flops or "
       "perfgate_int_ops to add it)"},
      {with_estimate(on("latency_bound_as_expected", {}), true),
       "latency-bound as expected on gtx-480: " + latency_estimate},
      {on("latency_bound_as_expected", {{"per_invocation_s", 2e-6}, {"latency_floor_s", 1e-4}}),
       "latency-bound as expected on gtx-480, by duration: 2.000 us per invocation, under the "
       "100.000 us threshold (the pipeline model's class is unavailable: no instruction graph "
       "and latencies for this kernel)"},
      {on("latency_class_unavailable", {}),
       "expected latency-bound on gtx-480: no measured time, and the pipeline model's class is "
       "unavailable"},
      {with_bound(on("latency_class_unavailable",
                     {{"per_invocation_s", 0.0625}, {"latency_floor_s", 1e-4}})),
       "expected latency-bound on gtx-480: the pipeline model's class is unavailable (no "
       "instruction graph and latencies for this kernel), and at 62.500 ms per invocation it is "
       "not latency-bound by duration (under 100.000 us); the roof says memory-bound (O_krn "
       "0.250 <= O_ridge 2.500 op/B, limited by dram (dram_triad))"},
      // Against a baseline.
      {with_words(with_bound(on("class_changed", {{"base_O_krn", 8}}, "a100"),
                             {bound_class::memory, true, 0.25, 2.5, std::nullopt}),
                  {{"was", "compute"}}),
       "class changed on a100: compute-bound -> memory-bound (O_krn 0.250 <= O_dev 2.500 op/B) "
       "(baseline O_krn 8.000)"},
      {with_words(with_bound(on("class_changed_near_ridge", {{"ridge_margin", 0.1}}),
                             {bound_class::compute, true, 2.6, 2.5, std::nullopt}),
                  {{"was", "memory"}}),
       "class changed on gtx-480: memory-bound -> compute-bound (O_krn 2.600 > O_dev 2.500 op/B) "
       "(baseline O_krn not declared); within 10.00% of the ridge, so a warning"},
      {with_words(with_estimate(on("turned_latency_bound", {{"base_resident_groups", 4}}), true),
                  {{"base_limited_by", "warps"}}),
       "class changed on gtx-480 by the pipeline model: throughput-bound -> latency-bound, "
       "resident groups 4 (limited by warps) -> 1 (limited by registers); utilisation 0.31 of "
       "gmem"},
      {with_words(
           with_estimate(on("turned_throughput_bound", {{"base_resident_groups", 1}}), false),
           {{"base_limited_by", "registers"}}),
       "class changed on gtx-480 by the pipeline model: latency-bound -> throughput-bound, "
       "resident groups 1 (limited by registers) -> 4 (limited by registers); utilisation 0.92 "
       "of gmem"},
      {against("not_in_baseline", {}, "baseline", "perf/b.json"),
       "not in the baseline perf/b.json"},
      {elsewhere, "not in the baseline perf/b.json for gtx-480 (it holds this kernel on a100, "
                  "h100-sxm)"},
      {against("baseline_not_comparable", {}, "baseline", "perf/b.json"),
       "the baseline perf/b.json holds efficiencies against the model's predicted time (format "
       "version 1), not against the roof: no efficiency-drop check; accept a new baseline"},
      {against("work_changed", work, "baseline", "perf/b.json"),
       "the work changed vs the baseline perf/b.json: W_traf +38.0% (3.100 GB -> 4.278 GB)"},
      {against("clock_differs_from_baseline", {{"mhz", 1410}, {"base_mhz", 1980}}, "baseline",
               "perf/b.json"),
       "SM clock 1410 MHz vs 1980 MHz in the baseline perf/b.json: the times were taken at "
       "different clocks (lock them, e.g. nvidia-smi --lock-gpu-clocks, or keep the GPU cool)"},
      {limits, "clocks held down by sw_power_cap, hw_slowdown, which the baseline perf/b.json "
               "was not"},
      {other, "other hardware: the baseline perf/b.json was measured on NVIDIA H100 (h100, "
              "driver 550, 1980 MHz), this run on NVIDIA H200 (h100, driver 560, 1980 MHz) "
              "(name NVIDIA H100 -> NVIDIA H200, driver 550 -> 560 (noted only)): its stored "
              "runs are compared all the same, which measures the hardware as much as the code; "
              "keep the build with the baseline (baseline accept --keep-build) so that both "
              "builds are measured here, or accept a baseline on this hardware"},
      // The change: by a point comparison, by samples, by the floor rule, by an A/B session.
      {with_figures(change("efficiency_dropped",
                           {{"base_efficiency", 0.8},
                            {"efficiency", 0.6},
                            {"drop", 0.25},
                            {"max_efficiency_drop", 0.1},
                            {"base_samples", 1},
                            {"samples", 3}},
                           true),
                    {{"min_samples", 5}}),
       "efficiency dropped 25.00% vs the baseline perf/b.json on gtx-480 (0.80 -> 0.60), more "
       "than MAX_EFFICIENCY_DROP 10.0% (a point comparison: 1 vs 3 samples, at least 5 a side "
       "give a statistical verdict)" +
           w},
      {change(
           "efficiency_compared",
           {{"base_efficiency", 0.8}, {"efficiency", 0.78}, {"base_samples", 1}, {"samples", 1}}),
       "efficiency 0.80 -> 0.78 vs the baseline perf/b.json on gtx-480 (a point comparison: 1 "
       "vs 1 samples)"},
      {change("slower_than_base", statistics_numbers, true),
       "SLOWER: " + stats_said + "; the whole interval lies above the " + allowance + w},
      {change("slower_than_base", ab_numbers),
       "SLOWER: " + ab_said + "; the whole interval lies above the " + allowance},
      {change("slower_within_allowance", statistics_numbers),
       "SLOWER, within MAX_EFFICIENCY_DROP 10.0%: " + stats_said},
      {change("faster", statistics_numbers), "FASTER: " + stats_said},
      {change("faster", ab_numbers), "FASTER: " + ab_said},
      {change("same", statistics_numbers, true), "SAME: " + stats_said + w},
      {change("same", ab_numbers), "SAME: " + ab_said + ", within the " + allowance},
      {change("ambiguous", statistics_numbers),
       "AMBIGUOUS: " + stats_said + "; the interval reaches past the " + allowance +
           " without lying beyond it; the slowdown sits at the allowance itself: no number of "
           "samples settles it"},
      // With the runner's run spread (--run-spread) carried by a comparison with one stored run.
      {change("ambiguous", with_spread(statistics_numbers)),
       "AMBIGUOUS: " + stats_said.substr(0, stats_said.size() - 1) +
           ", RUN_SPREAD 0.080 between runs carried); the interval reaches past the " + allowance +
           " without lying beyond it; runs on this runner spread by more than the change: more "
           "baseline runs (perfgate baseline accept RUN.json...) or a quieter runner would settle "
           "it"},
      {change("ambiguous", ab_numbers),
       "AMBIGUOUS: " + ab_said + "; the interval reaches past the " + allowance +
           " without lying beyond it; the slowdown sits at the allowance itself"},
      {change("slower_by_floor_rule", floor_rule_numbers),
       "SLOWER by the floor rule: " + floor_said + ", beyond the " + allowance + "; " + chance +
           ", but the baseline's runs were another session's and a runner's floor can move "
           "between sessions: perfgate ab (AB_BASE_BINARY) decides"},
      {change("ambiguous_after_confirmation", floor_rule_numbers),
       "AMBIGUOUS after confirmation: " + floor_said + ", beyond the " + allowance + ", but " +
           chance + "; about 5 runs in all (--confirm-budget, CONFIRM_BUDGET) would settle it"},
      {change("faster_confirmed", floor_rule_numbers), "FASTER, confirmed: " + floor_said},
      {change("same_confirmed", floor_rule_numbers, true),
       "SAME, confirmed: " + floor_said + ", within the " + allowance + w},
      {said, "the stored runs had said: SLOWER: " + stats_said +
                 "; the whole interval lies above the " + allowance},
      {with_figures(on("ab_clocks_differ", {{"mhz", 1710}, {"base_mhz", 1980}}),
                    {{"runs", 3}, {"base_runs", 3}}),
       "SM clock 1710 MHz in the head's runs vs 1980 MHz in the base's (medians of 3 and 3 "
       "runs): the builds ran at different clocks, so the time ratio holds the clocks' as well "
       "as the code's (lock them, e.g. nvidia-smi --lock-gpu-clocks, or keep the GPU cool)"},
      {with_figures(on("ab_clocks_equal", {{"mhz", 1950}, {"base_mhz", 1980}}),
                    {{"runs", 2}, {"base_runs", 2}, {"clock_tolerance", 0.02}}),
       "SM clock 1950 MHz in the head's runs vs 1980 MHz in the base's (medians of 2 and 2 "
       "runs): equal within 2%"},
      // The hull band, the clocks.
      {hull("hull_within_band", 0.0015), "measured 1.500 ms per invocation, within " + band},
      {hull("hull_within_tolerance", 0.0022),
       "measured 2.200 ms per invocation, 1.10x the upper end of " + band +
           ", within HULL_TOLERANCE 25.00%"},
      {hull("hull_slower_than_band", 0.003),
       "measured 3.000 ms per invocation, 1.50x the upper end of " + band +
           ", more than HULL_TOLERANCE 25.00% past it"},
      {hull("hull_faster_than_band", 0.0005),
       "measured 500.000 us per invocation, faster than " + band +
           " by more than MAX_EFFICIENCY 1.10: the class, f or the device data is wrong"},
      {on("clock_scaled", {{"clock_scale", 0.712}, {"mhz", 1410}, {"peaks_mhz", 1980}}, "h100-sxm"),
       "SM clock 1410 MHz while the kernel ran vs 1980 MHz for h100-sxm's peaks: compute roof "
       "scaled by 0.712"},
      {on("clock_scaled", {{"clock_scale", 0.712}}, "h100-sxm"),
       "the kernel ran at another SM clock than h100-sxm's peaks hold at: compute roof scaled by "
       "0.712"},
      {held, "clocks held down by: sw_power_cap"},
      // standard_counters.json's BM_copy, recorded on a busy VM
      {on("timed_on_cpu_time", {{"cpu_time_s", 6.800146775e-3}, {"real_time_s", 11.097857725e-3}}),
       "timed on its thread's CPU time, 6.800 ms (Google Benchmark's clock for it); its real time "
       "was 11.098 ms: the thread had a core 61% of it, so others took the rest (a busy machine) "
       "or the benchmark waits (for a GPU or other threads: then UseRealTime() or "
       "UseManualTime())"},
  };
}

TEST(FindingText, EachCodeHasItsSentence) {
  for (const auto& [f, sentence] : rows()) {
    EXPECT_EQ(finding_text(f), sentence) << f.code;
  }
}

TEST(FindingText, TheRowsCoverEveryCodeTheWriterKnows) {
  std::set<std::string> covered;
  for (const auto& r : rows()) {
    covered.insert(r.f.code);
  }
  const auto known = finding_codes();
  EXPECT_EQ(std::vector<std::string>(covered.begin(), covered.end()),
            std::vector<std::string>(known.begin(), known.end()));
}

TEST(FindingText, DocsListEveryCode) {
  // docs/formats.md's table of codes is what a CI annotation is written against.
  const std::string doc = read_text_file(std::string(PERFGATE_SOURCE_DIR) + "/docs/formats.md");
  for (const auto code : finding_codes()) {
    EXPECT_NE(doc.find("`" + std::string(code) + "`"), std::string::npos) << code;
  }
}

TEST(FindingText, AnUnknownCodeIsAnErrorNotAnEmptySentence) {
  EXPECT_THROW((void)finding_text(on("efficiency_sideways", {})), std::logic_error);
  // A known code without the number its sentence needs: an error naming both, never a guess.
  try {
    (void)finding_text(
        against("clock_differs_from_baseline", {{"mhz", 1410}}, "baseline", "perf/b.json"));
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("base_mhz"), std::string::npos) << e.what();
  }
}

// One sentence, one bound (issue 54): a roof that holds the kernel's traffic to a cache and a
// prediction from DRAM's rate are two bounds, so the prediction says which it is. The 6 MiB
// triad of tests/consumer on the 2-core EPYC VM: roof 188.996 us at the llc's 33.29 GB/s,
// predicted 361.411 us at DRAM's one-core mean.
TEST(FindingText, APredictionFromDramBesideACacheRoofSaysSo) {
  roof_bound llc;
  llc.bound = bound_class::memory;
  llc.limiter = "llc";
  llc.terms = {{"fp64", 524288, 23.88, 2.1955e-5, ""},
               {"llc", 6291456, 33.288846549374185, 1.8899591461267608e-4,
                "working set not declared: one iteration's bytes"}};
  const finding f = with_words(
      with_bound(on("efficiency",
                    {{"efficiency", 1.0012236638234207},
                     {"measured_s", 1.88764929796953e-4},
                     {"roof_s", 1.8899591461267608e-4},
                     {"predicted_s", 3.6141142330142393e-4}},
                    "local-cpu"),
                 {bound_class::memory, true, 0.08333333333333333, 0.7173612245413554, llc}),
      {{"model", "roofline"}});
  EXPECT_EQ(finding_text(f),
            "efficiency 1.00 on local-cpu: measured 188.765 us, roof 188.996 us, memory-bound "
            "(O_krn 0.083 <= O_ridge 0.717 op/B, limited by llc (working set not declared: one "
            "iteration's bytes)); the roofline model predicts 361.411 us with every byte from "
            "DRAM, not from llc");
}

// Issue 54: a value and the threshold it is judged against never print alike when they differ,
// and a small efficiency keeps two significant digits (a bytes-only suite's floors are this low).
TEST(FindingDigits, AnEfficiencyAndItsFloorPrintApart) {
  EXPECT_EQ(finding_text(judged("efficiency_below_floor",
                                {{"efficiency", 0.0123}, {"min_efficiency", 0.0149}})),
            "efficiency 0.0123 below MIN_EFFICIENCY 0.0149 on gtx-480: " + measured_text);
  EXPECT_EQ(finding_text(judged("efficiency_below_floor",
                                {{"efficiency", 0.4999}, {"min_efficiency", 0.5}})),
            "efficiency 0.4999 below MIN_EFFICIENCY 0.5000 on gtx-480: " + measured_text);
  EXPECT_EQ(finding_text(judged("efficiency_against_roof", {{"efficiency", 0.0149}})),
            "efficiency 0.015 against the roof on gtx-480: " + measured_text);
}

TEST(FindingDigits, ABaseAndAHeadPrintApart) {
  auto f = with_figures(change("efficiency_dropped",
                               {{"base_efficiency", 0.0151},
                                {"efficiency", 0.0149},
                                {"drop", 0.1001},
                                {"max_efficiency_drop", 0.1},
                                {"base_samples", 1},
                                {"samples", 1}}),
                        {{"min_samples", 5}});
  EXPECT_EQ(finding_text(f),
            "efficiency dropped 10.01% vs the baseline perf/b.json on gtx-480 (0.0151 -> 0.0149), "
            "more than MAX_EFFICIENCY_DROP 10.0% (a point comparison: 1 vs 1 samples, at least 5 "
            "a side give a statistical verdict)");
}

// An interval's end a hair above the allowance reads above it, with the allowance's digits.
TEST(FindingDigits, ARatioAndTheAllowanceItPassesPrintApart) {
  numbers n = statistics_numbers;
  n["time_ratio_lo"] = 1.1112;
  EXPECT_EQ(finding_text(change("slower_than_base", n)),
            "SLOWER: efficiency 0.80 -> 0.67 vs the baseline perf/b.json on gtx-480: time ratio "
            "1.2000x, 95% interval 1.1112x .. 1.2500x, Mann-Whitney p < 0.0001 (20 vs 20 "
            "samples); the whole interval lies above the 1.1111x that MAX_EFFICIENCY_DROP 10.0% "
            "allows");
}

TEST(FindingDigits, AHullRatioAndItsTolerancePrintApart) {
  finding f = hull("hull_slower_than_band", 0.002302);
  f.numbers["tolerance"] = 0.15;
  EXPECT_EQ(finding_text(f), "measured 2.302 ms per invocation, 1.151x the upper end of " + band +
                                 ", more than HULL_TOLERANCE 15.00% past it");
}

TEST(WorkChange, SameWorkWithinOnePercent) {
  EXPECT_FALSE(work_term_changed(1e9, 1.009e9));
  EXPECT_EQ(work_change_text(1e9, 4e9, 1.009e9, 3.99e9), "same work (W_comp and W_traf within 1%)");
}

TEST(WorkChange, NamesEachChangedTermWithBothValues) {
  EXPECT_TRUE(work_term_changed(3.1e9, 4.278e9));
  EXPECT_EQ(work_change_text(1e9, 3.1e9, 1e9, 4.278e9), "W_traf +38.0% (3.100 GB -> 4.278 GB)");
  EXPECT_EQ(work_change_text(2e9, 3.1e9, 1e9, 1.55e9),
            "W_comp -50.0% (2.000 Gop -> 1.000 Gop), W_traf -50.0% (3.100 GB -> 1.550 GB)");
  // From nothing: no percentage to give.
  EXPECT_EQ(work_change_text(0, 1e6, 5e6, 1e6), "W_comp (0 op -> 5.000 Mop)");
}

} // namespace
} // namespace perfgate::detail
