// SPDX-License-Identifier: Apache-2.0
// HIP build of gpu_tensor_async.cu: CMake picks a source's language per file (see CMakeLists.txt).
#include "gpu_tensor_async.cu"
