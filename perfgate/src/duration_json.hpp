// SPDX-License-Identifier: Apache-2.0
// Reading the recorded samples of a duration (profile `duration`, report `measured`).
#pragma once

#include <perfgate/profile.hpp>

#include "json_fields.hpp"

namespace perfgate::detail {

/// `stated` with the samples `f` records under `samples_s`, if any. Refused (input error naming
/// the key) when they disagree with the stated count or median: the gate uses both.
[[nodiscard]] duration_stats with_recorded_samples(const json_fields& f, duration_stats stated);

} // namespace perfgate::detail
