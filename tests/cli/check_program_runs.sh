#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What `perfgate run` runs of the program (issue 54): --kernels limits it (the gbench collector
# lists the benchmarks, and the program's one benchmark run is asked for the matching ones by
# exact name; a regex matching none runs no benchmark at all: exit 1, the gate's "matches no
# kernel"), and a bad argument (an unknown device, a malformed regex) is refused (exit 2)
# before the program runs at all. The program is tests/cli/fake_gbench.sh, which logs every
# invocation's arguments.
#   check_program_runs.sh PERFGATE DEVICE_FILE WORK
set -eu
perfgate=$1 device=$2 work=$3
fake="$(dirname "$0")/fake_gbench.sh"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "check_program_runs: $*" >&2; cat "$work"/*.log >&2 || true; exit 1; }

"$perfgate" run --collector gbench --device "$device" --kernels '^BM_triad$' \
  -- "$fake" "--fake-log=$work/one.log" >"$work/one.out" 2>&1 || fail "the gate of BM_triad failed"
runs=$(grep -vc -- '--benchmark_list_tests=true' "$work/one.log" || true)
[ "$runs" -eq 1 ] || fail "expected one benchmark run besides the listing, found $runs"
grep -v -- '--benchmark_list_tests=true' "$work/one.log" | grep -qF -- '--benchmark_filter=^(BM_triad)$' ||
  fail "the benchmark run was not limited to BM_triad"
grep -q 'BM_triad_strided' "$work/one.out" && fail "BM_triad_strided was gated"
# Five repetitions share the time one plain run measures a benchmark for (0.5 s by default),
# and a --benchmark_min_time among the program's arguments is split the same way.
grep -v -- '--benchmark_list_tests=true' "$work/one.log" |
  grep -qF -- '--benchmark_repetitions=5 --benchmark_min_time=0.1 ' ||
  fail "the five repetitions did not split Google Benchmark's 0.5 s"
"$perfgate" run --collector gbench --device "$device" --kernels '^BM_triad$' --repetitions 4 \
  -- "$fake" --benchmark_min_time=0.2s "--fake-log=$work/split.log" >"$work/split.out" 2>&1 ||
  fail "the gate with --benchmark_min_time failed"
grep -v -- '--benchmark_list_tests=true' "$work/split.log" | grep -qF -- '--benchmark_min_time=0.05 ' ||
  fail "the program's --benchmark_min_time=0.2s was not split among 4 repetitions"

rc=0
"$perfgate" run --collector gbench --device "$device" --kernels '^BM_nothing' \
  -- "$fake" "--fake-log=$work/none.log" >"$work/none.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "a --kernels matching no benchmark exited $rc, expected 1"
grep -q -- '--benchmark_out' "$work/none.log" && fail "benchmarks ran although --kernels matches none"
for bad in "--device local-cpus" "--kernels (BM_triad" "--device h100-sxm --device no/such/file.json"; do
  rc=0
  # shellcheck disable=SC2086 # the words of $bad are options
  "$perfgate" run --collector gbench --device "$device" $bad \
    -- "$fake" "--fake-log=$work/bad.log" >"$work/bad.out" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "'$bad' exited $rc, expected 2"
  [ ! -e "$work/bad.log" ] || fail "the program ran although '$bad' is refused"
done
echo "ok: --kernels ran only BM_triad; a regex matching none ran no benchmark; bad arguments" \
     "were refused before the program ran"
