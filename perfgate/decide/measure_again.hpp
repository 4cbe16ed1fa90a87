// SPDX-License-Identifier: Apache-2.0
// A roof beaten on this machine's own calibration. A calibration taken while the machine was
// busier than when the kernel ran reads low (a shared CI runner: the calibration beside another
// job, the kernel in a quiet minute), and the kernel then "beats" a roof that was never the
// machine's. So the local device is measured again now and the gate judges against the higher of
// both runs' peaks; a kernel that still beats its roof fails as before (its declared work is too
// small, or the model is wrong for it).
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::decide {

/// The local device `d` (named `device_arg` on the command line) measured again on this machine,
/// each peak the higher of its file's and this run's; empty where `device_arg` is no calibration
/// of this machine (a built-in entry, another host's file), which nothing measures again. The
/// cli's is the CPU micro-benchmarks (decide cannot see them).
using measure_device_again =
    std::function<std::optional<device>(const device& d, const std::string& device_arg)>;

/// The roofs of the report's local device that kernels beat, by kernel name: efficiency above
/// MAX_EFFICIENCY (the failure `efficiency_above_max`), with the roof and efficiency it judged.
[[nodiscard]] std::map<std::string, beaten_roof, std::less<>> roofs_beaten(const report& r);

/// The names of roofs_beaten's kernels, in name order.
[[nodiscard]] std::vector<std::string> kernels_beating_roof(const report& r);

/// What measuring again did to each kernel of `names`, a line each: its roof before and after,
/// the limiting rate's move, and the efficiency it is judged at now.
[[nodiscard]] std::vector<std::string> measured_again_lines(const report& before,
                                                            const report& after,
                                                            const std::vector<std::string>& names);

} // namespace perfgate::decide
