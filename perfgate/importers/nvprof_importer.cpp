// SPDX-License-Identifier: Apache-2.0
#include "importers/nvprof_importer.hpp"

#include <perfgate/error.hpp>

#include "importers/counter_mapping.hpp"
#include "importers/csv_reader.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace perfgate::detail {

namespace {
constexpr std::string_view required_columns[] = {"Device", "Kernel", "Invocations", "Metric Name",
                                                 "Avg"};

bool is_header(const csv_row& row) {
  return find_column(row, "Kernel") && find_column(row, "Metric Name") &&
         find_column(row, "Invocations");
}

// "Tesla K20c (0)" -> "Tesla K20c"
std::string device_name_of(const std::string& field) {
  const auto open = field.rfind(" (");
  if (open != std::string::npos && field.ends_with(")")) {
    return field.substr(0, open);
  }
  return field;
}
} // namespace

bool looks_like_nvprof_csv(std::string_view text) {
  return text.find("\"Metric Name\",\"Metric Description\"") != std::string_view::npos &&
         text.find("\"Invocations\"") != std::string_view::npos;
}

bool looks_like_nvprof_events_csv(std::string_view text) {
  return text.find("\"Event Name\"") != std::string_view::npos &&
         text.find("\"Invocations\"") != std::string_view::npos &&
         text.find("\"Metric Name\"") == std::string_view::npos;
}

std::string nvprof_metrics_command() {
  std::string metrics;
  for (auto m : metrics_used(nvprof_counter_sources())) {
    if (m != "dram_read_bytes" && m != "dram_write_bytes") { // Pascal-only alternatives
      metrics += (metrics.empty() ? "" : ",") + std::string(m);
    }
  }
  return "nvprof --csv --metrics " + metrics;
}

void reject_nvprof_events_csv(std::string_view text, const std::string& file) {
  const auto rows = read_csv(text, file);
  std::string line;
  for (const auto& row : rows) {
    if (find_column(row, "Event Name")) {
      line = std::to_string(row.line);
      break;
    }
  }
  throw input_error(file, line,
                    "this is an nvprof event table (`nvprof --events`): raw hardware events "
                    "differ per GPU and do not give the model's inputs; perfgate reads nvprof's "
                    "metric table: profile again with `" +
                        nvprof_metrics_command() + "`");
}

profile import_nvprof_csv(std::string_view text, const std::string& file) {
  const auto rows = read_csv(text, file);
  const auto header_it = std::find_if(rows.begin(), rows.end(), is_header);
  if (header_it == rows.end()) {
    throw input_error(file, "",
                      "no nvprof metric table: expected a header row \"Device\",\"Kernel\","
                      "\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\","
                      "\"Avg\" (from `nvprof --csv --metrics ...`)");
  }
  const csv_row& header = *header_it;
  std::map<std::string_view, std::size_t> col;
  for (auto name : required_columns) {
    col[name] = required_column(header, name, file, "an nvprof metric table");
  }

  const auto sources = nvprof_counter_sources();
  const auto used = metrics_used(sources);

  profile p;
  p.format = profile_format::nvprof_csv;
  p.source_file = file;
  p.warp_size = 32; // every GPU nvprof supports is an NVIDIA GPU
  p.native_counter_names = native_names(sources);

  struct kernel_rows {
    std::uint64_t invocations = 0;
    std::size_t first_line = 0;
    std::map<std::string, double, std::less<>> totals;
    std::map<std::string, std::size_t, std::less<>> metric_line;
  };
  std::vector<std::string> order;
  std::map<std::string, kernel_rows> kernels;

  for (auto it = std::next(header_it); it != rows.end(); ++it) {
    const csv_row& row = *it;
    const std::string line = std::to_string(row.line);
    if (is_header(row)) {
      throw input_error(file, line,
                        "a second metric table starts here; profile one process per file");
    }
    check_row_width(row, header, file);
    const std::string& device = row.fields[col["Device"]];
    const std::string& kernel = row.fields[col["Kernel"]];
    const std::string& metric = row.fields[col["Metric Name"]];
    if (kernel.empty()) {
      throw input_error(file, line, "empty \"Kernel\" field");
    }
    const std::string dev = device_name_of(device);
    if (p.device_name.empty()) {
      p.device_name = dev;
    } else if (p.device_name != dev) {
      throw input_error(file, line,
                        "the profile mixes devices (\"" + p.device_name + "\" and \"" + dev +
                            "\"); a profile must come from one GPU");
    }
    const auto inv = parse_profiler_number(row.fields[col["Invocations"]]);
    // Range first: converting a double beyond 2^64 to an integer is undefined (fuzz_nvprof).
    constexpr double largest_exact = 9007199254740992.0; // 2^53
    if (!inv || *inv < 1 || *inv > largest_exact || *inv != std::floor(*inv)) {
      throw input_error(file, line,
                        "\"Invocations\" is \"" + row.fields[col["Invocations"]] +
                            "\", expected a positive integer (at most 2^53)");
    }
    auto [kit, inserted] = kernels.try_emplace(kernel);
    kernel_rows& k = kit->second;
    if (inserted) {
      order.push_back(kernel);
      k.invocations = static_cast<std::uint64_t>(*inv);
      k.first_line = row.line;
    } else if (k.invocations != static_cast<std::uint64_t>(*inv)) {
      throw input_error(file, line,
                        "kernel '" + kernel + "' has " +
                            std::to_string(static_cast<std::uint64_t>(*inv)) +
                            " invocations here but " + std::to_string(k.invocations) + " on line " +
                            std::to_string(k.first_line));
    }
    // Only metrics the model uses must be numbers; others (throughputs with units) are skipped.
    if (std::find(used.begin(), used.end(), metric) == used.end()) {
      continue;
    }
    if (const auto seen = k.metric_line.find(metric); seen != k.metric_line.end()) {
      throw input_error(file, line,
                        "metric " + metric + " of kernel '" + kernel +
                            "' appears again (first on line " + std::to_string(seen->second) + ")");
    }
    const auto avg = parse_profiler_number(row.fields[col["Avg"]]);
    if (!avg || *avg < 0) {
      throw input_error(file, line,
                        "metric " + metric + ": \"Avg\" is \"" + row.fields[col["Avg"]] +
                            "\", expected a count >= 0");
    }
    k.metric_line[metric] = row.line;
    k.totals[metric] = *avg * static_cast<double>(k.invocations);
  }
  if (order.empty()) {
    throw input_error(file, std::to_string(header.line), "the metric table has no rows");
  }
  for (const auto& name : order) {
    const kernel_rows& k = kernels[name];
    kernel_profile kp;
    kp.name = name;
    kp.invocations = k.invocations;
    kp.counters = resolve_counters(sources, k.totals);
    p.kernels.push_back(std::move(kp));
  }
  return p;
}

} // namespace perfgate::detail
