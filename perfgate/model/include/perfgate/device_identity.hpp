// SPDX-License-Identifier: Apache-2.0
/// \file
/// Which hardware a run measured on, as far as it can be told: the GPU (name, UUID, driver,
/// SM clock) or the CPU (model, frequency), and the calibration file the roofs came from. A
/// stored baseline records it; a later run on other hardware is not compared with the stored
/// runs as if nothing changed (the same GPU model's bandwidth varies by up to 38% between
/// cards in a cloud study of 3,500 GPUs). docs/statistics.md, "Baselines and hardware".
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace perfgate {

/// Empty strings and absent numbers are unknown, and an unknown field is never a difference.
struct device_identity {
  std::string kind;                ///< "gpu" or "cpu" (the local device's)
  std::string device;              ///< the local device's id ("local-cpu", "h100-sxm")
  std::string name;                ///< the GPU's or the CPU's model name
  std::string uuid;                ///< the GPU's (NVML / ROCm SMI id), where known
  std::string driver;              ///< the GPU driver's version, where known
  std::optional<double> clock_mhz; ///< the SM clock kernels ran at (GPU), the CPU's frequency
  std::string calibration_fnv1a64; ///< of the local device file's bytes, when it is a file
};

/// One field that differs between a stored identity and a run's.
struct identity_difference {
  std::string field; ///< "name", "uuid", "driver", "clock_mhz", "calibration", "kind", "device"
  std::string stored, now;
  /// Whether it makes stored times incomparable: another device, card, model, calibration, or a
  /// clock beyond the tolerance. A driver alone is noted, not acted on.
  bool matters = false;
};

/// Two runs' SM clocks further apart than this (relative) make their times incomparable: the
/// identity check, the baseline gate and the A/B clock check share it. (Within one run,
/// model.hpp's clock_reading_noise says when two readings of a clock are one clock.)
inline constexpr double clock_tolerance = 0.02;

/// The fields known on both sides that differ (clocks: by more than `clock_tolerance`,
/// relative), in the order of device_identity's fields.
[[nodiscard]] std::vector<identity_difference>
compare_identities(const device_identity& stored, const device_identity& now,
                   double clock_tolerance = perfgate::clock_tolerance);

/// Whether any difference matters.
[[nodiscard]] bool hardware_changed(const std::vector<identity_difference>& differences);

/// "AMD EPYC 9B14 (local-cpu, 2600 MHz, calibration 1f2e...)": the identity in one phrase.
[[nodiscard]] std::string describe(const device_identity& id);

/// A run gated against a baseline recorded on other hardware: both identities, what differs,
/// and what the gate did about it.
struct hardware_change {
  device_identity stored, now;
  std::vector<identity_difference> differences;
  /// "ab": the baseline's kept build decided every kernel in an A/B session on this hardware;
  /// "warn": no kept build, the stored runs were compared and every verdict against them warns.
  std::string action;
  /// How many of the baseline's runners of this device the run was compared with (`stored` is
  /// the nearest); not written to the report.
  std::size_t runners = 1;
};

} // namespace perfgate
