// SPDX-License-Identifier: Apache-2.0
// What rate a device offers a kernel's work, in one place (model/device_rates.cpp): the peak of
// its kind of operation on a scope (one core or all), the clock a peak holds at and the device
// moved to another clock, the DRAM roof of its read/write mix, the cache that holds its working
// set. The public ones are declared with the device (<perfgate/device.hpp>) and the model
// (<perfgate/model.hpp>); this header adds what only the model's own files call.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/model.hpp>

#include <optional>
#include <string>

namespace perfgate::detail {

/// The peak of a kernel type on a scope (1e9 op/s). A tensor path the device lacks is no
/// silent fallback to another roof: throws no_path_error, the kernel cannot run there as
/// profiled. A tensor path's peak is `tensor_<precision>_gflops`, the FP32-accumulate rate;
/// where the device states a faster FP16-accumulate one (`tensor_<precision>_acc16_gflops`),
/// work accumulating in FP16 takes it, and work of unknown accumulate the faster of the two.
[[nodiscard]] double peak_of(kernel_type t, const device& d, const scope_peaks& scope,
                             accumulate_precision acc = accumulate_precision::unknown);

/// The device peak of FP16-accumulate work of tensor type `t`
/// (`tensor_fp16_acc16_gflops`, `tensor_fp8_acc16_gflops`); empty for other types.
[[nodiscard]] std::optional<std::string> acc16_peak_key(kernel_type t);

/// The accumulate a prediction assumes: the declared one, else FP32 (the common case: PyTorch
/// and cuBLAS accumulate FP16 and BF16 GEMMs in FP32).
[[nodiscard]] accumulate_precision predicted_accumulate(accumulate_precision declared);

} // namespace perfgate::detail
