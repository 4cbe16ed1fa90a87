#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check_nvbench_run.sh PERFGATE COPY_BENCH WORK: `perfgate run --collector nvbench` on
# copy_bench.cu's copy benchmark. Every GPU state (T = I32, F64; Elements = 2^20, 2^24) must be
# a kernel with nvbench's cold time and CUPTI's counters of copy_kernel alone (fill, which
# prepares the input, is setup): 2 x n x sizeof(T) bytes of DRAM traffic within 20%, and the
# compute side measured. The bound is H100's whatever the GPU: only the collection is checked.
# Exit 77 (skip) where perfgate skips (no GPU, no permission).
set -u
perfgate=$1 bench=$2 work=$3
mkdir -p "$work"
report="$work/copy.report.json"
rm -f "$report"
"$perfgate" run --collector nvbench --device h100-sxm --kernels "^copy " --min-efficiency 0 \
  --max-efficiency 1000 --report "$report" -- "$bench"
rc=$?
if [ "$rc" -eq 77 ]; then exit 77; fi
if [ "$rc" -ne 0 ]; then echo "FAIL: perfgate run exited with $rc"; exit 1; fi
python3 - "$report" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
ks = {k["name"]: k for k in r["kernels"] if k["name"].startswith("copy [")}
assert len(ks) == 4, sorted(ks)
for name, k in sorted(ks.items()):
    m = re.search(r"T=(I32|F64) Elements=2\^(\d+)", name)
    assert m, name
    size = 4 if m.group(1) == "I32" else 8
    want = 2 * size * 2 ** int(m.group(2))
    w = k["params"]["W_traf"]
    assert 0.8 * want < w < 1.2 * want, (name, w, want)
    assert k["params"].get("compute_declared", True), name
    assert k["measured"]["time_s"] > 0, name
    print("nvbench end to end: %s W_traf %.3g B (declared %.3g), %.3g s" %
          (name, w, want, k["measured"]["time_s"]))
PY
