// SPDX-License-Identifier: Apache-2.0
// rocprofv3 (rocprofiler-sdk) counter collection CSV, `counter_collection.csv`: one row per
// (dispatch, counter) with the dispatch's columns repeated. Columns are found by name: the set
// and order vary by version (Accum_VGPR_Count, Start_Timestamp and End_Timestamp are newer;
// tools joining agent_info.csv prepend Agent_Type, Node_Id, Wave_Front_Size). Dispatches of one
// kernel name are aggregated: counters summed, timestamps (ns) kept as duration samples.
// Counter names go through amd_counters.hpp (instances and "_sum" forms folded to base names).
//
// A `rocprofv3 --kernel-trace` file (kernel_trace.csv) can supply durations for a counter
// profile that has no timestamps.
#pragma once

#include <perfgate/profile.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::detail {

/// The first line is a rocprofv3 counter-collection header (has Counter_Name and
/// Counter_Value columns).
[[nodiscard]] bool looks_like_rocprof_csv(std::string_view text);

/// One counter_collection.csv. `arch` ("gfx90a", "gfx942:sramecc+:xnack-", ...) picks the
/// counter formulas and the default wavefront size; empty or unknown: the formulas of every
/// architecture are tried (the counter names in the file pick the right one), and the family
/// whose counters the file names most gives the counter names for messages and the default
/// wavefront size (64 when the file names none). A Wave_Front_Size column always wins. Throws
/// input_error naming `file` and the line of malformed rows and missing columns.
[[nodiscard]] profile import_rocprof_csv(std::string_view text, const std::string& file,
                                         std::string_view arch);

/// One counter_collection.csv per collection pass of the same program run (amd_counter_passes
/// gives the passes): kernels and their dispatch counts must agree; each counter is taken from
/// the first pass that has it for every dispatch. The profile names the first file.
struct rocprof_pass_file {
  std::string_view text;
  std::string file;
};
[[nodiscard]] profile import_rocprof_csv_passes(std::span<const rocprof_pass_file> passes,
                                                std::string_view arch);

/// The first line is a rocprof v1 `results.csv` header (`Index`, `KernelName`, a column per
/// counter) or a rocprofv2 / Omniperf `pmc_perf.csv` one (`Dispatch_ID`, `Kernel_Name`, no
/// `Counter_Name`).
[[nodiscard]] bool looks_like_rocprof_wide_csv(std::string_view text);

/// A wide AMD counter table: one row per dispatch, one column per counter (per-channel
/// counters as "TCC_EA_RDREQ[n]", summed). Timestamps from BeginNs/EndNs or
/// Start_Timestamp/End_Timestamp, wavefront size from wave_size/Wave_Size. The architecture is
/// picked by the counter names, as for import_rocprof_csv with no arch.
[[nodiscard]] profile import_rocprof_wide_csv(std::string_view text, const std::string& file);

/// One counter value of one dispatch, whatever the layout it came from: a row of the long
/// rocprofv3 CSV, a cell of a wide rocprof v1/v2 row, a row of rocpd's counters_collection.
struct amd_counter_record {
  std::string where; ///< line number as text, or a key, for messages
  std::string process; ///< with `agent` and `dispatch`, identifies the dispatch
  std::string agent;
  std::uint64_t dispatch = 0;
  std::string kernel;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> timestamps; ///< start, end (ns)
  std::optional<launch_config> launch;
  std::optional<std::uint64_t> wave_size;
  std::string counter;         ///< as reported ("TCC_EA_RDREQ[3]", "TCC_HIT_sum", ...)
  std::optional<double> value; ///< empty: not a number
  std::string value_text;      ///< the value as written, for messages
};

/// The records of one file or one collection pass.
struct amd_record_file {
  std::string file;
  std::string empty_where; ///< where to point when the file has no dispatch
  std::vector<amd_counter_record> records;
};

/// The records of one rocprofv3 counter_collection.csv (its rows checked as import_rocprof_csv
/// checks them).
[[nodiscard]] amd_record_file read_rocprof_csv_records(std::string_view text,
                                                       const std::string& file);

/// The profile of one or more collection passes of the same run (see
/// import_rocprof_csv_passes); `format` names it ("rocprofv3-csv", "rocpd", ...).
[[nodiscard]] profile import_amd_records(std::span<const amd_record_file> passes,
                                         std::string_view arch, profile_format format);

/// The first line is a rocprofv3 kernel trace header (Kernel_Name, Start_Timestamp,
/// End_Timestamp, no Counter_Name).
[[nodiscard]] bool looks_like_rocprof_kernel_trace(std::string_view text);

/// Durations from a kernel_trace.csv, matched by kernel name, replace `p`'s: a kernel must have
/// as many traced dispatches as invocations (else input_error); kernels the trace lacks keep
/// theirs.
void attach_rocprof_kernel_trace(profile& p, std::string_view text, const std::string& file);

} // namespace perfgate::detail
