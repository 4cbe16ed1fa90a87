// SPDX-License-Identifier: Apache-2.0
// Reads `perfgate-report/2` back (every field json_writer.cpp writes), and version 1, which has
// no roofs.
#include <perfgate/error.hpp>
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>

#include "model/duration_json.hpp"
#include "report/identity_json.hpp"
#include "report/prediction_fields.hpp"
#include "util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace perfgate {

namespace {
// A kernel's `pipeline` block (run --idg): the model's estimate of its launch.
pipeline::launch_estimate pipeline_from(const detail::json_fields& f) {
  pipeline::launch_estimate e;
  e.idg = f.string("idg");
  e.seconds = f.positive("seconds");
  e.cycles = f.positive("cycles");
  e.utilisation = f.fraction("utilisation");
  e.busiest =
      f.one_of("busiest_pipe", {pipeline::unit::alu, pipeline::unit::fp64, pipeline::unit::sfu,
                                pipeline::unit::lmem, pipeline::unit::gmem, pipeline::unit::sync,
                                pipeline::unit::tensor});
  e.theta = f.fraction("theta");
  e.latency_bound = f.boolean("latency_bound");
  e.resident_groups = f.count("resident_groups");
  e.limited_by = f.string("limited_by");
  e.warps_per_group = f.count("warps_per_group");
  return e;
}

using detail::json_fields;

// A verdict's "kind": SAME, SLOWER, FASTER or AMBIGUOUS.
stats::change change_kind(const json_fields& v) {
  return v.one_of("kind", {stats::change::same, stats::change::slower, stats::change::faster,
                           stats::change::ambiguous});
}

// A verdict's "time_ratio": its interval, lo <= estimate <= hi.
stats::interval time_ratio(const json_fields& v) {
  const auto ratio = v.object("time_ratio");
  const stats::interval r{ratio.positive("lo"), ratio.positive("estimate"), ratio.positive("hi")};
  if (!(r.lo <= r.estimate && r.estimate <= r.hi)) {
    ratio.fail("estimate", "expected lo <= estimate <= hi");
  }
  return r;
}

// The report's "suite" (report/writers/suite_summary.cpp writes it).
stats::suite_summary read_suite(const json_fields& f) {
  stats::suite_summary s;
  s.geomean = time_ratio(f);
  s.confidence = f.fraction("confidence");
  s.resamples = static_cast<int>(f.count("resamples"));
  s.kernels = f.count("kernels");
  const auto counts = f.object("counts");
  s.slower = counts.count("SLOWER");
  s.faster = counts.count("FASTER");
  s.same = counts.count("SAME");
  s.ambiguous = counts.count("AMBIGUOUS");
  s.unjudged = counts.count("unjudged");
  return s;
}

std::optional<double> optional_number(const json_fields& f, std::string_view key) {
  return f.has(key) ? std::optional<double>(f.number(key)) : std::nullopt;
}

// A kernel type by its report name ("fp32", "int", "tensor_bf16"); SIMT types only unless
// `tensor`.
kernel_type read_type(const json_fields& f, std::string_view key, const std::string& value,
                      bool tensor) {
  std::string names;
  for (auto t : {kernel_type::fp32, kernel_type::fp64, kernel_type::integer}) {
    if (value == to_string(t)) {
      return t;
    }
    names += (names.empty() ? "" : ", ") + std::string(to_string(t));
  }
  for (const auto& path : tensor_paths()) {
    if (tensor && value == to_string(path.type)) {
      return path.type;
    }
    names += tensor ? ", " + std::string(to_string(path.type)) : "";
  }
  f.fail(key, "unknown value \"" + value + "\", expected one of: " + names);
}

// A number of the compute side (detail::undeclared_compute_*): required where the kernel
// declares operations; absent where it does not (0 in memory, beside compute_declared false),
// and reports written before perfgate left it out still read.
double compute_number(const json_fields& f, std::string_view key, bool compute_declared) {
  return compute_declared || f.has(key) ? f.non_negative(key) : 0.0;
}

kernel_params read_params(const json_fields& f) {
  kernel_params k;
  if (f.has("compute_declared")) {
    if (!f.raw().at("compute_declared").is_boolean()) {
      f.fail("compute_declared", "expected true or false");
    }
    k.compute_declared = f.raw().at("compute_declared").get<bool>();
  }
  k.model = f.one_of("model", {model_kind::quantitative, model_kind::roofline});
  // Bytes alone: no type was declared; declared_kernel_params holds such work as int.
  k.K_type = k.compute_declared || f.has("K_type")
                 ? read_type(f, "K_type", f.string("K_type"), true)
                 : kernel_type::integer;
  k.simt_type =
      f.has("simt_type") ? read_type(f, "simt_type", f.string("simt_type"), false) : k.K_type;
  if (is_tensor(k.simt_type)) {
    f.fail("simt_type", "missing: a tensor K_type needs the type of its SIMT instructions");
  }
  if (f.has("tensor_ops")) {
    const json_fields ops = f.object("tensor_ops");
    for (const auto& item : ops.raw().items()) {
      k.tensor_ops[read_type(ops, item.key(), item.key(), true)] = ops.positive(item.key());
    }
  }
  k.W_comp = compute_number(f, "W_comp", k.compute_declared);
  k.W_simt = is_tensor(k.K_type) ? 0.0 : k.W_comp; // not in reports: only a roof would use it
  k.W_traf = f.non_negative("W_traf");
  k.O_krn = compute_number(f, "O_krn", k.compute_declared);
  k.E_mix = optional_number(f, "E_mix");
  k.D_ops = optional_number(f, "D_ops");
  k.D_ldst = optional_number(f, "D_ldst");
  k.D_other = optional_number(f, "D_other");
  if (!k.compute_declared && (k.W_comp != 0 || k.O_krn != 0)) {
    f.fail(k.W_comp != 0 ? "W_comp" : "O_krn",
           "expected none: the kernel declares no operations (compute_declared false)");
  }
  if (k.compute_declared && !(k.W_comp > 0)) {
    f.fail("W_comp", "expected a number > 0 (absent only with compute_declared false)");
  }
  k.items = optional_number(f, "items");
  k.working_set_bytes = optional_number(f, "working_set_bytes");
  if (k.working_set_bytes) {
    const std::string source = f.string_or("working_set_source", "declared");
    k.working_set_source = source == "declared" ? "" : source;
  }
  return k;
}

roof_bound read_roof(const json_fields& f, bool compute_declared) {
  roof_bound r;
  r.time_s = f.positive("time_s");
  r.limiter = f.string("limiter");
  r.bound = f.one_of("bound", {bound_class::memory, bound_class::compute});
  r.B_roof = f.non_negative("B_roof");
  for (const auto& [key, member] : detail::undeclared_compute_roof) {
    r.*member = compute_number(f, key, compute_declared);
  }
  if (f.has("co_issue")) {
    if (!f.raw().at("co_issue").is_boolean()) {
      f.fail("co_issue", "expected true or false");
    }
    r.co_issue = f.raw().at("co_issue").get<bool>();
  }
  if (f.has("terms")) {
    const auto& terms = f.array("terms");
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const auto t = f.element(terms[i], i, "terms");
      r.terms.push_back({t.string("resource"), t.non_negative("amount"), t.positive("rate"),
                         t.non_negative("time_s"), t.string_or("via", "")});
    }
  }
  return r;
}

// What the leftover scaled by; reports written before it said so told it by the numbers.
std::string leftover_basis(const json_fields& s, const measured_scaling& m) {
  if (!s.has("leftover_by")) {
    return std::fabs(m.leftover_scale - m.clock_scale) <= 1e-9 * m.clock_scale ? "sm_clock"
                                                                               : "ldst_rate";
  }
  std::string by = s.string("leftover_by");
  if (by != "sm_clock" && by != "ldst_rate" && by != "gemm_efficiency") {
    s.fail("leftover_by", "expected sm_clock, ldst_rate or gemm_efficiency, got '" + by + "'");
  }
  return by;
}

prediction read_prediction(const json_fields& f, bool with_roof, bool compute_declared) {
  prediction p;
  p.device = f.string("device");
  p.one_core = f.string_or("peaks", "all") == "one_core";
  for (const auto& [key, member] : detail::optional_prediction_terms) {
    p.*member = optional_number(f, key);
  }
  for (const auto& [key, member] : detail::undeclared_compute_terms) {
    p.*member = compute_number(f, key, compute_declared);
  }
  p.B_mem = f.has("B_mem") ? f.non_negative("B_mem") : 0;
  p.bound = f.one_of("bound", {bound_class::memory, bound_class::compute});
  p.predicted_time_s = f.non_negative("predicted_time_s");
  if (with_roof) {
    p.roof = read_roof(f.object("roof"), compute_declared);
  }
  if (f.has("clock_scale")) {
    p.clock_scale = f.positive("clock_scale");
  }
  if (f.has("scaling")) {
    const auto s = f.object("scaling");
    measured_scaling m;
    m.measured_on = s.string("measured_on");
    m.measured_time_s = s.positive("measured_time_s");
    m.utilisation = s.non_negative("utilisation");
    m.limiter = s.string("limiter");
    m.resource_scale = s.positive("resource_scale");
    m.clock_scale = s.positive("clock_scale");
    // Reports written before the leftover had its own scale scaled it by the clock.
    m.leftover_scale = s.has("leftover_scale") ? s.positive("leftover_scale") : m.clock_scale;
    m.leftover_by = leftover_basis(s, m);
    if (!s.has("at_roof") || !s.raw().at("at_roof").is_boolean()) {
      s.fail("at_roof", "expected true or false");
    }
    m.at_roof = s.raw().at("at_roof").get<bool>();
    p.scaling = m;
  }
  return p;
}
} // namespace

namespace {

void read_meta(const json_fields& meta, run_meta& out) {
  out.perfgate_version = meta.string_or("perfgate_version", "");
  out.command = meta.string_or("command", "");
  out.timestamp = meta.string_or("timestamp", "");
  out.host = meta.string_or("host", "");
  if (meta.has("argv")) {
    for (const auto& a : meta.array("argv")) {
      out.argv.push_back(a.is_string() ? a.get<std::string>() : a.dump());
    }
  }
}

void read_profile(const json_fields& prof, report& r) {
  r.profile_file = prof.string_or("file", "");
  r.profile_format = prof.string_or("format", "");
  r.profile_device = prof.string_or("device", "");
  r.profile_warp_size = static_cast<int>(prof.has("warp_size") ? prof.count("warp_size") : 32);
  if (prof.has("local_device")) {
    r.local_device = prof.string("local_device");
  }
}

device read_device(const json_fields& d) {
  device dev;
  dev.id = d.string("id");
  dev.name = d.string_or("name", dev.id);
  dev.vendor = d.string_or("vendor", "");
  dev.source = d.string_or("source", "");
  dev.origin = d.string_or("origin", "");
  if (d.has("peaks")) {
    const auto pk = d.object("peaks");
    dev.peaks = {pk.non_negative("fp32_gflops"),  pk.non_negative("fp64_gflops"),
                 pk.non_negative("int_mad_gops"), pk.non_negative("int_add_gops"),
                 pk.non_negative("ldst_ginst"),   pk.non_negative("dram_gbs")};
    if (pk.has("dram_roof_gbs")) {
      dev.peaks.dram_roof_gbs = pk.positive("dram_roof_gbs");
    }
  }
  return dev;
}

measurement read_measurement(const json_fields& m) {
  measurement meas;
  meas.time_s = m.positive("time_s");
  // Earlier reports wrote zeros for statistics nobody measured (samples 0).
  const std::uint64_t samples = m.has("samples") ? m.count("samples") : 0;
  if (samples > 0) {
    meas.samples = samples;
    if (m.has("median_s")) {
      meas.stats = detail::read_duration_stats(m, detail::stats_fields::optional);
    }
  }
  if (m.has("noise")) {
    meas.noise = m.non_negative("noise");
  }
  meas.device = m.string_or("device", "");
  if (m.has("sm_clock_mhz")) {
    meas.sm_clock_mhz = m.positive("sm_clock_mhz");
  }
  if (m.has("real_time_s")) {
    meas.real_time_s = m.positive("real_time_s");
  }
  if (m.has("clock_limits")) {
    meas.clock_limits = m.strings("clock_limits");
  }
  return meas;
}

// The fields every statistical verdict shares (change, ab, confirmation); `ratio` is read in
// between, as each writes it.
template <class Verdict, class Ratio>
Verdict read_statistical_verdict(const json_fields& c, const Ratio& ratio) {
  Verdict v;
  v.kind = change_kind(c);
  v.beyond_allowed = c.boolean("beyond_allowed");
  v.ratio = ratio(c);
  v.allowed = c.positive("allowed");
  v.confidence = c.fraction("confidence");
  return v;
}

stats::change_verdict read_change(const json_fields& c) {
  auto cv = read_statistical_verdict<stats::change_verdict>(c, time_ratio);
  const auto mw = c.object("mann_whitney");
  cv.test = {mw.non_negative("u"), mw.fraction("p_greater"), mw.fraction("p_less"),
             mw.boolean("exact")};
  cv.samples_to_settle = c.count("samples_to_settle");
  return cv;
}

stats::ab_verdict read_ab(const json_fields& a) {
  auto av = read_statistical_verdict<stats::ab_verdict>(a, time_ratio);
  av.rounds = a.count("rounds");
  av.rounds_to_settle = a.count("rounds_to_settle");
  return av;
}

void read_confirmation(const json_fields& c, verdict& out) {
  auto fv = read_statistical_verdict<stats::floor_verdict>(
      c, [](const json_fields& f) { return f.positive("floor_ratio"); });
  fv.base_floor = c.positive("base_floor");
  fv.head_floor = c.positive("head_floor");
  fv.base_runs = c.count("base_runs");
  fv.head_runs = c.count("head_runs");
  fv.p_within = c.fraction("p_within");
  fv.false_alarm = c.fraction("false_alarm");
  fv.runs_to_settle = c.count("runs_to_settle");
  out.confirmation_runs = c.positive_arrays("efficiency_runs");
  out.confirmation = fv;
}

// The judges' findings: a stable code, its severity and its numbers, one per reason.
std::vector<finding> read_findings(const json_fields& v) {
  std::vector<finding> out;
  const auto& findings = v.array("findings");
  for (std::size_t n = 0; n < findings.size(); ++n) {
    const auto f = v.element(findings[n], n, "findings");
    finding one;
    one.code = f.string("code");
    one.severity = f.one_of("severity", {verdict_status::pass, verdict_status::fail,
                                         verdict_status::warn, verdict_status::skip});
    const auto values = f.object("numbers");
    for (const auto& [name, value] : values.raw().items()) {
      one.numbers[name] = values.number(name);
    }
    out.push_back(std::move(one));
  }
  return out;
}

verdict read_verdict(const json_fields& v) {
  verdict out;
  out.status = v.one_of("status", {verdict_status::pass, verdict_status::fail, verdict_status::warn,
                                   verdict_status::skip});
  for (const auto& reason : v.array("reasons")) {
    out.reasons.push_back(reason.is_string() ? reason.get<std::string>() : reason.dump());
  }
  if (v.has("findings")) {
    out.findings = read_findings(v);
  }
  out.efficiency = optional_number(v, "efficiency");
  out.baseline_efficiency = optional_number(v, "baseline_efficiency");
  out.device = v.string_or("device", "");
  if (v.has("change")) {
    out.change = read_change(v.object("change"));
  }
  if (v.has("ab")) {
    out.ab = read_ab(v.object("ab"));
  }
  if (v.has("confirmation")) {
    read_confirmation(v.object("confirmation"), out);
  }
  return out;
}

kernel_report read_kernel(const json_fields& k, int schema_version) {
  kernel_report kr;
  kr.name = k.string("name");
  kr.invocations = k.has("invocations") ? k.count("invocations") : 1;
  if (k.has("skip_reason")) {
    kr.skip_reason = k.string("skip_reason");
    if (!k.raw().contains("params") || !k.raw().at("params").is_null() ||
        !k.array("predictions").empty()) {
      k.fail("params", "a kernel with a skip_reason was not predicted: expected params null "
                       "and no predictions");
    }
  } else {
    kr.params = read_params(k.object("params"));
  }
  if (k.has("measured")) {
    kr.measured = read_measurement(k.object("measured"));
  }
  const auto& preds = k.array("predictions");
  for (std::size_t j = 0; j < preds.size(); ++j) {
    kr.predictions.push_back(read_prediction(k.element(preds[j], j, "predictions"),
                                             schema_version >= 2, kr.params.compute_declared));
  }
  kr.result = read_verdict(k.object("verdict"));
  kr.origin = k.string_or("origin", "");
  if (k.has("pipeline")) {
    kr.pipeline = pipeline_from(k.object("pipeline"));
  }
  return kr;
}

} // namespace

report report_from_json(std::string_view text, const std::string& file) {
  const nlohmann::json doc = json_fields::parse(text, file);
  const json_fields root(doc, file, "");
  const std::string schema = root.schema({report_schema, report_schema_v1});
  report r;
  r.schema_version = schema == report_schema ? 2 : 1;
  if (root.has("meta")) {
    read_meta(root.object("meta"), r.meta);
  }
  if (root.has("profile")) {
    read_profile(root.object("profile"), r);
  }
  const auto& devices = root.array("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    r.devices.push_back(read_device(root.element(devices[i], i, "devices")));
  }
  if (!root.has("profile") || !root.object("profile").raw().contains("local_device")) {
    r.local_device = local_device_named(r.profile_device, r.devices); // before perfgate 0.2
  } else if (!r.local_device.empty() && r.find_device(r.local_device) == nullptr) {
    root.object("profile").fail("local_device", "expected the id of one of the report's "
                                                "devices, found \"" +
                                                    r.local_device + "\"");
  }
  if (root.has("suite")) {
    r.suite = read_suite(root.object("suite"));
  }
  if (root.has("identity")) {
    r.identity = detail::read_identity(root.object("identity"));
  }
  if (root.has("hardware")) {
    r.hardware = detail::read_hardware(root.object("hardware"));
  }
  const auto& kernels = root.array("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    r.kernels.push_back(read_kernel(root.element(kernels[i], i, "kernels"), r.schema_version));
  }
  return r;
}

} // namespace perfgate
