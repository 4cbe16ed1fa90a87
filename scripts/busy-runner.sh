#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A busy CI runner, reproduced: the default configuration's tests that time this CPU (CTest
# labels `integration` and `cpu_timing`: the micro-benchmarks; the calibration, the perf tests
# of the consumer projects, bisect's A/B runs), ROUNDS times in a row, with a load on every core beside them
# the whole time (stress-ng --cpu <cores>, or a parallel build of something else). A busy
# machine may make numbers lower or noisier; it must never fail a test (issue 51). Stops at the
# first failing round and prints its log.
#
#   scripts/busy-runner.sh [--build DIR] [--rounds N] [--load stress|build] [--all]
#
# --all runs the whole default suite each round instead of those labels. The tree must
# be built (scripts/test.sh, or scripts/build.sh -DPERFGATE_WITH_TESTS=ON). stress-ng is
# installed with apt-get when missing (Debian's stress-ng).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
rounds=10
load=stress
chosen=(-L '^(integration|cpu_timing)$')
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    --all) chosen=(); shift ;;
    *) echo "scripts/busy-runner.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "scripts/busy-runner.sh: $build is not a built test tree (scripts/test.sh makes one)" >&2
  exit 2
fi
# The compiler cache CI's run has (scripts/test.sh): the consumer projects compile perfgate's
# core from source, which under the load alone outlasts their 20-minute limit.
. "$root/scripts/ccache-env.sh"
cores="$(nproc)"
load_pid=""
stop_load() {
  if [ -n "$load_pid" ]; then
    kill -- -"$load_pid" 2>/dev/null || kill "$load_pid" 2>/dev/null || true
    wait "$load_pid" 2>/dev/null || true
  fi
}
trap stop_load EXIT
case "$load" in
  stress)
    if ! command -v stress-ng >/dev/null; then
      apt-get install -y --no-install-recommends stress-ng >/dev/null
    fi
    # One CPU hog per core, for as long as the rounds take.
    set -m
    stress-ng --cpu "$cores" --cpu-method matrixprod --quiet &
    load_pid=$!
    set +m
    what="stress-ng --cpu $cores (matrix products on every core)" ;;
  build)
    # A parallel build of something else: perfgate's own library, again and again, in a
    # scratch tree with no compiler cache.
    scratch="$(mktemp -d)"
    cmake -S "$root" -B "$scratch" -G Ninja -DPERFGATE_WITH_TESTS=OFF -DPERFGATE_WITH_CUDA=OFF \
      -DPERFGATE_WITH_HIP=OFF -DCMAKE_CXX_COMPILER_LAUNCHER= >/dev/null
    set -m
    (while :; do ninja -C "$scratch" -j "$cores" perfgate.core >/dev/null 2>&1 || true
                 ninja -C "$scratch" -t clean >/dev/null 2>&1 || true; done) &
    load_pid=$!
    set +m
    what="a -j$cores build of perfgate.core in $scratch, over and over" ;;
  *) echo "scripts/busy-runner.sh: --load stress or build, not '$load'" >&2; exit 2 ;;
esac
echo "==> load: $what"
n_tests="$(ctest --test-dir "$build" --show-only=json-v1 "${chosen[@]}" |
  python3 -c 'import json, sys; print(len(json.load(sys.stdin)["tests"]))')"
echo "==> $rounds rounds of $n_tests tests (${chosen[*]:-the whole suite}) in $build"
for round in $(seq 1 "$rounds"); do
  start=$(date +%s)
  log="$build/busy-runner-round-$round.log"
  if ctest --test-dir "$build" "${chosen[@]}" --output-on-failure --parallel "$cores" >"$log" 2>&1; then
    echo "round $round of $rounds: passed $n_tests of $n_tests in $(( $(date +%s) - start )) s" \
         "(load average $(cut -d' ' -f1 /proc/loadavg))"
  else
    echo "round $round of $rounds: FAILED after $(( $(date +%s) - start )) s; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
done
echo "==> $rounds of $rounds rounds passed under load"
