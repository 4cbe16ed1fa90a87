#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What one counted operation of each compute micro-benchmark (microbench/gpu/gpu_compute.cu) is
# in the machine code, for every architecture built: the roof divides a kernel's thread-level
# instructions (Nsight Compute's and CUPTI's smsp__sass_thread_inst_executed_op_*) by these
# rates, so each counted FMA, integer multiply-add or add must be one instruction of its class,
# never merged with another (a rate counted in operations that two share would beat any kernel's
# instruction count). 8 chains x 32 steps = 256 per loop body; the integer adds as 8 chains x 16
# pairs x 2 = 256, which nvcc splits between IADD3 (the ALU pipe) and IMAD.IADD (the FMA pipe):
# 128 adds per SM per clock on GH100, twice the ALU's 64 (perfgate/devices/h100-sxm.json).
# usage: check_compute_isa.sh cuda MICROBENCH_EXE
set -euo pipefail
# shellcheck source=isa_listing.sh
source "$(dirname "${BASH_SOURCE[0]}")/isa_listing.sh"
per_body=256

[ "${1:-}" = cuda ] || fail "usage: check_compute_isa.sh cuda MICROBENCH_EXE"
cuda_tools cuobjdump
check() {
  at_least "$sass" "$arch" 'mad_kernelIfLi32E' ' FFMA ' $per_body
  at_least "$sass" "$arch" 'mad_kernelIdLi32E' ' DFMA ' $per_body
  # HFMA2 issues to the FMA pipe and, as HFMA2.MMA, to the tensor pipe (GA100, GH100).
  at_least "$sass" "$arch" 'mad_kernelI7__half2Li32E' ' HFMA2(\.MMA)? ' $per_body
  at_least "$sass" "$arch" 'mad_kernelIjLi32E' ' IMAD ' $per_body
  at_least "$sass" "$arch" 'add_kernelILi16E' ' (IADD3|IMAD\.IADD|VIADD) ' $per_body
  # Both pipes take the adds where the architecture has IMAD.IADD (Volta and later).
  local alu fma
  alu="$(count_in ' IADD3 ' 'add_kernelILi16E' <<<"$sass")"
  fma="$(count_in ' IMAD\.IADD ' 'add_kernelILi16E' <<<"$sass")"
  echo "ok: $arch add_kernel: $alu IADD3 (ALU pipe) + $fma IMAD.IADD (FMA pipe)"
}
each_cubin "$2" add_kernel "the compute kernels" check
