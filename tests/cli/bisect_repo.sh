#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perfgate bisect end to end (CTest bisect.finds_the_slow_commit): a generated git repository of
# 10 commits of a tiny Google Benchmark project whose 6th makes BM_sum do 2x the work (20
# passes over its array instead of 10, the declared work unchanged), bisected between the 1st
# and the 10th with perfgate's A/B verdict at a 25% allowance (1.333x); passes when perfgate
# names the 6th commit. The effect and the allowance are wide because the test must hold on a
# busy runner (scripts/busy-runner.sh): with stress-ng on both cores, two builds of the same
# code measured 1.063x apart (interval 1.005-1.149 over 200 rounds), so at a 1.111x allowance
# an unchanged commit stayed AMBIGUOUS (skipped) and the bisection could not finish; a 1.3x
# slowdown measured 1.19x. Telling small effects apart is bench-stability's business.
#   bisect_repo.sh PERFGATE DEVICE_JSON WORK_DIR
set -euo pipefail
perfgate="$1"
device="$2"
work="$3"
rm -rf "$work"
mkdir -p "$work/repo"
cd "$work/repo"
git init --quiet
git config user.email bisect@perfgate.test
git config user.name "perfgate bisect test"
printf 'build/\n' >.gitignore
cat >CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(bisect_fixture CXX)
find_package(benchmark REQUIRED)
add_executable(bench bench.cpp)
target_link_libraries(bench PRIVATE benchmark::benchmark)
CMAKE
write_bench() { # $1: passes over the array; $2: the revision, so every commit changes the file
  cat >bench.cpp <<CPP
// revision $2
#include <benchmark/benchmark.h>
#include <vector>
static void BM_sum(benchmark::State& state) {
  std::vector<double> v(4096, 1.0);
  for (auto _ : state) {
    double s = 0;
    for (int pass = 0; pass < $1; ++pass) {
      for (double x : v) s += x;
      benchmark::DoNotOptimize(s);
    }
  }
  // Declared as 10 passes, whatever the code does: a slower commit is less efficient.
  state.counters["perfgate_fp64_flops"] = 10.0 * 4096;
  state.counters["perfgate_bytes"] = 10.0 * 4096 * 8;
}
BENCHMARK(BM_sum);
BENCHMARK_MAIN();
CPP
}
for i in 1 2 3 4 5 6 7 8 9 10; do
  write_bench "$([ "$i" -ge 6 ] && echo 20 || echo 10)" "$i"
  git add -A
  git commit --quiet -m "commit $i"
done
branch="$(git symbolic-ref HEAD)"
tip="$(git rev-parse HEAD)"
good="$(git rev-parse HEAD~9)"
sixth="$(git rev-parse HEAD~4)"
start=$(date +%s)
# Rounds are capped by time, not count (~200 rounds fit in 75 s under load); four steps at
# most stay inside CTest's 600 s.
set +e
"$perfgate" bisect --good "$good" --bad HEAD --device "$device" --kernels '^BM_sum$' \
  --build 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null' \
  --executable build/bench --repetitions 5 --max-rounds 200 --time-budget 75 \
  --max-efficiency-drop 0.25 \
  -- --benchmark_min_time=0.05 | tee "$work/bisect.out"
code=${PIPESTATUS[0]}
set -e
echo "bisect took $(($(date +%s) - start)) s, exit $code"
if [ "$code" -ne 0 ]; then
  echo "FAIL: perfgate bisect exited $code" >&2
  exit 1
fi
if ! grep -q "first bad commit $sixth" "$work/bisect.out"; then
  echo "FAIL: the 6th commit ($sixth) is not named the first bad one" >&2
  exit 1
fi
if [ -n "$(git status --porcelain)" ] || [ "$(git symbolic-ref HEAD)" != "$branch" ] ||
  [ "$(git rev-parse HEAD)" != "$tip" ]; then
  echo "FAIL: the repository was not left as it was" >&2
  exit 1
fi
echo "PASS: perfgate bisect named the 6th commit $sixth"
