// SPDX-License-Identifier: Apache-2.0
// AMD GPU hardware counters (rocprofiler-sdk / rocprofv3 names) that supply the quantitative
// model's canonical counters, per GPU architecture, and how to split them into collection
// passes.
//
// Why not counter_mapping.hpp's `counter_source`: its `metric_sum` is "a sum of metrics times
// one scale". AMD's byte counts are linear combinations with different, even negative, weights
// per counter (FETCH_SIZE = 32 x RDREQ_32B + 64 x (RDREQ - RDREQ_32B)), and the instruction
// counts scale by the wavefront size, which is only known when the profile is read (wave32 or
// wave64 on RDNA). So a formula here is a weighted sum with an optional "x lanes" factor; the
// semantics are otherwise the same (alternatives tried in order, the first complete one wins,
// canonical counters with no complete alternative are left out so the model names them).
//
// Counter names are the base names of rocprofiler-sdk's counter definitions
// (ROCm/rocprofiler-sdk source/share/rocprofiler-sdk/counter_defs.yaml). A profile may report a
// counter as the base name (rocprofv3 sums block instances), as the derived "<base>_sum"
// (= reduce(<base>,sum) in counter_defs.yaml) or per instance as "<base>[i]" (older rocprof
// naming): amd_base_counter_name() maps all three to the base name, and instances are summed.
#pragma once

#include <perfgate/profile.hpp>

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

struct amd_term {
  std::string_view counter; ///< base counter name, e.g. "TCC_EA_RDREQ"
  double weight = 1.0;
};

/// sum(weight x counter) x scale, times the wavefront size when `per_lane` (wave-level
/// instruction counts -> thread-level ones).
struct amd_formula {
  std::vector<amd_term> terms;
  bool per_lane = false;
  double scale = 1.0;
  std::string_view label; ///< rocprofiler's name for the formula ("FETCH_SIZE"), if any
};

struct amd_counter_source {
  std::string_view canonical;
  std::vector<amd_formula> alternatives; ///< empty: the architecture has no such counter
  std::string_view missing_hint;         ///< for messages when `alternatives` is empty
};

/// Hardware counters one collection pass can hold per block (SQ, TCC, GL2C).
struct amd_block_limit {
  std::string_view block;
  std::size_t per_pass = 0;
};

/// One family of architectures that share counter names and formulas.
struct amd_arch {
  std::string_view family;                 ///< "gfx90a", "gfx94x", ...
  std::vector<std::string_view> names;     ///< gfx names it covers ("gfx940", "gfx942", ...)
  int default_wave_size = 64;              ///< lanes of a wavefront when the file does not say
  /// One per canonical counter: model_inputs order, then matrix work (gfx90a, gfx94x)
  std::vector<amd_counter_source> sources;
  std::vector<amd_block_limit> limits;
};

/// "gfx90a:sramecc+:xnack-" -> "gfx90a"; lower-cased, target features dropped.
[[nodiscard]] std::string normalize_amd_arch(std::string_view arch);

/// The family covering `arch` (normalised first), or nullptr for an unknown architecture.
[[nodiscard]] const amd_arch* find_amd_arch(std::string_view arch);

/// Every family, in the order of the table.
[[nodiscard]] std::span<const amd_arch> amd_arch_families();

/// For a profile whose architecture is not known: every family's alternatives, most specific
/// first (counter names differ between families, so the file's names pick the formula).
/// Default wave size 64.
[[nodiscard]] const amd_arch& amd_any_arch();

/// "SQ", "TCC" or "GL2C" for a counter name (base, _sum or instance form); "" if unknown.
[[nodiscard]] std::string_view amd_counter_block(std::string_view counter);

/// The name to ask rocprofv3 for: "<base>_sum" for TCC/GL2C counters (rocprofiler-sdk defines
/// these derived sums for every counter used here), the base name for SQ counters.
[[nodiscard]] std::string amd_request_name(std::string_view base);

/// "TCC_EA_RDREQ_sum" / "TCC_EA_RDREQ[3]" / "TCC_EA_RDREQ[1][2]" / "TCC_EA_RDREQ" ->
/// "TCC_EA_RDREQ". `is_instance` (optional) tells whether it named one block instance.
[[nodiscard]] std::string amd_base_counter_name(std::string_view reported,
                                                bool* is_instance = nullptr);

/// Base names of every counter any alternative of `a` mentions.
[[nodiscard]] std::vector<std::string_view> amd_metrics_used(const amd_arch& a);

/// Counters to collect for the model on `arch` (request names, each once), grouped so that
/// the inputs of one canonical counter are adjacent: every source but the matrix operations
/// counters (SQ_INSTS_MFMA shows matrix work without them). Throws usage_error for an unknown
/// arch.
[[nodiscard]] std::vector<std::string> amd_counters_to_request(std::string_view arch);

/// amd_counters_to_request(arch) split into passes that respect the family's per-block limits;
/// the inputs of one canonical counter stay in one pass whenever they fit. Every counter
/// appears exactly once. Throws usage_error for an unknown arch.
[[nodiscard]] std::vector<std::vector<std::string>> amd_counter_passes(std::string_view arch);

/// The matrix operations counters of `arch` (SQ_INSTS_VALU_MFMA_MOPS_*), split into passes as
/// amd_counter_passes splits the model's: what a second run collects when SQ_INSTS_MFMA showed
/// matrix work. Empty for an architecture without them. Throws usage_error for an unknown arch.
[[nodiscard]] std::vector<std::vector<std::string>>
amd_tensor_counter_passes(std::string_view arch);

/// The same split for any list of counters and limits (a counter whose block has no limit
/// counts against a limit of 1 per pass, the safe choice for blocks we know nothing about).
[[nodiscard]] std::vector<std::vector<std::string>>
split_amd_counter_passes(std::span<const std::string> counters,
                         std::span<const amd_block_limit> limits);

/// Canonical counters from a kernel's totals (keys: base counter names). Throws input_error
/// (file `file`, key `where`) when a complete formula gives a negative count.
[[nodiscard]] std::map<std::string, double, std::less<>>
resolve_amd_counters(const amd_arch& a, const std::map<std::string, double, std::less<>>& totals,
                     int wave_size, const std::string& file, const std::string& where);

/// The counter names to show for each canonical counter in messages (request names).
[[nodiscard]] std::map<std::string, std::string, std::less<>> amd_native_names(const amd_arch& a);

} // namespace perfgate::detail
