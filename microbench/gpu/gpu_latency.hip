// SPDX-License-Identifier: Apache-2.0
// HIP build of gpu_latency.cu: CMake picks a source's language per file (see CMakeLists.txt).
#include "gpu_latency.cu"
