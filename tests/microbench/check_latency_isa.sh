#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The latency chains (microbench/gpu/gpu_latency.cu) are N dependent instructions of one class
# each, fully unrolled, in the code every architecture gets: 1024 FFMA, DFMA, IMAD, MUFU.EX2,
# LDS or BAR, 128 LDG. Checked offline in the machine code: a chain the compiler folded, widened or
# mixed with another class would make `perfgate calibrate --latencies` fit another latency.
# usage: check_latency_isa.sh cuda MICROBENCH_EXE
#        check_latency_isa.sh hip  HIP_COMPILER SOURCE_DIR "HIP_FLAGS"
set -euo pipefail
# shellcheck source=isa_listing.sh
source "$(dirname "${BASH_SOURCE[0]}")/isa_listing.sh"


# The kernels by op: chain_kernel<op, N> mangles as chain_kernelILi<op>ELi<N>E.
kernels=(ILi0ELi1024E ILi1ELi1024E ILi2ELi1024E ILi3ELi1024E ILi4ELi1024E ILi5ELi128E ILi6ELi128E
         ILi7ELi1024E)
case "$1" in
cuda)
  cuda_tools cuobjdump
  patterns=(' FFMA ' ' DFMA ' ' IMAD ' 'MUFU\.EX2' ' LDS ' ' LDG' ' LDG' ' BAR\.SYNC')
  counts=(1024 1024 1024 1024 1024 128 128 1024)
  check() {
    for i in "${!kernels[@]}"; do
      at_least "$sass" "$arch" "chain_kernel${kernels[$i]}" "${patterns[$i]}" "${counts[$i]}"
    done
  }
  each_cubin "$2" chain_kernel "the latency chains" check
  ;;
hip)
  compiler="$2" src="$3" flags="$4"
  # The first link of a chain may fold into its setup: N - 1 at least.
  patterns=('v_fmac_f32|v_fma_f32' 'v_fma_f64' 'v_mad_u32_u24|v_mul_lo_u32|v_mad_u64_u32'
            'v_exp_f32' 'ds_read_b32|ds_load_b32' 'global_load_dword ' 'global_load_dword '
            's_barrier')
  counts=(1023 1023 1023 1023 1023 127 127 1023)
  for arch in gfx90a gfx940 gfx1030; do
    asm="$(hip_asm "$compiler" "$flags" $arch "$src/microbench/gpu/gpu_latency.cu" \
           "$src/microbench/gpu")"
    for i in "${!kernels[@]}"; do
      at_least "$asm" $arch "chain_kernel${kernels[$i]}" "${patterns[$i]}" "${counts[$i]}"
    done
  done
  echo "latency chains' ISA checked for gfx90a, gfx940, gfx1030"
  ;;
*) fail "usage: check_latency_isa.sh cuda EXE | hip COMPILER SOURCE_DIR FLAGS" ;;
esac
