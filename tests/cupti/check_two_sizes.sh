#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check_two_sizes.sh PERFGATE TWO_SIZES WORK: `perfgate run --collector cupti` on a program that
# launches one kernel once at 2^24 floats and three times at 2^20 (one grid). The report must
# hold two kernels, each judged on its own launches: the big one on its single launch (a group
# of one keeps it), the small one on the two after its warm-up, each with the DRAM traffic of
# those launches (a read and a write of 4 B per float, within 20%) and a time no shorter than
# that traffic at 5 TB/s (faster than any Hopper's memory). Exit 77 where perfgate skips.
set -u
perfgate=$1 program=$2 work=$3
mkdir -p "$work"
report="$work/two_sizes.report.json"
rm -f "$report"
"$perfgate" run --collector cupti --device h100-sxm --kernels "^scale" --min-efficiency 0 \
  --max-efficiency 1000 --report "$report" -- "$program"
rc=$?
if [ "$rc" -eq 77 ]; then exit 77; fi
if [ "$rc" -ne 0 ]; then echo "FAIL: perfgate run exited with $rc"; exit 1; fi
python3 - "$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ks = sorted((k for k in r["kernels"] if k["name"].startswith("scale")), key=lambda k: k["name"])
names = [k["name"] for k in ks]
assert names == ["scale(float*, unsigned long, float) [grid 1024x1x1 block 256x1x1 #2]",
                 "scale(float*, unsigned long, float) [grid 1024x1x1 block 256x1x1]"], names
small, big = ks
for k, n, launches in ((big, 2**24, 1), (small, 2**20, 2)):
    assert k["invocations"] == launches, (k["name"], k["invocations"])
    want = 8 * n * launches
    w = k["params"]["W_traf"]
    assert 0.8 * want < w < 1.2 * want, (k["name"], w, want)
    t = k["measured"]["time_s"]
    assert t >= w / 5e12, (k["name"], t, w)
    print("two sizes: %s: %d launches, W_traf %.3g B, %.3g s" % (k["name"], launches, w, t))
PY
