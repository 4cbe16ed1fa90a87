#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check_cupti_run.sh PERFGATE SAXPY WORK: `perfgate run --collector cupti` on a CUDA SAXPY, then
# the report must hold the kernel with its launches, DRAM traffic, a measured time and the SM
# clock. The program launches saxpy 10 times; `perfgate run` leaves each kernel's first launch
# out (its warm-up: module load, first touch of the pages) unless --keep-warm-up, so the report
# judges 9 launches and the work of 9 (the first run on a real GPU asserted 10 and failed).
# The bound is H100's whatever the GPU: only the collection is checked here, so the
# efficiency limits are wide open. Exit 77 (skip) where perfgate skips (no GPU, no permission).
set -u
perfgate=$1 saxpy=$2 work=$3
mkdir -p "$work"
report="$work/saxpy.report.json"
rm -f "$report"
"$perfgate" run --collector cupti --device h100-sxm --kernels saxpy --min-efficiency 0 \
  --max-efficiency 1000 --report "$report" -- "$saxpy"
rc=$?
if [ "$rc" -eq 77 ]; then exit 77; fi
if [ "$rc" -ne 0 ]; then echo "FAIL: perfgate run exited with $rc"; exit 1; fi
python3 - "$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k = [k for k in r["kernels"] if k["name"].startswith("saxpy")]
assert len(k) == 1, [k["name"] for k in r["kernels"]]
k = k[0]
launches = 10 - 1  # the warm-up launch is left out
assert k["invocations"] == launches, k["invocations"]
# 2 flops and 12 bytes per element, 2^26 elements, per launch judged; DRAM bytes within 20%.
w = k["params"]["W_traf"]
assert 0.8 * 12 * 2**26 * launches < w < 1.2 * 12 * 2**26 * launches, w
assert k["params"]["K_type"] == "fp32"
assert k["measured"]["time_s"] > 0
assert k["measured"].get("sm_clock_mhz", 0) > 0, k["measured"]
print("cupti end to end: saxpy W_traf %.3g B, %.3g s, SM clock %.0f MHz" %
      (w, k["measured"]["time_s"], k["measured"]["sm_clock_mhz"]))
PY
