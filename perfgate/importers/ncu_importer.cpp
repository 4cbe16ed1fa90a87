// SPDX-License-Identifier: Apache-2.0
#include "importers/ncu_importer.hpp"

#include <perfgate/error.hpp>

#include "importers/counter_mapping.hpp"
#include "importers/csv_reader.hpp"
#include "importers/launch_groups.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <span>
#include <utility>

namespace perfgate::detail {

namespace {
constexpr std::string_view time_metric = "gpu__time_duration.sum";
// A rate (Hz) per launch: averaged over the launches, never summed like the counters.
constexpr std::string_view clock_metric = "sm__cycles_elapsed.avg.per_second";
// DRAM bytes read + written in one metric: all the model needs (it uses the total traffic).
constexpr std::string_view dram_total_metric = "dram__bytes.sum";

bool is_raw_header(const csv_row& row) {
  return find_column(row, "ID") && find_column(row, "Kernel Name") &&
         !find_column(row, "Metric Name");
}

bool is_details_header(const csv_row& row) {
  return find_column(row, "ID") && find_column(row, "Kernel Name") &&
         find_column(row, "Metric Name") && find_column(row, "Metric Value");
}

bool is_missing_value(std::string_view v) { return v.empty() || v == "n/a" || v == "N/A"; }

// "(256, 1, 1)" -> {256, 1, 1}; empty for anything else.
std::optional<std::array<std::uint64_t, 3>> parse_dim3(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') {
    return std::nullopt;
  }
  std::array<std::uint64_t, 3> out{};
  std::size_t n = 0;
  const char* p = s.data() + 1;
  const char* end = s.data() + s.size() - 1;
  while (p < end && n < 3) {
    while (p < end && *p == ' ') {
      ++p;
    }
    const auto [next, ec] = std::from_chars(p, end, out[n]);
    if (ec != std::errc() || out[n] == 0) {
      return std::nullopt;
    }
    ++n;
    p = next;
    while (p < end && *p == ' ') {
      ++p;
    }
    if (p < end && *p == ',') {
      ++p;
    }
  }
  if (n != 3 || p != end) {
    return std::nullopt;
  }
  return out;
}

// A launch's configuration, where its row names one that can be read.
std::optional<launch_config> read_launch(const csv_row& row, std::optional<std::size_t> grid,
                                         std::optional<std::size_t> block) {
  if (!grid || !block || *grid >= row.fields.size() || *block >= row.fields.size()) {
    return std::nullopt;
  }
  const auto g = parse_dim3(row.fields[*grid]);
  const auto b = parse_dim3(row.fields[*block]);
  if (!g || !b) {
    return std::nullopt;
  }
  return launch_config{*g, *b};
}

// Launches of the kernels of one file, in the order kernels first appear.
struct kernel_launches {
  std::string name; ///< the kernel's name as ncu wrote it
  std::uint64_t launches = 0;
  std::map<std::string, double, std::less<>> totals;      ///< metric -> sum in base units
  std::map<std::string, std::uint64_t, std::less<>> seen; ///< metric -> launches having it
  std::map<std::uint64_t, double> durations_s;            ///< launch index -> seconds
  std::map<std::uint64_t, double> sm_clocks_hz;           ///< launch index -> SM clock
  std::optional<launch_config> launch;
};

// A kernel name's launches, one entry per launch configuration (grid and block): work and time
// always come from the same launches (importers/launch_groups.hpp).
struct launch_table {
  std::vector<std::string> order; ///< keys, in the order first launched
  std::map<std::string, kernel_launches> kernels;
  std::string device;

  // Keyed by the parsed configuration, so that "(1, 1, 1)" and "(1,1,1)" are one; a launch
  // whose configuration is missing or unreadable shares the key "?" of its name.
  kernel_launches& kernel(const std::string& name, const csv_row& row,
                          std::optional<std::size_t> grid, std::optional<std::size_t> block) {
    const std::optional<launch_config> config = read_launch(row, grid, block);
    std::string key = name + '\n';
    if (config) {
      for (const auto& dims : {config->grid, config->block}) {
        for (const auto d : dims) {
          key += std::to_string(d) + ',';
        }
      }
    } else {
      key += '?';
    }
    auto [it, inserted] = kernels.try_emplace(std::move(key));
    if (inserted) {
      order.push_back(it->first);
      it->second.name = name;
      it->second.launch = config;
    }
    return it->second;
  }
};

// `column` is 1-based, as a spreadsheet counts.
double scaled_value(const std::string& file, std::size_t line, std::size_t column,
                    std::string_view metric, std::string_view value, std::string_view unit) {
  const std::string where = "column " + std::to_string(column) + ", metric " + std::string(metric);
  const auto v = parse_profiler_number(value);
  if (!v) {
    throw input_error(file, std::to_string(line),
                      where + ": value \"" + std::string(value) + "\" is not a number: " +
                          number_expectation(value));
  }
  // Every metric read here is a count, a time or a rate: none can be negative.
  if (*v < 0) {
    throw input_error(file, std::to_string(line),
                      where + ": value \"" + std::string(value) +
                          "\" is negative, expected a count, time or rate >= 0");
  }
  const auto scale = ncu_unit_scale(unit);
  if (!scale) {
    throw input_error(file, std::to_string(line),
                      where + ": unknown unit \"" + std::string(unit) +
                          "\" (expected byte, inst, sector, cycle or a time, with K/M/G/T "
                          "prefixes, or a rate such as cycle/nsecond; `--print-units base` "
                          "avoids prefixes)");
  }
  return *v * *scale;
}

// Both importers count a launch before reading its metrics, so it is launch `launches - 1`.
void add_metric(kernel_launches& k, const std::string& metric, double value) {
  const std::uint64_t launch = k.launches - 1;
  if (metric == time_metric) {
    k.durations_s[launch] = value;
    return;
  }
  if (metric == clock_metric) {
    k.sm_clocks_hz[launch] = value;
    return;
  }
  k.totals[metric] += value;
  ++k.seen[metric];
}

// The clock the kernel's work ran at: each launch weighs by its duration, since a long launch
// at one clock does more of the work than a short one at another. Without a duration for every
// clocked launch, the plain mean.
std::optional<double> mean_sm_clock_mhz(const kernel_launches& k) {
  if (k.sm_clocks_hz.empty()) {
    return std::nullopt;
  }
  double weighted = 0;
  double weight = 0;
  double plain = 0;
  bool all_timed = true;
  for (const auto& [launch, hz] : k.sm_clocks_hz) {
    plain += hz;
    const auto d = k.durations_s.find(launch);
    if (d == k.durations_s.end() || !(d->second > 0)) {
      all_timed = false;
      continue;
    }
    weighted += hz * d->second;
    weight += d->second;
  }
  const double hz = all_timed && weight > 0 ? weighted / weight
                                            : plain / static_cast<double>(k.sm_clocks_hz.size());
  return hz / 1e6;
}

// dram__bytes.sum is read + write in one: when the file has it and not both halves, the missing
// half is the total minus the other, or, with neither half, the total counts as read and the
// write half as 0 (the model uses only their sum, W_traf).
void split_dram_total(std::span<const counter_source> sources,
                      std::map<std::string, double, std::less<>>& metrics) {
  const auto total = metrics.find(dram_total_metric);
  if (total == metrics.end()) {
    return;
  }
  const auto resolved = resolve_counters(sources, metrics);
  const auto read = resolved.find(counter::dram_read_bytes);
  const auto write = resolved.find(counter::dram_write_bytes);
  const double t = total->second;
  if (read != resolved.end() && write == resolved.end()) {
    metrics["dram__bytes_write.sum"] = std::max(0.0, t - read->second);
  } else if (read == resolved.end() && write != resolved.end()) {
    metrics["dram__bytes_read.sum"] = std::max(0.0, t - write->second);
  } else if (read == resolved.end() && write == resolved.end()) {
    metrics["dram__bytes_read.sum"] = t;
    metrics["dram__bytes_write.sum"] = 0;
  }
}

profile finish(launch_table& t, const std::string& file, profile_format format,
               std::vector<std::string> tool_errors) {
  const auto sources = ncu_counter_sources();
  profile p;
  p.tool_errors = std::move(tool_errors);
  p.format = format;
  p.source_file = file;
  p.device_name = t.device;
  p.warp_size = 32; // Nsight Compute profiles NVIDIA GPUs only
  p.native_counter_names = native_names(sources);
  // A name launched in several configurations is a kernel per configuration, named as the
  // CUPTI collector names its launch groups (" [grid 1056x1x1 block 256x1x1]").
  std::map<std::string, std::vector<std::string>, std::less<>> keys_of;
  for (const auto& key : t.order) {
    keys_of[t.kernels[key].name].push_back(key);
  }
  std::map<std::string, std::string, std::less<>> suffix_of; // key -> suffix
  for (const auto& [name, keys] : keys_of) {
    if (keys.size() < 2) {
      continue;
    }
    // Keys are distinct configurations: each launch below is its own group.
    std::vector<launch_shape> shapes;
    for (const auto& key : keys) {
      launch_shape s;
      if (const auto& c = t.kernels[key].launch) {
        s.grid = c->grid;
        s.block = c->block;
      }
      shapes.push_back(s);
    }
    for (const auto& g : group_launches(shapes, std::vector<double>(shapes.size(), 0.0))) {
      for (const std::size_t i : g.launches) {
        suffix_of[keys[i]] =
            t.kernels[keys[i]].launch ? g.suffix : std::string(" [launch configuration unknown]");
      }
    }
  }
  for (const auto& key : t.order) {
    kernel_launches& k = t.kernels[key];
    const auto suffix = suffix_of.find(key);
    const std::string name = suffix == suffix_of.end() ? k.name : k.name + suffix->second;
    // A metric present in only some launches cannot give a total: treat it as missing.
    std::map<std::string, double, std::less<>> complete;
    for (const auto& [metric, total] : k.totals) {
      if (k.seen[metric] == k.launches) {
        complete[metric] = total;
      }
    }
    kernel_profile kp;
    kp.name = name;
    kp.invocations = k.launches;
    split_dram_total(sources, complete);
    kp.counters = resolve_counters(sources, complete);
    kp.launch = k.launch;
    if (!k.durations_s.empty() && k.durations_s.size() == k.launches) {
      std::vector<double> samples;
      samples.reserve(k.durations_s.size());
      for (const auto& [launch, seconds] : k.durations_s) {
        samples.push_back(seconds);
      }
      kp.duration = duration_stats::from_samples(std::move(samples));
      kp.time_s = kp.duration->total_s;
    }
    kp.sm_clock_mhz = mean_sm_clock_mhz(k);
    p.kernels.push_back(std::move(kp));
  }
  return p;
}

bool is_used_metric(std::string_view name) {
  static const auto used = metrics_used(ncu_counter_sources());
  return name == time_metric || name == clock_metric || name == dram_total_metric ||
         std::find(used.begin(), used.end(), name) != used.end();
}

// What each table should be, for error messages.
constexpr std::string_view raw_table = "`ncu --csv --page raw` output";
constexpr std::string_view details_table = "`ncu --csv` (details page) output";

void note_device(launch_table& t, const csv_row& row, std::optional<std::size_t> col) {
  if (col && *col < row.fields.size() && t.device.empty()) {
    t.device = row.fields[*col];
  }
}

// The kernel a launch row belongs to, after checking its ID and name.
const std::string& launch_kernel_name(const csv_row& row, std::size_t id_col,
                                      std::size_t kernel_col, const std::string& file) {
  if (!parse_profiler_number(row.fields[id_col])) {
    throw input_error(file, std::to_string(row.line),
                      "\"ID\" is \"" + row.fields[id_col] + "\", expected a launch number");
  }
  const std::string& name = row.fields[kernel_col];
  if (name.empty()) {
    throw input_error(file, std::to_string(row.line), "empty \"Kernel Name\" field");
  }
  return name;
}

std::optional<std::size_t> device_column(const csv_row& header) {
  if (auto c = find_column(header, "device__attribute_display_name")) {
    return c;
  }
  return find_column(header, "Device Name");
}

struct time_unit {
  std::string_view name;
  double seconds;
  double per_second; ///< listed, not computed: 1 / 1e-9 is not exactly 1e9
};

std::optional<time_unit> time_unit_of(std::string_view unit) {
  static const std::array<time_unit, 7> times = {{{"second", 1.0, 1.0},
                                                  {"msecond", 1e-3, 1e3},
                                                  {"usecond", 1e-6, 1e6},
                                                  {"nsecond", 1e-9, 1e9},
                                                  {"ms", 1e-3, 1e3},
                                                  {"us", 1e-6, 1e6},
                                                  {"ns", 1e-9, 1e9}}};
  for (const auto& t : times) {
    if (unit == t.name) {
      return t;
    }
  }
  return std::nullopt;
}

// `unit` is one of `names` after an optional power-of-1000 prefix: "Mbyte" -> 1e6.
std::optional<double> prefixed_scale(std::string_view unit,
                                     std::span<const std::string_view> names) {
  static const std::array<std::pair<std::string_view, double>, 5> prefixes = {
      {{"", 1.0}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}};
  for (const auto& [prefix, scale] : prefixes) {
    const auto rest = unit.substr(std::min(prefix.size(), unit.size()));
    if (unit.starts_with(prefix) && !rest.empty() &&
        std::find(names.begin(), names.end(), rest) != names.end()) {
      return scale;
    }
  }
  return std::nullopt;
}

std::optional<double> count_scale(std::string_view unit) {
  static const std::array<std::string_view, 8> counts = {"byte", "inst",   "sector",  "cycle",
                                                         "warp", "thread", "request", "block"};
  return prefixed_scale(unit, counts);
}
} // namespace

std::optional<double> ncu_unit_scale(std::string_view unit) {
  if (unit.empty()) {
    return 1.0;
  }
  if (const auto t = time_unit_of(unit)) {
    return t->seconds;
  }
  // Rates: auto units scale the count's prefix and the time ("cycle/nsecond" = GHz,
  // "Gbyte/second"); newer ncu may print frequencies as hz (FORMAT.md section 3).
  if (const auto slash = unit.find('/'); slash != std::string_view::npos) {
    const auto count = count_scale(unit.substr(0, slash));
    const auto per = time_unit_of(unit.substr(slash + 1));
    if (count && per) {
      return *count * per->per_second;
    }
    return std::nullopt;
  }
  static const std::array<std::string_view, 2> hertz = {"hz", "Hz"};
  if (const auto scale = prefixed_scale(unit, hertz)) {
    return scale;
  }
  return count_scale(unit);
}

std::vector<std::string> ncu_raw_missing_metrics(std::string_view text,
                                                 const std::vector<std::string>& requested) {
  const auto rows = read_csv(text, "ncu output");
  const auto header = std::find_if(rows.begin(), rows.end(), is_raw_header);
  std::vector<std::string> missing;
  if (header == rows.end()) {
    return missing;
  }
  for (const auto& m : requested) {
    if (!find_column(*header, m)) {
      missing.push_back(m);
    }
  }
  return missing;
}

bool looks_like_ncu_csv_raw(std::string_view text) {
  return text.find("\"Kernel Name\"") != std::string_view::npos &&
         text.find("\"Metric Name\"") == std::string_view::npos &&
         text.find("\"ID\"") != std::string_view::npos;
}

bool looks_like_ncu_csv_details(std::string_view text) {
  return text.find("\"Kernel Name\"") != std::string_view::npos &&
         text.find("\"Metric Name\"") != std::string_view::npos &&
         text.find("\"Metric Value\"") != std::string_view::npos;
}

profile import_ncu_csv_raw(std::string_view text, const std::string& file) {
  std::vector<std::string> tool_errors;
  const auto rows = read_csv(text, file, &tool_errors);
  const auto header_it = std::find_if(rows.begin(), rows.end(), is_raw_header);
  if (header_it == rows.end()) {
    throw input_error(file, "",
                      "no Nsight Compute raw table: expected a header row with \"ID\" and "
                      "\"Kernel Name\" columns (from `ncu --csv --page raw`)" +
                          quote_tool_errors(tool_errors));
  }
  const csv_row& header = *header_it;
  const std::size_t id_col = required_column(header, "ID", file, raw_table);
  const std::size_t kernel_col = required_column(header, "Kernel Name", file, raw_table);
  const auto grid_col = find_column(header, "Grid Size");
  const auto block_col = find_column(header, "Block Size");
  const auto dev_col = device_column(header);

  std::vector<std::pair<std::size_t, std::string>> metric_cols;
  for (std::size_t c = 0; c < header.fields.size(); ++c) {
    if (is_used_metric(header.fields[c])) {
      metric_cols.emplace_back(c, header.fields[c]);
    }
  }
  auto it = std::next(header_it);
  std::vector<std::string> units(header.fields.size());
  // The units row has an empty ID; without it values are in base units (--print-units base
  // still writes it, older versions may not).
  if (it != rows.end() && it->fields.size() == header.fields.size() && it->fields[id_col].empty()) {
    units = it->fields;
    ++it;
  }
  launch_table t;
  for (; it != rows.end(); ++it) {
    const csv_row& row = *it;
    check_row_width(row, header, file);
    const std::string& name = launch_kernel_name(row, id_col, kernel_col, file);
    note_device(t, row, dev_col);
    kernel_launches& k = t.kernel(name, row, grid_col, block_col);
    ++k.launches;
    for (const auto& [c, metric] : metric_cols) {
      if (is_missing_value(row.fields[c])) {
        continue;
      }
      add_metric(k, metric, scaled_value(file, row.line, c + 1, metric, row.fields[c], units[c]));
    }
  }
  if (t.order.empty()) {
    throw input_error(file, std::to_string(header.line),
                      "the table has no kernel launches" + quote_tool_errors(tool_errors));
  }
  return finish(t, file, profile_format::ncu_csv_raw, std::move(tool_errors));
}

profile import_ncu_csv_details(std::string_view text, const std::string& file) {
  std::vector<std::string> tool_errors;
  const auto rows = read_csv(text, file, &tool_errors);
  const auto header_it = std::find_if(rows.begin(), rows.end(), is_details_header);
  if (header_it == rows.end()) {
    throw input_error(file, "",
                      "no Nsight Compute table: expected a header row with \"ID\", \"Kernel "
                      "Name\", \"Metric Name\", \"Metric Unit\" and \"Metric Value\" columns" +
                          quote_tool_errors(tool_errors));
  }
  const csv_row& header = *header_it;
  const std::size_t id_col = required_column(header, "ID", file, details_table);
  const std::size_t kernel_col = required_column(header, "Kernel Name", file, details_table);
  const std::size_t name_col = required_column(header, "Metric Name", file, details_table);
  const std::size_t unit_col = required_column(header, "Metric Unit", file, details_table);
  const std::size_t value_col = required_column(header, "Metric Value", file, details_table);
  const auto grid_col = find_column(header, "Grid Size");
  const auto block_col = find_column(header, "Block Size");
  const auto dev_col = device_column(header);

  // When rules ran, metric rows end after the value and rule rows leave the metric empty.
  const std::size_t needed = std::max({id_col, kernel_col, name_col, unit_col, value_col}) + 1;
  launch_table t;
  std::string current_id;
  kernel_launches* k = nullptr; // the current launch's kernel, chosen by its first row
  for (auto it = std::next(header_it); it != rows.end(); ++it) {
    const csv_row& row = *it;
    if (row.fields.size() < needed || row.fields.size() > header.fields.size()) {
      throw input_error(file, std::to_string(row.line),
                        "expected " + std::to_string(needed) + " to " +
                            std::to_string(header.fields.size()) +
                            " columns like the header on line " + std::to_string(header.line) +
                            ", found " + std::to_string(row.fields.size()));
    }
    const std::string& name = launch_kernel_name(row, id_col, kernel_col, file);
    const std::string& id = row.fields[id_col];
    if (id != current_id || k == nullptr) { // rows of one launch are contiguous
      current_id = id;
      k = &t.kernel(name, row, grid_col, block_col);
      ++k->launches;
    }
    const std::string& metric = row.fields[name_col];
    if (metric.empty()) {
      continue; // a rule row
    }
    if (metric == "device__attribute_display_name" && t.device.empty()) {
      t.device = row.fields[value_col];
    }
    note_device(t, row, dev_col);
    if (!is_used_metric(metric) || is_missing_value(row.fields[value_col])) {
      continue;
    }
    add_metric(*k, metric,
               scaled_value(file, row.line, value_col + 1, metric, row.fields[value_col],
                            row.fields[unit_col]));
  }
  if (t.order.empty()) {
    throw input_error(file, std::to_string(header.line),
                      "the table has no kernel launches" + quote_tool_errors(tool_errors));
  }
  return finish(t, file, profile_format::ncu_csv, std::move(tool_errors));
}

} // namespace perfgate::detail
