#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# try-real-suite.sh [WORK_DIR]: gates a real third-party Google Benchmark suite, unmodified:
# snappy's snappy_benchmark.cc (every benchmark calls state.SetBytesProcessed, none declares
# perfgate counters), from Debian's source package, built against Debian's libbenchmark and
# gated by an outside CMake project with add_perf_prediction. Prints the verdict of every
# BM_UFlat and BM_ZFlat state. Not part of CI: it downloads the source package.
#
# What it needs: Debian (apt-get, dpkg-source), the network to the Debian archive, Debian's
# libbenchmark-dev (scripts/install-deps.sh), cmake, and a perfgate build (PERFGATE_BUILD_DIR,
# default build/; built by scripts/build.sh when missing). It changes nothing on the system: the
# deb-src line (the archive and suite of the system's own Debian sources) lives in a private apt
# configuration under WORK_DIR (default /tmp/perfgate-real-suite), and perfgate is installed
# into WORK_DIR/prefix. PERFGATE_DEB_SRC overrides the line ("deb-src URI SUITE main").
# Exit: 0 every state judged, passed and within its roof; 1 a state failed its gate or is above
# its roof; 2 a step failed (never CTest's own codes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mkdir -p "${1:-/tmp/perfgate-real-suite}" && cd "${1:-/tmp/perfgate-real-suite}" && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
step() { echo "==> $*"; }
fail() { echo "try-real-suite: error: $*" >&2; exit 2; }

for tool in apt-get dpkg-source cmake python3; do
  command -v "$tool" >/dev/null || fail "$tool not found (this walk-through needs Debian's apt and dpkg-dev)"
done
[ -f /usr/include/benchmark/benchmark.h ] ||
  fail "Debian's libbenchmark-dev is missing (scripts/install-deps.sh installs it)"

# 1. The source package, through a private apt configuration with one deb-src line for the
#    archive and suite the system's own sources name.
deb_src_line() {
  if [ -n "${PERFGATE_DEB_SRC:-}" ]; then echo "$PERFGATE_DEB_SRC"; return; fi
  local uri="" suite=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then # deb822 (Debian 12 and later)
    uri="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
    suite="$(awk '/^Suites:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then # one-line format
    read -r uri suite < <(awk '$1 == "deb" && $2 !~ /^\[/ {print $2, $3; exit}' /etc/apt/sources.list) || true
  fi
  [ -n "$uri" ] && [ -n "$suite" ] || fail "no Debian archive in /etc/apt/sources.list(.d); set PERFGATE_DEB_SRC=\"deb-src URI SUITE main\""
  echo "deb-src $uri $suite main"
}
apt_dir="$work/apt"
mkdir -p "$apt_dir/lists/partial" "$work/src"
deb_src_line >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$apt_dir/lists" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
step "source package: snappy ($(cat "$apt_dir/sources.list"))"
apt-get "${apt_opts[@]}" -q update >"$work/apt-update.log" 2>&1 ||
  fail "apt-get update with the deb-src line failed (see $work/apt-update.log)"
src="$(ls -d "$work"/src/snappy-*/ 2>/dev/null | head -1 || true)"
if [ -z "$src" ]; then
  (cd "$work/src" && apt-get "${apt_opts[@]}" -q source snappy) >"$work/apt-source.log" 2>&1 ||
    fail "apt-get source snappy failed (see $work/apt-source.log)"
  src="$(ls -d "$work"/src/snappy-*/ | head -1)"
fi
src="${src%/}"
[ -f "$src/snappy_benchmark.cc" ] || fail "$src has no snappy_benchmark.cc"
echo "    $src ($(grep -c 'SetBytesProcessed' "$src/snappy_benchmark.cc") calls of SetBytesProcessed, $(grep -c 'perfgate_' "$src/snappy_benchmark.cc") perfgate counters)"

# 2. perfgate, installed as a user would have it.
if [ ! -x "$build/perfgate/perfgate" ] && [ ! -f "$build/CMakeCache.txt" ]; then
  step "perfgate: no build in $build, building it"
  PERFGATE_BUILD_DIR="$build" "$root/scripts/build.sh" >"$work/perfgate-build.log" 2>&1 ||
    fail "building perfgate failed (see $work/perfgate-build.log)"
fi
step "perfgate: install $build into $work/prefix"
cmake --build "$build" --parallel "$(nproc)" >"$work/perfgate-build.log" 2>&1 ||
  fail "building perfgate failed (see $work/perfgate-build.log)"
cmake --install "$build" --prefix "$work/prefix" >"$work/perfgate-install.log" 2>&1 ||
  fail "installing perfgate failed (see $work/perfgate-install.log)"

# 3. The outside project: snappy's own CMakeLists (its benchmark program, against Debian's
#    libbenchmark as Debian's packaging patches it to), and one add_perf_prediction.
project="$work/gate"
mkdir -p "$project"
cat >"$project/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(gate_snappy LANGUAGES C CXX)
enable_testing()
find_package(PerfGate REQUIRED)
include(PerfGate)

# snappy's build, unchanged; only its benchmark program (no tests: they need gmock sources).
set(SNAPPY_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(SNAPPY_BUILD_BENCHMARKS ON CACHE BOOL "" FORCE)
set(CMAKE_POLICY_VERSION_MINIMUM 3.5) # snappy asks for CMake 3.1, which CMake 4 refuses
add_subdirectory("$src" snappy)

# Every BM_UFlat and BM_ZFlat state: Google Benchmark's bytes_per_second is the traffic and,
# with no working set declared, one iteration's bytes stand for it, so each state is held to
# the cache level that holds its input (L1 for the 200-byte JPEG, L2 for the 100-500 KB files).
# Snappy spends its time decoding and encoding, far below those rates: the floor only catches a
# collapse. Measured against these roofs (AMD EPYC family 25, 2 cores, 2026-11-27): the
# slowest state, BM_ZFlat/9 (txt4, 482 KB), at 0.0017 of L2; the floor is a third of that.
add_perf_prediction(snappy_benchmark NAME perf.snappy
  KERNELS "^BM_[UZ]Flat/[0-9]+\$"
  ARGS --benchmark_filter=^BM_[UZ]Flat/[0-9]+\$ --benchmark_min_time=0.1
  MIN_EFFICIENCY 0.0005 REPORT_DIR "$work/reports" TIMEOUT 900)
# snappy's benchmarks read testdata/ under \$srcdir (as Automake sets it).
set_tests_properties(perf.snappy PROPERTIES ENVIRONMENT "srcdir=$src")
EOF
step "configure and build the outside project ($project)"
rm -rf "$work/gate-build"
cmake -S "$project" -B "$work/gate-build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/gate-configure.log" 2>&1 ||
  fail "configuring $project failed (see $work/gate-configure.log)"
# Only the benchmark program: Debian's snappy 1.1.9 links libsnappy.a from two targets at once
# under a parallel build of everything ("file truncated", undefined references).
cmake --build "$work/gate-build" --target snappy_benchmark --parallel "$(nproc)" \
  >"$work/gate-build.log" 2>&1 || fail "building snappy_benchmark failed (see $work/gate-build.log)"

# 4. ctest -L perf, as CI would run it, and every state's verdict from the report.
step "ctest -L perf (calibrates this CPU once, then runs snappy_benchmark under perfgate)"
rm -rf "$work/reports"
set +e
ctest --test-dir "$work/gate-build" -L perf --output-on-failure >"$work/ctest.log" 2>&1
rc=$?
set -e
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed" "$work/ctest.log" || true
report="$(ls "$work"/reports/*.json 2>/dev/null | head -1 || true)"
[ -n "$report" ] || { cat "$work/ctest.log"; fail "perf.snappy wrote no report"; }
set +e
python3 - "$report" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
rows, judged = [], {"BM_UFlat": 0, "BM_ZFlat": 0}
for k in r["kernels"]:
    m = re.match(r"(BM_[UZ]Flat)/(\d+)$", k["name"])
    if not m:
        continue
    judged[m.group(1)] += 1
    p, v = k["params"], k["verdict"]
    local = k["predictions"][0]  # the local device, the one the verdict is on
    roof = local["roof"]
    via = next((t.get("via", "") for t in roof["terms"] if t["resource"] == roof["limiter"]), "")
    rows.append((k["name"], p["W_traf"] / k["measured"]["time_s"] / 1e9,
                 roof["limiter"] + (" (%s)" % via if via else ""), v.get("efficiency"),
                 v["status"], p.get("compute_declared", True)))
print("%-13s %8s %10s  %-8s %s" % ("state", "GB/s", "efficiency", "verdict", "roof"))
for name, gbs, limiter, eff, status, declared in rows:
    print("%-13s %8.2f %10s  %-8s %s%s" % (name, gbs, "-" if eff is None else "%.4f" % eff,
                                          status, limiter, "" if declared else "; bytes only"))
above = [name for name, _, _, eff, _, _ in rows if eff is not None and eff > 1.0]
print("judged: %d BM_UFlat, %d BM_ZFlat states, %d above their roof (report %s)" %
      (judged["BM_UFlat"], judged["BM_ZFlat"], len(above), sys.argv[1]))
if min(judged.values()) == 0:
    print("try-real-suite: error: a family of states was not judged", file=sys.stderr)
    sys.exit(2)
failed = [name for name, _, _, _, status, _ in rows if status == "fail"]
sys.exit(1 if above or failed else 0)
PY
check=$?
set -e
[ "$check" -ne 2 ] || exit 2
# CTest says 8 when a test fails; this script's codes are its own (above): a failed ctest run
# with every state passing failed for another reason (a crash, a timeout).
[ "$check" -eq 1 ] && exit 1
[ "$rc" -eq 0 ] || fail "ctest -L perf failed, yet every state passed (see $work/ctest.log)"
exit 0
