// SPDX-License-Identifier: Apache-2.0
// What rate a device offers a kernel's work, in one place (model/device_rates.cpp): the peak of
// its kind of operation on a scope (one core or all), the clock a peak holds at and the device
// moved to another clock, the DRAM roof of its read/write mix, the cache that holds its working
// set. The public ones are declared with the device (<perfgate/device.hpp>) and the model
// (<perfgate/model.hpp>); this header adds what only the model's own files call.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/model.hpp>

namespace perfgate::detail {

/// The peak of a kernel type on a scope (1e9 op/s). A tensor path the device lacks is no
/// silent fallback to another roof: throws no_path_error, the kernel cannot run there as
/// profiled.
[[nodiscard]] double peak_of(kernel_type t, const device& d, const scope_peaks& scope);

} // namespace perfgate::detail
