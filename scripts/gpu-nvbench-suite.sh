#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An nvbench suite perfgate did not write, gated as a user gates it (issue 43): each nvbench
# program given runs once on its own (`--json`, nvbench's own report: the reference) and once
# under `perfgate run --collector nvbench` (every state a kernel, CUPTI's counters per state);
# then gpu_nvbench_compare.py compares the two state by state and the gate's cost with the
# program's.
#   scripts/gpu-nvbench-suite.sh OUT_DIR DEVICE PROGRAM...
# DEVICE: what the states are judged against (a device id such as h200, or a calibrated file).
# Writes OUT_DIR/nvbench-suite.md and .json. Exits 77 with the reason where there is no NVIDIA
# GPU, 1 when a program's states and perfgate's kernels disagree, 0 otherwise. Each program has
# PERFGATE_NVBENCH_SUITE_SECONDS (default 120) for each of its two runs.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 3 ] || { echo "usage: $0 OUT_DIR DEVICE PROGRAM..." >&2; exit 2; }
out=$1 device=$2
shift 2
perfgate="${PERFGATE:-${PERFGATE_BUILD_DIR:-$root/build}/bin/perfgate}"
limit="${PERFGATE_NVBENCH_SUITE_SECONDS:-120}"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "gpu-nvbench-suite: SKIPPED: no NVIDIA GPU here (nvidia-smi -L lists none)"
  exit 77
fi
mkdir -p "$out"
now() { date +%s.%N; }
rows=()
for program in "$@"; do
  name="$(basename "$program")"
  echo "==> $name: nvbench alone"
  t0=$(now)
  timeout "$limit" "$program" --json "$out/$name.nvbench.json" >"$out/$name.nvbench.log" 2>&1
  rc_plain=$?
  t1=$(now)
  echo "==> $name: under perfgate run --collector nvbench"
  timeout "$limit" "$perfgate" run --collector nvbench --device "$device" --min-efficiency 0 \
    --max-efficiency 1000 --report "$out/$name.report.json" -- "$program" \
    >"$out/$name.perfgate.log" 2>&1
  rc_gate=$?
  t2=$(now)
  rows+=("$name" "$rc_plain" "$(awk "BEGIN{print $t1 - $t0}")" "$rc_gate" "$(awk "BEGIN{print $t2 - $t1}")")
done
python3 "$root/scripts/gpu_nvbench_compare.py" "$out" "${rows[@]}"
