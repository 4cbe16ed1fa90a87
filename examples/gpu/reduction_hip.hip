// SPDX-License-Identifier: Apache-2.0
// The HIP build of reduction.cu (CMake picks the language per file, so this one-line file is HIP).
#include "reduction.cu"
