#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 20's experiment in one command: does the gate tell a regression from noise on this
# machine? The example BM_triad (examples/cpu) is gated RUNS times (default 20) against a
# baseline of BASELINE_RUNS runs (default 5, `perfgate baseline accept` of them all), unchanged and with 1.1x, 1.2x and 1.5x slowdowns injected through
# PERFGATE_EXAMPLE_SLOWDOWN (its declared work unchanged). Prints per slowdown how often the gate
# failed (false alarms for 1.0x, detections for the others), how often it said AMBIGUOUS,
# SAME, SLOWER or FASTER, and the gate's wall time against the plain benchmark run with the
# same repetitions. A benchmark record, not a test:
#   scripts/bench-stability.sh 20 2>&1 | tee stability.log
# Environment: PERFGATE_BUILD_DIR (default build), PERFGATE_STABILITY_REPETITIONS (10),
# PERFGATE_STABILITY_BASELINE_RUNS (5),
# PERFGATE_STABILITY_DROP (MAX_EFFICIENCY_DROP, 0.05: a 1.1x slowdown is a 9.1% drop, so it
# is beyond it), PERFGATE_STABILITY_FACTORS ("1.0 1.1 1.2 1.5").
# Exit 1 when the issue's targets are missed: any false alarm, fewer than 95% detections at
# 1.2x or 75% at 1.1x, or a gate slower than 1.5x the plain run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-20}"
build="${PERFGATE_BUILD_DIR:-$root/build}"
reps="${PERFGATE_STABILITY_REPETITIONS:-10}"
baseline_runs="${PERFGATE_STABILITY_BASELINE_RUNS:-5}"
drop="${PERFGATE_STABILITY_DROP:-0.05}"
read -r -a factors <<<"${PERFGATE_STABILITY_FACTORS:-1.0 1.1 1.2 1.5}"
work="$build/bench-stability"
rm -rf "$work" && mkdir -p "$work"

echo "==> build perfgate and the CPU example ($build)"
cmake --build "$build" --target perfgate >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 2; }
cmake --install "$build" --prefix "$build/install" >/dev/null
cmake -S "$root/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$build/install" \
  -DCMAKE_BUILD_TYPE=Release >"$work/examples.log" 2>&1 || { cat "$work/examples.log"; exit 2; }
cmake --build "$work/examples" --target cpu_kernels >>"$work/examples.log" 2>&1 ||
  { cat "$work/examples.log"; exit 2; }
perfgate="$build/install/bin/perfgate"
bench="$work/examples/cpu/cpu_kernels"
program=("$bench" --benchmark_min_time=0.1 --benchmark_filter='^BM_triad$')

echo "==> calibrate this CPU (the roof: the same for the baseline and every run)"
"$perfgate" calibrate --backend cpu -o "$work/local-cpu.json" >"$work/calibrate.log" 2>&1 ||
  { cat "$work/calibrate.log"; exit 2; }

gate() { # gate FACTOR OUT [extra perfgate options...]
  local factor="$1" out="$2"
  shift 2
  PERFGATE_EXAMPLE_SLOWDOWN="$factor" "$perfgate" run --collector gbench \
    --device "$work/local-cpu.json" --kernels '^BM_triad$' --repetitions "$reps" \
    --report "$out" "$@" -- "${program[@]}" >"$out.log" 2>&1
}

echo "==> baseline: $baseline_runs unchanged runs, $reps repetitions each"
bases=()
for b in $(seq 1 "$baseline_runs"); do
  gate 1.0 "$work/base$b.json" || { cat "$work/base$b.json.log"; exit 2; }
  bases+=("$work/base$b.json")
done
"$perfgate" baseline accept "${bases[@]}" -o "$work/baseline.json"

now() { date +%s.%N; }
calc() { awk "BEGIN { print $* }"; } # floating point without bc
declare -A failed ambiguous same slower faster gate_s
plain_s=0
for f in "${factors[@]}"; do
  failed[$f]=0 ambiguous[$f]=0 same[$f]=0 slower[$f]=0 faster[$f]=0 gate_s[$f]=0
done
for i in $(seq 1 "$runs"); do
  for f in "${factors[@]}"; do
    out="$work/run$i-$f.json"
    t0=$(now)
    set +e
    gate "$f" "$out" --baseline "$work/baseline.json" --max-efficiency-drop "$drop"
    code=$?
    set -e
    t1=$(now)
    gate_s[$f]=$(calc "${gate_s[$f]} + $t1 - $t0")
    if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
      cat "$out.log"
      echo "perfgate run exited $code (run $i, slowdown $f)" >&2
      exit 2
    fi
    kind=$(python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernels"][0]["verdict"]
c=k.get("change"); print(c["kind"] if c else "NONE")' "$out")
    [ "$code" -eq 1 ] && failed[$f]=$((failed[$f] + 1))
    case "$kind" in
      AMBIGUOUS) ambiguous[$f]=$((ambiguous[$f] + 1)) ;;
      SAME) same[$f]=$((same[$f] + 1)) ;;
      SLOWER) slower[$f]=$((slower[$f] + 1)) ;;
      FASTER) faster[$f]=$((faster[$f] + 1)) ;;
      *) echo "run $i, slowdown $f: no statistical verdict ($kind)" >&2; exit 2 ;;
    esac
  done
  # The plain benchmark with the same repetitions, for the gate's overhead.
  t0=$(now)
  "${program[@]}" --benchmark_repetitions="$reps" >/dev/null 2>&1
  t1=$(now)
  plain_s=$(calc "$plain_s + $t1 - $t0")
  echo "    run $i/$runs done"
done

status=0
echo
echo "machine: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores); $runs runs per slowdown,"
echo "$reps repetitions each, MAX_EFFICIENCY_DROP $drop, baseline of $baseline_runs runs"
printf '%-9s %-8s %-10s %-5s %-7s %-7s %-9s\n' slowdown failed ambiguous same slower faster gate_s/run
for f in "${factors[@]}"; do
  printf '%-9s %-8s %-10s %-5s %-7s %-7s %-9.2f\n' "${f}x" "${failed[$f]}/$runs" \
    "${ambiguous[$f]}" "${same[$f]}" "${slower[$f]}" "${faster[$f]}" \
    "$(calc "${gate_s[$f]} / $runs")"
  case "$f" in
    1.0) [ "${failed[$f]}" -eq 0 ] || { echo "  false alarms: ${failed[$f]}"; status=1; } ;;
    1.1) [ $((failed[$f] * 4)) -ge $((runs * 3)) ] || { echo "  1.1x caught < 75%"; status=1; } ;;
    1.2) [ $((failed[$f] * 20)) -ge $((runs * 19)) ] || { echo "  1.2x caught < 95%"; status=1; } ;;
  esac
done
plain_run=$(calc "$plain_s / $runs")
gate_run=$(calc "${gate_s[${factors[0]}]} / $runs")
printf 'plain benchmark run: %.2f s; gate (unchanged): %.2f s = %.2fx\n' "$plain_run" "$gate_run" \
  "$(calc "$gate_run / $plain_run")"
if [ "$(calc "($gate_run > 1.5 * $plain_run) ? 1 : 0")" -eq 1 ]; then
  echo "  the gate takes more than 1.5x the plain run"
  status=1
fi
exit "$status"
