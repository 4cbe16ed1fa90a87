// SPDX-License-Identifier: Apache-2.0
// `nvprof --csv --metrics ...` output: a `==PID==` preamble, then the "Metric result" table
// "Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg" whose
// values are per invocation (the total of a kernel is Avg x Invocations).
#pragma once

#include <perfgate/profile.hpp>

#include <string>
#include <string_view>

namespace perfgate::detail {

/// True when the text holds an nvprof metric table header.
[[nodiscard]] bool looks_like_nvprof_csv(std::string_view text);

/// True when the text holds an `nvprof --events` table ("Event Name" instead of "Metric Name"):
/// raw hardware events, which perfgate cannot turn into the model's inputs.
[[nodiscard]] bool looks_like_nvprof_events_csv(std::string_view text);

/// Throws input_error for an `nvprof --events` table: names the line of its header, says it is
/// nvprof's event table and gives the `--metrics` list the model needs.
[[noreturn]] void reject_nvprof_events_csv(std::string_view text, const std::string& file);

/// The `nvprof --csv --metrics ...` command line the model needs, for messages.
[[nodiscard]] std::string nvprof_metrics_command();

/// Throws input_error naming the file and line for a missing table, wrong columns, a
/// non-numeric value of a metric the model uses, or inconsistent rows.
[[nodiscard]] profile import_nvprof_csv(std::string_view text, const std::string& file);

} // namespace perfgate::detail
