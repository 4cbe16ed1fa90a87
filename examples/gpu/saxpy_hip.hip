// SPDX-License-Identifier: Apache-2.0
// The HIP build of saxpy.cu (CMake picks the language per file, so this one-line file is HIP).
#include "saxpy.cu"
