// SPDX-License-Identifier: Apache-2.0
// `perfgate run`'s sequence: the program measured under its collector (or a recorded profile
// read), every kernel predicted on every device, the gate asked, and the program run again where
// the gate leaves a verdict against the baseline undecided (confirmation runs, the baseline's
// kept build). The cli declares the options, prints and writes; this holds the order of things.
#pragma once

#include <perfgate/gate.hpp>
#include <perfgate/profile.hpp>
#include <perfgate/report.hpp>
#include <perfgate/run_meta.hpp>

#include "decide/collect.hpp"
#include "decide/measure_again.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::decide {

/// What `perfgate run` gates: the program and how it is measured, the devices, and what it is
/// judged against besides the policy.
struct program_gate {
  program_collection collection; ///< collector "profile": `profile_file` instead of a run
  std::string profile_file;
  std::vector<std::string> devices; ///< built-in ids or files; the first is the local device
  std::string baseline_file;        ///< empty: none
  std::vector<std::string> idg_files;
  std::string latencies_file;
  double confirm_budget_s = 60;
  double ab_budget_s = 300;
  /// Where a kernel beats a roof of the local device: that device measured again on this machine
  /// (measure_again.hpp); empty: never.
  measure_device_again measure_again;
};

/// Every argument that can be checked without the program, checked before it runs: the
/// kernels' regex, --idg with --latencies, the baseline file (and the build it keeps), and every
/// device but a local device file that is not there yet (`local_file_to_come`: a GPU
/// calibration that the run makes; a collector that cannot work here then skips, 77, before
/// its absence is an error). Throws usage_error or input_error.
void check_program_gate(const program_gate& g, bool local_file_to_come);

/// What gating the program came to: the judged report, or why nothing could be judged (the
/// kernels' regex matched no kernel of the profile: a gate failure, exit 1).
struct gated_program {
  std::optional<report> judged;
  std::string nothing_gated;
};

/// Runs the sequence. `collected` sees the profile as soon as it is read (the cli prints the
/// profiler's errors there). Throws what the collectors, importers and the gate throw; a gated
/// kernel the profiler failed on is target_error.
[[nodiscard]] gated_program gate_program(const program_gate& g, const gate_policy& policy,
                                         const run_meta& meta,
                                         const std::function<void(const profile&)>& collected);

} // namespace perfgate::decide
