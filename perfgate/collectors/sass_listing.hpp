// SPDX-License-Identifier: Apache-2.0
// The SASS of a CUDA binary, listed by `cuobjdump -sass` (no GPU needed).
#pragma once

#include <string>

namespace perfgate::detail {

/// `cuobjdump -sass BINARY`'s listing (a cubin, fatbin, object or executable). cuobjdump is
/// taken from PERFGATE_CUOBJDUMP, PATH, $CUDA_HOME/bin, $CUDA_PATH/bin or /usr/local/cuda/bin.
/// Throws skip_error when there is none (naming the pip wheel that has it), input_error when it
/// fails on the binary.
[[nodiscard]] std::string cuobjdump_sass(const std::string& binary);

/// `cuobjdump -res-usage BINARY`: registers and shared memory per function; as cuobjdump_sass.
[[nodiscard]] std::string cuobjdump_resource_usage(const std::string& binary);

} // namespace perfgate::detail
