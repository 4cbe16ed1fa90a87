// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/statistics.hpp>
#include <perfgate/version.hpp>

#include "gate/efficiency_change.hpp"
#include "gate/hardware_check.hpp"
#include "report/identity_json.hpp"
#include "util/json_fields.hpp"
#include "util/number_format.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace perfgate {

using nlohmann::json;

namespace {

// The device a kernel was judged on: its verdict's (each runner's own in a merged report), else
// the report's first (a report gated before verdicts named it, or never gated).
std::string judged_on(const report& r, const kernel_report& k) {
  if (!k.result.device.empty()) {
    return k.result.device;
  }
  return r.devices.empty() ? "" : r.devices.front().id;
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
  if (r.identity) {
    b.identities.push_back(*r.identity);
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
    if (r.identity) { // its device id as its entries have it (renamed apart from another's)
      add_identity(b.identities, *r.identity);
    }
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

void add_identity(std::vector<device_identity>& ids, const device_identity& id) {
  const bool known = std::any_of(ids.begin(), ids.end(), [&](const device_identity& seen) {
    return seen.device == id.device &&
           !hardware_changed(compare_identities(seen, id, clock_tolerance));
  });
  if (!known) {
    ids.push_back(id);
  }
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
  if (!b.identities.empty()) {
    j["device_identities"] = json::array();
    for (const auto& id : b.identities) {
      j["device_identities"].push_back(detail::identity_json(id));
    }
  }
  return j.dump(2) + "\n";
}

namespace {
// The keys of a `perfgate-baseline/1` or `/2` file (baseline_to_json writes them): a key in
// neither list is refused with the nearest known one, never ignored.
constexpr std::string_view baseline_keys[] = {"schema",          "$schema",          "source",
                                              "kernels",         "build",            "device_identity",
                                              "device_identities"};
constexpr std::string_view baseline_kernel_keys[] = {
    "name",   "efficiency",   "local_device", "bounds",       "O_krn",       "efficiency_runs",
    "W_comp", "W_traf",       "sm_clock_mhz", "clock_limits", "pipeline"};
} // namespace

baseline baseline_from_json(std::string_view text, const std::string& file) {
  const json doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  const std::string schema =
      root.schema({baseline_schema, baseline_schema_v1, report_schema, report_schema_v1});
  if (schema == report_schema || schema == report_schema_v1) {
    return baseline_from_report(report_from_json(text, file), file);
  }
  const bool against_roof = schema == baseline_schema;
  root.known_keys(baseline_keys);
  baseline b;
  b.source = root.string_or("source", file);
  const auto& kernels = root.array("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto k = root.element(kernels[i], i, "kernels");
    k.known_keys(baseline_kernel_keys);
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
      model.known_keys({"latency_bound", "resident_groups", "limited_by"});
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
  if (root.has("device_identity")) { // written before a baseline kept each runner's
    detail::check_identity_keys(root.object("device_identity"));
    b.identities.push_back(detail::read_identity(root.object("device_identity")));
  }
  if (root.has("device_identities")) {
    for (const auto& id : root.elements("device_identities")) {
      detail::check_identity_keys(id);
      b.identities.push_back(detail::read_identity(id));
    }
  }
  if (root.has("build")) {
    const auto build = root.object("build");
    build.known_keys({"executable", "fnv1a64"});
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

} // namespace perfgate
