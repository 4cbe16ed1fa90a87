#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The gate's cost (issue 54 item 3): two unmodified third-party Google Benchmark suites, each
# run plainly and then under `perfgate run --collector gbench` with the defaults users get (five
# repetitions sharing the time one plain run measures a benchmark for), alternately, ROUNDS
# times (default 3). Prints each round's wall times and the median ratio gate / plain; exit 1
# when a suite's median ratio is above 1.5x, 2 when a step fails.
#   snappy    snappy 1.1.9's snappy_benchmark, its BM_UFlat and BM_ZFlat states, as
#             scripts/try-real-suite.sh builds and gates it (Debian's source package)
#   simdjson  simdjson 3.0.1's bench_ondemand (Debian's source package: its single-header
#             library and the benchmark's own sources, against Debian's libbenchmark; no
#             competitor libraries, which its build would download), with the sample data the
#             package keeps (jsonexamples/: twitter.json, amazon_cellphones.ndjson)
# Not part of CI: it downloads the source packages from the Debian archive the system's apt
# sources name, and it measures this machine (run it on an otherwise idle one).
#   scripts/bench-cost.sh [WORK_DIR] [ROUNDS]     (default /tmp/perfgate-cost, 3)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mkdir -p "${1:-/tmp/perfgate-cost}" && cd "${1:-/tmp/perfgate-cost}" && pwd)"
rounds="${2:-3}"
build="${PERFGATE_BUILD_DIR:-$root/build}"
perfgate="$build/bin/perfgate"
step() { echo "==> $*"; }
fail() { echo "bench-cost: error: $*" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || fail "ROUNDS must be a positive whole number, not '$rounds'"

# 1. snappy's benchmark, built (and gated once) by the walk-through.
step "snappy: scripts/try-real-suite.sh $work/snappy"
rc=0
"$root/scripts/try-real-suite.sh" "$work/snappy" >"$work/try-real-suite.log" 2>&1 || rc=$?
[ "$rc" -le 1 ] || { tail -20 "$work/try-real-suite.log"; fail "try-real-suite.sh failed (see $work/try-real-suite.log)"; }
snappy_src="$(ls -d "$work"/snappy/src/snappy-*/ | head -1)"
snappy_src="${snappy_src%/}"
snappy_bin="$work/snappy/gate-build/snappy/snappy_benchmark"
[ -x "$snappy_bin" ] || fail "no $snappy_bin after try-real-suite.sh"
[ -x "$perfgate" ] || fail "no $perfgate (scripts/build.sh)"

# 2. simdjson's source package through a private apt configuration (try-real-suite.sh's way).
apt_dir="$work/apt"
mkdir -p "$apt_dir/lists/partial" "$work/src"
cp "$work/snappy/apt/sources.list" "$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$apt_dir/lists" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
simdjson_src="$(ls -d "$work"/src/simdjson-*/ 2>/dev/null | head -1 || true)"
if [ -z "$simdjson_src" ]; then
  step "simdjson: source package ($(cat "$apt_dir/sources.list"))"
  apt-get "${apt_opts[@]}" -q update >"$work/apt-update.log" 2>&1 || fail "apt-get update failed (see $work/apt-update.log)"
  (cd "$work/src" && apt-get "${apt_opts[@]}" -q source simdjson) >"$work/apt-source.log" 2>&1 ||
    fail "apt-get source simdjson failed (see $work/apt-source.log)"
  simdjson_src="$(ls -d "$work"/src/simdjson-*/ | head -1)"
fi
simdjson_src="${simdjson_src%/}"
[ -f "$simdjson_src/benchmark/bench_ondemand.cpp" ] || fail "$simdjson_src has no benchmark/bench_ondemand.cpp"

step "simdjson: build bench_ondemand"
mkdir -p "$work/simdjson-project"
cat >"$work/simdjson-project/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(bench_simdjson LANGUAGES CXX)
find_package(benchmark REQUIRED)
add_executable(bench_ondemand "$simdjson_src/benchmark/bench_ondemand.cpp"
                              "$simdjson_src/singleheader/simdjson.cpp")
target_include_directories(bench_ondemand PRIVATE "$simdjson_src/singleheader"
                           "$simdjson_src/benchmark" "$simdjson_src/benchmark/linux")
target_compile_definitions(bench_ondemand PRIVATE
                           SIMDJSON_BENCHMARK_DATA_DIR="$simdjson_src/jsonexamples/")
target_compile_features(bench_ondemand PRIVATE cxx_std_17)
target_link_libraries(bench_ondemand PRIVATE benchmark::benchmark)
EOF
cmake -S "$work/simdjson-project" -B "$work/simdjson-build" -DCMAKE_BUILD_TYPE=Release \
  >"$work/simdjson-configure.log" 2>&1 || fail "configuring bench_ondemand failed (see $work/simdjson-configure.log)"
cmake --build "$work/simdjson-build" --parallel "$(nproc)" >"$work/simdjson-build.log" 2>&1 ||
  fail "building bench_ondemand failed (see $work/simdjson-build.log)"
simdjson_bin="$work/simdjson-build/bench_ondemand"

# 3. This machine's calibration, once (the gate's runs then only read it).
step "calibrate this CPU"
"$perfgate" calibrate --backend cpu -o "$work/local-cpu.json" >"$work/calibrate.log" 2>&1 ||
  fail "perfgate calibrate failed (see $work/calibrate.log)"

# 4. Plain, then gated, alternately. The gate's floor is the snappy walk-through's (bytes-only
#    suites run far below their memory roofs); its verdicts are not what is measured here.
seconds() { # seconds LOG MUST_PASS COMMAND...: runs it (its output to LOG), prints its wall time
  local log=$1 must_pass=$2 start end rc=0
  shift 2
  start=$(date +%s.%N)
  "$@" >"$log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  # The plain run must pass; the gated one may fail its gate (exit 1), as its verdicts are not
  # what is measured, but not otherwise.
  if { [ "$must_pass" = 1 ] && [ "$rc" -ne 0 ]; } || [ "$rc" -gt 1 ]; then
    echo "bench-cost: $1 exited $rc (see $log)" >&2
    return 2
  fi
  python3 -c "print(f'{$end - $start:.2f}')"
}
measure() { # measure NAME PROGRAM ARGS...
  local name=$1 ratios=() plain gate r
  shift
  step "$name: $rounds round(s) of a plain run, then a gated one"
  for r in $(seq 1 "$rounds"); do
    plain="$(seconds "$work/$name-plain-$r.log" 1 "$@")" || exit 2
    gate="$(seconds "$work/$name-gate-$r.log" 0 "$perfgate" run --device "$work/local-cpu.json" \
      --collector gbench --min-efficiency 0.0005 --max-efficiency 10 \
      --report "$work/$name-$r.report.json" -- "$@")" || exit 2
    [ -f "$work/$name-$r.report.json" ] || fail "the gated $name run wrote no report (see $work/$name-gate-$r.log)"
    ratios+=("$(python3 -c "print(f'{$gate / $plain:.3f}')")")
    echo "    round $r: plain ${plain} s, gated ${gate} s, ${ratios[-1]}x"
  done
  python3 - "$name" "${ratios[@]}" <<'PY'
import statistics, sys
name, ratios = sys.argv[1], [float(x) for x in sys.argv[2:]]
median = statistics.median(ratios)
print(f"{name}: gate / plain median {median:.2f}x over {len(ratios)} round(s)"
      f" (min {min(ratios):.2f}x, max {max(ratios):.2f}x); target <= 1.5x")
sys.exit(0 if median <= 1.5 else 1)
PY
}
status=0
(cd "$snappy_src" && export srcdir="$snappy_src" &&
  measure snappy "$snappy_bin" '--benchmark_filter=^BM_[UZ]Flat/[0-9]+$' --benchmark_min_time=0.1) || status=$?
[ "$status" -le 1 ] || exit "$status"
s2=0
measure simdjson "$simdjson_bin" || s2=$?
[ "$s2" -le 1 ] || exit "$s2"
exit $((status > s2 ? status : s2))
