// SPDX-License-Identifier: Apache-2.0
// One measurement of a program by a collector: `perfgate run`'s first run, the confirmation runs
// and both builds' runs of an A/B session all go through collect_program.
#pragma once

#include <perfgate/profile.hpp>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {
struct cupti_run; // collectors/collectors.hpp
} // namespace perfgate::detail

namespace perfgate::decide {

/// The collectors a program can be measured with ("auto" chooses one by what the program is and
/// what the machine has). `perfgate run` and PerfGate.cmake's COLLECTOR also take "profile", a
/// recorded profile (tests/unit/decide/collect_test.cpp holds the CMake check to this list).
inline constexpr std::array<std::string_view, 6> program_collectors = {
    "auto", "cupti", "ncu", "rocprof", "gbench", "nvbench"};

/// One measurement of a program by a collector.
struct program_collection {
  std::string collector = "auto"; ///< one of program_collectors
  std::vector<std::string> program;
  std::string kernels; ///< regex, empty for all
  int repetitions = 5;
  std::optional<double> timeout_s;
  std::optional<double> target_ci;
  double time_budget_s = 60;
  bool flush_l2 = false;
  bool keep_warm_up = false;
  std::vector<std::string> only_benchmarks; ///< gbench: exact names, empty for all
  /// cupti: counter runs to reuse across collections of the same program (the A/B session's);
  /// null for none.
  std::map<std::string, detail::cupti_run>* counter_runs = nullptr;
  /// nvbench: the folder of counter runs kept between runs (empty: none).
  std::string counter_cache_dir;
};

/// Throws usage_error when --flush-l2 is asked of a collector that cannot flush.
void check_flush_l2(bool flush_l2, const std::string& collector);
/// "auto" resolved for `program` (detail::choose_collector): skip_error where nothing decides.
[[nodiscard]] std::string resolved_collector(const std::string& collector,
                                             const std::vector<std::string>& program);
/// Runs the program under its collector; each collector's errors and skips as documented in
/// collectors.hpp. A profiler's first launch of a kernel launched more than once is left out
/// unless keep_warm_up.
[[nodiscard]] profile collect_program(const program_collection& c);

} // namespace perfgate::decide
