// SPDX-License-Identifier: Apache-2.0
// The identity of the hardware a run measured on (<perfgate/device_identity.hpp>), from what
// this machine says: /proc/cpuinfo and cpufreq for a CPU, the local device file's bytes for its
// calibration (a GPU's SM clock comes from the kernels' measurements: gate/hardware_check).
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/device_identity.hpp>

#include <string>

namespace perfgate::detail {

/// This run's identity: the local device (`local`, given on the command line as `device_arg`:
/// a file's bytes are hashed as the calibration) and, for a CPU, this machine's model and
/// frequency (cpufreq's maximum where the kernel has it, a steady figure, else cpuinfo's); for
/// a GPU, the device's name, and the UUID and driver its calibration recorded (the card that
/// calibration measured: perfgate calibrates each GPU CTest hands out in its own file).
[[nodiscard]] device_identity identify_local_device(const device& local,
                                                    const std::string& device_arg);

} // namespace perfgate::detail
