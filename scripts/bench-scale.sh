#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How perfgate's cost grows with the number of kernels (issue 16): for profiles of 10, 1,000 and
# 20,000 kernels (declared work, measured times, two devices), times `perfgate run --collector
# profile --report` (the report JSON and its roofline SVG, written as one unit) and `perfgate
# report --format md|html` of that report, and prints each time and its ratio to the 1,000-kernel
# time next to the kernel ratio (20x: linear growth keeps the time ratio near it). Also times
# forwarding 400,000 lines of a program's stderr. Exits 1 when 20,000 kernels take 5 s or more
# for any step, or a time ratio exceeds twice the kernel ratio. Run after scripts/build.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
perfgate="$build/bin/perfgate"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import json, sys
for n in (10, 1000, 20000):
    kernels = [{
        "name": f"void kernel_{i:05d}<float, {i % 7}>(float const*, float*, int)",
        "invocations": 1 + i % 3,
        "declared_work": {"fp32_flops": 1e9 * (1 + i % 13), "fp64_flops": 0, "int_ops": 0,
                          "bytes": 1e8 * (1 + i % 17)},
        "time_s": 1e-3 * (1 + i % 11)} for i in range(n)]
    with open(f"{sys.argv[1]}/profile{n}.json", "w") as f:
        json.dump({"schema": "perfgate-profile/1",
                   "source": {"format": "perfgate-profile/1", "file": "bench-scale"},
                   "device": {"name": "NVIDIA H100 80GB HBM3", "warp_size": 32},
                   "kernels": kernels}, f)
PY

seconds() { # seconds COMMAND...: wall time of the command, its output discarded
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

status=0
check() { # check STEP N1000_TIME N20000_TIME
  local ratio
  ratio=$(echo "$3 / ($2 + 0.001)" | bc -l)
  printf "  %-28s 20,000/1,000 kernels: %6.1fx the time for 20x the kernels\n" "$1" "$ratio"
  if (($(echo "$3 >= 5" | bc -l))); then
    echo "  FAIL: $1 took $3 s for 20,000 kernels (limit 5 s)"; status=1
  fi
  if (($(echo "$ratio > 40" | bc -l))); then
    echo "  FAIL: $1 grows faster than linearly (time ratio $ratio for 20x the kernels)"; status=1
  fi
}

declare -A t
printf "%-8s %10s %10s %10s\n" kernels run md html
for n in 10 1000 20000; do
  t[run$n]=$(seconds "$perfgate" run --collector profile --profile "$work/profile$n.json" \
    --device h100-sxm --device mi300x --report "$work/out$n/report.json")
  t[md$n]=$(seconds "$perfgate" report "$work/out$n/report.json" --format md)
  t[html$n]=$(seconds "$perfgate" report "$work/out$n/report.json" --format html)
  printf "%-8s %9.2fs %9.2fs %9.2fs\n" "$n" "${t[run$n]}" "${t[md$n]}" "${t[html$n]}"
done
check "run (report JSON + SVG)" "${t[run1000]}" "${t[run20000]}"
check "report --format md" "${t[md1000]}" "${t[md20000]}"
check "report --format html" "${t[html1000]}" "${t[html20000]}"
echo "  report JSON $(du -h "$work/out20000/report.json" | cut -f1), roofline SVG" \
     "$(du -h "$work/out20000/report.roofline.svg" | cut -f1) for 20,000 kernels"

# stderr forwarding: 400,000 lines through `perfgate run --collector profile` vs the program alone.
lines="$work/lines.sh"
printf '#!/bin/sh\nseq 1 400000 >&2\n' > "$lines" && chmod +x "$lines"
alone=$(seconds sh -c "'$lines' 2>/dev/null")
# Through a pipe, as under CTest.
through=$(seconds sh -c "'$perfgate' run --collector profile --profile '$work/profile10.json' \
  --device h100-sxm -- '$lines' 2>&1 | cat")
printf "stderr, 400,000 lines: program alone %.2fs, forwarded by perfgate %.2fs\n" "$alone" "$through"
if (($(echo "$through > $alone + 2" | bc -l))); then
  echo "  FAIL: forwarding stderr costs more than 2 s over the program's own time"; status=1
fi
exit $status
