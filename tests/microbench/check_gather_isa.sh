#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The gather/scatter micro-benchmarks (microbench/gpu/gpu_uncoalesced.cu) move single 4-byte
# words: per unrolled step, 4 coalesced index loads, then 4 random 32-bit loads (gather) or 4
# coalesced loads and 4 random 32-bit stores (scatter), all in the code each architecture gets.
# Checked offline in the machine code: a compiler that merged or widened the accesses, or emptied
# the loop, would make the benchmark report a rate that is not P_uncoalesced.
# usage: check_gather_isa.sh cuda MICROBENCH_EXE
#        check_gather_isa.sh hip  HIP_COMPILER SOURCE_DIR "HIP_FLAGS"
set -euo pipefail
# shellcheck source=isa_listing.sh
source "$(dirname "${BASH_SOURCE[0]}")/isa_listing.sh"

case "$1" in
cuda)
  cuda_tools cuobjdump
  check() {
    for kernel in 13gather_kernel 14scatter_kernel; do
      # 32-bit accesses only: LDG.E / LDG.E.CONSTANT, STG.E (no .64 / .128 widening).
      at_least "$sass" "$arch" $kernel 'LDG\.E(\.CONSTANT)? ' 8
      at_least "$sass" "$arch" $kernel 'STG\.E ' 4
      none "$sass" "$arch" $kernel '(LDG|STG)\.E\.(64|128)'
    done
  }
  each_cubin "$2" 13gather_kernel "the gather/scatter kernels" check
  ;;
hip)
  compiler="$2" src="$3" flags="$4"
  hip_compiler "$compiler"
  for arch in gfx90a gfx940 gfx1030; do
    asm="$(hip_asm "$compiler" "$flags" $arch "$src/microbench/gpu/gpu_uncoalesced.cu" \
           "$src/microbench/gpu")"
    for kernel in 13gather_kernel 14scatter_kernel; do
      at_least "$asm" $arch $kernel 'global_load_dword ' 8
      at_least "$asm" $arch $kernel 'global_store_dword ' 4
      none "$asm" $arch $kernel 'global_(load|store)_dwordx'
    done
  done
  echo "gather/scatter ISA checked for gfx90a, gfx940, gfx1030"
  ;;
*) fail "usage: check_gather_isa.sh cuda EXE | hip COMPILER SOURCE_DIR FLAGS" ;;
esac
