#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the roofs `perfgate calibrate --backend cpu` gives the gate against hand-written
# references measured in the same minutes on the same machine (scripts/bench/cpu_reference.c):
# the one-core and all-core memory roofs (peaks_one_core / peaks `dram_roof_gbs`) against the
# best of the reference's read, triad and non-temporal triad, and the one-core and all-core FP64
# and FP32 peaks against its FMA loops (a fixed 16 chains of AVX-512 or 12 of AVX2, written
# apart from the calibration's variants, which pick their own width and chain count). The reference runs once before and twice after the calibration (this VM's
# bandwidth drifts) and its median is compared. A roof below 95% of the reference would let real
# kernels beat it: exit 1. Prints both, the ratio and the calibration's wall time. Works on any
# x86-64 (AVX-512, AVX2+FMA or SSE2, chosen by -march=native). Run after scripts/build.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

[ "$(uname -m)" = x86_64 ] || { echo "the reference is x86-64 code; this is $(uname -m)" >&2; exit 77; }
llc=0
for f in /sys/devices/system/cpu/cpu0/cache/index*/size; do
  s=$(cat "$f"); v=${s%[KMG]}; case "$s" in *K) v=$((v << 10));; *M) v=$((v << 20));; esac
  [ "$v" -gt "$llc" ] && llc=$v
done
cpus=$(nproc)
echo "==> reference: gcc -O3 -march=native -fopenmp scripts/bench/cpu_reference.c (LLC $((llc >> 20)) MiB, $cpus CPUs)"
gcc -O3 -march=native -fopenmp "$root/scripts/bench/cpu_reference.c" -o "$work/cpu_reference"
# OMP_WAIT_POLICY=passive: with libgomp's default spinning, two threads of the FMA loop on this
# shared 2-core VM reached one core's rate (60 GFLOPS FP64), where two pinned single-thread
# copies of the same loop reach 58 each (2026-11-27).
export OMP_WAIT_POLICY=passive
reference() { # $1: run number
  OMP_NUM_THREADS=1 OMP_PROC_BIND=true OMP_PLACES=cores "$work/cpu_reference" "$llc" | tee "$work/one$1.json"
  OMP_NUM_THREADS=$cpus OMP_PROC_BIND=true OMP_PLACES=cores "$work/cpu_reference" "$llc" | tee "$work/all$1.json"
}
reference 1
echo "==> perfgate calibrate --backend cpu"
start=$(date +%s.%N)
"$build/bin/perfgate" calibrate --backend cpu -o "$work/device.json"
end=$(date +%s.%N)
echo "==> reference twice more (the median of the three is compared)"
reference 2
reference 3

python3 - "$work" "$start" "$end" <<'PY'
import json, sys
work, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
load = lambda scope: [json.load(open(f"{work}/{scope}{i}.json")) for i in (1, 2, 3)]
one, allc = load("one"), load("all")
median = lambda xs: sorted(xs)[len(xs) // 2]
dev = json.load(open(f"{work}/device.json"))
rows = [("memory roof, one core (GB/s)", dev["peaks_one_core"]["dram_roof_gbs"], median([r["memory_roof_gbs"] for r in one])),
        ("memory roof, all cores (GB/s)", dev["peaks"]["dram_roof_gbs"], median([r["memory_roof_gbs"] for r in allc])),
        ("FP64 FMA, one core (GFLOPS)", dev["peaks_one_core"]["fp64_gflops"], median([r["fp64_fma_gflops"] for r in one])),
        ("FP32 FMA, one core (GFLOPS)", dev["peaks_one_core"]["fp32_gflops"], median([r["fp32_fma_gflops"] for r in one])),
        ("FP64 FMA, all cores (GFLOPS)", dev["peaks"]["fp64_gflops"], median([r["fp64_fma_gflops"] for r in allc])),
        ("FP32 FMA, all cores (GFLOPS)", dev["peaks"]["fp32_gflops"], median([r["fp32_fma_gflops"] for r in allc]))]
ok = True
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
family = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("cpu family")), "?")
print(f"{cpu}, cpu family {family}; reference ISA {allc[0]['isa']}; calibration took {end - start:.1f} s")
notes = {k: v for k, v in dev.get("notes", {}).items() if "gflops" in k} if isinstance(dev.get("notes"), dict) else {}
for k, v in notes.items():
    print(f"  {k}: {v}")
print(f"{'':32} {'perfgate':>10} {'reference':>10} {'ratio':>7}")
for name, ours, ref in rows:
    ratio = ours / ref
    ok &= ratio >= 0.95
    print(f"{name:32} {ours:10.2f} {ref:10.2f} {ratio:7.3f}{'' if ratio >= 0.95 else '  BELOW 95%: kernels can beat this roof'}")
sys.exit(0 if ok else 1)
PY
