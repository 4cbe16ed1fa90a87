// SPDX-License-Identifier: Apache-2.0
// perfgate bisect: finding the commit that slowed a kernel by `git bisect run` with perfgate's
// own A/B verdict as the test. The good commit's build is kept as the base; each commit git
// checks out is built and run alternately with it (perfgate ab's session), and its verdict
// becomes git's answer: SLOWER beyond the allowance bad, AMBIGUOUS skip, else good. This file
// holds what is not the session itself: the range from a history's change point, the verdict's
// exit code, git and the build command, and reading the outcome back.
#pragma once

#include <perfgate/report.hpp>

#include "history/history.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::history {

/// git bisect run's answers: 0 good, 1 bad, 125 cannot be tested (skip), above 127 abort.
enum class bisect_answer : int { good = 0, bad = 1, skip = 125, abort = 128 };

/// The answer a step's judged A/B report gives: bad when a kernel's A/B verdict is SLOWER
/// beyond the allowance; else skip when one is AMBIGUOUS or no kernel was judged; else good
/// (SAME, FASTER, or SLOWER within the allowance).
[[nodiscard]] bisect_answer bisect_answer_of(const report& judged);

/// Where a bisection runs between: the commit before a change point (good) and its first
/// commit (bad), with the kernel and the shift that named them.
struct bisect_range {
  std::string good, bad;
  std::string kernel, device;
  double ratio = 1; ///< the change point's: 1.3 is 30% slower
};

/// The latest change point that slowed a kernel matching `kernel_regex` (ECMAScript, searched
/// in the name; empty: any) among unmuted series: the commits on either side of it. Empty when
/// there is none. Throws usage_error("kernel_regex") for a malformed regex.
[[nodiscard]] std::optional<bisect_range> range_from_history(const std::vector<series>& all,
                                                             const std::string& kernel_regex);

/// The commit `git bisect log` names as the first bad one ("# first bad commit: [SHA] ..."),
/// empty when the bisection did not name one (skipped commits left it open).
[[nodiscard]] std::string first_bad_commit(std::string_view bisect_log);

/// `git -C repo ARGS...`, its stdout without the trailing newline. Throws usage_error naming the
/// command and git's last line of stderr when git fails (a bad revision, not a repository).
std::string git(const std::string& repo, const std::vector<std::string>& args);

/// Runs `command` with /bin/sh in `dir`, its output passed through: whether it exited 0.
[[nodiscard]] bool run_build(const std::string& dir, const std::string& command);

/// One line of A/B evidence per judged kernel: "BM_x: SLOWER, time ratio 1.301x (95% interval
/// 1.280x .. 1.322x) over 6 rounds".
[[nodiscard]] std::vector<std::string> ab_evidence(const report& judged);

} // namespace perfgate::history
