// SPDX-License-Identifier: Apache-2.0
// apply_gate: one judge per criterion (the efficiency floor, the expected class, the change
// against a baseline or a base build, the hull band, the pipeline model's class), each
// returning its findings (a stable code, the numbers, the sentence) by severity; the verdict
// is the worst of them, its reasons and findings theirs in order.
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/statistics.hpp>

#include "gate/efficiency_change.hpp"
#include "gate/hardware_check.hpp"
#include "util/number_format.hpp"
#include "util/strings.hpp"

#include <cmath>

namespace perfgate {

namespace {

using detail::reason;
using numbers = std::map<std::string, double, std::less<>>;

// One kernel's findings so far, by severity, in the order found.
struct findings {
  std::vector<reason> failures, warnings, notes;
  /// The kernel's part in the suite's figure, from the judge of its change (one at most).
  std::optional<stats::kernel_ratio> suite_part;
  void add(findings&& more) {
    for (auto [from, to] : {std::pair{&more.failures, &failures},
                            std::pair{&more.warnings, &warnings}, std::pair{&more.notes, &notes}}) {
      to->insert(to->end(), std::make_move_iterator(from->begin()),
                 std::make_move_iterator(from->end()));
    }
    if (more.suite_part) {
      suite_part = std::move(more.suite_part);
    }
  }
  void add(detail::efficiency_judgement&& j) {
    add(findings{std::move(j.failures), std::move(j.warnings), std::move(j.notes),
                 std::move(j.suite_part)});
  }
};

std::string ratio(double v) { return detail::fixed(v, 2); }

// O_krn within the margin of O_dev: the kernel sits on the ridge of this device.
bool near_ridge(double o_krn, double o_dev, double margin) {
  return std::fabs(o_krn / o_dev - 1.0) <= margin;
}

std::string describe_class(const kernel_params& k, const prediction& p) {
  if (!k.compute_declared) { // no operations: no intensity to set against a ridge
    return "memory-bound (bytes alone" +
           (p.roof ? ", limited by " + limiter_text(*p.roof) : std::string()) + ")";
  }
  const double ridge = gated_ridge(p);
  std::string s = std::string(to_string(gated_bound(p))) + "-bound (O_krn " +
                  detail::fixed(k.O_krn, 3) + " " + (k.O_krn > ridge ? ">" : "<=") +
                  (p.roof ? " O_ridge " : " O_dev ") + detail::fixed(ridge, 3) + " op/B";
  if (p.roof) {
    s += ", limited by " + limiter_text(*p.roof);
  }
  return s + ")";
}

std::string mhz(double v) { return detail::fixed(v, 0) + " MHz"; }

// "the dram peak (3350.00 1e9/s, dram_triad_nt)": the rate the roof's limiting term held the
// kernel to, the peak a kernel above its roof shows to be too low.
std::string stale_peak(const roof_bound& r) {
  for (const auto& t : r.terms) {
    if (t.resource == r.limiter) {
      return "the " + t.resource + " peak (" + detail::fixed(t.rate, 2) + " 1e9/s" +
             (t.via.empty() ? "" : ", " + t.via) + ")";
    }
  }
  return "the " + r.limiter + " peaks"; // summed issue terms: several peaks together
}

// "latency-bound by the pipeline model: utilisation 0.31 of gmem (theta 0.80) at 2 resident
// groups of 32 warps (limited by warps), 1.2 ms per launch (sgemm.idg.json)".
std::string describe_estimate(const pipeline::launch_estimate& e) {
  return std::string(e.latency_bound ? "latency" : "throughput") +
         "-bound by the pipeline model: utilisation " + detail::fixed(e.utilisation, 2) + " of " +
         std::string(pipeline::to_string(e.busiest)) + " (theta " + detail::fixed(e.theta, 2) +
         ") at " + std::to_string(e.resident_groups) + " resident group" +
         (e.resident_groups == 1 ? "" : "s") + " of " + std::to_string(e.warps_per_group) +
         " warps (limited by " + e.limited_by + "), " + detail::duration(e.seconds) +
         " per launch (" + e.idg + ")";
}

// The evidence for a kernel's latency class: the pipeline model's estimate where the policy has
// one for it; else, with a measured time, its duration per invocation against the floor (until
// the pipeline model has the kernel's instruction graph, duration is the evidence).
struct latency_evidence {
  const pipeline::launch_estimate* model = nullptr;
  std::optional<double> per_invocation_s;
  bool by_duration = false; // no model, and under the floor

  latency_evidence(const kernel_report& k, const gate_policy& policy,
                   const gate_measurements& measured) {
    if (const auto e = measured.pipeline.find(k.name); e != measured.pipeline.end()) {
      model = &e->second;
    }
    if (k.measured && k.measured->time_s > 0) {
      per_invocation_s = k.measured->time_s / static_cast<double>(k.invocations);
      by_duration = model == nullptr && *per_invocation_s < policy.latency_floor_s;
    }
  }
};

// What one kernel is judged with: the report's, the policy's, the measurements'.
struct kernel_case {
  const report& r;
  const kernel_report& k;
  const prediction& p; // on the local device
  const gate_policy& policy;
  const gate_measurements& measured;
  const latency_evidence& latency;
  std::string on; // " on local-cpu"
};

// The efficiency floor: MIN_EFFICIENCY and MAX_EFFICIENCY against the roof, or against the
// pipeline model's time where it finds the kernel latency-bound.
findings judge_efficiency_floor(const kernel_case& c, double e) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  findings out;
  const pipeline::launch_estimate* model = latency.model;
  numbers values = {{"efficiency", e},
                    {"measured_s", k.measured->time_s},
                    {"roof_s", gated_time_s(p)},
                    {"predicted_s", p.predicted_time_s},
                    {"max_efficiency", policy.max_efficiency}};
  if (policy.min_efficiency) {
    values["min_efficiency"] = *policy.min_efficiency;
  }
  std::string text = "measured " + detail::duration(k.measured->time_s) +
                     (p.roof ? ", roof " : ", bound ") + detail::duration(gated_time_s(p)) + ", " +
                     describe_class(k.params, p);
  if (p.roof) {
    text += p.scaling ? "; scaled from the measurement on " + p.scaling->measured_on +
                            ", predicted " + detail::duration(p.predicted_time_s)
                      : "; the " + std::string(to_string(k.params.model)) + " model predicts " +
                            detail::duration(p.predicted_time_s);
  }
  const double per_invocation = *latency.per_invocation_s;
  values["per_invocation_s"] = per_invocation;
  const std::string latency_class =
      "latency-bound by duration: " + detail::duration(per_invocation) +
      " per invocation, under the " + detail::duration(policy.latency_floor_s) +
      " threshold (launch overhead, tails, clocks ramping), where the roof does not apply";
  if (model != nullptr && model->latency_bound) {
    // The roof does not bound a latency-bound kernel: the pipeline model's time does.
    const double pe = model->seconds / per_invocation;
    out.notes.push_back({"efficiency_against_roof", values,
                         "efficiency " + ratio(e) + " against the roof" + on + ": " + text});
    values["pipeline_efficiency"] = pe;
    values["pipeline_s"] = model->seconds;
    const std::string what = "efficiency " + ratio(pe) + " against the pipeline model's " +
                             detail::duration(model->seconds) + on + "; " +
                             describe_estimate(*model);
    if (policy.min_efficiency && pe < *policy.min_efficiency) {
      out.failures.push_back({"pipeline_efficiency_below_floor", values,
                              what + ", below MIN_EFFICIENCY " + ratio(*policy.min_efficiency)});
    } else if (pe > policy.max_efficiency) {
      out.failures.push_back(
          {"pipeline_efficiency_above_max", values,
           what + ", above MAX_EFFICIENCY " + ratio(policy.max_efficiency) +
               ": the kernel beats the model, so its latencies or graph are wrong"});
    } else {
      out.notes.push_back({"pipeline_efficiency", values, what});
    }
  } else if (policy.min_efficiency && e < *policy.min_efficiency) {
    const std::string what = "efficiency " + ratio(e) + " below MIN_EFFICIENCY " +
                             ratio(*policy.min_efficiency) + on + ": " + text;
    if (latency.by_duration) {
      values["latency_floor_s"] = policy.latency_floor_s;
      out.warnings.push_back(
          {"efficiency_below_floor_latency_bound", values, what + "; " + latency_class});
    } else {
      out.failures.push_back({"efficiency_below_floor", values, what});
    }
  } else if (e > policy.max_efficiency) {
    out.failures.push_back({"efficiency_above_max", values,
                            "efficiency " + ratio(e) + " above MAX_EFFICIENCY " +
                                ratio(policy.max_efficiency) + on + ": " + text +
                                "; the kernel beats its roof, so the device's peaks are too low "
                                "(recalibrate) or the declared work is too small"});
  } else if (e > 1.0 && p.roof) {
    // Within MAX_EFFICIENCY, but no correct run beats a true roof: the rate the roof holds
    // the kernel to is stale (a drifting shared runner, a calibration under load).
    out.warnings.push_back({"efficiency_above_roof", values,
                            "efficiency " + ratio(e) + " above 1" + on + ": " + text + "; " +
                                stale_peak(*p.roof) +
                                " is stale: this run went faster (recalibrate)"});
  } else {
    out.notes.push_back({"efficiency", values,
                         "efficiency " + ratio(e) + on + ": " + text +
                             (latency.by_duration ? "; " + latency_class : "") +
                             (model != nullptr ? "; " + describe_estimate(*model) : "")});
  }
  return out;
}

// EXPECT_BOUND latency: by the pipeline model's class where it has one, else by duration
// (met under the floor, unavailable otherwise: a warning, never a failure on a guess).
findings judge_expected_latency(const kernel_case& c) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  findings out;
  const pipeline::launch_estimate* model = latency.model;
  if (model != nullptr) {
    const numbers values = {{"utilisation", model->utilisation},
                            {"resident_groups", static_cast<double>(model->resident_groups)},
                            {"pipeline_s", model->seconds}};
    if (model->latency_bound) {
      out.notes.push_back({"latency_bound_as_expected", values,
                           "latency-bound as expected" + on + ": " + describe_estimate(*model)});
    } else {
      out.failures.push_back({"class_unexpected", values,
                              "expected latency-bound" + on + ", found " +
                                  describe_estimate(*model)});
    }
    return out;
  }
  if (!latency.per_invocation_s) {
    out.warnings.push_back(
        {"latency_class_unavailable", {},
         "expected latency-bound" + on +
             ": no measured time, and the pipeline model's class is unavailable"});
    return out;
  }
  const numbers values = {{"per_invocation_s", *latency.per_invocation_s},
                          {"latency_floor_s", policy.latency_floor_s}};
  const std::string duration = detail::duration(*latency.per_invocation_s) + " per invocation";
  if (latency.by_duration) {
    out.notes.push_back({"latency_bound_as_expected", values,
                         "latency-bound as expected" + on + ", by duration: " + duration +
                             ", under the " + detail::duration(policy.latency_floor_s) +
                             " threshold (the pipeline model's class is unavailable: no "
                             "instruction graph and latencies for this kernel)"});
  } else {
    out.warnings.push_back({"latency_class_unavailable", values,
                            "expected latency-bound" + on +
                                ": the pipeline model's class is "
                                "unavailable (no instruction graph and latencies for this "
                                "kernel), and at " +
                                duration + " it is not latency-bound by duration (under " +
                                detail::duration(policy.latency_floor_s) + "); the roof says " +
                                describe_class(k.params, p)});
  }
  return out;
}

// The expected class: EXPECT_BOUND memory or compute against the roof's class on the local
// device (a warning on the ridge), latency by judge_expected_latency.
findings judge_expected_class(const kernel_case& c) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  findings out;
  if (policy.expect_latency) {
    out.add(judge_expected_latency(c));
  }
  if (!k.params.compute_declared) {
    out.notes.push_back(
        {"memory_roof_alone", {},
         "judged against the memory roof alone: the benchmark declares bytes and "
         "no operations, so its compute side was not declared (set "
         "perfgate_fp32_flops, perfgate_fp64_flops or perfgate_int_ops to add it)"});
  }
  if (policy.expect_bound && !k.params.compute_declared &&
      *policy.expect_bound == bound_class::compute) {
    out.warnings.push_back({"expected_compute_unchecked", {},
                            "EXPECT_BOUND compute" + on +
                                " not checked: the benchmark declares no "
                                "operations, so only its memory side is known"});
  } else if (policy.expect_bound && gated_bound(p) != *policy.expect_bound) {
    const numbers values = {{"O_krn", k.params.O_krn},
                            {"ridge", gated_ridge(p)},
                            {"ridge_margin", policy.ridge_margin}};
    const std::string what = "expected " + std::string(to_string(*policy.expect_bound)) +
                             "-bound" + on + ", found " + describe_class(k.params, p);
    if (near_ridge(k.params.O_krn, gated_ridge(p), policy.ridge_margin)) {
      out.warnings.push_back({"class_unexpected_near_ridge", values,
                              what + "; within " + ratio(policy.ridge_margin * 100) +
                                  "% of the ridge, so a warning"});
    } else {
      out.failures.push_back({"class_unexpected", values, what});
    }
  }
  return out;
}

// The run's clocks against the baseline's: times taken at another SM clock, or with the clocks
// held down where the baseline's were not, are not the baseline's kind of times.
findings clock_differences(const baseline_kernel& b, const kernel_report& k,
                           const std::string& source) {
  findings out;
  if (!k.measured) {
    return out;
  }
  const auto& now = k.measured->sm_clock_mhz;
  if (b.sm_clock_mhz && now && std::fabs(*now / *b.sm_clock_mhz - 1) > detail::clock_tolerance) {
    out.warnings.push_back({"clock_differs_from_baseline",
                            {{"mhz", *now}, {"base_mhz", *b.sm_clock_mhz}},
                            "SM clock " + mhz(*now) + " vs " + mhz(*b.sm_clock_mhz) +
                                " in the baseline " + source +
                                ": the times were taken at different clocks (" +
                                detail::lock_clocks_advice + ")"});
  }
  if (!k.measured->clock_limits.empty() && b.clock_limits.empty() && b.sm_clock_mhz) {
    out.warnings.push_back({"clocks_held_down_unlike_baseline", {},
                            "clocks held down by " + detail::join(k.measured->clock_limits, ", ") +
                                ", which the baseline " + source + " was not"});
  }
  return out;
}

// A run on other hardware than the baseline's stored runs, without a kept build to measure both
// here: compared all the same, and said so with both devices named.
reason hardware_warning(const hardware_change& h, const std::string& source) {
  return {"other_hardware",
          {},
          "other hardware: the baseline " + source + " was measured on " + describe(h.stored) +
              ", this run on " + describe(h.now) + " (" + detail::differences_text(h) +
              "): its stored runs are compared all the same, which measures the hardware as "
              "much as the code; keep the build with the baseline (baseline accept "
              "--keep-build) so that both builds are measured here, or accept a baseline on "
              "this hardware"};
}

// The kernel's efficiency against its baseline entry: the statistical verdict on the first
// run's samples, and, where the gate measured an AMBIGUOUS kernel again (confirmation runs),
// the floor rule over all its runs, which then decides; where the baseline's build was run
// alternately with this one (ab_runs), that session decides. Then what else moved: clocks,
// work.
findings judge_efficiency_change(const kernel_case& c, const baseline_kernel& b, verdict& v) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  detail::efficiency_sides base{*b.efficiency, b.efficiency_runs, std::nullopt};
  detail::efficiency_sides head{*v.efficiency,
                                {detail::efficiency_samples(k, *v.efficiency)},
                                detail::work_numbers{k.params.W_comp, k.params.W_traf}};
  if (b.W_comp > 0 || b.W_traf > 0) {
    base.work = detail::work_numbers{b.W_comp, b.W_traf};
  }
  const std::string against = "the baseline " + measured.base->source;
  auto judged = detail::judge_efficiency(base, head, policy.max_efficiency_drop,
                                         policy.confidence, on, against);
  v.change = judged.change;
  v.confirmation.reset();
  v.confirmation_runs.clear();
  const auto more = measured.confirmation_runs.find(k.name);
  if (more != measured.confirmation_runs.end() && !more->second.empty() && !base.runs.empty() &&
      !head.runs.front().empty()) {
    head.runs.insert(head.runs.end(), more->second.begin(), more->second.end());
    judged = detail::judge_confirmed(base, head, policy.max_efficiency_drop, policy.confidence,
                                     on, against);
    v.confirmation = judged.confirmation;
    v.confirmation_runs = more->second;
  }
  const auto ab = measured.ab_runs.find(k.name);
  if (ab != measured.ab_runs.end() && !ab->second.base.empty()) {
    // The stored runs flagged it; the build they were measured with, run alternately with this
    // one in one session, decides (a stored baseline carries its session's speed).
    std::vector<reason> flagged = std::move(judged.failures);
    flagged.insert(flagged.end(), judged.warnings.begin(), judged.warnings.end());
    judged = detail::judge_ab_runs(ab->second, policy.max_efficiency_drop, policy.confidence, on,
                                   "the baseline's build " + ab->second.base_name);
    v.ab = judged.ab;
    for (auto& f : flagged) {
      judged.notes.push_back({"stored_runs_said", std::move(f.numbers),
                              "the stored runs had said: " + f.text});
    }
  }
  findings out;
  out.add(std::move(judged));
  out.add(clock_differences(b, k, measured.base->source));
  if (measured.hardware && measured.hardware->action == "warn") {
    out.warnings.push_back(hardware_warning(*measured.hardware, measured.base->source));
  }
  if (base.work && detail::work_changed(*base.work, *head.work)) {
    // Counters are deterministic: a change in work shows even where timing cannot.
    out.warnings.push_back({"work_changed",
                            {{"W_comp", head.work->W_comp},
                             {"W_traf", head.work->W_traf},
                             {"base_W_comp", base.work->W_comp},
                             {"base_W_traf", base.work->W_traf}},
                            "the work changed vs " + against + ": " +
                                detail::work_change_text(*base.work, *head.work)});
  }
  return out;
}

// The class a baseline entry holds for this run's device `id`: under `id@host` where a baseline
// of several runners renamed this host's device apart (with_distinct_device_ids), else `id`.
const bound_class* baseline_bound(const baseline_kernel& b, const std::string& id,
                                  const std::string& host) {
  auto it = host.empty() ? b.bounds.end() : b.bounds.find(device_id_on_host(id, host));
  if (it == b.bounds.end()) {
    it = b.bounds.find(id);
  }
  return it == b.bounds.end() ? nullptr : &it->second;
}

// The roof's class on every device against the baseline's (a warning on the ridge).
findings judge_class_change(const kernel_case& c, const baseline_kernel& b) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  findings out;
  for (const auto& q : k.predictions) {
    const bound_class* was = baseline_bound(b, q.device, r.meta.host);
    if (was == nullptr || *was == gated_bound(q)) {
      continue;
    }
    // O_krn 0: a kernel that declared bytes alone has none (absent, never 0).
    numbers values = {{"ridge", gated_ridge(q)}, {"ridge_margin", policy.ridge_margin}};
    if (k.params.compute_declared) {
      values["O_krn"] = k.params.O_krn;
    }
    if (b.O_krn > 0) {
      values["base_O_krn"] = b.O_krn;
    }
    const std::string what =
        "class changed on " + q.device + ": " + std::string(to_string(*was)) + "-bound -> " +
        describe_class(k.params, q) + " (baseline O_krn " +
        (b.O_krn > 0 ? detail::fixed(b.O_krn, 3) : "not declared") + ")";
    if (near_ridge(k.params.O_krn, gated_ridge(q), policy.ridge_margin)) {
      out.warnings.push_back({"class_changed_near_ridge", values,
                              what + "; within " + ratio(policy.ridge_margin * 100) +
                                  "% of the ridge, so a warning"});
    } else {
      out.failures.push_back({"class_changed", values, what});
    }
  }
  return out;
}

// The pipeline model's class against the baseline's: turning latency-bound (fewer warps to
// hide latency) is the regression to catch; turning back is said.
findings judge_pipeline_change(const kernel_case& c, const baseline_kernel& b) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  findings out;
  const auto now = measured.pipeline.find(k.name);
  if (now == measured.pipeline.end() || !b.latency_bound ||
      *b.latency_bound == now->second.latency_bound) {
    return out;
  }
  const auto& e = now->second;
  const std::string what =
      std::string("class changed") + on + " by the pipeline model: " +
      (*b.latency_bound ? "latency" : "throughput") + "-bound -> " +
      (e.latency_bound ? "latency" : "throughput") + "-bound, resident groups " +
      std::to_string(b.resident_groups) + " (limited by " + b.occupancy_limit + ") -> " +
      std::to_string(e.resident_groups) + " (limited by " + e.limited_by + "); utilisation " +
      detail::fixed(e.utilisation, 2) + " of " + std::string(pipeline::to_string(e.busiest));
  const numbers values = {{"resident_groups", static_cast<double>(e.resident_groups)},
                          {"base_resident_groups", static_cast<double>(b.resident_groups)},
                          {"utilisation", e.utilisation}};
  if (e.latency_bound) {
    out.failures.push_back({"turned_latency_bound", values, what});
  } else {
    out.notes.push_back({"turned_throughput_bound", values, what});
  }
  return out;
}

// Everything against the baseline: its entry for this kernel and device, the classes, the
// pipeline model's class, the efficiency.
findings judge_against_baseline(const kernel_case& c, verdict& v) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  findings out;
  const std::string local = r.devices.front().id;
  const baseline_kernel* b = measured.base->find(k.name, local, r.meta.host);
  if (b == nullptr) {
    const auto elsewhere = measured.base->devices_of(k.name);
    out.warnings.push_back({"not_in_baseline", {},
                            "not in the baseline " + measured.base->source +
                                (elsewhere.empty() ? std::string()
                                                   : " for " + local +
                                                         " (it holds this kernel on " +
                                                         detail::join(elsewhere, ", ") + ")")});
    return out;
  }
  out.add(judge_class_change(c, *b));
  out.add(judge_pipeline_change(c, *b));
  const bool comparable = b->against_roof == (p.roof.has_value());
  // Not an entry without a device (it stands for any): one of this device, maybe renamed.
  const bool own = !b->local_device.empty();
  if (b->efficiency && own && !comparable) {
    out.warnings.push_back({"baseline_not_comparable", {},
                            "the baseline " + measured.base->source +
                                " holds efficiencies against the model's predicted time (format "
                                "version 1), not against the roof: no efficiency-drop check; "
                                "accept a new baseline"});
  }
  if (b->efficiency && own && comparable) {
    v.baseline_efficiency = b->efficiency;
  }
  if (b->efficiency && v.efficiency && own && comparable) {
    out.add(judge_efficiency_change(c, *b, v));
  }
  return out;
}

// perfgate ab: the session against the base build it was given (no baseline) is the kernel's
// change.
findings judge_ab_session(const kernel_case& c, verdict& v) {
  const auto& [r, k, p, policy, measured, latency, on] = c;
  findings out;
  const auto ab = measured.ab_runs.find(k.name);
  if (measured.base || !v.efficiency || ab == measured.ab_runs.end() || ab->second.base.empty()) {
    return out;
  }
  auto judged = detail::judge_ab_runs(ab->second, policy.max_efficiency_drop, policy.confidence,
                                      on, "the base build " + ab->second.base_name);
  v.ab = judged.ab;
  v.baseline_efficiency = 1 / stats::median(ab->second.base);
  out.add(std::move(judged));
  return out;
}

// The boat hull band of the policy's class on the local device, against the time per
// invocation: faster than the band by more than MAX_EFFICIENCY or slower than its upper end by
// more than the tolerance fails.
findings judge_hull_band(const hull_policy& h, const hull::species& s, double max_efficiency,
                         const device& local, bool one_core, double per_invocation) {
  findings out;
  const hull::device_rates rates = hull::rates_of(local, one_core);
  const auto k = hull::classify(s, rates.cpu ? hull::target::cpu : hull::target::gpu);
  hull::assumptions a = h.assumed;
  a.one_core = one_core;
  const hull::prediction p = hull::predict(k, h.f, rates, a);
  const std::string band = "the boat hull band of " + std::string(k.row->example) + " '" +
                           s.to_string() + "' with f " + ratio(h.f) + " on " + local.id + " (" +
                           (p.band_s.lo == p.band_s.hi ? detail::duration(p.band_s.lo)
                                                       : detail::duration(p.band_s.lo) + " .. " +
                                                             detail::duration(p.band_s.hi)) +
                           ", " + p.bound + "-bound)";
  const std::string measured = "measured " + detail::duration(per_invocation) + " per invocation";
  const numbers values = {{"per_invocation_s", per_invocation},
                          {"band_lo_s", p.band_s.lo},
                          {"band_hi_s", p.band_s.hi},
                          {"f", h.f},
                          {"tolerance", h.tolerance},
                          {"max_efficiency", max_efficiency}};
  if (per_invocation * max_efficiency < p.band_s.lo) {
    out.failures.push_back({"hull_faster_than_band", values,
                            measured + ", faster than " + band + " by more than MAX_EFFICIENCY " +
                                ratio(max_efficiency) +
                                ": the class, f or the device data is wrong"});
  } else if (per_invocation > p.band_s.hi * (1 + h.tolerance)) {
    out.failures.push_back({"hull_slower_than_band", values,
                            measured + ", " + ratio(per_invocation / p.band_s.hi) +
                                "x the upper end of " + band + ", more than HULL_TOLERANCE " +
                                ratio(h.tolerance * 100) + "% past it"});
  } else if (p.band_s.contains(per_invocation)) {
    out.notes.push_back({"hull_within_band", values, measured + ", within " + band});
  } else {
    out.notes.push_back({"hull_within_tolerance", values,
                         measured + ", " + ratio(per_invocation / p.band_s.hi) + "x the " +
                             "upper end of " + band + ", within HULL_TOLERANCE " +
                             ratio(h.tolerance * 100) + "%"});
  }
  return out;
}

// Why the local bound is not the datasheet's: the kernel ran at another SM clock than the one the
// device's peaks hold at, and what held the clocks down. Explanations only, never a verdict.
findings clock_notes(const kernel_report& k, const prediction& p, const device& local) {
  findings out;
  if (p.clock_scale) {
    const double scale = *p.clock_scale;
    const std::string scaled = "compute roof scaled by " + detail::fixed(scale, 3);
    const std::optional<double> measured_mhz = k.measured ? k.measured->sm_clock_mhz : std::nullopt;
    if (measured_mhz || local.sm_clock_mhz) {
      // A report read back from JSON has no device clock; the scale gives either clock from
      // the other.
      const double ran = measured_mhz ? *measured_mhz : *local.sm_clock_mhz * scale;
      const double peaks = local.sm_clock_mhz ? *local.sm_clock_mhz : ran / scale;
      out.notes.push_back({"clock_scaled",
                           {{"clock_scale", scale}, {"mhz", ran}, {"peaks_mhz", peaks}},
                           "SM clock " + mhz(ran) + " while the kernel ran vs " + mhz(peaks) +
                               " for " + local.id + "'s peaks: " + scaled});
    } else {
      out.notes.push_back({"clock_scaled",
                           {{"clock_scale", scale}},
                           "the kernel ran at another SM clock than " + local.id +
                               "'s peaks hold at: " + scaled});
    }
  }
  if (k.measured && !k.measured->clock_limits.empty()) {
    out.notes.push_back({"clocks_held_down", {},
                         "clocks held down by: " + detail::join(k.measured->clock_limits, ", ")});
  }
  return out;
}

// The efficiency on the local device; throws where the measured time is too small to give one
// JSON can hold.
double efficiency_of(const kernel_report& k, const prediction& p) {
  const double e = gated_time_s(p) / k.measured->time_s;
  if (!std::isfinite(e)) { // JSON has no inf: it would be stored as "no efficiency"
    throw usage_error("kernel '" + k.name + "': its measured time " +
                      std::to_string(k.measured->time_s) + " s is too small to compare with " +
                      "its bound of " + std::to_string(gated_time_s(p)) + " s");
  }
  return e;
}

// Every criterion on one kernel; `lead` (perfgate ab's session) leads the reasons.
verdict judge_kernel(const report& r, kernel_report& k, const gate_policy& policy,
                     const gate_measurements& measured,
                     const std::optional<hull::species>& hull_species,
                     std::vector<stats::kernel_ratio>& suite) {
  const std::string& local = r.devices.front().id;
  verdict v;
  v.device = local;
  const latency_evidence latency(k, policy, measured);
  const kernel_case c{r, k, k.predictions.front(), policy, measured, latency, " on " + local};
  findings all;
  if (k.measured && k.measured->time_s > 0) {
    v.efficiency = efficiency_of(k, c.p);
    all.add(judge_efficiency_floor(c, *v.efficiency));
  } else {
    all.notes.push_back({"no_measured_time", {}, "no measured time: prediction only"});
  }
  if (latency.model != nullptr) {
    k.pipeline = *latency.model; // kept in the report for a later run's baseline
  }
  all.add(judge_expected_class(c));
  if (measured.base) {
    all.add(judge_against_baseline(c, v));
  }
  findings lead = judge_ab_session(c, v);
  if (policy.hull && k.measured && k.measured->time_s > 0) {
    all.add(judge_hull_band(*policy.hull, *hull_species, policy.max_efficiency, r.devices.front(),
                            c.p.one_core, k.measured->time_s / static_cast<double>(k.invocations)));
  }
  all.add(clock_notes(k, c.p, r.devices.front()));
  for (auto* f : {&lead, &all}) {
    if (f->suite_part) {
      suite.push_back(std::move(*f->suite_part));
    }
  }
  const bool failed = !lead.failures.empty() || !all.failures.empty();
  const bool warned = !lead.warnings.empty() || !all.warnings.empty();
  v.status = failed ? verdict_status::fail
             : warned       ? verdict_status::warn
             : v.efficiency ? verdict_status::pass
                            : verdict_status::skip;
  for (auto* f : {&lead, &all}) {
    for (auto [list, severity] : {std::pair{&f->failures, verdict_status::fail},
                                  std::pair{&f->warnings, verdict_status::warn},
                                  std::pair{&f->notes, verdict_status::pass}}) {
      for (auto& one : *list) {
        v.reasons.push_back(std::move(one.text));
        v.findings.push_back({std::move(one.code), severity, std::move(one.numbers)});
      }
    }
  }
  return v;
}

} // namespace

void apply_gate(report& r, const gate_policy& policy, const gate_measurements& measured) {
  if (r.devices.empty()) {
    throw usage_error("devices", "no device to gate against: the first is the local device");
  }
  const std::string local = r.devices.front().id;
  r.local_device = local;
  // Parsed once: the class is the policy's, the same for every kernel.
  const std::optional<hull::species> hull_species =
      policy.hull ? std::optional(hull::parse_species(policy.hull->species)) : std::nullopt;
  std::vector<stats::kernel_ratio> suite; // each kernel judged against a baseline or base
  for (auto& k : r.kernels) {
    if (!k.skip_reason.empty()) {
      continue; // its skip verdict already says why it cannot be judged
    }
    // A profile of several GPUs (an nvbench run on two): a kernel that ran on another GPU is
    // not held to the local one's roof.
    if (k.measured && !k.measured->device.empty() &&
        local_device_named(k.measured->device, {r.devices.front()}).empty()) {
      k.result = verdict{};
      k.result.reasons.push_back("not judged: measured on " + k.measured->device +
                                 ", not on the local device " + local);
      k.result.findings.push_back({"not_on_local_device", verdict_status::skip, {}});
      continue;
    }
    k.result = judge_kernel(r, k, policy, measured, hull_species, suite);
  }
  r.hardware = measured.hardware;
  r.suite.reset();
  if (!suite.empty()) {
    r.suite = stats::summarize_suite(suite, policy.confidence);
  }
}

exit_status gate_exit_status(const report& r) {
  for (const auto& k : r.kernels) {
    if (k.result.status == verdict_status::fail) {
      return exit_status::gate_failure;
    }
  }
  return exit_status::pass;
}

} // namespace perfgate
