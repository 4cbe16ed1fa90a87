// SPDX-License-Identifier: Apache-2.0
// A device identity and a hardware change as JSON: one list of keys for the report's writer and
// reader and the baseline's (gate/gate.cpp), so what one writes the other reads.
#pragma once

#include <perfgate/device_identity.hpp>

#include "util/json_fields.hpp"

#include <nlohmann/json.hpp>

namespace perfgate::detail {

/// {"kind", "device", "name", "uuid", "driver", "clock_mhz", "calibration_fnv1a64"}; unknown
/// fields are left out.
[[nodiscard]] nlohmann::json identity_json(const device_identity& id);
[[nodiscard]] device_identity read_identity(const json_fields& f);
/// Refuses a key of an identity object that is none of identity_json's (a baseline's readers are
/// strict: an unknown key is bad input, docs/formats.md).
void check_identity_keys(const json_fields& f);

/// {"stored", "now", "differences": [{"field", "stored", "now", "matters"}], "action"}
[[nodiscard]] nlohmann::json hardware_json(const hardware_change& h);
[[nodiscard]] hardware_change read_hardware(const json_fields& f);

} // namespace perfgate::detail
