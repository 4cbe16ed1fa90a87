// SPDX-License-Identifier: Apache-2.0
// `perfgate-report/2` JSON. Field names are a contract (DESIGN.md): add, never rename.
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>
#include <perfgate/writers.hpp>

#include "model/duration_json.hpp"
#include "report/identity_json.hpp"
#include "report/prediction_fields.hpp"
#include "report/writers/suite_summary.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace perfgate {

using nlohmann::json;

namespace {
json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json params_json(const kernel_params& k) {
  json j = {{"model", to_string(k.model)},
            {"K_type", to_string(k.K_type)},
            {"W_comp", k.W_comp},
            {"W_traf", k.W_traf},
            {"E_mix", optional_number(k.E_mix)},
            {"D_ops", optional_number(k.D_ops)},
            {"D_ldst", optional_number(k.D_ldst)},
            {"D_other", optional_number(k.D_other)},
            {"O_krn", k.O_krn}};
  if (k.simt_type != k.K_type) {
    j["simt_type"] = to_string(k.simt_type);
  }
  if (!k.compute_declared) { // bytes alone: the compute side is unknown, so absent
    j["compute_declared"] = false;
    for (const auto key : detail::undeclared_compute_params) {
      j.erase(std::string(key));
    }
  }
  if (k.items) {
    j["items"] = *k.items;
  }
  if (k.working_set_bytes) { // what chose the roof's cache level, and where it came from
    j["working_set_bytes"] = *k.working_set_bytes;
    j["working_set_source"] = k.working_set_source.empty() ? "declared" : k.working_set_source;
  }
  if (!k.tensor_ops.empty()) {
    json ops = json::object();
    for (const auto& [type, n] : k.tensor_ops) {
      ops[std::string(to_string(type))] = n;
    }
    j["tensor_ops"] = std::move(ops);
  }
  return j;
}

json roof_json(const roof_bound& r, bool compute_declared) {
  json terms = json::array();
  for (const auto& t : r.terms) {
    json term = {
        {"resource", t.resource}, {"amount", t.amount}, {"rate", t.rate}, {"time_s", t.time_s}};
    if (!t.via.empty()) {
      term["via"] = t.via;
    }
    terms.push_back(std::move(term));
  }
  json j = {{"time_s", r.time_s},     {"limiter", r.limiter}, {"bound", to_string(r.bound)},
            {"T_roof", r.T_roof},     {"B_roof", r.B_roof},   {"O_ridge", r.O_ridge},
            {"co_issue", r.co_issue}, {"terms", terms}};
  if (!compute_declared) {
    for (const auto& [key, member] : detail::undeclared_compute_roof) {
      j.erase(std::string(key));
    }
  }
  return j;
}

json scaling_json(const measured_scaling& s) {
  return {{"measured_on", s.measured_on},
          {"measured_time_s", s.measured_time_s},
          {"utilisation", s.utilisation},
          {"limiter", s.limiter},
          {"resource_scale", s.resource_scale},
          {"clock_scale", s.clock_scale},
          {"leftover_scale", s.leftover_scale},
          {"leftover_by", s.leftover_by},
          {"at_roof", s.at_roof}};
}

json prediction_json(const prediction& p, const kernel_params& k) {
  json j = {{"device", p.device},
            {"peaks", p.one_core ? "one_core" : "all"},
            {"T_op", p.T_op},
            {"T_op_adj", p.T_op_adj},
            {"B_mem", p.B_mem},
            {"O_dev", p.O_dev},
            {"bound", to_string(p.bound)},
            {"T_pred", p.T_pred},
            {"predicted_time_s", p.predicted_time_s},
            {"predictor", predictor_of(p, k)}};
  for (const auto& [key, member] : detail::optional_prediction_terms) {
    j[std::string(key)] = optional_number(p.*member);
  }
  if (!k.compute_declared) {
    for (const auto& [key, member] : detail::undeclared_compute_terms) {
      j.erase(std::string(key));
    }
  }
  if (p.roof) {
    j["roof"] = roof_json(*p.roof, k.compute_declared);
  }
  if (p.clock_scale) {
    j["clock_scale"] = *p.clock_scale;
  }
  if (p.scaling) {
    j["scaling"] = scaling_json(*p.scaling);
  }
  return j;
}

json measured_json(const std::optional<measurement>& m) {
  if (!m) {
    return nullptr;
  }
  // Only what the source held: a statistic it did not give is absent, never 0.
  json j = m->stats ? detail::duration_stats_json(*m->stats) : json::object();
  j["time_s"] = m->time_s;
  if (m->samples) {
    j["samples"] = *m->samples;
  }
  if (m->noise) {
    j["noise"] = *m->noise;
  }
  if (!m->device.empty()) {
    j["device"] = m->device;
  }
  if (m->sm_clock_mhz) {
    j["sm_clock_mhz"] = *m->sm_clock_mhz;
  }
  if (m->real_time_s) {
    j["real_time_s"] = *m->real_time_s;
  }
  if (!m->clock_limits.empty()) {
    j["clock_limits"] = m->clock_limits;
  }
  return j;
}

json device_json(const device& d) {
  json peaks = {{"fp32_gflops", d.peaks.fp32_gflops},   {"fp64_gflops", d.peaks.fp64_gflops},
                {"int_mad_gops", d.peaks.int_mad_gops}, {"int_add_gops", d.peaks.int_add_gops},
                {"ldst_ginst", d.peaks.ldst_ginst},     {"dram_gbs", d.peaks.dram_gbs}};
  if (d.peaks.dram_roof_gbs > 0) {
    peaks["dram_roof_gbs"] = d.peaks.dram_roof_gbs;
  }
  return {{"id", d.id},         {"name", d.name},     {"vendor", d.vendor},
          {"source", d.source}, {"origin", d.origin}, {"peaks", peaks}};
}
// The verdict: status, reasons and their findings, and the statistics behind a change.
json verdict_json(const verdict& v) {
  json out = {{"status", to_string(v.status)},
              {"reasons", v.reasons},
              {"efficiency", optional_number(v.efficiency)}};
  if (!v.findings.empty()) {
    out["findings"] = json::array();
    for (const auto& f : v.findings) {
      json numbers = json::object();
      for (const auto& [name, value] : f.numbers) {
        if (std::isfinite(value)) { // JSON has no inf or nan
          numbers[name] = value;
        }
      }
      out["findings"].push_back(
          {{"code", f.code}, {"severity", to_string(f.severity)}, {"numbers", numbers}});
    }
  }
  if (!v.device.empty()) {
    out["device"] = v.device;
  }
  if (v.baseline_efficiency) {
    out["baseline_efficiency"] = *v.baseline_efficiency;
  }
  if (const auto& c = v.change) {
    out["change"] = {
        {"kind", stats::to_string(c->kind)},
        {"beyond_allowed", c->beyond_allowed},
        {"time_ratio", {{"lo", c->ratio.lo}, {"estimate", c->ratio.estimate}, {"hi", c->ratio.hi}}},
        {"allowed", c->allowed},
        {"confidence", c->confidence},
        {"mann_whitney",
         {{"u", c->test.u},
          {"p_greater", c->test.p_greater},
          {"p_less", c->test.p_less},
          {"exact", c->test.exact}}},
        {"samples_to_settle", c->samples_to_settle}};
  }
  if (const auto& a = v.ab) {
    out["ab"] = {
        {"kind", stats::to_string(a->kind)},
        {"beyond_allowed", a->beyond_allowed},
        {"time_ratio", {{"lo", a->ratio.lo}, {"estimate", a->ratio.estimate}, {"hi", a->ratio.hi}}},
        {"allowed", a->allowed},
        {"confidence", a->confidence},
        {"rounds", a->rounds},
        {"rounds_to_settle", a->rounds_to_settle}};
  }
  if (const auto& c = v.confirmation) {
    out["confirmation"] = {{"kind", stats::to_string(c->kind)},
                           {"beyond_allowed", c->beyond_allowed},
                           {"floor_ratio", c->ratio},
                           {"base_floor", c->base_floor},
                           {"head_floor", c->head_floor},
                           {"allowed", c->allowed},
                           {"confidence", c->confidence},
                           {"base_runs", c->base_runs},
                           {"head_runs", c->head_runs},
                           {"p_within", c->p_within},
                           {"false_alarm", c->false_alarm},
                           {"runs_to_settle", c->runs_to_settle},
                           {"efficiency_runs", v.confirmation_runs}};
  }
  return out;
}
} // namespace

std::string report_to_json(const report& r) {
  json j;
  j["schema"] = report_schema;
  j["meta"] = {{"perfgate_version", r.meta.perfgate_version},
               {"command", r.meta.command},
               {"argv", r.meta.argv},
               {"timestamp", r.meta.timestamp},
               {"host", r.meta.host}};
  j["profile"] = {{"file", r.profile_file},
                  {"format", r.profile_format},
                  {"device", r.profile_device},
                  {"local_device", r.local_device.empty() ? json(nullptr) : json(r.local_device)},
                  {"warp_size", r.profile_warp_size}};
  j["devices"] = json::array();
  for (const auto& d : r.devices) {
    j["devices"].push_back(device_json(d));
  }
  if (r.suite) {
    j["suite"] = detail::suite_json(*r.suite);
  }
  if (r.identity) {
    j["identity"] = detail::identity_json(*r.identity);
  }
  if (r.hardware) {
    j["hardware"] = detail::hardware_json(*r.hardware);
  }
  j["kernels"] = json::array();
  for (const auto& k : r.kernels) {
    json jk;
    jk["name"] = k.name;
    jk["invocations"] = k.invocations;
    if (k.skip_reason.empty()) {
      jk["params"] = params_json(k.params);
    } else {
      jk["skip_reason"] = k.skip_reason;
      jk["params"] = nullptr; // its counters could not feed the model
    }
    jk["measured"] = measured_json(k.measured);
    jk["predictions"] = json::array();
    for (const auto& p : k.predictions) {
      jk["predictions"].push_back(prediction_json(p, k.params));
    }
    jk["verdict"] = verdict_json(k.result);
    if (!k.origin.empty()) {
      jk["origin"] = k.origin;
    }
    if (k.pipeline) {
      const auto& e = *k.pipeline;
      jk["pipeline"] = {{"idg", e.idg},
                        {"seconds", e.seconds},
                        {"cycles", e.cycles},
                        {"utilisation", e.utilisation},
                        {"busiest_pipe", pipeline::to_string(e.busiest)},
                        {"theta", e.theta},
                        {"latency_bound", e.latency_bound},
                        {"resident_groups", e.resident_groups},
                        {"limited_by", e.limited_by},
                        {"warps_per_group", e.warps_per_group}};
    }
    j["kernels"].push_back(std::move(jk));
  }
  // Names and arguments come from programs and profilers: bytes that are not UTF-8 become
  // U+FFFD rather than an exception that would lose the verdict.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace perfgate
