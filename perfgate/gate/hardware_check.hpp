// SPDX-License-Identifier: Apache-2.0
// A run against a baseline recorded on other hardware (<perfgate/device_identity.hpp>): never
// compared with the stored runs silently. Where the baseline keeps its build, that build and
// this one are measured here alternately and decide every kernel (action "ab"); else the stored
// runs are compared and every verdict against them warns naming both devices (action "warn").
#pragma once

#include <perfgate/device_identity.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/report.hpp>

#include <optional>
#include <string>

namespace perfgate::detail {

/// Records `now` as `r`'s identity (a GPU's SM clock, unknown to the probe, taken as the median
/// its kernels measured) and compares it with the baseline's: the change when a field that
/// matters differs, with action "ab" where `kept_build_decides` (the baseline keeps its build
/// and the run may use it), else "warn". Empty without a baseline, without its identity (a
/// baseline accepted before identities were recorded), when the identity is of another local
/// device id than the run's (a baseline of several runners keeps the first report's identity,
/// and the run is judged against its own device's entries), or when nothing that matters
/// differs.
[[nodiscard]] std::optional<hardware_change> check_hardware(report& r, device_identity now,
                                                            const std::optional<baseline>& base,
                                                            bool kept_build_decides);

/// "name A -> B, driver 550 -> 560 (noted only)": what differs.
[[nodiscard]] std::string differences_text(const hardware_change& h);

/// "the baseline ... was measured on X, this run is on Y (name A -> B): ..." for stderr: why
/// the run switches to the kept build, or what its verdicts will warn about.
[[nodiscard]] std::string hardware_notice(const hardware_change& h);

} // namespace perfgate::detail
