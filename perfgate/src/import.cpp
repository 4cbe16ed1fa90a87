// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>

#include "importers/gbench_importer.hpp"
#include "importers/ncu_importer.hpp"
#include "importers/nvprof_importer.hpp"
#include "importers/rocprof_importer.hpp"

namespace perfgate {

profile_format detect_profile_format(std::string_view text, const std::string& file) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw input_error(file, "", "the file is empty, expected a profile");
  }
  if (text[first] == '{') {
    return detail::looks_like_gbench_json(text) ? profile_format::gbench_json
                                                : profile_format::perfgate_json;
  }
  if (detail::looks_like_rocprof_csv(text)) {
    return profile_format::rocprof_csv;
  }
  if (detail::looks_like_nvprof_csv(text)) {
    return profile_format::nvprof_csv;
  }
  if (detail::looks_like_ncu_csv_details(text)) {
    return profile_format::ncu_csv;
  }
  if (detail::looks_like_ncu_csv_raw(text)) {
    return profile_format::ncu_csv_raw;
  }
  throw input_error(
      file, "",
      "unknown profile format: expected perfgate-profile/1 JSON, Google Benchmark JSON, rocprofv3 "
      "counter_collection.csv, nvprof CSV "
      "(`nvprof --csv --metrics ...`) or Nsight Compute CSV (`ncu --csv [--page "
      "raw]`)");
}

profile import_profile_text(std::string_view text, const std::string& file, profile_format format) {
  if (format == profile_format::detect) {
    format = detect_profile_format(text, file);
  }
  switch (format) {
  case profile_format::nvprof_csv: return detail::import_nvprof_csv(text, file);
  case profile_format::ncu_csv_raw: return detail::import_ncu_csv_raw(text, file);
  case profile_format::ncu_csv: return detail::import_ncu_csv_details(text, file);
  case profile_format::perfgate_json: return profile_from_json(text, file);
  case profile_format::gbench_json: return detail::import_gbench_json(text, file);
  case profile_format::rocprof_csv: return detail::import_rocprof_csv(text, file, "");
  case profile_format::detect: break;
  }
  throw input_error(file, "", "unknown profile format");
}

profile import_profile(const std::filesystem::path& file, profile_format format) {
  return import_profile_text(read_text_file(file), file.string(), format);
}

} // namespace perfgate
