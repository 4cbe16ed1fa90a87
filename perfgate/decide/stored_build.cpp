// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/statistics.hpp>

#include "decide/ab_session.hpp"
#include "decide/decide.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <iostream>

namespace perfgate::decide {

namespace {

// Kernels whose verdict against the stored baseline is a slowdown beyond the allowance or
// still undecided, after any confirmation runs.
std::vector<std::string> slower_or_undecided(const report& r) {
  std::vector<std::string> names;
  for (const auto& k : r.kernels) {
    const auto& v = k.result;
    const bool flagged =
        (r.hardware && r.hardware->action == "ab" && v.baseline_efficiency) || // other hardware
        (v.confirmation ? v.confirmation->kind == stats::change::slower ||
                              v.confirmation->kind == stats::change::ambiguous
         : v.change ? (v.change->kind == stats::change::slower && v.change->beyond_allowed) ||
                          v.change->kind == stats::change::ambiguous
                    : false);
    if (flagged) {
      names.push_back(k.name);
    }
  }
  return names;
}

} // namespace

std::optional<double> timeout_left(const std::optional<double>& timeout_s,
                                   std::chrono::steady_clock::time_point begun) {
  if (!timeout_s) {
    return std::nullopt;
  }
  return *timeout_s -
         std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
}

std::filesystem::path stored_build_of(const std::string& baseline_file,
                                      const stored_build& build) {
  const std::filesystem::path exe =
      std::filesystem::path(baseline_file).parent_path() / build.executable;
  if (!std::filesystem::exists(exe)) {
    throw input_error(baseline_file, "build.executable",
                      exe.string() + ": no such file (the build the baseline keeps)");
  }
  const std::string hash = file_fnv1a64(exe);
  if (hash != build.fnv1a64) {
    throw input_error(baseline_file, "build.fnv1a64",
                      exe.string() + " changed since the baseline was accepted (FNV-1a " + hash +
                          ", the baseline says " + build.fnv1a64 + ")");
  }
  return exe;
}

// No confirmation runs before this (confirm() leaves them to it). The stored runs carry the
// speed of the session they were taken in; on a shared runner that moves by more than the
// allowance between sessions (docs/statistics.md).
void decide_by_stored_build(report& r, const gate_policy& policy, gate_measurements& measured,
                            const further_runs& o, const std::vector<device>& devices) {
  const program_collection& c = o.collection;
  if (!measured.base || !measured.base->build || o.ab_budget_s <= 0 || c.collector == "profile") {
    return;
  }
  const std::vector<std::string> names = slower_or_undecided(r);
  if (names.empty()) {
    return;
  }
  ab_session s;
  s.base_binary = stored_build_of(o.baseline_file, *measured.base->build).string();
  s.head_binary = c.program.front();
  s.args.assign(c.program.begin() + 1, c.program.end());
  // The session's runs time the kernels as `perfgate ab` does: no adaptive repetitions, no
  // L2 flushes, whatever the first run used.
  s.collection.collector = c.collector;
  s.collection.kernels = c.kernels;
  if (resolved_collector(c.collector, c.program) == "gbench") {
    s.collection.only_benchmarks = names;
  }
  s.collection.repetitions = c.repetitions;
  s.collection.keep_warm_up = c.keep_warm_up;
  s.time_budget_s = o.ab_budget_s;
  if (const auto left = timeout_left(c.timeout_s, o.begun)) {
    s.time_budget_s = std::min(s.time_budget_s, *left);
    s.collection.timeout_s = std::max(*left, 1e-3);
  }
  std::cerr << "perfgate: " << names.size() << " kernel" << (names.size() == 1 ? "" : "s")
            << " slower than the stored baseline or undecided: the baseline's build "
            << s.base_binary << " and this one run alternately to decide (--ab-budget "
            << detail::fixed(s.time_budget_s, 0) << " s)\n";
  auto outcome = run_ab_session(s, policy, devices, r.meta);
  for (const auto& name : names) {
    if (const auto runs = outcome.runs.find(name); runs != outcome.runs.end()) {
      measured.ab_runs[name] = std::move(runs->second);
      measured.ab_runs[name].base_name = measured.base->build->executable;
    }
  }
  (void)ask_gate(r, policy, measured);
}

} // namespace perfgate::decide
