// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/statistics.hpp>
#include <perfgate/version.hpp>

#include "gate/efficiency_change.hpp"
#include "util/json_fields.hpp"
#include "util/number_format.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace perfgate {

using nlohmann::json;

namespace {

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

// Why the local bound is not the datasheet's: the kernel ran at another SM clock than the one the
// device's peaks hold at, and what held the clocks down. Explanations only, never a verdict.
std::vector<std::string> clock_notes(const kernel_report& k, const prediction& p,
                                     const device& local) {
  std::vector<std::string> notes;
  if (p.clock_scale) {
    const double scale = *p.clock_scale;
    const std::string scaled = "compute roof scaled by " + detail::fixed(scale, 3);
    const std::optional<double> measured_mhz = k.measured ? k.measured->sm_clock_mhz : std::nullopt;
    if (measured_mhz || local.sm_clock_mhz) {
      // A report read back from JSON has no device clock; the scale gives either clock from
      // the other.
      const double ran = measured_mhz ? *measured_mhz : *local.sm_clock_mhz * scale;
      const double peaks = local.sm_clock_mhz ? *local.sm_clock_mhz : ran / scale;
      notes.push_back("SM clock " + mhz(ran) + " while the kernel ran vs " + mhz(peaks) + " for " +
                      local.id + "'s peaks: " + scaled);
    } else {
      notes.push_back("the kernel ran at another SM clock than " + local.id +
                      "'s peaks hold at: " + scaled);
    }
  }
  if (k.measured && !k.measured->clock_limits.empty()) {
    notes.push_back("clocks held down by: " + detail::join(k.measured->clock_limits, ", "));
  }
  return notes;
}
// The run's clocks against the baseline's: times taken at another SM clock, or with the clocks
// held down where the baseline's were not, are not the baseline's kind of times.
std::vector<std::string> clock_differences(const baseline_kernel& b, const kernel_report& k,
                                           const std::string& source) {
  std::vector<std::string> out;
  if (!k.measured) {
    return out;
  }
  const auto& now = k.measured->sm_clock_mhz;
  if (b.sm_clock_mhz && now && std::fabs(*now / *b.sm_clock_mhz - 1) > detail::clock_tolerance) {
    out.push_back("SM clock " + mhz(*now) + " vs " + mhz(*b.sm_clock_mhz) + " in the baseline " +
                  source + ": the times were taken at different clocks (" +
                  detail::lock_clocks_advice + ")");
  }
  if (!k.measured->clock_limits.empty() && b.clock_limits.empty() && b.sm_clock_mhz) {
    out.push_back("clocks held down by " + detail::join(k.measured->clock_limits, ", ") +
                  ", which the baseline " + source + " was not");
  }
  return out;
}

// The device a kernel was judged on: its verdict's (each runner's own in a merged report), else
// the report's first (a report gated before verdicts named it, or never gated).
std::string judged_on(const report& r, const kernel_report& k) {
  if (!k.result.device.empty()) {
    return k.result.device;
  }
  return r.devices.empty() ? "" : r.devices.front().id;
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
} // namespace

const baseline_kernel* baseline::find(std::string_view kernel, std::string_view local_device,
                                      std::string_view host) const {
  if (!host.empty()) {
    const std::string renamed = device_id_on_host(local_device, host);
    for (const auto& k : kernels) {
      if (k.name == kernel && k.local_device == renamed) {
        return &k;
      }
    }
  }
  return find(kernel, local_device);
}

const baseline_kernel* baseline::find(std::string_view kernel,
                                      std::string_view local_device) const {
  for (const auto& k : kernels) {
    if (k.name == kernel && (k.local_device == local_device || k.local_device.empty())) {
      return &k;
    }
  }
  return nullptr;
}

std::vector<std::string> baseline::devices_of(std::string_view kernel) const {
  std::vector<std::string> devices;
  for (const auto& k : kernels) {
    if (k.name == kernel) {
      devices.push_back(k.local_device);
    }
  }
  return devices;
}

baseline baseline_from_report(const report& r, std::string source) {
  baseline b;
  b.source = std::move(source);
  for (const auto& k : r.kernels) {
    if (!k.skip_reason.empty()) {
      continue; // nothing was judged: nothing to hold a later run to
    }
    baseline_kernel bk;
    bk.name = k.name;
    bk.efficiency = k.result.efficiency;
    bk.local_device = judged_on(r, k);
    bk.O_krn = k.params.O_krn;
    bk.against_roof = r.schema_version >= 2;
    if (k.result.efficiency) {
      bk.efficiency_runs = {detail::efficiency_samples(k, *k.result.efficiency)};
      if (bk.efficiency_runs.front().empty()) {
        bk.efficiency_runs.clear();
      } else { // runs the gate made to confirm a verdict are runs of this build too
        bk.efficiency_runs.insert(bk.efficiency_runs.end(), k.result.confirmation_runs.begin(),
                                  k.result.confirmation_runs.end());
      }
    }
    bk.W_comp = k.params.W_comp;
    bk.W_traf = k.params.W_traf;
    if (k.measured) {
      bk.sm_clock_mhz = k.measured->sm_clock_mhz;
      bk.clock_limits = k.measured->clock_limits;
    }
    for (const auto& p : k.predictions) {
      bk.bounds[p.device] = gated_bound(p);
    }
    if (k.pipeline) {
      bk.latency_bound = k.pipeline->latency_bound;
      bk.resident_groups = k.pipeline->resident_groups;
      bk.occupancy_limit = k.pipeline->limited_by;
    }
    b.kernels.push_back(std::move(bk));
  }
  return b;
}

baseline baseline_from_reports(const std::vector<report>& runs, std::string source) {
  if (runs.empty()) {
    throw usage_error("baseline accept needs at least one report");
  }
  baseline b;
  b.source = std::move(source);
  std::vector<std::vector<double>> efficiencies; // per entry of b.kernels, one per run
  for (const auto& r : with_distinct_device_ids(runs)) {
    for (auto& k : baseline_from_report(r, b.source).kernels) {
      const auto same = std::find_if(b.kernels.begin(), b.kernels.end(), [&](const auto& e) {
        return e.name == k.name && e.local_device == k.local_device;
      });
      if (same == b.kernels.end()) {
        efficiencies.push_back(k.efficiency ? std::vector{*k.efficiency} : std::vector<double>{});
        b.kernels.push_back(std::move(k));
        continue;
      }
      if (same->against_roof != k.against_roof) {
        throw usage_error("baseline accept: kernel '" + k.name + "' on " + k.local_device +
                          " comes from reports of both format versions 1 and 2, whose "
                          "efficiencies do not compare: accept version 2 reports only");
      }
      auto& mine = efficiencies[static_cast<std::size_t>(same - b.kernels.begin())];
      if (k.efficiency) {
        mine.push_back(*k.efficiency);
      }
      same->efficiency_runs.insert(same->efficiency_runs.end(), k.efficiency_runs.begin(),
                                   k.efficiency_runs.end());
    }
  }
  for (std::size_t i = 0; i < b.kernels.size(); ++i) {
    if (!efficiencies[i].empty()) {
      b.kernels[i].efficiency = stats::median(efficiencies[i]);
    }
  }
  return b;
}

std::string baseline_to_json(const baseline& b) {
  json j;
  const bool legacy = std::any_of(b.kernels.begin(), b.kernels.end(),
                                  [](const baseline_kernel& k) { return !k.against_roof; });
  j["schema"] = legacy ? baseline_schema_v1 : baseline_schema;
  j["source"] = b.source;
  j["kernels"] = json::array();
  for (const auto& k : b.kernels) {
    json bounds = json::object();
    for (const auto& [dev, cls] : k.bounds) {
      bounds[dev] = to_string(cls);
    }
    json jk = {{"name", k.name},
               {"efficiency", k.efficiency ? json(*k.efficiency) : json(nullptr)},
               {"local_device", k.local_device},
               {"bounds", bounds}};
    // 0: not recorded, or a kernel that declared bytes alone (no operations): absent, never 0.
    if (k.O_krn > 0) {
      jk["O_krn"] = k.O_krn;
    }
    if (!k.efficiency_runs.empty()) {
      jk["efficiency_runs"] = k.efficiency_runs;
    }
    if (k.W_comp > 0) {
      jk["W_comp"] = k.W_comp;
    }
    if (k.W_traf > 0) {
      jk["W_traf"] = k.W_traf;
    }
    if (k.sm_clock_mhz) {
      jk["sm_clock_mhz"] = *k.sm_clock_mhz;
    }
    if (!k.clock_limits.empty()) {
      jk["clock_limits"] = k.clock_limits;
    }
    if (k.latency_bound) {
      jk["pipeline"] = {{"latency_bound", *k.latency_bound},
                        {"resident_groups", k.resident_groups},
                        {"limited_by", k.occupancy_limit}};
    }
    j["kernels"].push_back(std::move(jk));
  }
  if (b.build) {
    j["build"] = {{"executable", b.build->executable}, {"fnv1a64", b.build->fnv1a64}};
  }
  return j.dump(2) + "\n";
}

baseline baseline_from_json(std::string_view text, const std::string& file) {
  const json doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  const std::string schema =
      root.schema({baseline_schema, baseline_schema_v1, report_schema, report_schema_v1});
  if (schema == report_schema || schema == report_schema_v1) {
    return baseline_from_report(report_from_json(text, file), file);
  }
  const bool against_roof = schema == baseline_schema;
  baseline b;
  b.source = root.string_or("source", file);
  const auto& kernels = root.array("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto k = root.element(kernels[i], i, "kernels");
    baseline_kernel bk;
    bk.name = k.string("name");
    if (k.has("efficiency")) {
      bk.efficiency = k.positive("efficiency");
    }
    bk.local_device = k.string_or("local_device", "");
    bk.against_roof = against_roof;
    bk.O_krn = k.has("O_krn") ? k.non_negative("O_krn") : 0;
    if (k.has("efficiency_runs")) {
      const auto& runs = k.array("efficiency_runs");
      for (std::size_t r = 0; r < runs.size(); ++r) {
        const nlohmann::json holder = {{"samples", runs[r]}};
        const detail::json_fields run(
            holder, file, k.key_path("efficiency_runs") + "[" + std::to_string(r) + "]");
        bk.efficiency_runs.push_back(run.positives("samples"));
      }
    }
    bk.W_comp = k.has("W_comp") ? k.non_negative("W_comp") : 0;
    bk.W_traf = k.has("W_traf") ? k.non_negative("W_traf") : 0;
    if (k.has("sm_clock_mhz")) {
      bk.sm_clock_mhz = k.positive("sm_clock_mhz");
    }
    if (k.has("clock_limits")) {
      bk.clock_limits = k.strings("clock_limits");
    }
    if (k.has("pipeline")) {
      const auto model = k.object("pipeline");
      bk.latency_bound = model.boolean("latency_bound");
      bk.resident_groups = model.count("resident_groups");
      bk.occupancy_limit = model.string("limited_by");
    }
    const auto bounds = k.object("bounds");
    for (const auto& [dev, value] : bounds.raw().items()) {
      bk.bounds[dev] = bounds.one_of(dev, {bound_class::memory, bound_class::compute});
    }
    b.kernels.push_back(std::move(bk));
  }
  if (root.has("build")) {
    const auto build = root.object("build");
    b.build = stored_build{build.string("executable"), build.string("fnv1a64")};
    const auto& hash = b.build->fnv1a64;
    if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw input_error(file, "build.fnv1a64",
                        "\"" + hash + "\" is not a hash: expected 16 lowercase hex digits");
    }
    if (b.build->executable.empty()) {
      throw input_error(file, "build.executable", "empty: expected the stored build's path");
    }
  }
  return b;
}

namespace {

// The boat hull band of the policy's class on the local device, against the time per invocation.
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

void hull_verdict(const hull_policy& h, const hull::species& s, double max_efficiency,
                  const device& local, bool one_core, double per_invocation,
                  std::vector<std::string>& failures, std::vector<std::string>& notes) {
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
  if (per_invocation * max_efficiency < p.band_s.lo) {
    failures.push_back(measured + ", faster than " + band + " by more than MAX_EFFICIENCY " +
                       ratio(max_efficiency) + ": the class, f or the device data is wrong");
  } else if (per_invocation > p.band_s.hi * (1 + h.tolerance)) {
    failures.push_back(measured + ", " + ratio(per_invocation / p.band_s.hi) +
                       "x the upper end of " + band + ", more than HULL_TOLERANCE " +
                       ratio(h.tolerance * 100) + "% past it");
  } else {
    notes.push_back(measured +
                    (p.band_s.contains(per_invocation)
                         ? ", within " + band
                         : ", " + ratio(per_invocation / p.band_s.hi) + "x the " + "upper end of " +
                               band + ", within HULL_TOLERANCE " + ratio(h.tolerance * 100) + "%"));
  }
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

  latency_evidence(const kernel_report& k, const gate_policy& policy) {
    if (const auto e = policy.pipeline.find(k.name); e != policy.pipeline.end()) {
      model = &e->second;
    }
    if (k.measured && k.measured->time_s > 0) {
      per_invocation_s = k.measured->time_s / static_cast<double>(k.invocations);
      by_duration = model == nullptr && *per_invocation_s < policy.latency_floor_s;
    }
  }
};
// The kernel's efficiency against its baseline entry: the statistical verdict on the first
// run's samples, and, where the gate measured an AMBIGUOUS kernel again (confirmation runs),
// the floor rule over all its runs, which then decides. Then what else moved: clocks, work.
void judge_efficiency_change(const kernel_report& k, const baseline_kernel& b,
                             const gate_policy& policy, const std::string& on, verdict& v,
                             std::vector<std::string>& failures,
                             std::vector<std::string>& warnings, std::vector<std::string>& notes) {
  detail::efficiency_sides base{*b.efficiency, b.efficiency_runs, std::nullopt};
  detail::efficiency_sides head{*v.efficiency,
                                {detail::efficiency_samples(k, *v.efficiency)},
                                detail::work_numbers{k.params.W_comp, k.params.W_traf}};
  if (b.W_comp > 0 || b.W_traf > 0) {
    base.work = detail::work_numbers{b.W_comp, b.W_traf};
  }
  const std::string against = "the baseline " + policy.base->source;
  auto judged = detail::judge_efficiency(base, head, policy.max_efficiency_drop,
                                         policy.confidence, on, against);
  v.change = judged.change;
  v.confirmation.reset();
  v.confirmation_runs.clear();
  const auto more = policy.confirmation_runs.find(k.name);
  if (more != policy.confirmation_runs.end() && !more->second.empty() && !base.runs.empty() &&
      !head.runs.front().empty()) {
    head.runs.insert(head.runs.end(), more->second.begin(), more->second.end());
    judged = detail::judge_confirmed(base, head, policy.max_efficiency_drop, policy.confidence,
                                     on, against);
    v.confirmation = judged.confirmation;
    v.confirmation_runs = more->second;
  }
  const auto ab = policy.ab_runs.find(k.name);
  if (ab != policy.ab_runs.end() && !ab->second.base.empty()) {
    // The stored runs flagged it; the build they were measured with, run alternately with this
    // one in one session, decides (a stored baseline carries its session's speed).
    std::vector<std::string> flagged = judged.failures;
    flagged.insert(flagged.end(), judged.warnings.begin(), judged.warnings.end());
    judged = detail::judge_ab_runs(ab->second, policy.max_efficiency_drop, policy.confidence, on,
                                   "the baseline's build " + ab->second.base_name);
    v.ab = judged.ab;
    for (const auto& f : flagged) {
      judged.notes.push_back("the stored runs had said: " + f);
    }
  }
  for (auto [from, to] :
       {std::pair{&judged.failures, &failures}, std::pair{&judged.warnings, &warnings},
        std::pair{&judged.notes, &notes}}) {
    to->insert(to->end(), from->begin(), from->end());
  }
  for (auto& w : clock_differences(b, k, policy.base->source)) {
    warnings.push_back(std::move(w));
  }
  if (base.work && detail::work_changed(*base.work, *head.work)) {
    // Counters are deterministic: a change in work shows even where timing cannot.
    warnings.push_back("the work changed vs " + against + ": " +
                       detail::work_change_text(*base.work, *head.work));
  }
}

} // namespace

void apply_gate(report& r, const gate_policy& policy) {
  if (r.devices.empty()) {
    throw usage_error("devices", "no device to gate against: the first is the local device");
  }
  const std::string local = r.devices.front().id;
  r.local_device = local;
  // Parsed once: the class is the policy's, the same for every kernel.
  const std::optional<hull::species> hull_species =
      policy.hull ? std::optional(hull::parse_species(policy.hull->species)) : std::nullopt;
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
      continue;
    }
    verdict v;
    v.device = local;
    std::vector<std::string> failures, warnings, notes;
    const prediction& p = k.predictions.front();
    const std::string on = " on " + local;

    const latency_evidence latency(k, policy);
    const pipeline::launch_estimate* model = latency.model;
    if (k.measured && k.measured->time_s > 0) {
      const double e = gated_time_s(p) / k.measured->time_s;
      if (!std::isfinite(e)) { // JSON has no inf: it would be stored as "no efficiency"
        throw usage_error("kernel '" + k.name + "': its measured time " +
                          std::to_string(k.measured->time_s) + " s is too small to compare with " +
                          "its bound of " + std::to_string(gated_time_s(p)) + " s");
      }
      v.efficiency = e;
      std::string numbers = "measured " + detail::duration(k.measured->time_s) +
                            (p.roof ? ", roof " : ", bound ") + detail::duration(gated_time_s(p)) +
                            ", " + describe_class(k.params, p);
      if (p.roof) {
        numbers += p.scaling ? "; scaled from the measurement on " + p.scaling->measured_on +
                                   ", predicted " + detail::duration(p.predicted_time_s)
                             : "; the " + std::string(to_string(k.params.model)) +
                                   " model predicts " + detail::duration(p.predicted_time_s);
      }
      const double per_invocation = *latency.per_invocation_s;
      const std::string latency_class =
          "latency-bound by duration: " + detail::duration(per_invocation) +
          " per invocation, under the " + detail::duration(policy.latency_floor_s) +
          " threshold (launch overhead, tails, clocks ramping), where the roof does not apply";
      if (model != nullptr && model->latency_bound) {
        // The roof does not bound a latency-bound kernel: the pipeline model's time does.
        const double pe = model->seconds / per_invocation;
        notes.push_back("efficiency " + ratio(e) + " against the roof" + on + ": " + numbers);
        const std::string what = "efficiency " + ratio(pe) + " against the pipeline model's " +
                                 detail::duration(model->seconds) + on + "; " +
                                 describe_estimate(*model);
        if (policy.min_efficiency && pe < *policy.min_efficiency) {
          failures.push_back(what + ", below MIN_EFFICIENCY " + ratio(*policy.min_efficiency));
        } else if (pe > policy.max_efficiency) {
          failures.push_back(what + ", above MAX_EFFICIENCY " + ratio(policy.max_efficiency) +
                             ": the kernel beats the model, so its latencies or graph are wrong");
        } else {
          notes.push_back(what);
        }
      } else if (policy.min_efficiency && e < *policy.min_efficiency) {
        const std::string what = "efficiency " + ratio(e) + " below MIN_EFFICIENCY " +
                                 ratio(*policy.min_efficiency) + on + ": " + numbers;
        if (latency.by_duration) {
          warnings.push_back(what + "; " + latency_class);
        } else {
          failures.push_back(what);
        }
      } else if (e > policy.max_efficiency) {
        failures.push_back("efficiency " + ratio(e) + " above MAX_EFFICIENCY " +
                           ratio(policy.max_efficiency) + on + ": " + numbers +
                           "; the kernel beats its roof, so the device's peaks are too low "
                           "(recalibrate) or the declared work is too small");
      } else if (e > 1.0 && p.roof) {
        // Within MAX_EFFICIENCY, but no correct run beats a true roof: the rate the roof holds
        // the kernel to is stale (a drifting shared runner, a calibration under load).
        warnings.push_back("efficiency " + ratio(e) + " above 1" + on + ": " + numbers + "; " +
                           stale_peak(*p.roof) + " is stale: this run went faster (recalibrate)");
      } else {
        notes.push_back("efficiency " + ratio(e) + on + ": " + numbers +
                        (latency.by_duration ? "; " + latency_class : "") +
                        (model != nullptr ? "; " + describe_estimate(*model) : ""));
      }
    } else {
      notes.push_back("no measured time: prediction only");
    }

    if (model != nullptr) {
      k.pipeline = *model; // kept in the report for a later run's baseline
    }
    if (policy.expect_latency && model != nullptr) {
      if (model->latency_bound) {
        notes.push_back("latency-bound as expected" + on + ": " + describe_estimate(*model));
      } else {
        failures.push_back("expected latency-bound" + on + ", found " + describe_estimate(*model));
      }
    } else if (policy.expect_latency && latency.per_invocation_s) {
      const std::string duration = detail::duration(*latency.per_invocation_s) + " per invocation";
      if (latency.by_duration) {
        notes.push_back("latency-bound as expected" + on + ", by duration: " + duration +
                        ", under the " + detail::duration(policy.latency_floor_s) +
                        " threshold (the pipeline model's class is unavailable: no instruction "
                        "graph and latencies for this kernel)");
      } else {
        warnings.push_back("expected latency-bound" + on +
                           ": the pipeline model's class is "
                           "unavailable (no instruction graph and latencies for this kernel), "
                           "and at " +
                           duration + " it is not latency-bound by duration (under " +
                           detail::duration(policy.latency_floor_s) + "); the roof says " +
                           describe_class(k.params, p));
      }
    } else if (policy.expect_latency) {
      warnings.push_back("expected latency-bound" + on +
                         ": no measured time, and the pipeline model's class is unavailable");
    }
    if (!k.params.compute_declared) {
      notes.push_back("judged against the memory roof alone: the benchmark declares bytes and "
                      "no operations, so its compute side was not declared (set "
                      "perfgate_fp32_flops, perfgate_fp64_flops or perfgate_int_ops to add it)");
    }
    if (policy.expect_bound && !k.params.compute_declared &&
        *policy.expect_bound == bound_class::compute) {
      warnings.push_back("EXPECT_BOUND compute" + on + " not checked: the benchmark declares no "
                         "operations, so only its memory side is known");
    } else if (policy.expect_bound && gated_bound(p) != *policy.expect_bound) {
      const std::string what = "expected " + std::string(to_string(*policy.expect_bound)) +
                               "-bound" + on + ", found " + describe_class(k.params, p);
      if (near_ridge(k.params.O_krn, gated_ridge(p), policy.ridge_margin)) {
        warnings.push_back(what + "; within " + ratio(policy.ridge_margin * 100) +
                           "% of the ridge, so a warning");
      } else {
        failures.push_back(what);
      }
    }

    if (policy.base) {
      const baseline_kernel* b = policy.base->find(k.name, local, r.meta.host);
      if (b == nullptr) {
        const auto elsewhere = policy.base->devices_of(k.name);
        warnings.push_back("not in the baseline " + policy.base->source +
                           (elsewhere.empty() ? std::string()
                                              : " for " + local + " (it holds this kernel on " +
                                                    detail::join(elsewhere, ", ") + ")"));
      } else {
        for (const auto& q : k.predictions) {
          const bound_class* was = baseline_bound(*b, q.device, r.meta.host);
          if (was == nullptr || *was == gated_bound(q)) {
            continue;
          }
          const std::string what =
              "class changed on " + q.device + ": " + std::string(to_string(*was)) + "-bound -> " +
              describe_class(k.params, q) + " (baseline O_krn " +
              (b->O_krn > 0 ? detail::fixed(b->O_krn, 3) : "not declared") + ")";
          if (near_ridge(k.params.O_krn, gated_ridge(q), policy.ridge_margin)) {
            warnings.push_back(what + "; within " + ratio(policy.ridge_margin * 100) +
                               "% of the ridge, so a warning");
          } else {
            failures.push_back(what);
          }
        }
        if (const auto now = policy.pipeline.find(k.name);
            now != policy.pipeline.end() && b->latency_bound &&
            *b->latency_bound != now->second.latency_bound) {
          const auto& e = now->second;
          const std::string what =
              std::string("class changed") + on +
              " by the pipeline model: " + (*b->latency_bound ? "latency" : "throughput") +
              "-bound -> " + (e.latency_bound ? "latency" : "throughput") +
              "-bound, resident groups " + std::to_string(b->resident_groups) + " (limited by " +
              b->occupancy_limit + ") -> " + std::to_string(e.resident_groups) + " (limited by " +
              e.limited_by + "); utilisation " + detail::fixed(e.utilisation, 2) + " of " +
              std::string(pipeline::to_string(e.busiest));
          // Turning latency-bound (fewer warps to hide latency) is the regression to catch.
          (e.latency_bound ? failures : notes).push_back(what);
        }
        const bool comparable = b->against_roof == (p.roof.has_value());
        // Not an entry without a device (it stands for any): one of this device, maybe renamed.
        const bool own = !b->local_device.empty();
        if (b->efficiency && own && !comparable) {
          warnings.push_back("the baseline " + policy.base->source +
                             " holds efficiencies against the model's predicted time (format "
                             "version 1), not against the roof: no efficiency-drop check; "
                             "accept a new baseline");
        }
        if (b->efficiency && own && comparable) {
          v.baseline_efficiency = b->efficiency;
        }
        if (b->efficiency && v.efficiency && own && comparable) {
          judge_efficiency_change(k, *b, policy, on, v, failures, warnings, notes);
        }
      }
    }

    if (policy.hull && k.measured && k.measured->time_s > 0) {
      hull_verdict(*policy.hull, *hull_species, policy.max_efficiency, r.devices.front(),
                   p.one_core, k.measured->time_s / static_cast<double>(k.invocations), failures,
                   notes);
    }

    for (auto& note : clock_notes(k, p, r.devices.front())) {
      notes.push_back(std::move(note));
    }

    v.status = !failures.empty()   ? verdict_status::fail
               : !warnings.empty() ? verdict_status::warn
               : v.efficiency      ? verdict_status::pass
                                   : verdict_status::skip;
    for (auto* list : {&failures, &warnings, &notes}) {
      v.reasons.insert(v.reasons.end(), list->begin(), list->end());
    }
    k.result = std::move(v);
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
