#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The latency chains (microbench/gpu/gpu_latency.cu) are N dependent instructions of one class
# per thread in a loop unrolled 128 times (16 for the global loads): FFMA, DFMA, IMAD, MUFU.EX2,
# LDS or BAR, LDG. Checked offline in the machine code, in every architecture's code:
#  - the unrolled body holds the class's instructions (a chain the compiler folded, widened or
#    mixed with another class would make `perfgate calibrate --latencies` fit another latency);
#  - every one of them lies between the kernel's two clock reads. nvcc 13 once moved a whole
#    chain after the second read (1024 FFMA "in" 491 cycles on an H100 and an H200): a chain
#    outside the clock reads is not timed.
# usage: check_latency_isa.sh cuda MICROBENCH_EXE
#        check_latency_isa.sh hip  HIP_COMPILER SOURCE_DIR "HIP_FLAGS"
set -euo pipefail
# shellcheck source=isa_listing.sh
source "$(dirname "${BASH_SOURCE[0]}")/isa_listing.sh"

# The kernels by op: chain_kernel<op> mangles as chain_kernelILi<op>EE.
kernels=(ILi0EE ILi1EE ILi2EE ILi3EE ILi4EE ILi5EE ILi6EE ILi7EE)
case "$1" in
cuda)
  cuda_tools cuobjdump
  patterns=(' FFMA ' ' DFMA ' ' IMAD ' 'MUFU\.EX2' ' LDS ' ' LDG' ' LDG' ' BAR\.SYNC')
  counts=(128 128 128 128 128 16 16 128)
  clock='SR_CLOCKLO'
  check() {
    for i in "${!kernels[@]}"; do
      at_least "$sass" "$arch" "chain_kernel${kernels[$i]}" "${patterns[$i]}" "${counts[$i]}"
      # The barrier chain's own BAR.SYNC are its instructions; the others' barriers are the
      # timing's, so only the class's instructions are held between the clock reads.
      [ "$i" -eq 7 ] ||
        between "$sass" "$arch" "chain_kernel${kernels[$i]}" "${patterns[$i]}" "$clock"
    done
  }
  each_cubin "$2" chain_kernel "the latency chains" check
  ;;
hip)
  compiler="$2" src="$3" flags="$4"
  hip_compiler "$compiler"
  # The first link of a chain may fold into its setup: one fewer at least.
  patterns=('v_fmac_f32|v_fma_f32' 'v_fma_f64' 'v_mad_u32_u24|v_mul_lo_u32|v_mad_u64_u32'
            'v_exp_f32' 'ds_read_b32|ds_load_b32' 'global_load_dword ' 'global_load_dword '
            's_barrier')
  counts=(127 127 127 127 127 15 15 127)
  clock='s_memtime|s_getreg_b32.*SHADER_CYCLES|s_sendmsg_rtn_b64'
  for arch in gfx90a gfx940 gfx1030; do
    asm="$(hip_asm "$compiler" "$flags" $arch "$src/microbench/gpu/gpu_latency.cu" \
           "$src/microbench/gpu" "$src/perfgate")"
    for i in "${!kernels[@]}"; do
      at_least "$asm" $arch "chain_kernel${kernels[$i]}" "${patterns[$i]}" "${counts[$i]}"
      [ "$i" -eq 7 ] ||
        between "$asm" $arch "chain_kernel${kernels[$i]}" "${patterns[$i]}" "$clock"
    done
  done
  echo "latency chains' ISA checked for gfx90a, gfx940, gfx1030"
  ;;
*) fail "usage: check_latency_isa.sh cuda EXE | hip COMPILER SOURCE_DIR FLAGS" ;;
esac
