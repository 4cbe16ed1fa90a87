// SPDX-License-Identifier: Apache-2.0
#include "ncu_importer.hpp"

#include <perfgate/error.hpp>

#include "counter_mapping.hpp"
#include "csv_reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <utility>

namespace perfgate::detail {

namespace {
constexpr std::string_view time_metric = "gpu__time_duration.sum";

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

// Launches of the kernels of one file, in the order kernels first appear.
struct kernel_launches {
  std::uint64_t launches = 0;
  std::map<std::string, double, std::less<>> totals;      ///< metric -> sum in base units
  std::map<std::string, std::uint64_t, std::less<>> seen; ///< metric -> launches having it
  std::vector<double> durations_s;
  std::optional<launch_config> launch;
};

struct launch_table {
  std::vector<std::string> order;
  std::map<std::string, kernel_launches> kernels;
  std::string device;

  kernel_launches& kernel(const std::string& name) {
    auto [it, inserted] = kernels.try_emplace(name);
    if (inserted) {
      order.push_back(name);
    }
    return it->second;
  }
};

double scaled_value(const std::string& file, std::size_t line, std::string_view metric,
                    std::string_view value, std::string_view unit) {
  const auto v = parse_profiler_number(value);
  if (!v) {
    throw input_error(file, std::to_string(line),
                      "metric " + std::string(metric) + ": value \"" + std::string(value) +
                          "\" is not a number");
  }
  const auto scale = ncu_unit_scale(unit);
  if (!scale) {
    throw input_error(file, std::to_string(line),
                      "metric " + std::string(metric) + ": unknown unit \"" + std::string(unit) +
                          "\" (expected byte, inst, sector, cycle or a time, with K/M/G/T "
                          "prefixes; `--print-units base` avoids prefixes)");
  }
  return *v * *scale;
}

void add_metric(kernel_launches& k, const std::string& metric, double value) {
  if (metric == time_metric) {
    k.durations_s.push_back(value);
    return;
  }
  k.totals[metric] += value;
  ++k.seen[metric];
}

profile finish(launch_table& t, const std::string& file, std::string format) {
  const auto sources = ncu_counter_sources();
  profile p;
  p.format = std::move(format);
  p.source_file = file;
  p.device_name = t.device;
  p.warp_size = 32; // Nsight Compute profiles NVIDIA GPUs only
  p.native_counter_names = native_names(sources);
  for (const auto& name : t.order) {
    kernel_launches& k = t.kernels[name];
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
    kp.counters = resolve_counters(sources, complete);
    kp.launch = k.launch;
    if (!k.durations_s.empty() && k.durations_s.size() == k.launches) {
      kp.duration = duration_stats::from_samples(k.durations_s);
      kp.time_s = kp.duration->total_s;
    }
    p.kernels.push_back(std::move(kp));
  }
  return p;
}

bool is_used_metric(std::string_view name) {
  static const auto used = metrics_used(ncu_counter_sources());
  return name == time_metric || std::find(used.begin(), used.end(), name) != used.end();
}

std::size_t required(const csv_row& header, std::string_view name, const std::string& file) {
  const auto c = find_column(header, name);
  if (!c) {
    throw input_error(file, std::to_string(header.line),
                      "the header has no \"" + std::string(name) + "\" column");
  }
  return *c;
}

void check_width(const csv_row& row, const csv_row& header, const std::string& file) {
  if (row.fields.size() != header.fields.size()) {
    throw input_error(file, std::to_string(row.line),
                      "expected " + std::to_string(header.fields.size()) +
                          " columns like the header on line " + std::to_string(header.line) +
                          ", found " + std::to_string(row.fields.size()));
  }
}

void note_device(launch_table& t, const csv_row& row, std::optional<std::size_t> col) {
  if (col && *col < row.fields.size() && t.device.empty()) {
    t.device = row.fields[*col];
  }
}

void note_launch(kernel_launches& k, const csv_row& row, std::optional<std::size_t> grid,
                 std::optional<std::size_t> block) {
  if (k.launch || !grid || !block || *grid >= row.fields.size() || *block >= row.fields.size()) {
    return;
  }
  const auto g = parse_dim3(row.fields[*grid]);
  const auto b = parse_dim3(row.fields[*block]);
  if (g && b) {
    k.launch = launch_config{*g, *b};
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
} // namespace

std::optional<double> ncu_unit_scale(std::string_view unit) {
  static const std::array<std::pair<std::string_view, double>, 7> times = {{{"second", 1.0},
                                                                            {"msecond", 1e-3},
                                                                            {"usecond", 1e-6},
                                                                            {"nsecond", 1e-9},
                                                                            {"ms", 1e-3},
                                                                            {"us", 1e-6},
                                                                            {"ns", 1e-9}}};
  for (const auto& [name, scale] : times) {
    if (unit == name) {
      return scale;
    }
  }
  static const std::array<std::string_view, 8> counts = {"byte", "inst",   "sector",  "cycle",
                                                         "warp", "thread", "request", "block"};
  static const std::array<std::pair<std::string_view, double>, 5> prefixes = {
      {{"", 1.0}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}};
  if (unit.empty()) {
    return 1.0;
  }
  for (const auto& [prefix, scale] : prefixes) {
    const auto rest = unit.substr(std::min(prefix.size(), unit.size()));
    if (unit.starts_with(prefix) && !rest.empty() &&
        std::find(counts.begin(), counts.end(), rest) != counts.end()) {
      return scale;
    }
  }
  return std::nullopt;
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
  const auto rows = read_csv(text, file);
  const auto header_it = std::find_if(rows.begin(), rows.end(), is_raw_header);
  if (header_it == rows.end()) {
    throw input_error(file, "",
                      "no Nsight Compute raw table: expected a header row with \"ID\" and "
                      "\"Kernel Name\" columns (from `ncu --csv --page raw`)");
  }
  const csv_row& header = *header_it;
  const std::size_t id_col = required(header, "ID", file);
  const std::size_t kernel_col = required(header, "Kernel Name", file);
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
    check_width(row, header, file);
    const std::string& name = launch_kernel_name(row, id_col, kernel_col, file);
    note_device(t, row, dev_col);
    kernel_launches& k = t.kernel(name);
    ++k.launches;
    note_launch(k, row, grid_col, block_col);
    for (const auto& [c, metric] : metric_cols) {
      if (is_missing_value(row.fields[c])) {
        continue;
      }
      add_metric(k, metric, scaled_value(file, row.line, metric, row.fields[c], units[c]));
    }
  }
  if (t.order.empty()) {
    throw input_error(file, std::to_string(header.line), "the table has no kernel launches");
  }
  return finish(t, file, "ncu-csv-raw");
}

profile import_ncu_csv_details(std::string_view text, const std::string& file) {
  const auto rows = read_csv(text, file);
  const auto header_it = std::find_if(rows.begin(), rows.end(), is_details_header);
  if (header_it == rows.end()) {
    throw input_error(file, "",
                      "no Nsight Compute table: expected a header row with \"ID\", \"Kernel "
                      "Name\", \"Metric Name\", \"Metric Unit\" and \"Metric Value\" columns");
  }
  const csv_row& header = *header_it;
  const std::size_t id_col = required(header, "ID", file);
  const std::size_t kernel_col = required(header, "Kernel Name", file);
  const std::size_t name_col = required(header, "Metric Name", file);
  const std::size_t unit_col = required(header, "Metric Unit", file);
  const std::size_t value_col = required(header, "Metric Value", file);
  const auto grid_col = find_column(header, "Grid Size");
  const auto block_col = find_column(header, "Block Size");
  const auto dev_col = device_column(header);

  // When rules ran, metric rows end after the value and rule rows leave the metric empty.
  const std::size_t needed = std::max({id_col, kernel_col, name_col, unit_col, value_col}) + 1;
  launch_table t;
  std::string current_id;
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
    kernel_launches& k = t.kernel(name);
    if (id != current_id) { // rows of one launch are contiguous
      current_id = id;
      ++k.launches;
      note_launch(k, row, grid_col, block_col);
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
    add_metric(k, metric,
               scaled_value(file, row.line, metric, row.fields[value_col], row.fields[unit_col]));
  }
  if (t.order.empty()) {
    throw input_error(file, std::to_string(header.line), "the table has no kernel launches");
  }
  return finish(t, file, "ncu-csv");
}

} // namespace perfgate::detail
