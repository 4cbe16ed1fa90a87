// SPDX-License-Identifier: Apache-2.0
// Kernel names short enough for a table: library kernels are demangled templates of up to
// 1,500 characters, and a report whose name column holds them scrolls sideways.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

/// The longest short name (characters); a longer one is cut with an ellipsis.
inline constexpr std::size_t k_short_name_max = 120;

/// The function's name as Nsight Compute's "Function Name" shows it: return type, namespaces,
/// template arguments and parameters left out ("void at::native::reduce_kernel<512, 1, ...>(...)"
/// -> "reduce_kernel"); a bracketed suffix perfgate or a benchmark added after the parameters is
/// kept ("copy_kernel [grid 64x1x1 block 256x1x1]"), and names without a parameter list
/// ("BM_triad/1024", "copy [T=I32]") are kept as they are, cut at k_short_name_max.
[[nodiscard]] std::string short_kernel_name(std::string_view full);

/// short_kernel_name of each, made unique in order: a short name that several different full
/// names share gets " (1)", " (2)", ... (two instantiations of one template); one full name
/// twice (a merged report's runners) keeps one.
[[nodiscard]] std::vector<std::string> short_kernel_names(const std::vector<std::string>& full);

/// Whether a profiled kernel is the (demangled) function `demangled`: the names agree, or their
/// names before the parameter list do (profilers shorten or drop parameter lists).
[[nodiscard]] bool same_kernel(const std::string& profiled, const std::string& demangled);

} // namespace perfgate::detail
