#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every check that needs a GPU, in one command (issue 21), for a maintainer or the self-hosted
# perf workflow on a machine with an NVIDIA or AMD GPU:
#   0. `perfgate resources`: the GPUs it lists for CTest against nvidia-smi's (rocminfo's), with
#      the libraries' answers recorded in gpu-answers.json;
#   1. the project's tests (ctest), whose GPU cases run instead of skipping;
#   2. `perfgate calibrate`, each measured peak beside the device DB's datasheet value for this
#      GPU (a measured peak above the datasheet means the datasheet is no bound);
#   3. the saxpy and sgemm_tiled examples under each collector of the vendor (cupti and ncu, or
#      rocprof), and one kernel's work cross-checked between cupti and ncu (the same hardware
#      counters through two tools: W_comp exactly, W_traf within 1%);
#   4. the bound: no example kernel beats its roof on the calibrated device.
# It uses the build in ${PERFGATE_BUILD_DIR:-build} (built first when it has no perfgate: a GPU
# host may lack the compilers, so build elsewhere and carry the tree) and writes
# ${PERFGATE_GPU_CHECK_DIR:-gpu-check}/summary.md and summary.json with the numbers.
# Exits 77 with the reason where there is no GPU, 1 when a check fails, 0 otherwise. Aims at
# 10 minutes on one GPU: the test suite runs in parallel and every step has a time limit.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
out="${PERFGATE_GPU_CHECK_DIR:-$root/gpu-check}"

vendor=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  vendor=nvidia
elif command -v rocminfo >/dev/null 2>&1 && rocminfo 2>/dev/null | grep -q 'Name: *gfx'; then
  vendor=amd
fi
if [ -z "$vendor" ]; then
  echo "gpu-check: SKIPPED: no GPU here (nvidia-smi -L lists no NVIDIA GPU, rocminfo no gfx agent)"
  exit 77
fi

rm -rf "$out" && mkdir -p "$out"
results="$out/results.tsv" # step, status, detail: summary.py turns it into Markdown and JSON
: >"$results"
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; echo "gpu-check: $1: $2 ($3)"; }

perfgate="$build/bin/perfgate"
if [ ! -x "$perfgate" ]; then
  "$root/scripts/build.sh" >"$out/build.log" 2>&1 || { record build fail "see build.log"; }
fi
examples="$build/examples"
if [ -x "$perfgate" ] && [ ! -d "$examples/gpu" ]; then
  { cmake --install "$build" --prefix "$build/install" &&
    cmake -S "$root/examples" -B "$examples" -DCMAKE_PREFIX_PATH="$build/install" \
      -DCMAKE_BUILD_TYPE=Release && cmake --build "$examples" --parallel "$(nproc)"; } \
    >"$out/examples-build.log" 2>&1 || record examples-build fail "see examples-build.log"
fi
if [ ! -x "$perfgate" ]; then
  record perfgate fail "no $perfgate"
  python3 "$root/scripts/gpu_check_summary.py" "$results" "$out" "$vendor"
  exit 1
fi

# 0. The GPUs for CTest's resource specification: NVML's (ROCm SMI's) list against the vendor
# tool's, and the libraries' answers kept (a real recording for tests/data/resources).
if timeout 60 "$perfgate" resources --record "$out/gpu-answers.json" -o "$out/resources.json" \
  >"$out/resources.log" 2>&1; then
  listed="$(grep -c '"id"' "$out/resources.json")"
  if [ "$vendor" = nvidia ]; then
    present="$(nvidia-smi -L | grep -c '^GPU ')"
  else
    present="$(rocminfo | grep -c 'Name: *gfx')"
  fi
  [ "$listed" -eq "$present" ] && record resources pass "$listed GPU(s) listed" ||
    record resources fail "$listed GPU(s) listed, $present present (see resources.log)"
else
  record resources fail "see resources.log"
fi

# 1. The test suite.
timeout 420 ctest --test-dir "$build" -j "$(nproc)" --output-on-failure >"$out/ctest.log" 2>&1
rc=$?
line="$(grep -E '[0-9]+% tests passed' "$out/ctest.log" | tail -1)"
[ $rc -eq 0 ] && record tests pass "$line" || record tests fail "exit $rc: ${line:-see ctest.log}"

# 2. Calibration against the datasheet.
backend=cuda && [ "$vendor" = amd ] && backend=hip
if timeout 120 "$perfgate" calibrate --backend "$backend" -o "$out/calibrated.json" \
  >"$out/calibrate.log" 2>&1; then
  "$perfgate" devices --format json >"$out/devices.json" 2>/dev/null
  detail="$(python3 "$root/scripts/gpu_check_summary.py" --compare-datasheet \
    "$out/calibrated.json" "$out/devices.json")"
  [ $? -eq 0 ] && record calibrate pass "$detail" || record calibrate fail "$detail"
else
  record calibrate fail "see calibrate.log"
fi

# 3. The collectors on the examples, and 4. the bound.
collectors=(cupti ncu) && [ "$vendor" = amd ] && collectors=(rocprof)
prefix=example_ && [ "$vendor" = amd ] && prefix=example_hip_
device="$out/calibrated.json" && [ -f "$device" ] || device=h100-sxm
for c in "${collectors[@]}"; do
  for e in saxpy sgemm_tiled; do
    program="$examples/gpu/$prefix$e"
    if [ ! -x "$program" ]; then
      record "run-$c-$e" fail "no $program"
      continue
    fi
    timeout 120 "$perfgate" run --collector "$c" --device "$device" --min-efficiency 0 \
      --report "$out/run-$c-$e.json" -- "$program" >"$out/run-$c-$e.log" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
      record "run-$c-$e" skip "$(grep -m1 'skipped' "$out/run-$c-$e.log")"
    elif [ $rc -le 1 ] && [ -f "$out/run-$c-$e.json" ]; then
      record "run-$c-$e" pass "exit $rc"
    else
      record "run-$c-$e" fail "exit $rc: $(tail -1 "$out/run-$c-$e.log")"
    fi
  done
done
python3 "$root/scripts/gpu_check_summary.py" --checks "$out" >>"$results"
python3 "$root/scripts/gpu_check_summary.py" "$results" "$out" "$vendor"
