// SPDX-License-Identifier: Apache-2.0
// Test helper: a measured CPU of round peaks (DRAM 20 GB/s, fp64 100 GFLOP/s: O_dev 5 op/B), the
// local device of the gate's tests.
#pragma once

#include <perfgate/device.hpp>

namespace perfgate::test {

inline device test_cpu() {
  device d;
  d.id = "local-cpu";
  d.name = "test CPU";
  d.kind = "cpu";
  d.source = "measured";
  d.peaks = {200.0, 100.0, 100.0, 100.0, 100.0, 20.0}; // O_dev for fp64: 100 / 20 = 5
  return d;
}

} // namespace perfgate::test
