// SPDX-License-Identifier: Apache-2.0
// The prediction's optional terms by their report key, one list for the JSON writer and the
// reader so that what one writes the other reads.
#pragma once

#include <perfgate/model.hpp>

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace perfgate::detail {

/// The quantitative model's work, cost and efficiency terms: null in the report where the model
/// does not use them (the roofline model).
inline constexpr std::array<std::pair<std::string_view, std::optional<double> prediction::*>, 7>
    optional_prediction_terms = {{
        {"W_op", &prediction::W_op},
        {"W_ldst", &prediction::W_ldst},
        {"W_other", &prediction::W_other},
        {"C_op", &prediction::C_op},
        {"C_ldst", &prediction::C_ldst},
        {"C_other", &prediction::C_other},
        {"E_instr", &prediction::E_instr},
    }};

} // namespace perfgate::detail
