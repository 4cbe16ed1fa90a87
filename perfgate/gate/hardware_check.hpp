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
#include <string_view>
#include <vector>

namespace perfgate::detail {

/// Records `now` as `r`'s identity (a GPU's SM clock, unknown to the probe, taken as the median
/// its kernels measured) and compares it with the identities of the baseline's runners whose
/// entries the run is judged against (runners_of): the change when every one of them differs
/// in a field that matters, naming the nearest, with action "ab" where `kept_build_decides`
/// (the baseline keeps its build and the run may use it), else "warn". Empty without a
/// baseline, without identities for the run's device (a baseline accepted before identities
/// were recorded, or one without entries on that device), or when one runner's identity is
/// this hardware's.
[[nodiscard]] std::optional<hardware_change> check_hardware(report& r, device_identity now,
                                                            const std::optional<baseline>& base,
                                                            bool kept_build_decides);

/// The identities of the baseline's runners that `device` on `host` is judged against, as
/// baseline::find picks entries: those renamed apart for that host (`local-cuda-0@runner-b`)
/// where the baseline has them, else those of `device` itself.
[[nodiscard]] std::vector<const device_identity*>
runners_of(const baseline& base, const std::string& device, std::string_view host);

} // namespace perfgate::detail
