// SPDX-License-Identifier: Apache-2.0
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/version.hpp>

#include "util/embedded_file.hpp"
#include "util/json_fields.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <span>
#include <sstream>
#include <vector>

namespace perfgate {

using nlohmann::json;

namespace {
constexpr std::array<std::string_view, 4> known_vendors = {"nvidia", "amd", "intel", "arm"};
constexpr std::array<std::string_view, 2> known_kinds = {"gpu", "cpu"};
constexpr std::array<std::string_view, 2> known_sources = {"measured", "datasheet"};

template <std::size_t N> std::string one_of(const std::array<std::string_view, N>& names) {
  std::string s;
  for (auto n : names) {
    s += (s.empty() ? "" : ", ") + std::string(n);
  }
  return s;
}

template <std::size_t N>
std::string checked_choice(const detail::json_fields& f, std::string_view key,
                           const std::array<std::string_view, N>& allowed) {
  std::string v = f.string(key);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    f.fail(key, "unknown value \"" + v + "\", expected one of: " + one_of(allowed));
  }
  return v;
}
// The six peaks every device states, by key (fp64_gflops may be absent: see read_peaks).
constexpr std::array<std::pair<std::string_view, double device_peaks::*>, 6> required_peaks = {{
    {"fp32_gflops", &device_peaks::fp32_gflops},
    {"fp64_gflops", &device_peaks::fp64_gflops},
    {"int_mad_gops", &device_peaks::int_mad_gops},
    {"int_add_gops", &device_peaks::int_add_gops},
    {"ldst_ginst", &device_peaks::ldst_ginst},
    {"dram_gbs", &device_peaks::dram_gbs},
}};

// The keys a `perfgate-device/1` file may hold, one list per object (perfgate/schema/
// device-1.schema.json describes each): a key in no list is refused with the nearest known one
// (json_fields::known_keys), never ignored. A new key is one line here and one in the schema.
constexpr std::string_view device_file_keys[] = {
    "schema", "$schema", "id", "name", "vendor", "kind", "warp_size", "source", "peaks",
    "peaks_one_core", "compute_units", "compute_capability", "gfx_target", "architecture",
    "sm_clock_mhz", "boost_clock_mhz", "max_clock_mhz", "sustained_clock_mhz", "cuda_clock_mhz",
    "clocks", "sources",
    "peak_clocks_mhz", "memory_gb", "ecc_enabled", "cache_bytes", "vector_bits",
    "hardware_threads", "co_issue", "datasheet", "uuid", "driver", "provenance", "measurements",
    "not_measured", "sweep"};
// Every peak a file may state (`peaks`, `peaks_one_core`), 1e9 per second: the six the models
// need, the memory roof and its calibrated patterns, caches, the boat hull's inputs, tensor
// paths per precision (`tensor_*`: roofs; `mma_sync_*`: Hopper's and Blackwell's warp-level MMA,
// measured and no roof) and the rates fitted for predictions (never a roof).
constexpr std::string_view peak_keys[] = {
    "fp32_gflops", "fp64_gflops", "int_mad_gops", "int_add_gops", "ldst_ginst", "dram_gbs",
    "dram_roof_gbs", "dram_read_gbs", "dram_write_gbs", "dram_copy_gbs", "dram_triad_gbs",
    "dram_write_nt_gbs", "dram_copy_nt_gbs", "dram_triad_nt_gbs", "l2_gbs", "llc_gbs",
    "shared_gbs", "fp16_gflops", "tensor_fp16_gflops", "tensor_bf16_gflops",
    "tensor_tf32_gflops", "tensor_fp32_gflops", "tensor_fp64_gflops", "tensor_fp8_gflops",
    "tensor_int8_gops", "tensor_fp4_gflops", "tensor_fp16_acc16_gflops",
    "tensor_fp8_acc16_gflops", "mma_sync_fp16_gflops", "mma_sync_bf16_gflops",
    "mma_sync_tf32_gflops", "mma_sync_fp64_gflops", "mma_sync_fp8_gflops", "mma_sync_int8_gops",
    "mma_sync_fp4_gflops", "uncoalesced_gbs", "uncoalesced_gather_gbs", "uncoalesced_scatter_gbs",
    "bus_gbs", "bus_h2d_gbs", "bus_d2h_gbs", "elementwise_gbs", "fp32_gemm_gflops"};
constexpr std::string_view clocks_keys[] = {"mhz_before", "mhz_after", "throttle_reasons"};
constexpr std::string_view provenance_keys[] = {"how",     "date", "citations", "tool",
                                                "command", "host", "backend",   "arch"};
constexpr std::string_view measurement_keys[] = {"key", "scope",  "threads", "repetitions",
                                                 "best", "median", "min",    "max",
                                                 "spread", "note", "sm_clock_mhz"};
constexpr std::string_view not_measured_keys[] = {"key", "scope", "note"};
constexpr std::string_view sweep_keys[] = {"fma_per_element", "intensity_flop_per_byte",
                                           "gflops", "gbs"};
// `sources` (branch i53-devices reads it): the datasheet, the clock's source, and per roof rate
// its public measurements ({source, best, what}) or "none: <why>".
constexpr std::string_view sources_keys[] = {"datasheet", "max_clock", "measured"};
constexpr std::string_view measured_source_keys[] = {"source", "best", "what"};

// The keys a calibration's record holds beside the peaks (`measurements`, `not_measured`,
// `sweep`, `clocks`): informational, read by no model, but no key goes unread unchecked.
void check_calibration_record(const detail::json_fields& root) {
  const auto each = [&](std::string_view key, std::span<const std::string_view> known) {
    if (root.has(key)) {
      for (const auto& item : root.elements(key)) {
        item.known_keys(known);
      }
    }
  };
  each("measurements", measurement_keys);
  each("not_measured", not_measured_keys);
  each("sweep", sweep_keys);
  if (root.has("clocks")) {
    root.object("clocks").known_keys(clocks_keys);
  }
  if (root.has("sources")) {
    const auto sources = root.object("sources");
    sources.known_keys(sources_keys);
    if (sources.has("measured")) {
      const auto measured = sources.object("measured");
      for (const auto& [rate, list] : measured.raw().items()) {
        if (list.is_array()) {
          for (const auto& m : measured.elements(rate)) {
            m.known_keys(measured_source_keys);
          }
        }
      }
    }
  }
  if (root.has("max_clock_mhz")) {
    (void)root.positive("max_clock_mhz");
  }
  if (root.has("architecture")) {
    (void)root.string("architecture");
  }
  if (root.has("cuda_clock_mhz")) {
    (void)root.positive("cuda_clock_mhz");
  }
  if (root.has("ecc_enabled")) {
    (void)root.boolean("ecc_enabled");
  }
}

// A peak a device may lack: a GPU without FP64 hardware (compute capability 1.0 to 1.2) has no
// fp64_gflops, read as 0; a value that is present must be positive like every other.
constexpr std::string_view optional_fp64 = "fp64_gflops";

// The six required peaks, each present, numeric and positive (fp64_gflops absent on a device
// without FP64: 0); other keys of `peaks` go to `extra` (when given) and must be positive numbers
// too.
device_peaks read_peaks(const detail::json_fields& f,
                        std::map<std::string, double, std::less<>>* extra) {
  f.known_keys(peak_keys);
  device_peaks p;
  for (const auto& [key, member] : required_peaks) {
    if (key == optional_fp64 && !f.has(key)) {
      continue;
    }
    p.*member = f.positive(key);
  }
  if (f.has("dram_roof_gbs")) {
    p.dram_roof_gbs = f.positive("dram_roof_gbs");
    if (p.dram_roof_gbs < p.dram_gbs) {
      f.fail("dram_roof_gbs", "expected the highest sustained bandwidth, >= dram_gbs");
    }
  }
  for (const auto& [key, value] : f.raw().items()) {
    const bool known = key == "dram_roof_gbs" ||
                       std::any_of(required_peaks.begin(), required_peaks.end(),
                                   [&key = key](const auto& r) { return r.first == key; });
    if (!known) {
      const double v = f.positive(key);
      if (extra != nullptr) {
        (*extra)[key] = v;
      }
    }
  }
  return p;
}

// The SM clock the peaks hold at. Every form present is validated, so a bad value never hides
// behind one that takes precedence: an explicit `sm_clock_mhz`, else the datasheet's
// `max_clock_mhz` (the highest clock the card runs, NVML's maximum, which its peaks are
// multiplied out at), else its `boost_clock_mhz`, else the clock `perfgate calibrate` sampled
// right after its benchmarks (`mhz_after`, still under load). `mhz_before` is sampled before the
// first benchmark, when the GPU may idle at a fraction of its clock, so it only stands in when
// `mhz_after` could not be read.
std::optional<double> read_sm_clock(const detail::json_fields& root) {
  std::optional<double> explicit_mhz, max_mhz, boost_mhz, calibrated_mhz;
  if (root.has("sm_clock_mhz")) {
    explicit_mhz = root.positive("sm_clock_mhz");
  }
  if (root.has("boost_clock_mhz")) {
    boost_mhz = root.positive("boost_clock_mhz");
  }
  if (root.has("max_clock_mhz")) {
    max_mhz = root.positive("max_clock_mhz");
    if (boost_mhz && *max_mhz < *boost_mhz) {
      root.fail("max_clock_mhz", "expected the highest clock the card runs, >= boost_clock_mhz");
    }
  }
  if (root.has("clocks")) {
    const auto clocks = root.object("clocks");
    for (const std::string_view key : {"mhz_before", "mhz_after"}) {
      if (clocks.has(key)) {
        calibrated_mhz = clocks.positive(key); // the later key wins
      }
    }
  }
  return explicit_mhz ? explicit_mhz : max_mhz ? max_mhz : boost_mhz ? boost_mhz : calibrated_mhz;
}

// The rates a GPU's roofs use, which `sources.measured` names (`l2`: the L2 roof, l2_gbs or the
// SMs' load path): every other key there must be a peak of the device.
bool is_roof_rate(const device& d, std::string_view key) {
  return key == "dram_gbs" || key == "l2" || key == "fp32_gflops" ||
         (key == "fp64_gflops" && d.peaks.fp64_gflops > 0) ||
         (key.starts_with("tensor_") && d.extra_peaks.contains(key));
}

// `sources`: the datasheet, the clock's source, and per roof rate its public measurements (an
// array of {source, best, what}) or why there is none ("none: ...").
device_sources read_sources(const detail::json_fields& f, const device& d) {
  device_sources s;
  s.datasheet = f.string("datasheet");
  s.max_clock = f.string_or("max_clock", "");
  if (!f.has("measured")) {
    return s;
  }
  const auto measured = f.object("measured");
  for (const auto& [key, value] : measured.raw().items()) {
    if (!is_roof_rate(d, key)) {
      measured.fail(key, "names no rate this device's roofs use (dram_gbs, l2, fp32_gflops, "
                         "fp64_gflops or one of its tensor peaks)");
    }
    if (value.is_string()) {
      const std::string why = measured.string(key);
      if (!why.starts_with("none: ")) {
        measured.fail(key, "expected an array of measurements or \"none: <why>\"");
      }
      s.unmeasured[key] = why;
      continue;
    }
    for (const auto& m : measured.elements(key)) {
      s.measured[key].push_back({m.string("source"), m.positive("best"), m.string("what")});
    }
    if (s.measured[key].empty()) {
      measured.fail(key, "expected at least one measurement, or \"none: <why>\"");
    }
  }
  return s;
}

nlohmann::json sources_json(const device_sources& s) {
  json j = {{"datasheet", s.datasheet}};
  if (!s.max_clock.empty()) {
    j["max_clock"] = s.max_clock;
  }
  json measured = json::object();
  for (const auto& [key, list] : s.measured) {
    measured[key] = json::array();
    for (const auto& m : list) {
      measured[key].push_back({{"source", m.source}, {"best", m.best}, {"what", m.what}});
    }
  }
  for (const auto& [key, why] : s.unmeasured) {
    measured[key] = why;
  }
  j["measured"] = std::move(measured);
  return j;
}

json peaks_json(const device_peaks& p) {
  json j = json::object();
  for (const auto& [key, member] : required_peaks) {
    if (key == optional_fp64 && !(p.*member > 0)) {
      continue; // no FP64 hardware: absent, as read
    }
    j[std::string(key)] = p.*member;
  }
  if (p.dram_roof_gbs > 0) {
    j["dram_roof_gbs"] = p.dram_roof_gbs;
  }
  return j;
}

// An optional positive integer that fits an int (`vector_bits`, `hardware_threads`).
std::optional<int> optional_positive_int(const detail::json_fields& root, std::string_view key) {
  if (!root.has(key)) {
    return std::nullopt;
  }
  const json& v = root.raw().at(std::string(key));
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0 ||
      v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    root.fail(key, "expected an integer > 0, found " + v.dump());
  }
  return static_cast<int>(v.get<std::uint64_t>());
}

// The architecture of a device file: its compute capability or gfx target, else the one a
// calibration ran on; empty when unknown.
std::string architecture_of(const detail::json_fields& root) {
  if (root.has("compute_capability")) {
    return root.string("compute_capability");
  }
  if (root.has("gfx_target")) {
    return root.string("gfx_target");
  }
  return architecture_name(root.has("provenance") ? root.object("provenance").string_or("arch", "")
                                                  : std::string());
}

// Co-issue by architecture when the file does not say: the compute capability, else the
// architecture a calibration ran on.
bool default_co_issue(const detail::json_fields& root, const device& d) {
  std::string arch;
  std::string_view key = "compute_capability";
  if (root.has("compute_capability")) {
    arch = root.string("compute_capability");
  } else if (root.has("provenance")) {
    arch = root.object("provenance").string_or("arch", "");
    key = "provenance.arch";
  }
  try {
    return architecture_co_issues(d.kind, d.vendor, arch);
  } catch (const usage_error& e) {
    root.fail(key, e.what());
  }
}
} // namespace

device device_from_json(std::string_view text, const std::string& file) {
  const json doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  (void)root.schema({device_schema});
  root.known_keys(device_file_keys);
  check_calibration_record(root);
  device d;
  d.id = root.string("id");
  if (d.id.empty() || d.id.find_first_of(" \t/\\") != std::string::npos) {
    root.fail("id", "expected a non-empty id without spaces or slashes");
  }
  d.name = root.string("name");
  d.vendor = checked_choice(root, "vendor", known_vendors);
  d.kind = root.has("kind") ? checked_choice(root, "kind", known_kinds) : std::string("gpu");
  d.source = checked_choice(root, "source", known_sources);
  const auto warp = root.count("warp_size");
  if (warp == 0 || warp > 1024) {
    root.fail("warp_size", "expected a warp size between 1 and 1024");
  }
  d.warp_size = static_cast<int>(warp);

  d.peaks = read_peaks(root.object("peaks"), &d.extra_peaks);
  if (root.has("peaks_one_core")) {
    d.one_core_peaks = read_peaks(root.object("peaks_one_core"), &d.one_core_extra_peaks);
  }
  if (root.has("compute_units")) {
    d.compute_units = root.count("compute_units");
  }
  if (root.has("cache_bytes")) {
    const auto caches = root.object("cache_bytes");
    for (const auto& [level, value] : caches.raw().items()) {
      if (level != "l1" && level != "l2" && level != "llc") {
        caches.fail(level, "unknown cache level, expected l1, l2 or llc");
      }
      d.cache_bytes[level] = caches.positive(level);
    }
  }
  d.vector_bits = optional_positive_int(root, "vector_bits");
  d.hardware_threads = optional_positive_int(root, "hardware_threads");
  d.sm_clock_mhz = read_sm_clock(root);
  if (root.has("max_clock_mhz")) {
    d.max_clock_mhz = root.positive("max_clock_mhz");
  }
  if (root.has("boost_clock_mhz")) {
    d.boost_clock_mhz = root.positive("boost_clock_mhz");
  }
  if (root.has("sustained_clock_mhz")) {
    d.sustained_clock_mhz = root.positive("sustained_clock_mhz");
    if (!d.sm_clock_mhz || *d.sustained_clock_mhz > *d.sm_clock_mhz) {
      root.fail("sustained_clock_mhz", "expected a clock at most the one the peaks hold at "
                                       "(sm_clock_mhz or boost_clock_mhz)");
    }
  }
  if (root.has("memory_gb")) {
    d.memory_gb = root.positive("memory_gb");
  }
  d.datasheet_id = root.string_or("datasheet", "");
  d.uuid = root.string_or("uuid", "");
  d.driver = root.string_or("driver", "");
  if (root.has("peak_clocks_mhz")) {
    const auto clocks = root.object("peak_clocks_mhz");
    for (const auto& [key, value] : clocks.raw().items()) {
      const bool known = d.extra_peaks.contains(key) ||
                         std::any_of(required_peaks.begin(), required_peaks.end(),
                                     [&k = key](const auto& r) { return r.first == k; });
      if (!known) {
        clocks.fail(key, "names no peak of this device (a peak's clock needs the peak)");
      }
      d.peak_clocks_mhz[key] = clocks.positive(key);
    }
  }
  d.arch = architecture_of(root);
  if (root.has("co_issue")) {
    if (!root.raw().at("co_issue").is_boolean()) {
      root.fail("co_issue", "expected true or false");
    }
    d.co_issue = root.raw().at("co_issue").get<bool>();
  } else {
    d.co_issue = default_co_issue(root, d);
  }
  if (root.has("sources")) {
    d.sources = read_sources(root.object("sources"), d);
  }
  if (root.has("provenance")) {
    const auto prov = root.object("provenance");
    prov.known_keys(provenance_keys);
    d.provenance_how = prov.string_or("how", "");
    d.provenance_date = prov.string_or("date", "");
    if (prov.has("citations")) {
      const auto cites = prov.object("citations");
      std::vector<std::string_view> citable(std::begin(device_file_keys), std::end(device_file_keys));
      citable.insert(citable.end(), std::begin(peak_keys), std::end(peak_keys));
      cites.known_keys(citable); // a citation names a key of the file or a peak it lacks
      for (const auto& [key, value] : cites.raw().items()) {
        d.citations[key] = cites.string(key);
      }
    }
  }
  d.origin = file;
  return d;
}

std::string device_to_json(const device& d) {
  json peaks = peaks_json(d.peaks);
  for (const auto& [k, v] : d.extra_peaks) {
    peaks[k] = v;
  }
  json j = {{"schema", device_schema}, {"id", d.id},     {"name", d.name},
            {"vendor", d.vendor},      {"kind", d.kind}, {"warp_size", d.warp_size},
            {"source", d.source},      {"peaks", peaks}};
  if (d.compute_units > 0) {
    j["compute_units"] = d.compute_units;
  }
  if (!d.arch.empty()) {
    j[d.arch.starts_with("gfx") ? "gfx_target" : "compute_capability"] = d.arch;
  }
  if (d.one_core_peaks) {
    j["peaks_one_core"] = peaks_json(*d.one_core_peaks);
    for (const auto& [k, v] : d.one_core_extra_peaks) {
      j["peaks_one_core"][k] = v;
    }
  }
  if (!d.cache_bytes.empty()) {
    j["cache_bytes"] = d.cache_bytes;
  }
  if (d.vector_bits) {
    j["vector_bits"] = *d.vector_bits;
  }
  if (d.hardware_threads) {
    j["hardware_threads"] = *d.hardware_threads;
  }
  if (d.sm_clock_mhz) {
    j["sm_clock_mhz"] = *d.sm_clock_mhz;
  }
  if (d.max_clock_mhz) {
    j["max_clock_mhz"] = *d.max_clock_mhz;
  }
  if (d.boost_clock_mhz) {
    j["boost_clock_mhz"] = *d.boost_clock_mhz;
  }
  if (d.sustained_clock_mhz) {
    j["sustained_clock_mhz"] = *d.sustained_clock_mhz;
  }
  if (!d.peak_clocks_mhz.empty()) {
    j["peak_clocks_mhz"] = d.peak_clocks_mhz;
  }
  if (d.memory_gb) {
    j["memory_gb"] = *d.memory_gb;
  }
  if (!d.datasheet_id.empty()) {
    j["datasheet"] = d.datasheet_id;
  }
  if (!d.uuid.empty()) {
    j["uuid"] = d.uuid;
  }
  if (!d.driver.empty()) {
    j["driver"] = d.driver;
  }
  j["co_issue"] = d.co_issue;
  json prov = {{"how", d.provenance_how}};
  if (!d.provenance_date.empty()) {
    prov["date"] = d.provenance_date;
  }
  if (!d.citations.empty()) {
    prov["citations"] = d.citations;
  }
  j["provenance"] = std::move(prov);
  if (d.sources) {
    j["sources"] = sources_json(*d.sources);
  }
  return j.dump(2) + "\n";
}

// Out-of-order CPUs issue loads, stores and FMAs in the same cycle; GCN/CDNA CUs issue VALU,
// SALU, LDS and memory instructions of different waves together; NVIDIA Volta and later
// dispatch to separate FMA, INT, LSU and MUFU pipes. Fermi to Pascal are held to the thesis's
// single pipeline, which its tables validate.
bool architecture_co_issues(std::string_view kind, std::string_view vendor, std::string_view arch) {
  if (kind == "cpu" || vendor == "amd") {
    return true;
  }
  if (vendor != "nvidia" || arch.empty()) {
    return false;
  }
  std::string digits(arch.starts_with("sm_") ? arch.substr(3) : arch);
  double cc = 0;
  try {
    std::size_t used = 0;
    cc = std::stod(digits, &used);
    if (used == 0) {
      throw std::invalid_argument(digits);
    }
  } catch (const std::exception&) {
    throw usage_error("expected a compute capability such as \"9.0\" or \"sm_90\", found \"" +
                      std::string(arch) + "\"");
  }
  if (arch.starts_with("sm_")) {
    cc /= 10.0; // "sm_90" -> 9.0
  }
  return cc >= 7.0;
}

std::optional<double> peak_value(const device& d, std::string_view key) {
  for (const auto& [name, member] : required_peaks) {
    if (name == key) {
      return d.peaks.*member > 0 ? std::optional<double>(d.peaks.*member) : std::nullopt;
    }
  }
  if (const auto it = d.extra_peaks.find(key); it != d.extra_peaks.end()) {
    return it->second;
  }
  return std::nullopt;
}

std::string architecture_name(std::string_view arch) {
  if (arch.starts_with("sm_")) {
    std::string digits;
    for (char c : arch.substr(3)) {
      if (std::isdigit(static_cast<unsigned char>(c)) == 0) {
        break;
      }
      digits += c;
    }
    return digits.size() >= 2 ? digits.substr(0, digits.size() - 1) + "." + digits.back() : "";
  }
  const bool compute_capability =
      !arch.empty() && std::all_of(arch.begin(), arch.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
      });
  return compute_capability || arch.starts_with("gfx") ? std::string(arch) : std::string();
}

namespace {
bool has_word(const std::vector<std::string>& words, std::string_view w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

// The product's model: the first word after the vendor that holds a letter and a digit and is
// no memory size ("h100", "a100", "mi300x", "4090"), else the first with a digit.
std::string model_word(const std::vector<std::string>& words) {
  for (const auto& w : words) {
    const bool digit = std::any_of(w.begin(), w.end(), [](char c) { return std::isdigit(c); });
    if (digit && !w.ends_with("gb")) {
      return w;
    }
  }
  return "";
}
} // namespace

const device* datasheet_device_for(const gpu_identity& gpu) {
  const std::string arch = architecture_name(gpu.arch);
  const auto words = detail::lower_words(gpu.name);
  const std::string model = model_word(words);
  if (arch.empty() || model.empty()) {
    return nullptr;
  }
  constexpr std::array<std::string_view, 3> form_factors = {"pcie", "sxm", "nvl"};
  std::vector<const device*> fit;
  for (const auto& b : builtin_devices()) {
    if (b.kind != "gpu" || b.vendor != gpu.vendor || b.arch != arch ||
        (gpu.compute_units != 0 && b.compute_units != gpu.compute_units)) {
      continue;
    }
    const auto own = detail::lower_words(b.name);
    if (!has_word(own, model)) {
      continue;
    }
    // A form factor the GPU's name states must be the built-in's ("sxm5" counts as sxm).
    const bool contradicts = std::any_of(form_factors.begin(), form_factors.end(), [&](auto f) {
      const auto says = [&](const std::vector<std::string>& ws) {
        return std::any_of(ws.begin(), ws.end(), [&](const auto& w) { return w.starts_with(f); });
      };
      return says(words) && !says(own);
    });
    if (contradicts) {
      continue;
    }
    if (gpu.memory_bytes > 0 && b.memory_gb) {
      const double gib = gpu.memory_bytes / double(1ULL << 30);
      if (std::fabs(gib - *b.memory_gb) > 0.10 * *b.memory_gb) {
        continue;
      }
    }
    fit.push_back(&b);
  }
  return fit.size() == 1 ? fit.front() : nullptr;
}

device with_datasheet_tensor_peaks(const device& d) {
  if (d.kind != "gpu" || d.source != "measured" || !d.sm_clock_mhz || d.arch.empty() ||
      d.compute_units == 0) {
    return d;
  }
  // Tensor peaks per clock of every built-in GPU of the same chip. A precision is filled in where
  // they all state it; where they state different rates (the H800's FP64 is cut to 1 TFLOPS, the
  // H100's is not) the highest, which holds for every part of the chip: a roof must not be beaten.
  const device* source = nullptr;
  std::size_t candidates = 0;
  std::map<std::string, std::vector<double>, std::less<>> rates;
  for (const auto& b : builtin_devices()) {
    if (b.vendor != d.vendor || b.arch != d.arch || b.compute_units != d.compute_units ||
        !b.sm_clock_mhz) {
      continue;
    }
    source = source == nullptr ? &b : source;
    ++candidates;
    for (const auto& [key, value] : b.extra_peaks) {
      if (key.starts_with("tensor_")) {
        rates[key].push_back(value / *b.sm_clock_mhz);
      }
    }
  }
  std::map<std::string, double, std::less<>> per_clock;
  for (const auto& [key, list] : rates) {
    if (list.size() == candidates) {
      per_clock[key] = *std::max_element(list.begin(), list.end());
    }
  }
  if (source == nullptr) {
    return d;
  }
  device out = d;
  for (const auto& [key, rate] : per_clock) {
    if (d.extra_peaks.contains(key)) {
      continue; // measured (gpu_tensor.cu): the machine's own rate is the roof
    }
    out.extra_peaks[key] = rate * *d.sm_clock_mhz;
    std::ostringstream cite;
    cite << "not measured (no tensor micro-benchmark of this precision on this architecture, or "
            "it is not the fastest path there): the highest datasheet rate of the built-in GPUs "
            "of this chip (architecture "
         << d.arch << ", " << d.compute_units << " SMs, as this GPU; '" << source->id
         << "' among them), " << rate << " per MHz, at this file's " << *d.sm_clock_mhz << " MHz";
    out.citations[key] = cite.str();
  }
  return out;
}

device load_device_file(const std::filesystem::path& file) {
  return with_datasheet_tensor_peaks(device_from_json(read_text_file(file), file.string()));
}

const std::vector<device>& builtin_devices() {
  static const std::vector<device> devices = [] {
    std::vector<device> all;
    for (const auto& f : detail::builtin_device_files()) {
      device d = device_from_json(f.text, "built-in devices/" + std::string(f.name));
      d.origin = "built-in";
      all.push_back(std::move(d));
    }
    std::sort(all.begin(), all.end(), [](const device& a, const device& b) { return a.id < b.id; });
    return all;
  }();
  return devices;
}

device resolve_device(std::string_view id_or_file) {
  const std::string arg(id_or_file);
  std::error_code ec;
  // A regular file only: a runner's artifact folder named like a built-in id (l40s/) must not
  // shadow it.
  if (std::filesystem::is_regular_file(arg, ec) || arg.ends_with(".json") ||
      arg.find('/') != std::string::npos) {
    return load_device_file(arg);
  }
  for (const auto& d : builtin_devices()) {
    if (d.id == arg) {
      return d;
    }
  }
  const auto near = nearest_builtin_ids(arg);
  throw usage_error(
      "unknown device '" + arg + "': not a file and not a built-in id" +
      (near.empty() ? std::string() : "; did you mean " + detail::join(near, ", ") + "?") +
      " (`perfgate devices` lists all " + std::to_string(builtin_devices().size()) + ")");
}

std::vector<std::string> nearest_builtin_ids(std::string_view arg) {
  // The ids `arg` begins, ends or is begun by ("h100" -> h100-pcie, h100-sxm; "4090" ->
  // rtx-4090); without any, the ids the fewest edits away when that is at most a third of the
  // longer ("rtx4090" -> rtx-4090). Five at most.
  std::string lower;
  for (const char c : arg) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::vector<std::string> parts, nearest;
  std::size_t fewest = std::numeric_limits<std::size_t>::max();
  for (const auto& d : builtin_devices()) {
    const std::string& id = d.id;
    if (lower.size() >= 2 && (id.starts_with(lower) || id.ends_with(lower) ||
                              (lower.starts_with(id) && id.size() >= 2))) {
      parts.push_back(id);
      continue;
    }
    const std::size_t edits = detail::edit_distance(lower, id);
    if (3 * edits > std::max(lower.size(), id.size()) || edits > fewest) {
      continue;
    }
    if (edits < fewest) {
      nearest.clear();
      fewest = edits;
    }
    nearest.push_back(id);
  }
  std::vector<std::string>& out = parts.empty() ? nearest : parts;
  if (out.size() > 5) {
    out.resize(5);
  }
  return out;
}

} // namespace perfgate
