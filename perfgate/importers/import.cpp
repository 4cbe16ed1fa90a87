// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>

#include "importers/csv_reader.hpp"
#include "importers/gbench_importer.hpp"
#include "importers/nvbench_importer.hpp"
#include "importers/ncu_importer.hpp"
#include "importers/nvprof_importer.hpp"
#include "importers/rocpd_importer.hpp"
#include "importers/rocprof_importer.hpp"

#include <cmath>

namespace perfgate {

namespace {
// The profiler's own error lines, when a file holds nothing else we recognise (ncu failed
// before it wrote a table).
std::string tool_errors_in(std::string_view text, const std::string& file) {
  std::vector<std::string> errors;
  try {
    (void)detail::read_csv(text, file, &errors);
  } catch (const input_error&) {
    return {}; // not CSV at all: nothing to quote
  }
  return detail::quote_tool_errors(errors);
}

void check_value(const std::string& file, const std::string& where, const std::string& field,
                 double v) {
  if (!std::isfinite(v) || v < 0) {
    throw input_error(file, where,
                      field + " is " + std::to_string(v) +
                          ", expected a finite value >= 0 (no profiler measures this)");
  }
}

// Semantic checks after parsing, whatever the format: a negative, NaN or infinite time, byte or
// instruction count is refused, naming the file, the kernel and the field. A time of 0 stays 0:
// the gate gives such a kernel no efficiency.
void check_profile_values(const profile& p, const std::string& file) {
  for (const auto& k : p.kernels) {
    const std::string where = "kernel '" + k.name + "'";
    for (const auto& [name, v] : k.counters) {
      check_value(file, where, "counter " + p.native_name(name), v);
    }
    if (k.time_s) {
      check_value(file, where, "the measured time (s)", *k.time_s);
    }
    if (k.duration) {
      check_value(file, where, "the shortest invocation time (s)", k.duration->min_s);
      check_value(file, where, "the longest invocation time (s)", k.duration->max_s);
    }
    if (k.work) {
      check_value(file, where, "perfgate_fp32_flops", k.work->fp32_flops);
      check_value(file, where, "perfgate_fp64_flops", k.work->fp64_flops);
      check_value(file, where, "perfgate_int_ops", k.work->int_ops);
      check_value(file, where, "perfgate_bytes", k.work->bytes);
    }
    if (k.sm_clock_mhz) {
      check_value(file, where, "the SM clock (MHz)", *k.sm_clock_mhz);
    }
  }
}

profile import_detected(std::string_view text, const std::string& file, profile_format format) {
  switch (format) {
  case profile_format::nvprof_csv: return detail::import_nvprof_csv(text, file);
  case profile_format::ncu_csv_raw: return detail::import_ncu_csv_raw(text, file);
  case profile_format::ncu_csv: return detail::import_ncu_csv_details(text, file);
  case profile_format::perfgate_json: return profile_from_json(text, file);
  case profile_format::gbench_json: return detail::import_gbench_json(text, file);
  case profile_format::nvbench_json: return detail::import_nvbench_json(text, file);
  case profile_format::rocprof_csv: return detail::import_rocprof_csv(text, file, "");
  case profile_format::rocprof_wide_csv: return detail::import_rocprof_wide_csv(text, file);
  case profile_format::rocpd_db: return detail::import_rocpd(detail::read_rocpd_bytes(text, file));
  case profile_format::detect:
  case profile_format::cupti: break;
  }
  throw usage_error("no importer reads profile format \"" + std::string(to_string(format)) +
                    "\" from a file");
}
} // namespace

profile_format detect_profile_format(std::string_view text, const std::string& file) {
  if (detail::looks_like_sqlite(text)) {
    return profile_format::rocpd_db;
  }
  text = detail::strip_utf8_bom(text);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw input_error(file, "", "the file is empty, expected a profile");
  }
  if (text[first] == '{') {
    if (detail::looks_like_nvbench_json(text)) {
      return profile_format::nvbench_json;
    }
    return detail::looks_like_gbench_json(text) ? profile_format::gbench_json
                                                : profile_format::perfgate_json;
  }
  if (detail::looks_like_rocprof_csv(text)) {
    return profile_format::rocprof_csv;
  }
  if (detail::looks_like_rocprof_wide_csv(text)) {
    return profile_format::rocprof_wide_csv;
  }
  if (detail::looks_like_nvprof_csv(text)) {
    return profile_format::nvprof_csv;
  }
  if (detail::looks_like_nvprof_events_csv(text)) {
    detail::reject_nvprof_events_csv(text, file);
  }
  if (detail::looks_like_ncu_csv_details(text)) {
    return profile_format::ncu_csv;
  }
  if (detail::looks_like_ncu_csv_raw(text)) {
    return profile_format::ncu_csv_raw;
  }
  throw input_error(
      file, "",
      "unknown profile format: expected perfgate-profile/1 JSON, Google Benchmark JSON, nvbench "
      "JSON, rocprofv3 "
      "counter_collection.csv or rocpd .db, rocprof v1/v2 results.csv, nvprof CSV "
      "(`nvprof --csv --metrics ...`) or Nsight Compute CSV (`ncu --csv [--page "
      "raw]`)" +
          tool_errors_in(text, file));
}

profile import_profile_text(std::string_view text, const std::string& file, profile_format format) {
  if (format == profile_format::detect) {
    format = detect_profile_format(text, file);
  }
  if (format != profile_format::rocpd_db) {
    text = detail::strip_utf8_bom(text); // a spreadsheet's re-save, CSV or JSON
  }
  profile p = import_detected(text, file, format);
  check_profile_values(p, file);
  return p;
}

profile import_profile(const std::filesystem::path& file, profile_format format) {
  const std::string text = read_text_file(file);
  if (format == profile_format::rocpd_db ||
      (format == profile_format::detect && detail::looks_like_sqlite(text))) {
    // From the file itself, read-only: a database rocprofv3 is still writing (its -wal file)
    // is read as committed.
    profile p = detail::import_rocpd(detail::read_rocpd_file(file));
    check_profile_values(p, file.string());
    return p;
  }
  return import_profile_text(text, file.string(), format);
}

} // namespace perfgate
