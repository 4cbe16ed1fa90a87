#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The instruction dependence graphs of the examples' saxpy and tiled sgemm, from their SASS
# (issue 19): compiled for sm_90 here, listed with cuobjdump, read by `perfgate pipeline idg`,
# checked for what the source says (two loads into one FFMA into one store; 32 FFMAs and two
# barriers per tile), then simulated with the H100 latencies fitted from the capture at the
# occupancy their registers and shared memory allow.
#   check_examples_idg.sh PERFGATE EXAMPLES_DIR H100_SWEEP_CSV
# Offline: needs nvcc and cuobjdump (CUDA toolkit bin/ or the pip wheels), else exits 77.
set -euo pipefail
perfgate=$1 examples=$2 sweep=$3
source "$(dirname "$0")/isa_listing.sh"
cuda_tools nvcc cuobjdump
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for e in saxpy sgemm_tiled; do
  nvcc -cubin -arch=sm_90 -O3 -I "$examples" -o "$work/$e.cubin" "$examples/$e.cu" ||
    fail "nvcc could not compile $e.cu"
done
"$perfgate" pipeline idg --cubin "$work/saxpy.cubin" --kernel saxpy -o "$work/saxpy.idg.json"
# The loop's head from the error that lists it, as a user would take it.
set +e
listed="$("$perfgate" pipeline idg --cubin "$work/sgemm_tiled.cubin" --kernel sgemm_tiled 2>&1)"
rc=$?
set -e
[ $rc -eq 2 ] || fail "sgemm_tiled without a trip count: exit $rc, expected 2: $listed"
head="$(grep -oE 'loop\(s\) 0x[0-9a-f]+' <<<"$listed" | grep -oE '0x[0-9a-f]+')" ||
  fail "no loop named in: $listed"
"$perfgate" pipeline idg --cubin "$work/sgemm_tiled.cubin" --kernel sgemm_tiled \
  --trip-count "$head=4" -o "$work/sgemm_tiled.idg.json"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def load(name):
    g = json.load(open(f"{work}/{name}.idg.json"))
    ins = g["instructions"]
    return g, ins, lambda op: [i for i, x in enumerate(ins) if x["op"].split()[1].split(".")[0] == op]
def check(ok, what):
    if not ok:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")
g, ins, at = load("saxpy")
loads, ffma, stores = at("LDG"), at("FFMA"), at("STG")
check(len(loads) == 2 and len(ffma) == 1 and len(stores) == 1,
      f"saxpy: 2 loads, 1 FFMA, 1 store (found {len(loads)}, {len(ffma)}, {len(stores)})")
check(set(loads) <= set(ins[ffma[0]]["deps"]), "saxpy: the FFMA waits for both loads")
check(ffma[0] in ins[stores[0]]["deps"] and ins[stores[0]].get("store"),
      "saxpy: the store waits for the FFMA")
g, ins, at = load("sgemm_tiled")
ffma, bars = at("FFMA"), at("BAR")
check(len(ffma) == 128 and len(bars) == 8,
      f"sgemm_tiled, 4 tiles: 128 FFMAs and 8 barriers (found {len(ffma)}, {len(bars)})")
check(all(ffma[32 * t - 1] in ins[ffma[32 * t]]["deps"] for t in (1, 2, 3)),
      "sgemm_tiled: the sum is carried from tile to tile")
check(all(ins[b].get("barrier") and ins[b]["pipe"] == "sync" for b in bars),
      "sgemm_tiled: barriers on the sync pipe")
PY

# Simulated on one SM with the H100 latencies (fitted from the capture) and a barrier latency
# assumed for the test (the sweep has none): the graphs are what simulate reads.
"$perfgate" pipeline fit --sweep "$sweep" --device h100-sxm -o "$work/h100.json" >/dev/null
python3 - "$work/h100.json" <<'PY'
import json, sys
lat = json.load(open(sys.argv[1]))
lat["ops"]["bar"] = {"pipe": "sync", "issue": 1, "completion": 20,
                     "provenance": "assumed by check_examples_idg.sh, not measured"}
json.dump(lat, open(sys.argv[1], "w"))
PY
# The resident groups from the binary's registers and shared memory (--occupancy auto): 8 blocks
# of 8 warps for saxpy, 2 of 32 for the tiled sgemm fill an H100 SM's 64 warps.
for e in "saxpy 256 1024 8" "sgemm_tiled 1024 32 2"; do
  read -r name threads groups resident <<<"$e"
  trips=() && [ "$name" = sgemm_tiled ] && trips=(--trip-count "$head=4")
  "$perfgate" pipeline idg --cubin "$work/$name.cubin" --kernel "$name" "${trips[@]}" \
    --latencies "$work/h100.json" -o "$work/$name.idg.json" ||
    fail "the H100 latencies do not price $name's graph"
  out="$("$perfgate" pipeline simulate --idg "$work/$name.idg.json" --latencies "$work/h100.json" \
    --threads-per-group "$threads" --groups "$groups" --occupancy auto --in-order \
    --issue-width 4)" || fail "simulate $name"
  grep -qE '[0-9.]+ cycles' <<<"$out" || fail "simulate $name printed no cycles: $out"
  grep -q " $resident at a time (occupancy auto: limited by warps)" <<<"$out" ||
    fail "simulate $name: expected $resident resident groups limited by warps: $out"
  echo "ok: $name simulated: $(tail -1 <<<"$out")"
done
