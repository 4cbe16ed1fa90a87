// SPDX-License-Identifier: Apache-2.0
// The HIP build of gpu_peaks.cu. CMake picks a source's language per file, not per target, so
// perfgate-microbench-hip compiles this one-line file as HIP; the code is gpu_peaks.cu itself.
// (Direct use works too: hipcc --offload-arch=gfx90a -x hip gpu_peaks.cu -ldl.)
#include "gpu_peaks.cu"
