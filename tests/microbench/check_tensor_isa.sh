#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tensor micro-benchmarks (microbench/gpu/gpu_tensor.cu) run the matrix instruction of each
# precision, once per step of the unrolled loop (mma_unroll 16 x mma_chains 4 = 64), in the code
# each architecture gets: nothing hoisted out of the loop, nothing emulated; the asynchronous
# ones (gpu_tensor_async.cu) run whole groups of 8 HGMMA/QGMMA/IGMMA in the sm_90a code and of 8
# UTCHMMA/UTCQMMA/UTCIMMA in the sm_100a and sm_103a code (UTCIMMA only in sm_100a's), nothing
# elsewhere. Checked offline in
# the machine code, since a GPU is rarely at hand and a kernel whose loop the compiler emptied
# would report any rate at all.
# usage: check_tensor_isa.sh cuda MICROBENCH_EXE
#        check_tensor_isa.sh hip  HIP_COMPILER SOURCE_DIR "HIP_FLAGS"
set -euo pipefail
# shellcheck source=isa_listing.sh
source "$(dirname "${BASH_SOURCE[0]}")/isa_listing.sh"
steps=64         # gpu_tensor.cu: mma_unroll 16 x mma_chains 4
unroll=8         # gpu_tensor_async.cu: wgmma / tcgen05 instructions per unrolled step

case "$1" in
cuda)
  cuda_tools cuobjdump nvdisasm
  checked=0 wgmma=0 tcgen05=0
  expect() { # expect KERNEL INSTRUCTION_REGEX [STEPS]
    local n per=${3:-$steps}
    n="$(count_in "$2" "$1" <<<"$sass")"
    [ "$n" -ge "$per" ] && [ $((n % per)) -eq 0 ] ||
      fail "$arch $1: $n instructions matching $2, expected a multiple of $per (>= $per)"
    echo "ok: $arch $1: $n x $2"
  }
  check() { # a kernel an architecture does not measure must be empty there (none)
    specific="$(grep -oE 'sm_[0-9]+a' <<<"$(basename "$cubin")" || true)" # sm_90a, sm_100a
    # Kernel markers carry the mangled length prefix: 8mma_fp16E is not inside 10wgmma_fp16E.
    if grep -q "8mma_fp16E" <<<"$sass"; then # gpu_tensor.cu: warp-level mma.sync
      expect 8mma_fp16E 'HMMA\.16816\.F32( |;)'
      expect 8mma_bf16E 'HMMA\.16816\.F32\.BF16'
      expect 8mma_tf32E 'HMMA\.1688\.F32\.TF32'
      expect 8mma_fp64E 'DMMA\.'
      expect 8mma_int8E 'IMMA\.16832\.S8\.S8'
      if [ "$arch" = sm_90 ]; then # Hopper's FP64 tensor shape; split into 8x8x4 elsewhere
        expect 12mma_fp64_k16E 'DMMA\.16x8x16'
      else
        none "$sass" "$arch" 12mma_fp64_k16E 'DMMA'
      fi
      if [ "$arch" = sm_120 ]; then
        expect 7mma_fp8E 'QMMA\.16832\.F32\.E4M3\.E4M3'
      else # emulated or absent there: the run must not measure it
        none "$sass" "$arch" 7mma_fp8E 'QMMA'
      fi
      checked=$((checked + 1))
    fi
    if grep -q "wgmma_kernel" <<<"$sass"; then # gpu_tensor_async.cu: wgmma, sm_90a only
      if [ "$arch" = sm_90 ]; then
        expect 10wgmma_fp16E 'HGMMA\.64x256x16\.F32( |;)' $unroll
        expect 10wgmma_bf16E 'HGMMA\.64x256x16\.F32\.BF16' $unroll
        expect 10wgmma_tf32E 'HGMMA\.64x256x8\.F32\.TF32' $unroll
        expect 9wgmma_fp8E 'QGMMA\.64x256x32\.F32\.E4M3\.E4M3' $unroll
        expect 10wgmma_int8E 'IGMMA\.64x256x32\.S8\.S8' $unroll
        wgmma=$((wgmma + 1))
      else
        none "$sass" "$arch" wgmma_kernel 'GMMA'
      fi
    fi
    if grep -q "tcgen05_kernel" <<<"$sass"; then # tcgen05: sm_100a, sm_103a
      if [ "$arch" = sm_100 ] || [ "$arch" = sm_103 ]; then
        expect 9umma_fp16E 'UTCHMMA ' $unroll
        expect 9umma_bf16E 'UTCHMMA ' $unroll
        expect 9umma_tf32E 'UTCHMMA ' $unroll
        expect 8umma_fp8E 'UTCQMMA ' $unroll
        if [ "$specific" = sm_100a ]; then
          expect 9umma_int8E 'UTCIMMA ' $unroll
        else # kind::i8 is sm_100a's alone
          none "$sass" "$arch" 9umma_int8E 'UTC.MMA'
        fi
        tcgen05=$((tcgen05 + 1))
      else
        none "$sass" "$arch" tcgen05_kernel 'UTC.MMA'
      fi
    fi
  }
  # wgmma_kernel's cubin names mma_kernel too (tcgen05_kernel shares that cubin).
  each_cubin "$2" mma_kernel "the tensor kernels" check
  [ $checked -ge 1 ] || fail "no cubin of $2 holds the warp-level tensor kernels"
  [ $wgmma -ge 1 ] || fail "no sm_90a cubin of $2 holds the wgmma kernels (is 90a built?)"
  [ $tcgen05 -ge 1 ] || fail "no sm_100a / sm_103a cubin of $2 holds the tcgen05 kernels"
  echo "tensor SASS checked for $checked architectures, wgmma for $wgmma, tcgen05 for $tcgen05"
  ;;
hip)
  compiler="$2" src="$3" flags="$4"
  hip_compiler "$compiler"
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
      expect 8mma_int8E v_mfma_i32_32x32x8i8
      none "$asm" $arch 8mma_tf32E v_mfma
      none "$asm" $arch 7mma_fp8E v_mfma
      none "$asm" $arch 12mma_int8_k16E v_mfma ;;
    gfx940)
      expect 8mma_fp16E v_mfma_f32_32x32x8_f16
      expect 8mma_bf16E v_mfma_f32_32x32x8_bf16
      expect 8mma_fp64E v_mfma_f64_16x16x4_f64
      expect 8mma_tf32E v_mfma_f32_32x32x4_xf32
      expect 7mma_fp8E v_mfma_f32_32x32x16_fp8_fp8
      expect 12mma_int8_k16E v_mfma_i32_32x32x16_i8
      none "$asm" $arch 8mma_int8E v_mfma ;;
    gfx1030)
      ! grep -q v_mfma <<<"$asm" || fail "gfx1030 has no MFMA, yet the code holds one" ;;
    esac
  done
  echo "tensor ISA checked for gfx90a, gfx940, gfx1030"
  ;;
*) fail "usage: check_tensor_isa.sh cuda EXE | hip COMPILER SOURCE_DIR FLAGS" ;;
esac
