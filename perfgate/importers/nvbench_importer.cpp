// SPDX-License-Identifier: Apache-2.0
#include "importers/nvbench_importer.hpp"

#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

namespace perfgate::detail {

namespace fs = std::filesystem;

namespace {

// nvbench writes an empty list as null ("axes": null); both mean none.
const nlohmann::json& list_or_empty(const json_fields& f, std::string_view key) {
  static const nlohmann::json empty = nlohmann::json::array();
  return f.has(key) ? f.array(key) : empty;
}

// One summary's value: nvbench writes every int64 and float64 as a string ("1048576",
// "9.54e-06", "inf"), of the type its entry names.
struct summary_value {
  std::string type;
  std::string text;
  json_fields where; // the data entry, for errors
};

double as_float(const summary_value& v) {
  if (v.type != "float64" && v.type != "int64") {
    v.where.fail("type", "expected \"float64\" or \"int64\", found \"" + v.type + "\"");
  }
  const char* begin = v.text.c_str();
  char* end = nullptr;
  const double x = std::strtod(begin, &end); // accepts nvbench's "inf" and "nan"
  if (v.text.empty() || end != begin + v.text.size()) {
    v.where.fail("value", "expected a number written as a string, found \"" + v.text + "\"");
  }
  return x;
}

std::int64_t as_int(const summary_value& v) {
  std::int64_t x = 0;
  const char* end = v.text.data() + v.text.size();
  const auto [ptr, ec] = std::from_chars(v.text.data(), end, x);
  if (v.type != "int64" || ec != std::errc{} || ptr != end) {
    v.where.fail("value", "expected an int64 written as a string, found " + v.type + " \"" +
                              v.text + "\"");
  }
  return x;
}

// A state's summaries by tag: the "value" entry of each (or every entry, for jsonbin files).
using summaries = std::map<std::string, std::vector<std::pair<std::string, summary_value>>>;

summaries read_summaries(const json_fields& state) {
  summaries out;
  const auto& list = list_or_empty(state, "summaries");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto s = state.element(list[i], i, "summaries");
    const std::string tag = s.string("tag");
    auto& entries = out[tag];
    const auto& data = list_or_empty(s, "data");
    for (std::size_t d = 0; d < data.size(); ++d) {
      const auto entry = s.element(data[d], d, "data");
      entries.emplace_back(entry.string("name"),
                           summary_value{entry.string("type"), entry.string("value"), entry});
    }
  }
  return out;
}

const summary_value* value_of(const summaries& s, const std::string& tag,
                              std::string_view name = "value") {
  const auto it = s.find(tag);
  if (it == s.end()) {
    return nullptr;
  }
  for (const auto& [entry, value] : it->second) {
    if (entry == name) {
      return &value;
    }
  }
  return nullptr;
}

std::optional<double> float_of(const summaries& s, const std::string& tag) {
  const auto* v = value_of(s, tag);
  return v != nullptr ? std::optional<double>(as_float(*v)) : std::nullopt;
}

// Sum of the int64 summaries whose tag starts with `prefix` (nv/gmem/reads/<column>, ...).
std::optional<double> sum_of(const summaries& s, std::string_view prefix) {
  std::optional<double> sum;
  for (const auto& [tag, entries] : s) {
    if (tag.starts_with(prefix)) {
      if (const auto* v = value_of(s, tag)) {
        const std::int64_t n = as_int(*v);
        if (n < 0) {
          v->where.fail("value", "expected a count >= 0, found " + v->text);
        }
        sum = sum.value_or(0) + static_cast<double>(n);
      }
    }
  }
  return sum;
}

// An amount nvbench folded into a rate (bytes / mean): the rate times the same mean gives the
// integer back to well within rounding (both are doubles; the amount is below 2^53).
double amount_from_rate(double rate, double mean_s) { return std::round(rate * mean_s); }

// The --axis specification that selects one value: a power-of-two axis takes its exponent
// ("Elements[pow2]=20"), which the axes section pairs with the value.
std::string axis_arg(const json_fields& bench, const std::string& name, const std::string& value) {
  const auto& axes = list_or_empty(bench, "axes");
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const auto axis = bench.element(axes[a], a, "axes");
    if (axis.string("name") != name || axis.string_or("flags", "") != "pow2") {
      continue;
    }
    const auto& values = list_or_empty(axis, "values");
    for (std::size_t v = 0; v < values.size(); ++v) {
      const auto entry = axis.element(values[v], v, "values");
      if (entry.has("value") && entry.raw().at("value").is_number_integer() &&
          std::to_string(entry.raw().at("value").get<std::int64_t>()) == value) {
        return name + "[pow2]=" + entry.string("input_string");
      }
    }
    axis.fail("values", "has no value " + value + " for the state that names it");
  }
  return name + "=" + value;
}

// --jsonbin's sample file: little-endian float32 seconds. Since 2026-07 its name is relative to
// the JSON file's folder; before, it was the path the run was given ("<json>-bin/N.bin").
std::vector<double> read_samples(const summary_value& name, std::int64_t count,
                                 const std::string& json_file) {
  const fs::path given = name.text;
  const fs::path folder = fs::path(json_file).parent_path();
  std::vector<fs::path> candidates = {folder / given, given};
  candidates.push_back(folder / (fs::path(json_file).filename().string() + "-bin") /
                       given.filename());
  for (const auto& path : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      continue;
    }
    const std::string bytes = read_text_file(path);
    if (bytes.size() != static_cast<std::size_t>(count) * 4) {
      name.where.fail("value", path.string() + " holds " + std::to_string(bytes.size()) +
                                   " bytes, expected " + std::to_string(count) +
                                   " float32 samples (size)");
    }
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
      unsigned char b[4];
      std::memcpy(b, bytes.data() + 4 * i, 4);
      const std::uint32_t bits = std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 |
                                 std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
      float f = 0;
      std::memcpy(&f, &bits, 4);
      if (!std::isfinite(f) || f <= 0) {
        name.where.fail("value", path.string() + ": sample " + std::to_string(i) +
                                     " is not a time > 0");
      }
      samples.push_back(f);
    }
    return samples;
  }
  return {}; // moved or deleted: the statistics nvbench wrote still describe the run
}

// The time statistics nvbench wrote under `prefix` (nv/cold/time/gpu/), when it wrote all of
// them (files since 2026-06); older files give only the mean and the noise.
std::optional<duration_stats> summary_stats(const summaries& s, const std::string& prefix,
                                            std::uint64_t samples) {
  const auto mean = float_of(s, prefix + "mean");
  const auto median = float_of(s, prefix + "median");
  const auto min = float_of(s, prefix + "min");
  const auto max = float_of(s, prefix + "max");
  const auto stdev = float_of(s, prefix + "stdev/absolute");
  // nvbench writes "inf" for the deviation below 5 samples: unknown, so no complete statistics.
  if (!mean || !median || !min || !max || !stdev || !std::isfinite(*stdev) || samples == 0) {
    return std::nullopt;
  }
  duration_stats d;
  d.samples = samples;
  d.mean_s = *mean;
  d.median_s = *median;
  d.min_s = *min;
  d.max_s = *max;
  d.stddev_s = *stdev;
  d.total_s = *mean * static_cast<double>(samples);
  return d;
}

void read_measurements(nvbench_state& st, const summaries& s, const std::string& file) {
  const std::string prefix = st.cpu_only ? "nv/cpu_only/" : "nv/cold/";
  const std::string time = prefix + (st.cpu_only ? "time/cpu/" : "time/gpu/");
  st.mean_s = float_of(s, time + "mean");
  if (!st.mean_s) {
    return;
  }
  if (const auto* n = value_of(s, prefix + "sample_size")) {
    const std::int64_t samples = as_int(*n);
    if (samples < 0) {
      n->where.fail("value", "expected a sample count >= 0, found " + n->text);
    }
    st.samples = static_cast<std::uint64_t>(samples);
  }
  if (const auto noise = float_of(s, time + "stdev/relative"); noise && std::isfinite(*noise)) {
    st.noise = *noise;
  }
  st.summary = summary_stats(s, time, st.samples);
  const std::string bin = "nv/json/bin:" + prefix + "sample_times";
  if (const auto* name = value_of(s, bin, "filename")) {
    const auto* size = value_of(s, bin, "size");
    if (size == nullptr) {
      name->where.fail("name", "a sample file without its size entry");
    }
    const std::int64_t count = as_int(*size);
    if (count < 0 || (st.samples > 0 && static_cast<std::uint64_t>(count) != st.samples)) {
      size->where.fail("value", "the sample file holds " + size->text + " samples, the state " +
                                    std::to_string(st.samples) + " (" + prefix +
                                    "sample_size)");
    }
    st.samples_s = read_samples(*name, count, file);
  }
  const auto reads = sum_of(s, "nv/gmem/reads/");
  const auto writes = sum_of(s, "nv/gmem/writes/");
  const auto rate = float_of(s, prefix + "bw/global/bytes_per_second");
  const std::optional<double> named =
      reads || writes ? std::optional<double>(reads.value_or(0) + writes.value_or(0))
                      : std::nullopt;
  if (rate && std::isfinite(*rate) && *st.mean_s > 0) {
    st.bytes = amount_from_rate(*rate, *st.mean_s);
    // The named columns are all of it exactly when they add up to the same total: then they
    // also tell how much was written.
    if (named && *named == *st.bytes) {
      st.write_bytes = writes.value_or(0);
    }
  } else if (named) {
    st.bytes = named;
    st.write_bytes = writes.value_or(0);
  }
  if (const auto counted = sum_of(s, "nv/element_count/")) {
    st.items = counted;
  } else if (const auto items = float_of(s, prefix + "bw/item_rate");
             items && std::isfinite(*items) && *st.mean_s > 0) {
    st.items = amount_from_rate(*items, *st.mean_s);
  }
  if (const auto clock = float_of(s, prefix + "sm_clock_rate/mean");
      clock && std::isfinite(*clock) && *clock > 0) {
    st.sm_clock_hz = clock;
  }
}

bool cpu_only_summaries(const json_fields& state) {
  const auto& list = list_or_empty(state, "summaries");
  return std::any_of(list.begin(), list.end(), [](const nlohmann::json& s) {
    return s.is_object() && s.contains("tag") && s.at("tag").is_string() &&
           s.at("tag").get<std::string>().starts_with("nv/cpu_only/");
  });
}

// "nvbench <git_version>" from meta.version, after checking the format's major version.
std::string writer_of(const json_fields& meta) {
  const auto version = meta.object("version");
  const auto json_version = version.object("json");
  if (json_version.count("major") != 1) {
    json_version.fail("major", "expected 1: perfgate reads nvbench's JSON format 1.x, found " +
                                   json_version.raw().at("major").dump());
  }
  if (!version.has("nvbench")) {
    return "";
  }
  const auto nvbench = version.object("nvbench");
  return "nvbench " + (nvbench.has("git_version") ? nvbench.string("git_version")
                                                  : nvbench.string_or("string", "?"));
}

// nvbench before its JSON format 1.0 (2021) keyed states and summaries by name ("states":
// {"Device=0": ...}, "Average GPU Time (Cold)"), without `meta`: refused by name, not read as
// something else.
void refuse_2021_layout(const json_fields& root) {
  const auto& benchmarks = root.array("benchmarks");
  for (std::size_t b = 0; b < benchmarks.size(); ++b) {
    const auto bench = root.element(benchmarks[b], b, "benchmarks");
    if (bench.raw().contains("states") && bench.raw().at("states").is_object()) {
      bench.fail("states",
                 "is an object keyed by state name: nvbench's layout before its JSON format 1.0 "
                 "(2021, no meta.version.json), which perfgate does not read; perfgate reads "
                 "nvbench's JSON format 1.x (nvbench since 2022-01, PyPI cuda-bench): run the "
                 "benchmark again with a newer nvbench");
    }
  }
}
} // namespace

bool looks_like_nvbench_json(std::string_view text) {
  // Files without `meta` are nvbench's too (its 2021 layout, hand-written test fixtures): their
  // states hold summaries, which no Google Benchmark or perfgate file has.
  return text.find("\"benchmarks\"") != std::string_view::npos &&
         text.find("\"states\"") != std::string_view::npos &&
         (text.find("\"meta\"") != std::string_view::npos ||
          text.find("\"summaries\"") != std::string_view::npos);
}

nvbench_file read_nvbench_json(std::string_view text, const std::string& file) {
  const nlohmann::json doc = json_fields::parse(text, file);
  const json_fields root(doc, file, "");
  nvbench_file out;
  if (root.has("meta")) {
    out.writer = writer_of(root.object("meta"));
  } else {
    refuse_2021_layout(root); // else the 1.x layout without its meta block: read as 1.x
  }
  const auto& devices = list_or_empty(root, "devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto d = root.element(devices[i], i, "devices");
    out.devices.emplace_back(static_cast<std::int64_t>(d.count("id")), d.string("name"));
  }
  const auto& benchmarks = root.array("benchmarks");
  for (std::size_t b = 0; b < benchmarks.size(); ++b) {
    const auto bench = root.element(benchmarks[b], b, "benchmarks");
    const std::string bench_name = bench.string("name");
    const auto& states = list_or_empty(bench, "states");
    for (std::size_t s = 0; s < states.size(); ++s) {
      const auto state = bench.element(states[s], s, "states");
      nvbench_state st;
      st.benchmark = bench_name;
      st.name = state.string("name");
      st.kernel = bench_name + " [" + st.name + "]";
      // A CPU-only benchmark ran on no device: nvbench writes "devices": null for it (and a
      // "device" 0 for its states) and "nv/cpu_only/" summaries. A GPU state may name no device
      // (hand-written files without "devices"): then its device is unknown.
      st.cpu_only = !bench.has("devices") && cpu_only_summaries(state);
      if (!st.cpu_only && state.has("device")) {
        st.device = static_cast<std::int64_t>(state.count("device"));
      }
      const auto& axis_values = list_or_empty(state, "axis_values");
      for (std::size_t a = 0; a < axis_values.size(); ++a) {
        const auto av = state.element(axis_values[a], a, "axis_values");
        st.axis_args.push_back(axis_arg(bench, av.string("name"), av.string("value")));
      }
      st.skipped = state.has("is_skipped") && state.boolean("is_skipped");
      st.skip_reason = state.string_or("skip_reason", "");
      if (!st.skipped) {
        read_measurements(st, read_summaries(state), file);
      }
      out.states.push_back(std::move(st));
    }
  }
  return out;
}

namespace {
// The name of the GPU a state ran on: the file's name for its device number, with the number
// where the file's states ran on several ("Quadro GP100 (1)", as nvprof names a device).
std::string device_of(const nvbench_file& f, std::int64_t id, bool several) {
  std::string name = "device " + std::to_string(id);
  for (const auto& [known, known_name] : f.devices) {
    if (known == id) {
      name = known_name;
    }
  }
  return several ? name + " (" + std::to_string(id) + ")" : name;
}
} // namespace

profile profile_from_nvbench(const nvbench_file& f, const std::string& file) {
  profile p;
  p.format = profile_format::nvbench_json;
  p.source_file = file;
  p.warp_size = 32;
  bool gpu = false;
  std::set<std::int64_t> used;
  for (const auto& st : f.states) {
    if (st.device && !st.skipped) {
      used.insert(*st.device);
    }
  }
  // One GPU: the profile's device. Several: each state's own, and the profile names none.
  const bool several = used.size() > 1;
  if (used.size() == 1) {
    p.device_name = device_of(f, *used.begin(), false);
  }
  for (const auto& st : f.states) {
    if (st.skipped) {
      p.tool_errors.push_back("Failed to profile \"" + st.kernel + "\": nvbench skipped it (" +
                              st.skip_reason + ")");
      continue;
    }
    if (!st.mean_s || !(*st.mean_s > 0) || !std::isfinite(*st.mean_s)) {
      p.tool_errors.push_back("Failed to profile \"" + st.kernel +
                              "\": nvbench wrote no cold time for it (" +
                              (st.cpu_only ? "nv/cpu_only/time/cpu/mean" : "nv/cold/time/gpu/mean") +
                              ")");
      continue;
    }
    gpu = gpu || !st.cpu_only;
    kernel_profile k;
    k.name = st.kernel;
    if (st.device && several) {
      k.device_name = device_of(f, *st.device, true);
    }
    k.invocations = 1; // the time and the declared bytes are those of one execution
    k.time_s = st.mean_s;
    if (!st.samples_s.empty()) {
      k.duration = duration_stats::from_samples(st.samples_s);
    } else if (st.summary) {
      k.duration = st.summary;
    } else { // what the file says of the samples, and nothing it does not
      if (st.samples > 0) {
        k.sample_count = st.samples;
      }
      k.relative_noise = st.noise;
    }
    if (st.cpu_only) {
      k.threads = 1; // nvbench runs a CPU-only benchmark on the calling thread
    }
    if (st.bytes && *st.bytes > 0) { // items alone are no work perfgate can bound
      declared_work w;
      w.bytes = st.bytes.value_or(0);
      w.write_bytes = st.write_bytes;
      w.items = st.items;
      w.bytes_source = "nvbench";
      k.work = w;
    }
    if (st.sm_clock_hz) {
      k.sm_clock_mhz = *st.sm_clock_hz / 1e6;
    }
    p.kernels.push_back(std::move(k));
  }
  if (!gpu && !p.kernels.empty()) {
    p.warp_size = 1; // only CPU-only benchmarks
  }
  return p;
}

profile import_nvbench_json(std::string_view text, const std::string& file) {
  return profile_from_nvbench(read_nvbench_json(text, file), file);
}

} // namespace perfgate::detail
