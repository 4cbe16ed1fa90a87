// SPDX-License-Identifier: Apache-2.0
// `perfgate run --collector nvbench -- ./bench`: an nvbench program gated without touching its
// source. One run with `--jsonbin` (under the CUPTI timing library on NVIDIA) gives every
// state's cold times, samples and declared bytes, and how often each CUDA kernel was launched;
// then each state to gate runs alone (`--benchmark B --axis A=v ... --profile`: its kernels
// once) under the CUPTI counter library. A kernel the measurement launched many times and the
// state's own run once is the state's; one launched as often in both (a fill before
// state.exec) is setup and left out. The state then has counters, hence the whole roof.
#pragma once

#include <perfgate/profile.hpp>

#include "collectors/collectors.hpp"
#include "importers/nvbench_importer.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::detail {

/// The program and the arguments before its first option (`python3 bench.py`): what a state's
/// own run keeps of the user's command, whose options could select other states.
[[nodiscard]] std::vector<std::string> nvbench_program(const std::vector<std::string>& argv);

/// The command that runs `state` alone, its kernels once: `program --benchmark NAME --axis
/// SPEC ... [--devices ID] --profile`.
[[nodiscard]] std::vector<std::string> nvbench_state_command(const std::vector<std::string>& program,
                                                             const nvbench_state& state);

/// The kernels the measurement of the states launched: those launched more often in the whole
/// run (`census`) than in the states' own runs together (one execution each).
[[nodiscard]] std::vector<std::string>
nvbench_measured_kernels(const cupti_run& census,
                         const std::vector<std::optional<cupti_run>>& state_runs);

/// The profile of an nvbench run: every measured state a kernel (profile_from_nvbench); a state
/// with a counter run (`state_runs[i]` for `f.states[i]`) gets the summed counters of the
/// measured kernels its run launched, which replace its declared bytes. `notes` receives, per
/// state, which CUDA kernels were counted and which were left out as setup.
[[nodiscard]] profile profile_from_nvbench_runs(const nvbench_file& f, const std::string& file,
                                                const cupti_run& census,
                                                const std::vector<std::optional<cupti_run>>& state_runs,
                                                std::vector<std::string>* notes = nullptr);

/// The collector. Skips (77) without an NVIDIA GPU (nvbench needs one); without CUPTI in this
/// build the states keep nvbench's declared bytes (memory roof), with a warning.
[[nodiscard]] profile collect_nvbench(const collect_request& request);

} // namespace perfgate::detail
