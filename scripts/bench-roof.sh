#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 13's check that the CPU roof holds and is reachable, on whatever CPU this is: runs
# scripts/main.sh RUNS times in a row (default 10), each time after a fresh calibration (as a
# new CI runner would), and each time also gates a user's portable STREAM triad on one thread
# and on every thread (scripts/bench/stream_triad) against the same calibration. Then prints
# every CPU kernel's efficiency per run and checks:
#   - no kernel beats its roof: every efficiency <= 1.02;
#   - the memory-streaming kernels (BM_triad, BM_dot, the STREAM triads) reach >= 0.85.
# Exit 1 when a check fails. A benchmark record, not a test: run it on a quiet machine, e.g.
#   scripts/bench-roof.sh 10 2>&1 | tee roof-runs.log
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-10}"
build="${PERFGATE_BUILD_DIR:-$root/build}"
work="$build/bench-roof"
rm -rf "$work" && mkdir -p "$work"
calibration="$build/examples/perfgate"

for i in $(seq 1 "$runs"); do
  echo "==> run $i/$runs: fresh calibration, scripts/main.sh"
  rm -f "$calibration"/local-cpu.json*
  PERFGATE_REPORT_DIR="$work/run$i" "$root/scripts/main.sh" >"$work/main$i.log" 2>&1 ||
    { tail -30 "$work/main$i.log"; echo "scripts/main.sh failed (run $i)" >&2; exit 2; }
  grep -E '^\s+(PASS|FAIL|SKIP)\s+BM_' "$work/main$i.log" || true
  if [ ! -f "$work/stream/CMakeCache.txt" ]; then
    cmake -S "$root/scripts/bench/stream_triad" -B "$work/stream" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$build/install" >"$work/stream.configure.log" 2>&1 ||
      { cat "$work/stream.configure.log"; exit 2; }
    cmake --build "$work/stream" >"$work/stream.build.log" 2>&1 || { cat "$work/stream.build.log"; exit 2; }
  fi
  # The same calibration (its stamp names the same perfgate binary and machine): reused.
  mkdir -p "$work/stream/perfgate"
  cp "$calibration"/local-cpu.json "$calibration"/local-cpu.json.stamp "$work/stream/perfgate/"
  rm -rf "$work/stream"/perfgate-reports
  ctest --test-dir "$work/stream" -L perf --output-on-failure >"$work/stream$i.log" 2>&1 || true
  mkdir -p "$work/run$i/stream"
  cp "$work/stream"/perfgate-reports/*.json "$work/run$i/stream/"
done

python3 - "$work" "$runs" <<'PY'
import glob, json, sys
work, runs = sys.argv[1], int(sys.argv[2])
streaming = ("BM_triad", "BM_dot", "BM_stream_triad_one", "BM_stream_triad_all")
table, roofs = {}, {}
for i in range(1, runs + 1):
    files = [f"{work}/run{i}/all.json"] + sorted(glob.glob(f"{work}/run{i}/stream/*.json"))
    for f in files:
        for k in json.load(open(f))["kernels"]:
            name = k["name"].split("/")[0]
            if not name.startswith("BM_") or k["verdict"].get("efficiency") is None:
                continue
            table.setdefault(name, {})[i] = k["verdict"]["efficiency"]
            local = [p for p in k["predictions"] if p["device"] == k["verdict"].get("device", "local-cpu")]
            if local and "roof" in local[0]:
                dram = [t for t in local[0]["roof"]["terms"] if t["resource"] == "dram"]
                if dram:
                    roofs.setdefault(name, []).append(f'{dram[0]["rate"]:.1f} ({dram[0].get("via", "best")})')
print(f"\n{'kernel':22}" + "".join(f"{i:>7}" for i in range(1, runs + 1)) + "    min    max  check")
ok = True
for name in sorted(table):
    effs = [table[name].get(i) for i in range(1, runs + 1)]
    got = [e for e in effs if e is not None]
    lo, hi = min(got), max(got)
    need = 0.85 if name in streaming else None
    good = hi <= 1.02 and (need is None or lo >= need) and len(got) == runs
    ok &= good
    check = ("ok" if good else "FAIL") + f" (<= 1.02{'' if need is None else ', >= 0.85'})"
    print(f"{name:22}" + "".join(f"{e:7.3f}" if e is not None else "      -" for e in effs) +
          f" {lo:6.3f} {hi:6.3f}  {check}")
print("\nDRAM roof per run (GB/s, pattern):")
for name in sorted(roofs):
    print(f"  {name:22} " + ", ".join(roofs[name]))
sys.exit(0 if ok else 1)
PY
