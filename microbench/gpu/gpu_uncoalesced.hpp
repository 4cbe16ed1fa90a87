// SPDX-License-Identifier: Apache-2.0
// Uncoalesced DRAM access: a random 4-byte gather and scatter over a permutation held in device
// memory (the boat hull model's P_uncoalesced).
#pragma once

#include "gpu_measure.hpp"

#include <vector>

namespace perfgate::microbench::gpu {

/// uncoalesced_gather_gbs (out[i] = in[idx[i]]), uncoalesced_scatter_gbs (out[idx[i]] = in[i])
/// and uncoalesced_gbs (both directions' bytes over their combined time), 4 bytes per element
/// moved. Allocates its own arrays (three of 2^k 4-byte elements, each >= 16x L2 and 2 GiB
/// where the free memory allows); gpu_failure when the device has too little.
[[nodiscard]] std::vector<result> run_uncoalesced(const bench& b);

} // namespace perfgate::microbench::gpu
