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

#include <span>
#include <string>
#include <string_view>

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

/// The first line is a rocprofv3 kernel trace header (Kernel_Name, Start_Timestamp,
/// End_Timestamp, no Counter_Name).
[[nodiscard]] bool looks_like_rocprof_kernel_trace(std::string_view text);

/// Durations from a kernel_trace.csv, matched by kernel name, replace `p`'s: a kernel must have
/// as many traced dispatches as invocations (else input_error); kernels the trace lacks keep
/// theirs.
void attach_rocprof_kernel_trace(profile& p, std::string_view text, const std::string& file);

} // namespace perfgate::detail
