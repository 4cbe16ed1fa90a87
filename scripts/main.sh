#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's main command: installs what is missing, builds and installs perfgate, builds the
# examples against the install tree, and runs `ctest -L perf` on them: the CPU kernels gated
# against this machine's calibrated CPU, the GPU kernels (skipped without a GPU, with the
# reason), and the recorded profiles predicted on many GPUs. Reports end up in
# ${PERFGATE_REPORT_DIR:-reports}: one JSON and Markdown per test, all.json and summary.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
reports="${PERFGATE_REPORT_DIR:-$root/reports}"
start=$SECONDS

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
echo "==> install perfgate into $build/install"
cmake --install "$build" --prefix "$build/install" >/dev/null

echo "==> configure and build the examples against it ($build/examples)"
# PERFGATE_AB_BASE_DIR (perf.yml's A/B mode, scripts/ab-base.sh): every example becomes a
# `perfgate ab` of that base build's binary against this tree's.
cmake -S "$root/examples" -B "$build/examples" -DCMAKE_PREFIX_PATH="$build/install" \
  -DCMAKE_BUILD_TYPE=Release -DPERFGATE_AB_BASE_DIR="${PERFGATE_AB_BASE_DIR:-}" \
  >"$build/examples.configure.log" 2>&1 ||
  { cat "$build/examples.configure.log"; exit 1; }
grep -E "perfgate: (CUDA|HIP)" "$build/examples.configure.log" || true
cmake --build "$build/examples" --parallel "$(nproc)"

echo "==> ctest -L perf (the local device is calibrated once, then every example is gated)"
rm -rf "$build/examples/perfgate-reports" "$build/examples"/*/perfgate-reports
set +e
ctest --test-dir "$build/examples" -L perf --output-on-failure | tee "$build/examples.ctest.log"
ctest_status=${PIPESTATUS[0]}
set -e

echo "==> reports in $reports"
rm -rf "$reports"
mkdir -p "$reports"
perfgate="$build/install/bin/perfgate"
mapfile -t files < <(find "$build/examples" -path '*/perfgate-reports/*.json' | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "error: no perf test wrote a report" >&2
  exit 1
fi
for f in "${files[@]}"; do
  name="$(basename "$f" .json)"
  cp "$f" "$reports/$name.json"
  "$perfgate" report "$f" --format md -o "$reports/$name.md" 2>/dev/null
done
"$perfgate" merge "${files[@]}" -o "$reports/all.json" 2>/dev/null
"$perfgate" report "$reports/all.json" --format md -o "$reports/summary.md" 2>/dev/null
"$perfgate" report "$reports/all.json" --format html -o "$reports/summary.html" 2>/dev/null
cp "$build/examples/perfgate/local-cpu.json" "$reports/" 2>/dev/null || true

echo
echo "==> summary ($((SECONDS - start)) s)"
python3 - "$reports/all.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k in r["kernels"]:
    v = k["verdict"]
    eff = f"{v['efficiency']:.2f}" if v.get("efficiency") is not None else "-"
    devices = len(k["predictions"])
    why = v["reasons"][0] if v["reasons"] else ""
    print(f"  {v['status'].upper():5} {k['name'][:40]:40} efficiency {eff:>5}  predicted on {devices} devices")
    if v["status"] in ("fail", "warn"):
        print(f"        {why}")
PY
grep -E "tests passed" "$build/examples.ctest.log" || true
# Skipped tests write no report; their reason is in CTest's log.
grep -hE "^perfgate: skipped: " "$build/examples/Testing/Temporary/LastTest.log" 2>/dev/null |
  sort | uniq -c | sed 's/^ */  skipped x/' || true
echo "Reports: $reports (summary.md, summary.html with the charts, all.json, one .json/.md per test)"
# CTest's status: every example meant to pass passed (the naive SGEMM's test passes when the gate
# flags it). In A/B mode the tests' verdicts are the comparison, so a regression fails here too.
if [ "$ctest_status" -ne 0 ]; then
  echo "error: an example failed its gate (CTest exit $ctest_status; reports written above)" >&2
fi
exit "$ctest_status"
