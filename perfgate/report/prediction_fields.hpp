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

// The compute side of a kernel that declares bytes and no operations (params.compute_declared
// false: a Google Benchmark that calls SetBytesProcessed alone, an nvbench state with global
// memory bytes alone). Its operations, their type, its intensity and every rate or ridge
// derived from them are unknown: the report leaves these keys out, never writes 0 for them
// (issue 43). Its memory side stays: W_traf, B_mem, predicted_time_s (W_traf / B_mem), the
// roof's time, bound, limiter, B_roof and terms are known from the bytes.

/// The kernel's parameters left out (K_type, a kernel type, is read by name).
inline constexpr std::array<std::string_view, 3> undeclared_compute_params = {"K_type", "W_comp",
                                                                              "O_krn"};
/// The prediction's: the peak of the kernel's type, its adjusted value, the device's ridge for
/// it and the attainable performance in operations per second.
inline constexpr std::array<std::pair<std::string_view, double prediction::*>, 4>
    undeclared_compute_terms = {{
        {"T_op", &prediction::T_op},
        {"T_op_adj", &prediction::T_op_adj},
        {"O_dev", &prediction::O_dev},
        {"T_pred", &prediction::T_pred},
    }};
/// The roof's: its compute rate and its ridge.
inline constexpr std::array<std::pair<std::string_view, double roof_bound::*>, 2>
    undeclared_compute_roof = {{
        {"T_roof", &roof_bound::T_roof},
        {"O_ridge", &roof_bound::O_ridge},
    }};

} // namespace perfgate::detail
