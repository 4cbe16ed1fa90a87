#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tensor micro-benchmarks (microbench/gpu/gpu_tensor.cu) run the matrix instruction of each
# precision, once per step of the unrolled loop (mma_unroll 16 x mma_chains 4 = 64), in the code
# each architecture gets: nothing hoisted out of the loop, nothing emulated. Checked offline in
# the machine code, since a GPU is rarely at hand and a kernel whose loop the compiler emptied
# would report any rate at all.
# usage: check_tensor_isa.sh cuda MICROBENCH_EXE
#        check_tensor_isa.sh hip  HIP_COMPILER SOURCE_DIR "HIP_FLAGS"
set -euo pipefail
# shellcheck source=isa_listing.sh
source "$(dirname "${BASH_SOURCE[0]}")/isa_listing.sh"
steps=64

case "$1" in
cuda)
  cuda_tools cuobjdump nvdisasm
  extract_cubins "$2"
  checked=0
  for cubin in "$work"/*.cubin; do
    sass="$(cuobjdump -sass "$cubin")"
    grep -q "mma_kernel" <<<"$sass" || continue
    arch="$(cubin_arch "$cubin")"
    expect() { # expect KERNEL INSTRUCTION_REGEX
      local n
      n="$(count_in "$2" "$1" <<<"$sass")"
      [ "$n" -ge $steps ] && [ $((n % steps)) -eq 0 ] ||
        fail "$arch $1: $n instructions matching $2, expected a multiple of $steps (>= $steps)"
      echo "ok: $arch $1: $n x $2"
    }
    expect mma_fp16E 'HMMA\.16816\.F32( |;)'
    expect mma_bf16E 'HMMA\.16816\.F32\.BF16'
    expect mma_tf32E 'HMMA\.1688\.F32\.TF32'
    expect mma_fp64E 'DMMA\.'
    expect mma_int8E 'IMMA\.16832\.S8\.S8'
    if [ "$arch" = sm_120 ]; then
      expect mma_fp8E 'QMMA\.16832\.F32\.E4M3\.E4M3'
    else # emulated or absent there: the run must not measure it
      n="$(count_in 'QMMA' mma_fp8E <<<"$sass")"
      [ "$n" -eq 0 ] || fail "$arch: QMMA where FP8 is not measured"
    fi
    checked=$((checked + 1))
  done
  [ $checked -ge 1 ] || fail "no cubin of $2 holds the tensor kernels"
  echo "tensor SASS checked for $checked architectures"
  ;;
hip)
  compiler="$2" src="$3" flags="$4"
  for arch in gfx90a gfx940 gfx1030; do
    asm="$(hip_asm "$compiler" "$flags" $arch "$src/microbench/gpu/gpu_tensor.cu" \
           "$src/microbench/gpu" "$src/perfgate")"
    expect() { # expect KERNEL INSTRUCTION
      local n
      n="$(count_in "$2" "$1" <<<"$asm")"
      [ "$n" -eq $steps ] || fail "$arch $1: $n x $2, expected $steps"
      echo "ok: $arch $1: $n x $2"
    }
    case $arch in
    gfx90a)
      expect 8mma_fp16E v_mfma_f32_32x32x8f16
      expect 8mma_bf16E v_mfma_f32_32x32x8bf16_1k
      expect 8mma_fp64E v_mfma_f64_16x16x4f64
      expect 8mma_int8E v_mfma_i32_32x32x8i8 ;;
    gfx940)
      expect 8mma_fp16E v_mfma_f32_32x32x8_f16
      expect 8mma_bf16E v_mfma_f32_32x32x8_bf16
      expect 8mma_fp64E v_mfma_f64_16x16x4_f64 ;;
    gfx1030)
      ! grep -q v_mfma <<<"$asm" || fail "gfx1030 has no MFMA, yet the code holds one" ;;
    esac
  done
  echo "tensor ISA checked for gfx90a, gfx940, gfx1030"
  ;;
*) fail "usage: check_tensor_isa.sh cuda EXE | hip COMPILER SOURCE_DIR FLAGS" ;;
esac
