// SPDX-License-Identifier: Apache-2.0
// What the injection library learns about each kernel during one run, aggregated by name, and
// the `perfgate-cupti/1` file it leaves for `perfgate run`. No CUPTI here: the CUPTI callbacks
// feed it, and the tests drive it directly.
#pragma once

#include "collectors/cupti/run_info.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::cupti {

/// One launch as the Activity API records it (timing run).
struct launch_entry {
  std::uint32_t correlation = 0; ///< the launch call's correlation id: the launch order
  std::array<std::uint32_t, 3> grid{0, 0, 0};
  std::array<std::uint32_t, 3> block{0, 0, 0};
  std::uint32_t shared_bytes = 0; ///< dynamic shared memory
  double duration_ns = 0;
};

struct kernel_record {
  std::string name;    ///< demangled
  std::string mangled; ///< as the driver named it
  std::uint64_t launches = 0;
  std::vector<double> durations_ns; ///< timing run: one per launch, GPU timestamps
  std::array<std::uint32_t, 3> grid{0, 0, 0};
  std::array<std::uint32_t, 3> block{0, 0, 0};
  /// Timing run: every launch with its configuration (add_launch); written in launch order.
  std::vector<launch_entry> launch_log;
  std::uint64_t profiled_launches = 0;         ///< counter run: ranges attributed to it
  /// Counter run: every range's values, in the run's metric order: the work of each launch, so
  /// that launches of one kernel at different sizes are told apart (perfgate run groups them).
  std::vector<std::vector<double>> range_values;
  std::map<std::string, double> metric_sums;   ///< counter run: count metrics, summed
  std::map<std::string, double> rate_weighted; ///< counter run: rate x weight, summed
  std::map<std::string, double> rate_weight;   ///< counter run: the weights
  // Timing run: NVML sampled at launch.
  std::uint64_t clock_samples = 0;
  double clock_mhz_sum = 0, clock_mhz_min = 0, clock_mhz_max = 0;
  std::uint64_t clock_limit_mask = 0; ///< NVML clock-event reasons seen, OR-ed
};

/// True for a metric whose per-range value is a rate or ratio to be averaged over launches
/// (".per_second", ".pct_of_...", ".ratio"), false for a count to be summed.
[[nodiscard]] bool is_rate_metric(std::string_view metric);

/// The demangled form of a C++ symbol, or the symbol itself when it is not mangled.
[[nodiscard]] std::string demangle(const char* symbol);

/// NVML clock-event reason bits (nvmlClocksEventReason*) as names; idle is left out, since the
/// GPU is idle between launches by nature.
[[nodiscard]] std::vector<std::string> clock_limit_names(std::uint64_t mask);

class kernel_book {
public:
  /// The record for a kernel, made on first sight; kernels keep the order they first ran in.
  kernel_record& kernel(const char* mangled_or_plain_name);

  /// Timing run: one launch's record.
  void add_launch(kernel_record& k, const launch_entry& launch);

  /// Counter run: one range's metric values attributed to a kernel. Rate metrics (clocks) are
  /// averaged with `weight` (the range's duration when known, else 1).
  void add_range(kernel_record& k, const std::vector<std::string>& metrics,
                 const std::vector<double>& values, double weight);

  void warn(std::string message) { m_warnings.push_back(std::move(message)); }

  /// `perfgate-cupti/1`: the run (run_info.hpp) and every kernel.
  [[nodiscard]] std::string to_json(const run_info& run) const;

  [[nodiscard]] const std::vector<kernel_record>& kernels() const { return m_kernels; }

private:
  std::vector<kernel_record> m_kernels;
  std::map<std::string, std::size_t> m_index; ///< demangled name -> position
  std::vector<std::string> m_warnings;
};

/// Write `text` to `path` through a temporary file and a rename, so a reader never sees half a
/// file. Returns false (and leaves no temporary) when it cannot.
bool write_atomically(const std::string& path, const std::string& text);

} // namespace perfgate::cupti
