// SPDX-License-Identifier: Apache-2.0
// rocprofv3's rocpd SQLite database (`<pid>_results.db`, the default output since ROCm 7.0,
// schema 3): counters from the `counters_collection` view (the per-dispatch sum over dimension
// instances, as `rocpd convert` reads it), the GPU's architecture and wavefront size from
// `rocpd_info_agent`. A merged database holds several runs, told apart by `guid`: their
// dispatches are aggregated like the dispatches of one run. Opened read-only; the same
// counter formulas as the CSV importers (amd_counters.hpp).
//
// Built only with SQLite (find_package(SQLite3)); without it every function here throws
// input_error saying perfgate was built without SQLite.
#pragma once

#include <perfgate/profile.hpp>

#include "importers/rocprof_importer.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace perfgate::detail {

/// The bytes start with SQLite's header ("SQLite format 3\0").
[[nodiscard]] inline bool looks_like_sqlite(std::string_view bytes) {
  return bytes.starts_with(std::string_view("SQLite format 3\0", 16));
}

/// Whether this build reads rocpd databases (it was built with SQLite).
[[nodiscard]] bool rocpd_supported();

/// The counter records of one database and the GPU architecture ("gfx942") of its dispatches.
struct rocpd_records {
  amd_record_file records;
  std::string arch;
};

/// Read a database file read-only (a file rocprofv3 may still be writing is read as committed).
[[nodiscard]] rocpd_records read_rocpd_file(const std::filesystem::path& file);
/// The same from the bytes of a database in memory; `file` names it in messages.
[[nodiscard]] rocpd_records read_rocpd_bytes(std::string_view bytes, const std::string& file);

/// The profile of one database (read_rocpd_* then import_amd_records).
[[nodiscard]] profile import_rocpd(const rocpd_records& records);

} // namespace perfgate::detail
