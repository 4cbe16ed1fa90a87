// SPDX-License-Identifier: Apache-2.0
// apply_gate: one judge per criterion (the efficiency floor, the expected class, the change
// against a baseline or a base build, the hull band, the pipeline model's class), each
// returning its findings (a stable code, the numbers, what the sentence names) by severity; the
// verdict is the worst of them, its findings theirs in order and its reasons their sentences
// (report/finding_text.cpp: no judge writes English).
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/statistics.hpp>

#include "gate/efficiency_change.hpp"
#include "gate/hardware_check.hpp"
#include "report/finding_text.hpp"

#include <cmath>

namespace perfgate {

namespace {

using numbers = std::map<std::string, double, std::less<>>;

// A real time this much longer than the CPU time it was timed on is worth a note.
constexpr double cpu_time_note_ratio = 1.05;

// One kernel's findings so far, by severity, in the order found.
struct findings {
  std::vector<finding> failures, warnings, notes;
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

// O_krn within the margin of O_dev: the kernel sits on the ridge of this device.
bool near_ridge(double o_krn, double o_dev, double margin) {
  return std::fabs(o_krn / o_dev - 1.0) <= margin;
}

// The kernel's class on a device, as a finding's sentence names it.
class_facts class_of(const kernel_params& k, const prediction& p) {
  return {gated_bound(p), k.compute_declared, k.O_krn, gated_ridge(p), p.roof};
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

  // What a finding about the kernel on the local device names: the device, its class there.
  [[nodiscard]] finding_context said() const {
    finding_context out;
    out.words["device"] = r.devices.front().id;
    out.bound = class_of(k.params, p);
    return out;
  }
  // The same, against `base` ("baseline" and its file, "base build" and its binary).
  [[nodiscard]] finding_context said_against(std::string base, std::string name) const {
    finding_context out = said();
    out.words["base"] = std::move(base);
    out.words["base_name"] = std::move(name);
    return out;
  }
};

// A finding; judge_kernel gives it the severity of the list it ends up in.
finding found(std::string code, numbers values, finding_context context) {
  return {std::move(code), verdict_status::pass, std::move(values), std::move(context)};
}

// The efficiency floor: MIN_EFFICIENCY and MAX_EFFICIENCY against the roof, or against the
// pipeline model's time where it finds the kernel latency-bound.
findings judge_efficiency_floor(const kernel_case& c, double e) {
  const auto& [r, k, p, policy, measured, latency] = c;
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
  finding_context said = c.said();
  if (p.scaling) {
    said.words["measured_on"] = p.scaling->measured_on;
  }
  said.words["model"] = to_string(k.params.model);
  said.figures["latency_floor_s"] = policy.latency_floor_s;
  if (model != nullptr) {
    said.estimate = *model;
  }
  values["per_invocation_s"] = *latency.per_invocation_s;
  if (model != nullptr && model->latency_bound) {
    // The roof does not bound a latency-bound kernel: the pipeline model's time does.
    const double pe = model->seconds / *latency.per_invocation_s;
    out.notes.push_back(found("efficiency_against_roof", values, said));
    values["pipeline_efficiency"] = pe;
    values["pipeline_s"] = model->seconds;
    if (policy.min_efficiency && pe < *policy.min_efficiency) {
      out.failures.push_back(found("pipeline_efficiency_below_floor", values, said));
    } else if (pe > policy.max_efficiency) {
      out.failures.push_back(found("pipeline_efficiency_above_max", values, said));
    } else {
      out.notes.push_back(found("pipeline_efficiency", values, said));
    }
  } else if (policy.min_efficiency && e < *policy.min_efficiency) {
    if (latency.by_duration) {
      values["latency_floor_s"] = policy.latency_floor_s;
      out.warnings.push_back(found("efficiency_below_floor_latency_bound", values, said));
    } else {
      out.failures.push_back(found("efficiency_below_floor", values, said));
    }
  } else if (e > policy.max_efficiency) {
    out.failures.push_back(found("efficiency_above_max", values, said));
  } else if (e > 1.0 && p.roof) {
    // Within MAX_EFFICIENCY, but no correct run beats a true roof: the rate the roof holds
    // the kernel to is stale (a drifting shared runner, a calibration under load).
    out.warnings.push_back(found("efficiency_above_roof", values, said));
  } else {
    if (latency.by_duration) {
      said.words["latency_evidence"] = "duration";
    }
    out.notes.push_back(found("efficiency", values, said));
  }
  return out;
}

// EXPECT_BOUND latency: by the pipeline model's class where it has one, else by duration
// (met under the floor, unavailable otherwise: a warning, never a failure on a guess).
findings judge_expected_latency(const kernel_case& c) {
  const auto& [r, k, p, policy, measured, latency] = c;
  findings out;
  finding_context said = c.said();
  if (const pipeline::launch_estimate* model = latency.model) {
    const numbers values = {{"utilisation", model->utilisation},
                            {"resident_groups", static_cast<double>(model->resident_groups)},
                            {"pipeline_s", model->seconds}};
    said.estimate = *model;
    (model->latency_bound ? out.notes : out.failures)
        .push_back(found(model->latency_bound ? "latency_bound_as_expected" : "class_unexpected",
                         values, said));
    return out;
  }
  if (!latency.per_invocation_s) {
    out.warnings.push_back(found("latency_class_unavailable", {}, said));
    return out;
  }
  const numbers values = {{"per_invocation_s", *latency.per_invocation_s},
                          {"latency_floor_s", policy.latency_floor_s}};
  if (latency.by_duration) {
    out.notes.push_back(found("latency_bound_as_expected", values, said));
  } else {
    out.warnings.push_back(found("latency_class_unavailable", values, said));
  }
  return out;
}

// The expected class: EXPECT_BOUND memory or compute against the roof's class on the local
// device (a warning on the ridge), latency by judge_expected_latency.
findings judge_expected_class(const kernel_case& c) {
  const auto& [r, k, p, policy, measured, latency] = c;
  findings out;
  if (policy.expect_latency) {
    out.add(judge_expected_latency(c));
  }
  if (!k.params.compute_declared) {
    out.notes.push_back(found("memory_roof_alone", {}, c.said()));
  }
  if (policy.expect_bound && !k.params.compute_declared &&
      *policy.expect_bound == bound_class::compute) {
    out.warnings.push_back(found("expected_compute_unchecked", {}, c.said()));
  } else if (policy.expect_bound && gated_bound(p) != *policy.expect_bound) {
    const numbers values = {{"O_krn", k.params.O_krn},
                            {"ridge", gated_ridge(p)},
                            {"ridge_margin", policy.ridge_margin}};
    finding_context said = c.said();
    said.words["expected"] = to_string(*policy.expect_bound);
    if (near_ridge(k.params.O_krn, gated_ridge(p), policy.ridge_margin)) {
      out.warnings.push_back(found("class_unexpected_near_ridge", values, said));
    } else {
      out.failures.push_back(found("class_unexpected", values, said));
    }
  }
  return out;
}

// The run's clocks against the baseline's: times taken at another SM clock, or with the clocks
// held down where the baseline's were not, are not the baseline's kind of times.
findings clock_differences(const baseline_kernel& b, const kernel_report& k,
                           const finding_context& said) {
  findings out;
  if (!k.measured) {
    return out;
  }
  const auto& now = k.measured->sm_clock_mhz;
  if (b.sm_clock_mhz && now && std::fabs(*now / *b.sm_clock_mhz - 1) > clock_tolerance) {
    out.warnings.push_back(
        found("clock_differs_from_baseline", {{"mhz", *now}, {"base_mhz", *b.sm_clock_mhz}}, said));
  }
  if (!k.measured->clock_limits.empty() && b.clock_limits.empty() && b.sm_clock_mhz) {
    finding_context limits = said;
    limits.lists["clock_limits"] = k.measured->clock_limits;
    out.warnings.push_back(found("clocks_held_down_unlike_baseline", {}, std::move(limits)));
  }
  return out;
}

// The kernel's efficiency against its baseline entry: the statistical verdict on the first
// run's samples, and, where the gate measured an AMBIGUOUS kernel again (confirmation runs),
// the floor rule over all its runs, which then decides; where the baseline's build was run
// alternately with this one (ab_runs), that session decides. Then what else moved: clocks,
// work, hardware (a run on other hardware than the baseline's stored runs, without a kept
// build to measure both here, is compared all the same, and said so).
findings judge_efficiency_change(const kernel_case& c, const baseline_kernel& b, verdict& v) {
  const auto& [r, k, p, policy, measured, latency] = c;
  detail::efficiency_sides base{*b.efficiency, b.efficiency_runs, std::nullopt};
  detail::efficiency_sides head{*v.efficiency,
                                {detail::efficiency_samples(k, *v.efficiency)},
                                detail::work_numbers{k.params.W_comp, k.params.W_traf}};
  if (b.W_comp > 0 || b.W_traf > 0) {
    base.work = detail::work_numbers{b.W_comp, b.W_traf};
  }
  const finding_context said = c.said_against("baseline", measured.base->source);
  auto judged = detail::judge_efficiency(base, head, policy.max_efficiency_drop, policy.confidence,
                                         policy.run_spread, said);
  v.change = judged.change;
  v.confirmation.reset();
  v.confirmation_runs.clear();
  const auto more = measured.confirmation_runs.find(k.name);
  if (more != measured.confirmation_runs.end() && !more->second.empty() && !base.runs.empty() &&
      !head.runs.front().empty()) {
    // The further runs' times join the first run's samples as efficiencies against this
    // kernel's roof (the same build: the same roof).
    const stats::runs again = detail::efficiencies_of(more->second, detail::roof_per_invocation_s(k));
    head.runs.insert(head.runs.end(), again.begin(), again.end());
    judged =
        detail::judge_confirmed(base, head, policy.max_efficiency_drop, policy.confidence, said);
    v.confirmation = judged.confirmation;
    v.confirmation_runs = again;
  }
  const auto ab = measured.ab_runs.find(k.name);
  if (ab != measured.ab_runs.end() && !ab->second.base_s.empty()) {
    // The stored runs flagged it; the build they were measured with, run alternately with this
    // one in one session, decides (a stored baseline carries its session's speed).
    std::vector<finding> flagged = std::move(judged.failures);
    flagged.insert(flagged.end(), judged.warnings.begin(), judged.warnings.end());
    judged = detail::judge_ab_runs(ab->second, policy.max_efficiency_drop, policy.confidence,
                                   c.said_against("baseline's build", ab->second.base_name));
    v.ab = judged.ab;
    for (auto& f : flagged) {
      finding_context earlier;
      earlier.earlier.push_back(f);
      judged.notes.push_back(found("stored_runs_said", std::move(f.numbers), std::move(earlier)));
    }
  }
  findings out;
  out.add(std::move(judged));
  out.add(clock_differences(b, k, said));
  if (measured.hardware && measured.hardware->action == "warn") {
    finding_context other = said;
    other.hardware = *measured.hardware;
    out.warnings.push_back(found("other_hardware", {}, std::move(other)));
  }
  if (base.work && detail::work_changed(*base.work, *head.work)) {
    // Counters are deterministic: a change in work shows even where timing cannot.
    out.warnings.push_back(found("work_changed",
                                 {{"W_comp", head.work->W_comp},
                                  {"W_traf", head.work->W_traf},
                                  {"base_W_comp", base.work->W_comp},
                                  {"base_W_traf", base.work->W_traf}},
                                 said));
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
  const auto& [r, k, p, policy, measured, latency] = c;
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
    finding_context said;
    said.words = {{"device", q.device}, {"was", std::string(to_string(*was))}};
    said.bound = class_of(k.params, q);
    if (near_ridge(k.params.O_krn, gated_ridge(q), policy.ridge_margin)) {
      out.warnings.push_back(found("class_changed_near_ridge", values, std::move(said)));
    } else {
      out.failures.push_back(found("class_changed", values, std::move(said)));
    }
  }
  return out;
}

// The pipeline model's class against the baseline's: turning latency-bound (fewer warps to
// hide latency) is the regression to catch; turning back is said.
findings judge_pipeline_change(const kernel_case& c, const baseline_kernel& b) {
  const auto& [r, k, p, policy, measured, latency] = c;
  findings out;
  const auto now = measured.pipeline.find(k.name);
  if (now == measured.pipeline.end() || !b.latency_bound ||
      *b.latency_bound == now->second.latency_bound) {
    return out;
  }
  const auto& e = now->second;
  const numbers values = {{"resident_groups", static_cast<double>(e.resident_groups)},
                          {"base_resident_groups", static_cast<double>(b.resident_groups)},
                          {"utilisation", e.utilisation}};
  finding_context said = c.said();
  said.estimate = e;
  said.words["base_limited_by"] = b.occupancy_limit;
  if (e.latency_bound) {
    out.failures.push_back(found("turned_latency_bound", values, std::move(said)));
  } else {
    out.notes.push_back(found("turned_throughput_bound", values, std::move(said)));
  }
  return out;
}

// Everything against the baseline: its entry for this kernel and device, the classes, the
// pipeline model's class, the efficiency.
findings judge_against_baseline(const kernel_case& c, verdict& v) {
  const auto& [r, k, p, policy, measured, latency] = c;
  findings out;
  const std::string local = r.devices.front().id;
  const baseline_kernel* b = measured.base->find(k.name, local, r.meta.host);
  finding_context said = c.said_against("baseline", measured.base->source);
  if (b == nullptr) {
    said.lists["elsewhere"] = measured.base->devices_of(k.name);
    out.warnings.push_back(found("not_in_baseline", {}, std::move(said)));
    return out;
  }
  out.add(judge_class_change(c, *b));
  out.add(judge_pipeline_change(c, *b));
  const bool comparable = b->against_roof == (p.roof.has_value());
  // Not an entry without a device (it stands for any): one of this device, maybe renamed.
  const bool own = !b->local_device.empty();
  if (b->efficiency && own && !comparable) {
    out.warnings.push_back(found("baseline_not_comparable", {}, std::move(said)));
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
  const auto& [r, k, p, policy, measured, latency] = c;
  findings out;
  const auto ab = measured.ab_runs.find(k.name);
  if (measured.base || !v.efficiency || ab == measured.ab_runs.end() || ab->second.base_s.empty()) {
    return out;
  }
  auto judged = detail::judge_ab_runs(ab->second, policy.max_efficiency_drop, policy.confidence,
                                      c.said_against("base build", ab->second.base_name));
  v.ab = judged.ab;
  v.baseline_efficiency =
      1 / stats::median(detail::relative_run_times(ab->second.base_s, ab->second.base_roof_s));
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
  const numbers values = {{"per_invocation_s", per_invocation}, {"band_lo_s", p.band_s.lo},
                          {"band_hi_s", p.band_s.hi},           {"f", h.f},
                          {"tolerance", h.tolerance},           {"max_efficiency", max_efficiency}};
  finding_context said;
  said.words = {{"device", local.id},
                {"hull_class", std::string(k.row->example)},
                {"species", s.to_string()},
                {"hull_bound", p.bound}};
  if (per_invocation * max_efficiency < p.band_s.lo) {
    out.failures.push_back(found("hull_faster_than_band", values, std::move(said)));
  } else if (per_invocation > p.band_s.hi * (1 + h.tolerance)) {
    out.failures.push_back(found("hull_slower_than_band", values, std::move(said)));
  } else if (p.band_s.contains(per_invocation)) {
    out.notes.push_back(found("hull_within_band", values, std::move(said)));
  } else {
    out.notes.push_back(found("hull_within_tolerance", values, std::move(said)));
  }
  return out;
}

// Why the local bound is not the datasheet's: the kernel ran at another SM clock than the one the
// device's peaks hold at, and what held the clocks down. Explanations only, never a verdict.
findings clock_notes(const kernel_report& k, const prediction& p, const device& local) {
  findings out;
  finding_context said;
  said.words["device"] = local.id;
  if (p.clock_scale) {
    const double scale = *p.clock_scale;
    const std::optional<double> measured_mhz = k.measured ? k.measured->sm_clock_mhz : std::nullopt;
    if (measured_mhz || local.sm_clock_mhz) {
      // A report read back from JSON has no device clock; the scale gives either clock from
      // the other.
      const double ran = measured_mhz ? *measured_mhz : *local.sm_clock_mhz * scale;
      const double peaks = local.sm_clock_mhz ? *local.sm_clock_mhz : ran / scale;
      out.notes.push_back(found(
          "clock_scaled", {{"clock_scale", scale}, {"mhz", ran}, {"peaks_mhz", peaks}}, said));
    } else {
      out.notes.push_back(found("clock_scaled", {{"clock_scale", scale}}, said));
    }
  }
  if (k.measured && !k.measured->clock_limits.empty()) {
    said.lists["clock_limits"] = k.measured->clock_limits;
    out.notes.push_back(found("clocks_held_down", {}, std::move(said)));
  }
  return out;
}

// A benchmark timed on its thread's CPU time (Google Benchmark's default clock) whose real time
// was longer: the thread lacked a core part of the time, because others had it (a busy runner:
// the CPU time is what the work took) or because the benchmark waits (a GPU, other threads:
// then its CPU time leaves the wait out). An explanation, never a verdict; below 5% it is the
// clocks' own difference.
findings cpu_clock_note(const kernel_case& c) {
  findings out;
  const auto& m = c.k.measured;
  if (!m || !m->real_time_s || !c.latency.per_invocation_s) {
    return out;
  }
  const double cpu_s = *c.latency.per_invocation_s, real_s = *m->real_time_s;
  if (real_s > cpu_time_note_ratio * cpu_s) {
    out.notes.push_back(
        found("timed_on_cpu_time", {{"cpu_time_s", cpu_s}, {"real_time_s", real_s}}, c.said()));
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
  const kernel_case c{r, k, k.predictions.front(), policy, measured, latency};
  findings all;
  if (k.measured && k.measured->time_s > 0) {
    v.efficiency = efficiency_of(k, c.p);
    all.add(judge_efficiency_floor(c, *v.efficiency));
    if (const auto was = measured.roofs_measured_again.find(k.name);
        was != measured.roofs_measured_again.end()) {
      all.notes.push_back(found("roof_measured_again",
                                {{"efficiency", *v.efficiency},
                                 {"roof_s", gated_time_s(c.p)},
                                 {"efficiency_before", was->second.efficiency},
                                 {"roof_before_s", was->second.roof_s}},
                                c.said()));
    }
  } else {
    all.notes.push_back(found("no_measured_time", {}, c.said()));
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
  all.add(cpu_clock_note(c));
  for (auto* f : {&lead, &all}) {
    if (f->suite_part) {
      suite.push_back(std::move(*f->suite_part));
    }
  }
  const bool failed = !lead.failures.empty() || !all.failures.empty();
  const bool warned = !lead.warnings.empty() || !all.warnings.empty();
  v.status = failed         ? verdict_status::fail
             : warned       ? verdict_status::warn
             : v.efficiency ? verdict_status::pass
                            : verdict_status::skip;
  for (auto* f : {&lead, &all}) {
    for (auto [list, severity] : {std::pair{&f->failures, verdict_status::fail},
                                  std::pair{&f->warnings, verdict_status::warn},
                                  std::pair{&f->notes, verdict_status::pass}}) {
      for (auto& one : *list) {
        one.severity = severity;
        detail::add_finding(v, std::move(one));
      }
    }
  }
  return v;
}

} // namespace

std::vector<std::string> undecided_kernels(const report& gated) {
  std::vector<std::string> names;
  for (const auto& k : gated.kernels) {
    const auto& v = k.result;
    const auto kind = v.ab             ? std::optional(v.ab->kind)
                      : v.confirmation ? std::optional(v.confirmation->kind)
                      : v.change       ? std::optional(v.change->kind)
                                       : std::nullopt;
    if (kind == stats::change::ambiguous) {
      names.push_back(k.name);
    }
  }
  return names;
}

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
      finding elsewhere{"not_on_local_device", verdict_status::skip, {}, {}};
      elsewhere.context.words = {{"measured_on", k.measured->device}, {"device", local}};
      detail::add_finding(k.result, std::move(elsewhere));
      continue;
    }
    // Devices the kernel cannot run on (predict_report's `cannot_be_judged` findings): on the
    // local one it is not judged; on another the finding stays beside the verdict.
    std::vector<finding> cannot_run;
    for (const auto& f : k.result.findings) {
      if (f.code == "cannot_be_judged") {
        cannot_run.push_back(f);
      }
    }
    const bool runs_locally = !k.predictions.empty() && (k.predictions.front().device.empty() ||
                                                         k.predictions.front().device == local);
    if (!runs_locally) {
      k.result = verdict{};
      k.result.device = local;
    } else {
      k.result = judge_kernel(r, k, policy, measured, hull_species, suite);
    }
    for (auto& f : cannot_run) {
      detail::add_finding(k.result, std::move(f));
    }
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
