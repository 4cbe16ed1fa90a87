#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every check that needs a GPU, in one command (issues 21 and 32), for a maintainer or the
# self-hosted perf workflow on a machine with an NVIDIA or AMD GPU:
#   0. `perfgate resources`: the GPUs it lists for CTest against nvidia-smi's (rocminfo's), with
#      the libraries' answers recorded in gpu-answers.json;
#   1. the project's tests (ctest), whose GPU cases run instead of skipping; but those that
#      build perfgate or a project against it from scratch (consumer.fetchcontent, consumer.deb,
#      consumer.examples_build, bisect.finds_the_slow_commit: CI runs them; a GPU host may lack
#      the build dependencies, Google Benchmark's and dpkg's among them), and
#      with outcomes read from CTest's JUnit report;
#   2. `perfgate calibrate`, each measured peak beside the datasheet entry calibrate matched to
#      this GPU (peaks.md; a measured peak above its datasheet value means that entry is no bound);
#   3. the latency chains against the reference chains of this GPU where the project has them
#      (tests/data/h100, tests/data/h200: within 5% at 1 warp and at 32);
#   4. the saxpy and sgemm_tiled examples under each collector of the vendor (cupti and ncu, or
#      rocprof), and one kernel's work cross-checked between cupti and ncu (the same hardware
#      counters through two tools: W_comp exactly, W_traf within 1%);
#   5. the bound: no example kernel beats its roof on the calibrated device;
#   6. the examples' own `ctest -L perf`.
# It uses the build in ${PERFGATE_BUILD_DIR:-build} (built first when it has no perfgate: a GPU
# host may lack the compilers, so build elsewhere and carry the tree; docs/ci.md) and writes
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
rebuilds='^consumer\.(fetchcontent|deb|examples_build)$|^bisect\.finds_the_slow_commit$'
timeout "${PERFGATE_GPU_CHECK_TEST_SECONDS:-420}" ctest --test-dir "$build" -j "$(nproc)" \
  --timeout 300 -E "$rebuilds" --output-on-failure --output-junit "$out/ctest-junit.xml" \
  >"$out/ctest.log" 2>&1
rc=$?
line="$(python3 "$root/scripts/gpu_check_summary.py" --junit "$out/ctest-junit.xml")"
[ $rc -eq 0 ] && record tests pass "$line" || record tests fail "exit $rc: $line"

# 2. Calibration against the datasheet.
backend=cuda && [ "$vendor" = amd ] && backend=hip
if timeout 180 "$perfgate" calibrate --backend "$backend" -o "$out/calibrated.json" \
  >"$out/calibrate.log" 2>&1; then
  "$perfgate" devices --format json >"$out/devices.json" 2>/dev/null
  detail="$(python3 "$root/scripts/gpu_check_summary.py" --compare-datasheet \
    "$out/calibrated.json" "$out/devices.json" "$out/peaks.md")"
  [ $? -eq 0 ] && record calibrate pass "$detail" || record calibrate fail "$detail"
  [ -f "$out/peaks.md" ] && cat "$out/peaks.md"
else
  record calibrate fail "see calibrate.log"
fi

# 3. The latency chains against this GPU's reference chains, where the project has them.
datasheet="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("datasheet", ""))' \
  "$out/calibrated.json" 2>/dev/null)"
case "$datasheet" in
h100-sxm) reference="$root/tests/data/h100/pipeline_latency_h100.csv" ;;
h200) reference="$root/tests/data/h200/pipeline_latency_h200.csv" ;;
*) reference="" ;;
esac
if [ -n "$reference" ]; then
  if timeout 120 "$build/bin/perfgate-microbench-$backend" --latency-sweep "$out/latency.csv" \
    >"$out/latency.log" 2>&1; then
    detail="$(python3 "$root/scripts/gpu_check_summary.py" --compare-latencies \
      "$out/latency.csv" "$reference")"
    [ $? -eq 0 ] && record latencies pass "$detail" || record latencies fail "$detail"
  else
    record latencies fail "exit $?: $(tail -1 "$out/latency.log")"
  fi
else
  record latencies skip "no reference chains for ${datasheet:-this GPU} in tests/data"
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

# 6. The examples' own perf tests: a GPU calibration fixture, then every CUDA (HIP) and CPU
# example gated as a user's project gates its kernels.
if [ -d "$examples" ]; then
  timeout "${PERFGATE_GPU_CHECK_EXAMPLE_SECONDS:-300}" ctest --test-dir "$examples" -L perf \
    --output-on-failure --output-junit "$out/examples-junit.xml" >"$out/examples-ctest.log" 2>&1
  rc=$?
  line="$(python3 "$root/scripts/gpu_check_summary.py" --junit "$out/examples-junit.xml")"
  [ $rc -eq 0 ] && record examples pass "$line" || record examples fail "exit $rc: $line"
fi

python3 "$root/scripts/gpu_check_summary.py" "$results" "$out" "$vendor"
