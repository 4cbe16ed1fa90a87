#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks `perfgate calibrate --backend cpu` against hand-written references measured in the
# same minute on the same machine (scripts/bench/cpu_reference.c): the all-core STREAM triad
# bandwidth and the AVX-512 FP64 FMA peak must agree within 10% of the median of three reference
# runs (one before, two after, since this VM's bandwidth drifts). Prints both and the ratio;
# exits 1 when either differs by more. Run after scripts/build.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

grep -qw avx512f /proc/cpuinfo || { echo "this CPU has no AVX-512: the FMA reference needs it" >&2; exit 77; }
llc=0
for f in /sys/devices/system/cpu/cpu0/cache/index*/size; do
  s=$(cat "$f"); v=${s%[KMG]}; case "$s" in *K) v=$((v << 10));; *M) v=$((v << 20));; esac
  [ "$v" -gt "$llc" ] && llc=$v
done
echo "==> reference: gcc -O3 -march=native -fopenmp scripts/bench/cpu_reference.c (LLC $((llc >> 20)) MiB)"
gcc -O3 -march=native -fopenmp "$root/scripts/bench/cpu_reference.c" -o "$work/cpu_reference"
OMP_PROC_BIND=true OMP_PLACES=cores "$work/cpu_reference" "$llc" | tee "$work/reference1.json"
echo "==> perfgate calibrate --backend cpu"
"$build/bin/perfgate" calibrate --backend cpu -o "$work/device.json"
echo "==> reference twice more (the same minute; the median of the three is compared)"
for i in 2 3; do
  OMP_PROC_BIND=true OMP_PLACES=cores "$work/cpu_reference" "$llc" | tee "$work/reference$i.json"
done

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
refs = [json.load(open(f"{work}/reference{i}.json")) for i in (1, 2, 3)]
median = lambda xs: sorted(xs)[len(xs) // 2]
dev = json.load(open(f"{work}/device.json"))
best = {(m["key"], m["scope"]): m["best"] for m in dev["measurements"]}
rows = [("STREAM triad (GB/s, all cores)", best[("dram_triad_gbs", "all")], median([r["triad_gbs"] for r in refs])),
        ("FP64 FMA (GFLOPS, all cores)", best[("fp64_gflops", "all")], median([r["fp64_fma_gflops"] for r in refs]))]
ok = True
print(f"{'':34} {'perfgate':>10} {'reference':>10} {'ratio':>7}")
for name, ours, ref in rows:
    ratio = ours / ref
    ok &= abs(ratio - 1) <= 0.10
    print(f"{name:34} {ours:10.2f} {ref:10.2f} {ratio:7.3f}{'' if abs(ratio - 1) <= 0.10 else '  OUTSIDE 10%'}")
sys.exit(0 if ok else 1)
PY
