# SPDX-License-Identifier: Apache-2.0
# Sourced by the check_*_isa.sh scripts: reading the machine code the GPU micro-benchmarks
# compile to, offline (no GPU), so each script holds only what it expects to find.

fail() { echo "FAIL: $*" >&2; exit 1; }

# count_in INSTRUCTION_REGEX KERNEL_MARKER < listing: the instructions inside one kernel's listing.
count_in() {
  awk -v kernel="$2" -v re="$1" '
    /Function :|^_Z[_a-zA-Z0-9.]*:/ { inside = index($0, kernel) > 0 } # a kernel starts
    inside && $0 ~ re { n++ }
    END { print n + 0 }'
}

# at_least LISTING ARCH KERNEL REGEX N: the kernel has N instructions matching REGEX, or more.
at_least() {
  local n
  n="$(count_in "$4" "$3" <<<"$1")"
  [ "$n" -ge "$5" ] || fail "$2 $3: $n instructions matching $4, expected >= $5"
  echo "ok: $2 $3: $n x $4"
}

# between LISTING ARCH KERNEL REGEX BOUND_REGEX: every instruction of the kernel matching REGEX
# lies after its first and before its last instruction matching BOUND_REGEX (a timed chain
# between its two clock reads: code after the second read is not timed).
between() {
  local where
  where="$(awk -v kernel="$3" -v re="$4" -v bound="$5" '
    /Function :|^_Z[_a-zA-Z0-9.]*:/ { inside = index($0, kernel) > 0 }
    inside && $0 ~ bound { if (!first) first = NR; last = NR }
    inside && $0 ~ re { if (!lo) lo = NR; hi = NR }
    END { print first + 0, last + 0, lo + 0, hi + 0 }' <<<"$1")"
  read -r first last lo hi <<<"$where"
  [ "$lo" -gt 0 ] || fail "$2 $3: no instruction matching $4"
  [ "$first" -gt 0 ] && [ "$first" -lt "$lo" ] && [ "$hi" -lt "$last" ] ||
    fail "$2 $3: instructions $4 at lines $lo..$hi are not between the reads $5 at lines $first..$last"
  echo "ok: $2 $3: $4 between the two $5"
}

# none LISTING ARCH KERNEL REGEX: the kernel has no instruction matching REGEX.
none() {
  local n
  n="$(count_in "$4" "$3" <<<"$1")"
  [ "$n" -eq 0 ] || fail "$2 $3: $n instructions matching $4, expected none"
}

# cuda_tools TOOL...: put the CUDA toolkit's bin/, else the PyPI wheels' (nvidia-cuda-cuobjdump,
# nvidia-cuda-nvdisasm: no GPU needed) on PATH; exit 77 (CTest skip) naming what is missing.
cuda_tools() {
  local wheels tool
  wheels="$(python3 -c 'import glob, os, nvidia; print(":".join(d for p in nvidia.__path__ for d in glob.glob(os.path.join(p, "*", "bin"))))' 2>/dev/null || true)"
  export PATH="${wheels:+$wheels:}/usr/local/cuda/bin:$PATH"
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null; then
      echo "skipped: no $tool (CUDA toolkit bin/, or pip install nvidia-cuda-$tool)"
      exit 77
    fi
  done
}

# hip_compiler COMPILER: exit 77 (CTest skip) where the HIP compiler the build was configured
# with is not here (a build carried to a GPU host without it).
hip_compiler() {
  if [ ! -x "$1" ] && ! command -v "$1" >/dev/null; then
    echo "skipped: no HIP compiler $1 on this machine (the build was configured with it)"
    exit 77
  fi
}

# extract_cubins EXE: every cubin of the executable into $work (removed at exit).
extract_cubins() {
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && cuobjdump -xelf all "$(realpath "$1")" >/dev/null)
}

# each_cubin EXE MARKER WHAT CHECK: runs the function CHECK with $cubin, $sass and $arch set for
# every cubin of EXE whose symbol table names MARKER (no disassembly needed to skip the others);
# fails when none does.
each_cubin() {
  local exe="$1" marker="$2" what="$3" check="$4" each_cubin_n=0 # a name CHECK will not use
  extract_cubins "$exe"
  for cubin in "$work"/*.cubin; do
    grep -aq "$marker" "$cubin" || continue
    sass="$(cuobjdump -sass "$cubin")"
    arch="$(cubin_arch "$cubin")"
    "$check"
    each_cubin_n=$((each_cubin_n + 1))
  done
  [ $each_cubin_n -ge 1 ] || fail "no cubin of $exe holds $what"
  echo "$what: SASS checked in $each_cubin_n cubins"
}

# cubin_arch CUBIN: its sm_NN, from the file name cuobjdump gave it.
cubin_arch() { grep -oE 'sm_[0-9]+' <<<"$(basename "$1")" | head -1; }

# hip_asm COMPILER "FLAGS" ARCH SOURCE INCLUDE_DIR...: the device assembly of one source.
hip_asm() {
  local compiler="$1" flags="$2" arch="$3" source="$4" includes=() dir
  shift 4
  for dir in "$@"; do
    includes+=(-I "$dir")
  done
  # shellcheck disable=SC2086 # the flags are a list
  "$compiler" $flags -x hip -std=c++17 -O3 -S --cuda-device-only --offload-arch="$arch" \
    "${includes[@]}" "$source" -o -
}
