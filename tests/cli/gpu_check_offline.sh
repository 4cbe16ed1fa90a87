#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/gpu-check.sh offline: without a GPU it exits 77 naming why, and its evaluation steps
# (scripts/gpu_check_summary.py) judge reports and device files made here from real H100 data.
# usage: gpu_check_offline.sh PERFGATE SOURCE_DIR WORK_DIR
set -euo pipefail
perfgate="$1" root="$2" work="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/bin" "$work/runs"

# nvidia-smi and rocminfo that list no GPU: the skip path, on a machine with a GPU as well.
printf '#!/bin/sh\nexit 0\n' >"$work/bin/nvidia-smi"
cp "$work/bin/nvidia-smi" "$work/bin/rocminfo" && chmod +x "$work/bin/nvidia-smi" "$work/bin/rocminfo"
set +e
out="$(PATH="$work/bin:$PATH" PERFGATE_GPU_CHECK_DIR="$work/out" bash "$root/scripts/gpu-check.sh" 2>&1)"
rc=$?
set -e
[ $rc -eq 77 ] || fail "gpu-check without a GPU exited $rc, expected 77: $out"
grep -q "gpu-check: SKIPPED: no GPU here" <<<"$out" || fail "no reason given: $out"

# The datasheet comparison on the real H100 calibration: its integer adds ran at 1.93x the
# datasheet's 64 per SM and clock, so that datasheet value is no bound.
"$perfgate" devices --format json >"$work/devices.json"
set +e
line="$(python3 "$root/scripts/gpu_check_summary.py" --compare-datasheet \
  "$root/tests/data/h100/h100-calibrated.json" "$work/devices.json")"
rc=$?
set -e
[ $rc -eq 1 ] || fail "compare-datasheet exited $rc, expected 1: $line"
grep -q "^measured / datasheet of h100-sxm: dram_gbs 0.901, .*fp32_gflops 0.988, .*; ABOVE THE DATASHEET: int_add_gops$" \
  <<<"$line" || fail "compare-datasheet: $line"

# Cross-check and bound on reports of a real capture: the same report twice agrees with itself;
# a W_comp that differs between the collectors is a failure.
"$perfgate" predict --profile "$root/tests/data/h100/torch_ncu_raw.csv" \
  --device "$root/tests/data/h100/h100-calibrated.json" --kernel vectorized_elementwise \
  --at-measured-clock --format json -o "$work/runs/run-cupti-saxpy.json" 2>/dev/null
cp "$work/runs/run-cupti-saxpy.json" "$work/runs/run-ncu-saxpy.json"
checks="$(python3 "$root/scripts/gpu_check_summary.py" --checks "$work/runs")"
grep -q $'^cross-check-saxpy\tpass\t3 kernels: W_comp equal, W_traf within 1%$' <<<"$checks" ||
  fail "cross-check: $checks"
grep -q $'^bound\tpass\t6 kernels, highest roof/measured 0.961$' <<<"$checks" || fail "bound: $checks"
python3 - "$work/runs/run-ncu-saxpy.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["kernels"][0]["params"]["W_comp"] *= 2
json.dump(r, open(sys.argv[1], "w"))
PY
checks="$(python3 "$root/scripts/gpu_check_summary.py" --checks "$work/runs")"
grep -q $'^cross-check-saxpy\tfail\t.*W_comp' <<<"$checks" || fail "a W_comp mismatch passed: $checks"

# The summary: Markdown and JSON, exit 1 when a step failed.
printf 'tests\tpass\t100%% tests passed\n%s\n' "$checks" >"$work/results.tsv"
set +e
python3 "$root/scripts/gpu_check_summary.py" "$work/results.tsv" "$work" nvidia >/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "summary with a failed step exited $rc"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [s["status"] for s in d["steps"]][:2] == ["pass", "fail"], d' \
  "$work/summary.json" || fail "summary.json"
grep -q "^| cross-check-saxpy | fail |" "$work/summary.md" || fail "summary.md"
echo "gpu-check offline: all checks passed"
