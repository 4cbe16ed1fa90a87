// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/profile.hpp>
#include <perfgate/version.hpp>

#include "model/duration_json.hpp"
#include "util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace perfgate {

using nlohmann::json;

std::string_view to_string(profile_format f) {
  switch (f) {
  case profile_format::detect: return "detect";
  case profile_format::nvprof_csv: return "nvprof-csv";
  case profile_format::ncu_csv_raw: return "ncu-csv-raw";
  case profile_format::ncu_csv: return "ncu-csv";
  case profile_format::perfgate_json: return profile_schema;
  case profile_format::gbench_json: return "gbench-json";
  case profile_format::rocprof_csv: return "rocprofv3-csv";
  case profile_format::rocprof_wide_csv: return "rocprof-csv";
  case profile_format::rocpd_db: return "rocpd";
  case profile_format::cupti: return "cupti";
  case profile_format::nvbench_json: return "nvbench-json";
  }
  return "?";
}

duration_stats duration_stats::from_samples(std::vector<double> samples_s) {
  duration_stats s;
  if (samples_s.empty()) {
    return s;
  }
  s.samples_s = samples_s;
  std::sort(samples_s.begin(), samples_s.end());
  const auto n = samples_s.size();
  s.samples = n;
  s.total_s = std::accumulate(samples_s.begin(), samples_s.end(), 0.0);
  s.mean_s = s.total_s / static_cast<double>(n);
  s.min_s = samples_s.front();
  s.max_s = samples_s.back();
  s.median_s = n % 2 == 1 ? samples_s[n / 2] : (samples_s[n / 2 - 1] + samples_s[n / 2]) / 2;
  double sq = 0;
  for (double v : samples_s) {
    sq += (v - s.mean_s) * (v - s.mean_s);
  }
  s.stddev_s = n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0.0;
  return s;
}

std::optional<double> kernel_profile::counter(std::string_view canonical) const {
  if (const auto it = counters.find(canonical); it != counters.end()) {
    return it->second;
  }
  return std::nullopt;
}

double kernel_profile::matrix_instructions() const {
  const double tensor = counter(counter::tensor_inst).value_or(0);
  if (const auto hfma2 = counter(counter::tensor_inst_hfma2)) {
    return std::max(0.0, tensor - *hfma2);
  }
  // Between inst_fp16_fma / warp size (full warps) and inst_fp16_fma (one thread each) of the
  // pipe's instructions are HFMA2; only what lies beyond the most they can be is proof of
  // matrix work. Real MMA kernels are far beyond it (a GEMM: millions of tensor instructions, no
  // HFMA2); the H100 and H200 captures' RNG, Welford and moments kernels are within it.
  return std::max(0.0, tensor - counter(counter::inst_fp16_fma).value_or(0));
}

double kernel_profile::tensor_operations() const {
  double sum = 0;
  for (auto op : counter::tensor_ops) {
    sum += counter(op).value_or(0);
  }
  return sum;
}

std::string profile::native_name(std::string_view canonical) const {
  if (const auto it = native_counter_names.find(canonical); it != native_counter_names.end()) {
    return it->second;
  }
  return std::string(canonical);
}

std::string profile_to_json(const profile& p) {
  json j;
  j["schema"] = profile_schema;
  j["source"] = {{"format", to_string(p.format)}, {"file", p.source_file}};
  j["device"] = {{"name", p.device_name}, {"warp_size", p.warp_size}};
  if (!p.native_counter_names.empty()) {
    j["native_counter_names"] = p.native_counter_names;
  }
  json kernels = json::array();
  for (const auto& k : p.kernels) {
    json jk;
    jk["name"] = k.name;
    jk["invocations"] = k.invocations;
    jk["counters"] = json::object();
    for (const auto& [name, value] : k.counters) {
      jk["counters"][name] = value;
    }
    if (k.launch) {
      jk["launch"] = {{"grid", k.launch->grid}, {"block", k.launch->block}};
    }
    if (k.duration) {
      const auto& d = *k.duration;
      jk["duration"] = detail::duration_stats_json(d);
      jk["duration"]["total_s"] = d.total_s;
    }
    if (k.time_s) {
      jk["time_s"] = *k.time_s;
    }
    if (k.threads > 0) {
      jk["threads"] = k.threads;
    }
    if (k.work) {
      jk["declared_work"] = {{"fp32_flops", k.work->fp32_flops},
                             {"fp64_flops", k.work->fp64_flops},
                             {"int_ops", k.work->int_ops},
                             {"bytes", k.work->bytes}};
      if (k.work->working_set_bytes > 0) {
        jk["declared_work"]["working_set_bytes"] = k.work->working_set_bytes;
      }
      if (k.work->write_bytes) {
        jk["declared_work"]["write_bytes"] = *k.work->write_bytes;
      }
      if (!k.work->tensor_ops.empty()) {
        jk["declared_work"]["tensor_ops"] = k.work->tensor_ops;
      }
      if (k.work->items) {
        jk["declared_work"]["items"] = *k.work->items;
      }
      if (k.work->bytes_source != "perfgate_bytes") {
        jk["declared_work"]["bytes_source"] = k.work->bytes_source;
      }
      if (!k.work->arguments.empty()) {
        jk["declared_work"]["arguments"] = k.work->arguments;
      }
      if (k.work->matrix) {
        jk["declared_work"]["matrix"] = *k.work->matrix;
      }
      if (!k.work->accumulate.empty()) {
        jk["declared_work"]["accumulate"] = k.work->accumulate;
      }
      if (k.work->ordinary_stores) {
        jk["declared_work"]["ordinary_stores"] = true;
      }
    }
    if (k.sm_clock_mhz) {
      jk["sm_clock_mhz"] = *k.sm_clock_mhz;
    }
    if (k.real_time_s) {
      jk["real_time_s"] = *k.real_time_s;
    }
    if (!k.clock_limits.empty()) {
      jk["clock_limits"] = k.clock_limits;
    }
    kernels.push_back(std::move(jk));
  }
  j["kernels"] = std::move(kernels);
  return j.dump(2) + "\n";
}

namespace {
// The keys of a `perfgate-profile/1` file, one list per object: a key no list holds is refused
// (json_fields::known_keys), never ignored. "$schema" lets an editor find the JSON Schema.
constexpr std::string_view profile_keys[] = {"schema", "$schema", "source", "device",
                                             "native_counter_names", "kernels"};
constexpr std::string_view source_keys[] = {"format", "file"};
constexpr std::string_view device_keys[] = {"name", "warp_size"};
constexpr std::string_view kernel_keys[] = {
    "name",    "invocations",   "counters",     "launch",       "duration",   "time_s",
    "threads", "declared_work", "sm_clock_mhz", "clock_limits", "real_time_s"};
constexpr std::string_view launch_keys[] = {"grid", "block"};
constexpr std::string_view duration_keys[] = {"samples", "mean_s",   "median_s", "min_s",
                                              "max_s",   "stddev_s", "samples_s", "total_s"};
constexpr std::string_view declared_work_keys[] = {
    "fp32_flops",   "fp64_flops",   "int_ops",      "bytes",     "working_set_bytes",
    "write_bytes",  "ordinary_stores", "tensor_ops", "items",    "bytes_source",
    "arguments",    "matrix",       "accumulate"};

// A tensor precision written one level too high (`declared_work.tensor_bf16_ops` for
// `declared_work.tensor_ops.tensor_bf16_ops`) is named as what it is meant to be.
void no_misplaced_tensor_ops(const detail::json_fields& w) {
  for (const auto& item : w.raw().items()) {
    const auto& known = counter::tensor_ops;
    if (std::find(known.begin(), known.end(), item.key()) != known.end()) {
      w.fail(item.key(), "unknown key: did you mean 'tensor_ops." + item.key() +
                             "'? (tensor work is declared per precision inside tensor_ops)");
    }
  }
}

declared_work read_declared_work(const detail::json_fields& w) {
  no_misplaced_tensor_ops(w);
  w.known_keys(declared_work_keys);
  declared_work work{w.has("fp32_flops") ? w.non_negative("fp32_flops") : 0,
                     w.has("fp64_flops") ? w.non_negative("fp64_flops") : 0,
                     w.has("int_ops") ? w.non_negative("int_ops") : 0, w.non_negative("bytes"),
                     w.has("working_set_bytes") ? w.non_negative("working_set_bytes") : 0};
  if (w.has("items")) {
    work.items = w.non_negative("items");
  }
  work.bytes_source = w.string_or("bytes_source", "perfgate_bytes");
  work.arguments = w.string_or("arguments", "");
  if (w.has("matrix")) {
    work.matrix = w.boolean("matrix");
  }
  if (w.has("accumulate")) {
    work.accumulate = w.string("accumulate");
    if (work.accumulate != "fp32" && work.accumulate != "fp16") {
      w.fail("accumulate", "expected \"fp32\" or \"fp16\", the precision the matrix work "
                           "accumulates in");
    }
  }
  if (w.has("ordinary_stores")) {
    work.ordinary_stores = w.boolean("ordinary_stores");
  }
  if (w.has("write_bytes")) {
    work.write_bytes = w.non_negative("write_bytes");
    if (*work.write_bytes > work.bytes) {
      w.fail("write_bytes", "expected the written part of bytes, at most bytes");
    }
  }
  if (w.has("tensor_ops")) {
    const auto ops = w.object("tensor_ops");
    ops.known_keys(counter::tensor_ops);
    for (const auto& item : ops.raw().items()) {
      work.tensor_ops[item.key()] = ops.non_negative(item.key());
    }
  }
  return work;
}

kernel_profile read_kernel(const detail::json_fields& jk) {
  jk.known_keys(kernel_keys);
  kernel_profile k;
  k.name = jk.string("name");
  if (k.name.empty()) {
    jk.fail("name", "expected a non-empty kernel name");
  }
  k.invocations = jk.has("invocations") ? jk.count("invocations") : 1;
  if (k.invocations == 0) {
    jk.fail("invocations", "expected at least 1 invocation");
  }
  if (jk.has("counters")) {
    const auto counters = jk.object("counters");
    counters.known_keys(counter::all);
    for (const auto& [name, value] : counters.raw().items()) {
      k.counters[name] = counters.non_negative(name);
    }
  }
  if (jk.has("launch")) {
    const auto launch = jk.object("launch");
    launch.known_keys(launch_keys);
    k.launch = launch_config{launch.dim3("grid"), launch.dim3("block")};
  }
  if (jk.has("duration")) {
    const auto d = jk.object("duration");
    d.known_keys(duration_keys);
    k.duration = detail::read_duration_stats(d, detail::stats_fields::required);
    k.duration->total_s = d.positive("total_s");
  }
  if (jk.has("time_s")) {
    k.time_s = jk.positive("time_s");
  }
  if (jk.has("threads")) {
    k.threads = jk.count("threads");
  }
  if (jk.has("declared_work")) {
    k.work = read_declared_work(jk.object("declared_work"));
  }
  if (jk.has("sm_clock_mhz")) {
    k.sm_clock_mhz = jk.positive("sm_clock_mhz");
  }
  if (jk.has("real_time_s")) {
    k.real_time_s = jk.positive("real_time_s");
  }
  if (jk.has("clock_limits")) {
    k.clock_limits = jk.strings("clock_limits");
  }
  return k;
}
} // namespace

profile profile_from_json(std::string_view text, const std::string& file) {
  const json doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  (void)root.schema({profile_schema});
  root.known_keys(profile_keys);
  profile p;
  p.format = profile_format::perfgate_json;
  p.source_file = file;
  if (root.has("source")) {
    root.object("source").known_keys(source_keys);
  }
  if (root.has("device")) {
    const auto dev = root.object("device");
    dev.known_keys(device_keys);
    p.device_name = dev.string_or("name", "");
    if (dev.has("warp_size")) {
      const auto w = dev.count("warp_size");
      if (w == 0 || w > 1024) {
        dev.fail("warp_size", "expected a warp size between 1 and 1024");
      }
      p.warp_size = static_cast<int>(w);
    }
  }
  if (root.has("native_counter_names")) {
    const auto names = root.object("native_counter_names");
    names.known_keys(counter::all);
    for (const auto& [canonical, native] : names.raw().items()) {
      p.native_counter_names[canonical] = names.string(canonical);
    }
  }
  for (const auto& jk : root.elements("kernels")) {
    p.kernels.push_back(read_kernel(jk));
  }
  return p;
}

} // namespace perfgate
