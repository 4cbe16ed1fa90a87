// SPDX-License-Identifier: Apache-2.0
#include "importers/latency_sweep.hpp"

#include <perfgate/error.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/version.hpp>

#include "importers/csv_reader.hpp"
#include "model/latency_floor.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::detail {

namespace {
// The pipeline an op of a sweep runs on, by the names micro-benchmarks give them (the H100
// file's ffma, dfma, imad, sfu_ex2, lds_chase, ldg_chase_l2, ...); a `pipe` column overrides.
std::optional<pipeline::unit> pipe_of_op(std::string_view op) {
  using pipeline::unit;
  constexpr std::pair<std::string_view, unit> prefixes[] = {
      {"ffma", unit::alu}, {"fadd", unit::alu},   {"fmul", unit::alu},   {"imad", unit::alu},
      {"iadd", unit::alu}, {"dfma", unit::fp64},  {"dadd", unit::fp64},  {"dmul", unit::fp64},
      {"sfu", unit::sfu},  {"mufu", unit::sfu},   {"lds", unit::lmem},   {"ldg", unit::gmem},
      {"bar", unit::sync}, {"mma", unit::tensor}, {"hmma", unit::tensor}};
  for (const auto& [prefix, u] : prefixes) {
    if (op.starts_with(prefix)) {
      return u;
    }
  }
  return std::nullopt;
}

// A whole number >= 1 or a positive number in a sweep field, else an error naming the line.
double sweep_number(const csv_row& row, std::size_t col, const csv_row& header,
                    const std::string& file, bool whole) {
  const auto v = parse_profiler_number(row.fields[col]);
  if (!v || !(*v > 0) || (whole && std::floor(*v) != *v)) {
    throw input_error(file, std::to_string(row.line),
                      "column " + header.fields[col] + ": expected " +
                          (whole ? "a whole number >= 1" : "a number > 0") + ", found \"" +
                          row.fields[col] + "\"");
  }
  return *v;
}

} // namespace

latency_sweep_fit fit_latency_sweep(const latency_fit_request& o) {
  const auto rows = read_csv(o.csv_text, o.file);
  if (rows.empty()) {
    throw input_error(o.file, "", "the file is empty, expected a latency sweep CSV");
  }
  constexpr std::string_view sweep_table =
      "a latency sweep (op,warps_per_sm,n_dependent,cycles_max)";
  const auto& header = rows.front();
  const auto op_col = required_column(header, "op", o.file, sweep_table);
  const auto warps_col = required_column(header, "warps_per_sm", o.file, sweep_table);
  const auto cycles_col = required_column(header, "cycles_max", o.file, sweep_table);
  const auto n_col = find_column(header, "n_dependent");
  const auto pipe_col = find_column(header, "pipe");
  const auto clock_col = find_column(header, "sm_clock_attr_khz");
  std::map<std::string, pipeline::unit> pipes;
  std::optional<double> clock_khz;
  if (!n_col && o.n == 0) {
    throw usage_error("--n: " + o.file + " has no n_dependent column; give the chain length");
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<pipeline::sweep_point>> ops;
  for (auto it = std::next(rows.begin()); it != rows.end(); ++it) {
    check_row_width(*it, header, o.file);
    const std::string& op = it->fields[op_col];
    if (op.empty()) {
      throw input_error(o.file, std::to_string(it->line), "empty \"op\" field");
    }
    pipeline::sweep_point p;
    p.warps = static_cast<std::uint64_t>(sweep_number(*it, warps_col, header, o.file, true));
    p.cycles = sweep_number(*it, cycles_col, header, o.file, false);
    p.n = n_col ? static_cast<std::uint64_t>(sweep_number(*it, *n_col, header, o.file, true)) : o.n;
    if (const auto floor = static_cast<double>(p.n) *
                           static_cast<double>(min_cycles_per_dependent_instruction(op));
        p.cycles < floor) {
      throw input_error(o.file, std::to_string(it->line),
                        "op " + op + " at " + std::to_string(p.warps) +
                            " warps: " + std::to_string(p.n) + " dependent instructions in " +
                            fixed(p.cycles, 0) + " cycles, under the " + fixed(floor, 0) +
                            " they take at least: the chain was not timed (a micro-benchmark "
                            "that timed something else); measure it again");
    }
    if (!ops.contains(op)) {
      order.push_back(op);
      std::optional<pipeline::unit> pipe = pipe_of_op(op);
      if (pipe_col) {
        const std::string& name = it->fields[*pipe_col];
        pipe.reset();
        for (auto u :
             {pipeline::unit::alu, pipeline::unit::fp64, pipeline::unit::sfu, pipeline::unit::lmem,
              pipeline::unit::gmem, pipeline::unit::sync, pipeline::unit::tensor}) {
          pipe = pipeline::to_string(u) == name ? std::optional(u) : pipe;
        }
      }
      if (!pipe) {
        throw input_error(o.file, std::to_string(it->line),
                          "op " + op +
                              ": no pipeline known for it; add a \"pipe\" column (alu, "
                              "fp64, sfu, lmem, gmem, sync or tensor)");
      }
      pipes[op] = *pipe;
    }
    if (clock_col && !clock_khz) {
      clock_khz = sweep_number(*it, *clock_col, header, o.file, false);
    }
    ops[op].push_back(p);
  }
  if (order.empty()) {
    throw input_error(o.file, "", "no sweep rows under the header");
  }
  nlohmann::json latencies = nlohmann::json::object();
  table t;
  t.header = {"op", "lambda", "Lambda", "N", "fit at W", "knee W", "max residual"};
  t.right_aligned = {false, true, true, true, true, true, true};
  for (const auto& op : order) {
    const auto f = pipeline::fit_sweep(ops[op], o.file + ": op " + op);
    latencies[op] = {
        {"pipe", pipeline::to_string(pipes[op])},
        {"issue", f.lat.issue},
        {"completion", f.lat.completion},
        {"n", f.n},
        {"fit_warps", {1, f.warps_fit}},
        {"knee_warps", f.knee_warps},
        {"max_residual", f.max_residual},
        {"provenance", "Eq. 1 inverted on " + o.file + " (" + std::to_string(ops[op].size()) +
                           " points): completion = t(1) / N, issue = (t(" +
                           std::to_string(f.warps_fit) + ") - completion) / (N " +
                           std::to_string(f.warps_fit) + " - 1), N = " + std::to_string(f.n) +
                           ", cycles until the last warp completes; perfgate " +
                           std::string(version())}};
    t.rows.push_back({op, fixed(f.lat.issue, 4), fixed(f.lat.completion, 4), std::to_string(f.n),
                      std::to_string(f.warps_fit), fixed(f.knee_warps, 2),
                      fixed(f.max_residual, 4)});
  }
  const nlohmann::json doc = {
      {"schema", latencies_schema},
      {"device", o.device.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.device)},
      {"warp_size", o.warp_size},
      {"clock_hz", clock_khz ? nlohmann::json(*clock_khz * 1e3) : nlohmann::json(nullptr)},
      {"ops", latencies}};
  return {doc.dump(2) + "\n", render_text(t, "")};
}

} // namespace perfgate::detail
