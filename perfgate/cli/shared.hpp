// SPDX-License-Identifier: Apache-2.0
// What `perfgate run` and `perfgate ab` (and compare, for a change) share: how a program is measured (one option block, one
// collector list), how strict a change is judged, and how verdicts are printed and written.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>

#include "decide/collect.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace perfgate::cli {

/// `--timeout`'s check, one for every command that runs a program: a finite number of seconds
/// above 0 (CLI::PositiveNumber lets nan and inf through).
[[nodiscard]] CLI::Validator finite_seconds();

/// --collector (decide::program_collectors, and "profile" where `recorded_profile`),
/// --kernels, --repetitions, --timeout and --keep-warm-up into `c`.
void add_collection_options(CLI::App* cmd, decide::program_collection& c, bool recorded_profile);

/// --max-efficiency-drop (0 .. 0.99) and --confidence: how much slower a change may be, and how
/// sure a failure must be, against a baseline, a base build or a base report.
void add_change_options(CLI::App* cmd, double& max_efficiency_drop, double& confidence);
/// --run-spread, for a comparison with stored runs (not an A/B session, whose builds share runs).
void add_run_spread_option(CLI::App* cmd, double& run_spread);

/// --device, required: `what` says what the first (the local device) is.
void add_device_option(CLI::App* cmd, std::vector<std::string>& ids, const std::string& what);
[[nodiscard]] std::vector<device> resolve_devices(const std::vector<std::string>& ids);

/// Each kernel's status, name and reasons, one reason a line; `tags` adds what the verdict
/// rests on ("[1 thread: one-core peaks]", "[declared work: roofline]").
void print_kernel_verdicts(const report& r, bool tags);

/// Writes the report's JSON to `file` atomically (its folder made), with the local device's
/// roofline beside it where `with_chart` (attached to the test for CDash), and says where.
void write_report_files(const report& r, const std::string& file, bool with_chart);

} // namespace perfgate::cli
