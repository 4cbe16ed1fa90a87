// SPDX-License-Identifier: Apache-2.0
// Host <-> device copy bandwidth over the bus (PCIe, NVLink-C2C, Infinity Fabric): the boat hull
// model's B_bus.
#pragma once

#include "gpu_measure.hpp"

#include <vector>

namespace perfgate::microbench::gpu {

/// bus_h2d_gbs and bus_d2h_gbs: asynchronous copies between page-locked host memory and device
/// memory, 256 MiB each (a quick run: 64 MiB), timed with events; bus_gbs: the slower
/// direction. Bytes copied per second.
[[nodiscard]] std::vector<result> run_bus(const bench& b);

} // namespace perfgate::microbench::gpu
