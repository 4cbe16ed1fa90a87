// SPDX-License-Identifier: Apache-2.0
#include <perfgate/calibration.hpp>
#include <perfgate/error.hpp>
#include <perfgate/run_meta.hpp>
#include <perfgate/version.hpp>

#include "util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <sstream>

namespace perfgate {

using nlohmann::json;

namespace {

std::optional<double> optional_number(const detail::json_fields& f, std::string_view key) {
  return f.has(key) ? std::optional<double>(f.number(key)) : std::nullopt; // null: unread
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// A text the probe writes only where it knows it: absent is unknown, an empty one malformed.
std::string optional_text(const detail::json_fields& f, std::string_view key) {
  if (!f.has(key)) {
    return "";
  }
  std::string text = f.string(key);
  if (text.empty()) {
    f.fail(key, "empty: a field the run does not know is left out, never written empty");
  }
  return text;
}

// A benchmark the device has no path for (FP8 mma.sync on sm_90) is written as an entry with
// repetitions 0, every statistic null and the reason in its note. Only that exact shape is one:
// a null statistic beside timed repetitions, or a note missing, is a malformed file.
bool not_measured_entry(const detail::json_fields& r, std::uint64_t repetitions) {
  constexpr std::array<std::string_view, 4> stats = {"best", "median", "min", "max"};
  const auto is_null = [&](std::string_view key) {
    const std::string k(key);
    return r.raw().contains(k) && r.raw().at(k).is_null();
  };
  if (std::none_of(stats.begin(), stats.end(), is_null)) {
    return false;
  }
  if (!std::all_of(stats.begin(), stats.end(), is_null)) {
    const auto null_one = *std::find_if(stats.begin(), stats.end(), is_null);
    r.fail(null_one, "null while the entry's other statistics are numbers (a benchmark not "
                     "measured has repetitions 0 and every statistic null)");
  }
  if (repetitions != 0) {
    r.fail("best", "null, but the entry has " + std::to_string(repetitions) +
                       " timed repetitions (a benchmark not measured has repetitions 0)");
  }
  if (r.string_or("note", "").empty()) {
    r.fail("note", "missing: a benchmark not measured must say why in its note");
  }
  return true;
}

// The six required peaks of one scope; dram_gbs is B_mem, the mean of read, write and copy (the
// thesis's choice for a prediction), and dram_roof_gbs the best of every DRAM access pattern
// measured (the memory roof: what the fastest pattern showed the memory can sustain).
std::optional<device_peaks> peaks_of(const microbench_run& run, std::string_view scope,
                                     std::string* missing) {
  constexpr std::array<std::string_view, 8> keys = {
      "fp32_gflops", "fp64_gflops",   "int_mad_gops",   "int_add_gops",
      "ldst_ginst",  "dram_read_gbs", "dram_write_gbs", "dram_copy_gbs"};
  std::array<double, 8> best{};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto* r = run.find(keys[i], scope);
    if (r == nullptr || !(r->best > 0)) {
      if (missing != nullptr) {
        *missing += (missing->empty() ? "" : ", ") + std::string(keys[i]) +
                    (r != nullptr && !r->measured ? " (not measured: " + r->note + ")" : "");
      }
      continue;
    }
    best[i] = r->best;
  }
  if (missing != nullptr && !missing->empty()) {
    return std::nullopt;
  }
  if (std::find(best.begin(), best.end(), 0.0) != best.end()) {
    return std::nullopt;
  }
  device_peaks p{best[0], best[1], best[2], best[3], best[4], (best[5] + best[6] + best[7]) / 3.0};
  for (const auto& r : run.results) {
    if (r.scope == scope && r.key.starts_with("dram_") && r.key.ends_with("_gbs")) {
      p.dram_roof_gbs = std::max(p.dram_roof_gbs, r.best);
    }
  }
  return p;
}
// A GPU's architecture, nominal clock (read after the run, else before), datasheet entry, and the
// clock of every compute peak that does not hold at the nominal one. DRAM and cache rates (`gbs`)
// do not follow the SM clock and get none.
void set_gpu_identity_and_clocks(const microbench_run& run, device& d) {
  d.arch = architecture_name(run.dev.arch);
  d.sm_clock_mhz = run.dev.clock_mhz_after ? run.dev.clock_mhz_after : run.dev.clock_mhz_before;
  const device* datasheet = datasheet_device_for(
      {run.dev.name, run.dev.vendor, run.dev.arch, run.dev.compute_units, run.dev.memory_bytes});
  if (datasheet != nullptr) {
    d.datasheet_id = datasheet->id;
  }
  for (const auto& r : run.results) {
    if (!r.measured || r.scope != "all" || r.key.find("gbs") != std::string::npos ||
        !peak_value(d, r.key)) {
      continue;
    }
    const auto clock = clock_of_result(run, r, datasheet);
    if (!clock || (d.sm_clock_mhz && std::fabs(clock->mhz - *d.sm_clock_mhz) < 1e-9)) {
      continue;
    }
    d.peak_clocks_mhz[r.key] = clock->mhz;
    if (!clock->how.empty()) {
      d.citations[r.key] = clock->how;
    }
  }
}
} // namespace

std::optional<int> vector_bits_of_arch(std::string_view arch) {
  std::string a(arch);
  std::transform(a.begin(), a.end(), a.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto has = [&](std::string_view word) { return a.find(word) != std::string::npos; };
  if (has("avx512")) {
    return 512;
  }
  if (has("avx")) { // avx2+fma, avx
    return 256;
  }
  // SSE2 is x86-64's baseline and NEON (ASIMD) AArch64's: the portable kernels' vectors.
  if (has("sse") || has("neon") || has("asimd") ||
      (has("generic") && (has("x86-64") || has("x86_64") || has("aarch64")))) {
    return 128;
  }
  return std::nullopt;
}

const microbench_result* microbench_run::find(std::string_view key, std::string_view scope) const {
  for (const auto& r : results) {
    if (r.key == key && r.scope == scope) {
      return &r;
    }
  }
  return nullptr;
}

microbench_run microbench_run_from_json(std::string_view text, const std::string& file) {
  const json doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  (void)root.schema({microbench_schema});
  microbench_run run;
  run.backend = root.string("backend");
  if (root.has("quick")) {
    if (!root.raw().at("quick").is_boolean()) {
      root.fail("quick", "expected true or false");
    }
    run.quick = root.raw().at("quick").get<bool>();
  }
  const auto dev = root.object("device");
  run.dev.name = dev.string("name");
  run.dev.vendor = dev.string("vendor");
  run.dev.kind = dev.string_or("kind", run.backend == "cpu" ? "cpu" : "gpu");
  run.dev.arch = dev.string_or("arch", "");
  run.dev.index = dev.has("index") ? dev.count("index") : 0;
  run.dev.compute_units = dev.has("compute_units") ? dev.count("compute_units") : 0;
  run.dev.warp_size = static_cast<int>(dev.has("warp_size") ? dev.count("warp_size") : 1);
  run.dev.clock_mhz_before = optional_number(dev, "sm_clock_mhz_before");
  run.dev.clock_mhz_after = optional_number(dev, "sm_clock_mhz_after");
  run.dev.throttle_reasons = dev.string_or("throttle_reasons", "");
  run.dev.memory_bytes = optional_number(dev, "memory_bytes").value_or(0);
  run.dev.uuid = optional_text(dev, "uuid");
  run.dev.driver = optional_text(dev, "driver");
  const auto& results = root.array("results");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto r = root.element(results[i], i, "results");
    microbench_result m;
    m.key = r.string("key");
    m.scope = r.string_or("scope", "all");
    m.threads = r.has("threads") ? r.count("threads") : 0;
    m.repetitions = r.count("repetitions");
    m.note = r.string_or("note", "");
    if (not_measured_entry(r, m.repetitions)) {
      m.measured = false;
      run.results.push_back(std::move(m));
      continue;
    }
    m.best = r.non_negative("best");
    m.median = r.non_negative("median");
    m.min = r.non_negative("min");
    m.max = r.non_negative("max");
    if (r.has("sm_clock_mhz")) { // null: the clock could not be measured
      m.sm_clock_mhz = r.positive("sm_clock_mhz");
    }
    run.results.push_back(std::move(m));
  }
  if (root.has("sweep")) {
    const auto& sweep = root.array("sweep");
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      const auto s = root.element(sweep[i], i, "sweep");
      run.sweep.push_back({s.non_negative("fma_per_element"),
                           s.non_negative("intensity_flop_per_byte"), s.non_negative("gflops"),
                           s.non_negative("gbs")});
    }
  }
  return run;
}

std::optional<peak_clock> clock_of_result(const microbench_run& run, const microbench_result& r,
                                          const device* datasheet) {
  if (r.sm_clock_mhz) {
    return peak_clock{*r.sm_clock_mhz, ""};
  }
  const auto nominal = run.dev.clock_mhz_after ? run.dev.clock_mhz_after : run.dev.clock_mhz_before;
  if (!nominal) {
    return std::nullopt;
  }
  peak_clock c{*nominal, ""};
  const auto rate = datasheet != nullptr ? peak_value(*datasheet, r.key) : std::nullopt;
  if (rate && datasheet->sm_clock_mhz && r.best > 0) {
    const double per_mhz = *rate / *datasheet->sm_clock_mhz;
    if (r.best / per_mhz < c.mhz) {
      c.mhz = r.best / per_mhz;
      std::ostringstream how;
      how << "no SM clock was measured with this rate (the run read " << *nominal
          << " MHz after its benchmarks" +
                 (run.dev.throttle_reasons.empty() || run.dev.throttle_reasons == "0x0"
                      ? std::string()
                      : ", throttle reasons " + run.dev.throttle_reasons)
          << "): attributed to " << c.mhz << " MHz, the lowest clock at which built-in '"
          << datasheet->id << "' allows it (" << per_mhz
          << " per MHz), so a roof scaled from it to a kernel's clock is never below what the "
             "GPU can do";
      c.how = how.str();
    }
  }
  return c;
}

device device_from_microbench(const microbench_run& run, const std::string& id) {
  std::string missing;
  const auto all = peaks_of(run, "all", &missing);
  if (!all) {
    throw input_error("<" + run.backend + " micro-benchmarks>", "",
                      "no result for " + missing + "; cannot make a device from this run");
  }
  device d;
  d.id = id;
  d.name = run.dev.name;
  d.vendor = run.dev.vendor;
  d.kind = run.dev.kind;
  d.warp_size = run.dev.warp_size;
  d.source = "measured";
  d.peaks = *all;
  d.one_core_peaks = peaks_of(run, "one", nullptr);
  d.compute_units = run.dev.compute_units;
  d.co_issue = architecture_co_issues(d.kind, d.vendor, d.kind == "cpu" ? "" : run.dev.arch);
  d.cache_bytes = run.dev.cache_bytes;
  d.uuid = run.dev.uuid;
  d.driver = run.dev.driver;
  if (d.kind == "cpu") {
    // The boat hull model's W_vector and N_threads: the widest vectors the compute benchmarks
    // used, and the threads the all-core benchmarks ran (one per CPU this process may use).
    d.vector_bits = vector_bits_of_arch(run.dev.arch);
    std::uint64_t threads = 0;
    if (const auto* fp32 = run.find("fp32_gflops", "all")) {
      threads = fp32->threads;
    }
    if (threads == 0) {
      threads = run.dev.compute_units;
    }
    if (threads > 0) {
      d.hardware_threads = static_cast<int>(threads);
    }
  }
  for (const auto& r : run.results) {
    const bool required = r.key == "fp32_gflops" || r.key == "fp64_gflops" ||
                          r.key == "int_mad_gops" || r.key == "int_add_gops" ||
                          r.key == "ldst_ginst";
    if (required || !(r.best > 0)) {
      continue;
    }
    if (r.scope == "all") {
      d.extra_peaks[r.key] = r.best;
    } else if (r.scope == "one" && d.one_core_peaks) {
      d.one_core_extra_peaks[r.key] = r.best;
    }
  }
  if (d.kind == "gpu") {
    set_gpu_identity_and_clocks(run, d);
  }
  d.provenance_how = std::string(run.quick ? "QUICK SMOKE RUN, NOT A MEASUREMENT: " : "") +
                     "perfgate calibrate --backend " + run.backend +
                     ": micro-benchmarks on this machine, the best of each benchmark's timed "
                     "repetitions after a warm-up; dram_gbs = mean of read, write and copy (the "
                     "model's B_mem); dram_roof_gbs = the best DRAM access pattern (the roof)";
  if (run.find("uncoalesced_gbs") != nullptr) {
    d.provenance_how += "; uncoalesced_gbs = random 4-byte gather and scatter bytes over their "
                        "combined time";
  }
  if (run.find("bus_gbs") != nullptr) {
    d.provenance_how += "; bus_gbs = the slower direction of pinned host-device copies";
  }
  d.origin = "calibration";
  return d;
}

std::string calibration_to_json(const device& d, const microbench_run& run,
                                const std::vector<std::string>& argv) {
  json j = json::parse(device_to_json(d));
  const auto meta = make_run_meta("calibrate", argv);
  std::string command;
  for (const auto& a : argv) {
    command += (command.empty() ? "" : " ") + a;
  }
  j["provenance"]["date"] = meta.timestamp;
  j["provenance"]["tool"] = "perfgate " + meta.perfgate_version;
  j["provenance"]["command"] = command;
  j["provenance"]["host"] = meta.host;
  j["provenance"]["backend"] = run.backend;
  j["provenance"]["arch"] = run.dev.arch;
  j["clocks"] = {{"mhz_before", optional_json(run.dev.clock_mhz_before)},
                 {"mhz_after", optional_json(run.dev.clock_mhz_after)},
                 {"throttle_reasons", run.dev.throttle_reasons}};
  json measurements = json::array();
  json not_measured = json::array();
  for (const auto& r : run.results) {
    if (!r.measured) {
      not_measured.push_back({{"key", r.key}, {"scope", r.scope}, {"note", r.note}});
      continue;
    }
    json m = {{"key", r.key},         {"scope", r.scope},
              {"threads", r.threads}, {"repetitions", r.repetitions},
              {"best", r.best},       {"median", r.median},
              {"min", r.min},         {"max", r.max},
              {"spread", r.spread()}, {"note", r.note}};
    if (r.sm_clock_mhz) {
      m["sm_clock_mhz"] = *r.sm_clock_mhz;
    }
    measurements.push_back(std::move(m));
  }
  j["measurements"] = std::move(measurements);
  if (!not_measured.empty()) {
    j["not_measured"] = std::move(not_measured);
  }
  if (!run.sweep.empty()) {
    json sweep = json::array();
    for (const auto& s : run.sweep) {
      sweep.push_back({{"fma_per_element", s.fma_per_element},
                       {"intensity_flop_per_byte", s.intensity_flop_per_byte},
                       {"gflops", s.gflops},
                       {"gbs", s.gbs}});
    }
    j["sweep"] = std::move(sweep);
  }
  return j.dump(2) + "\n";
}

bool is_cpu_calibration_of(std::string_view text, std::string_view host) {
  const json doc = json::parse(text, nullptr, false);
  if (!doc.is_object() || doc.value("schema", "") != "perfgate-device/1" ||
      !doc.contains("provenance") || !doc["provenance"].is_object() ||
      !doc.contains("measurements") || !doc["measurements"].is_array()) {
    return false;
  }
  const json& prov = doc["provenance"];
  return prov.value("host", "") == host && prov.value("backend", "") == "cpu";
}

std::vector<std::string> keep_highest_rates(microbench_run& run, std::string_view previous_text,
                                            const std::string& previous_file,
                                            std::string_view host) {
  std::vector<std::string> kept;
  if (run.backend != "cpu" || run.quick) {
    return kept;
  }
  if (!is_cpu_calibration_of(previous_text, host)) {
    return kept; // not a calibration of this machine: nothing it showed
  }
  const json doc = json::parse(previous_text);
  if (doc.value("name", "") != run.dev.name) {
    return kept; // a VM moved to another CPU model starts afresh
  }
  const std::string date = doc["provenance"].value("date", "?");
  for (const json& m : doc["measurements"]) {
    if (!m.is_object() || !m.contains("best") || !m["best"].is_number() || !m.contains("threads") ||
        !m["threads"].is_number_unsigned()) {
      continue;
    }
    const double best = m["best"].get<double>();
    for (auto& r : run.results) {
      if (!r.measured || r.key != m.value("key", "") || r.scope != m.value("scope", "") ||
          r.threads != m["threads"].get<std::uint64_t>() || !(best > r.best) ||
          !std::isfinite(best)) {
        continue;
      }
      std::ostringstream line;
      line << r.key << " (" << r.scope << "): " << best << " from " << previous_file << " (" << date
           << ") over this run's " << r.best;
      kept.push_back(line.str());
      r.note += (r.note.empty() ? "" : "; ") + std::string("best kept from the calibration of ") +
                date + ", this run reached " + std::to_string(r.best);
      r.best = best;
      r.max = std::max(r.max, best);
    }
  }
  return kept;
}

} // namespace perfgate
