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
fail() { echo "FAIL: $*" >&2; exit 1; }
steps=64

# count INSTRUCTION_REGEX KERNEL_MARKER < listing: the instructions inside one kernel's listing.
count_in() {
  awk -v kernel="$2" -v re="$1" '
    /Function :|^_Z[_a-zA-Z0-9.]*:/ { inside = index($0, kernel) > 0 } # a kernel starts
    inside && $0 ~ re { n++ }
    END { print n + 0 }'
}

case "$1" in
cuda)
  exe="$(realpath "$2")"
  # cuobjdump and nvdisasm: the CUDA toolkit's, else the PyPI wheels' (nvidia-cuda-cuobjdump,
  # nvidia-cuda-nvdisasm), which need no GPU.
  wheels="$(python3 -c 'import glob, os, nvidia; print(":".join(d for p in nvidia.__path__ for d in glob.glob(os.path.join(p, "*", "bin"))))' 2>/dev/null || true)"
  export PATH="${wheels:+$wheels:}/usr/local/cuda/bin:$PATH"
  if ! command -v cuobjdump >/dev/null || ! command -v nvdisasm >/dev/null; then
    echo "skipped: no cuobjdump/nvdisasm (CUDA toolkit bin/, or pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)"
    exit 77
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && cuobjdump -xelf all "$exe" >/dev/null)
  checked=0
  for cubin in "$work"/*.cubin; do
    sass="$(cuobjdump -sass "$cubin")"
    grep -q "mma_kernel" <<<"$sass" || continue
    arch="$(grep -oE 'sm_[0-9]+' <<<"$(basename "$cubin")" | head -1)"
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
  [ $checked -ge 1 ] || fail "no cubin of $exe holds the tensor kernels"
  echo "tensor SASS checked for $checked architectures"
  ;;
hip)
  compiler="$2" src="$3" flags="$4"
  for arch in gfx90a gfx940 gfx1030; do
    # shellcheck disable=SC2086 # the flags are a list
    asm="$("$compiler" $flags -x hip -std=c++17 -O3 -S --cuda-device-only --offload-arch=$arch \
           -I "$src/microbench/gpu" -I "$src/perfgate" "$src/microbench/gpu/gpu_tensor.cu" -o -)"
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
