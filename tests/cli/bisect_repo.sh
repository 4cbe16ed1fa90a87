#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perfgate bisect end to end (CTest bisect.finds_the_slow_commit): a generated git repository of
# 10 commits of a tiny Google Benchmark project whose 6th makes BM_sum do 1.3x the work (13
# passes over its array instead of 10, the declared work unchanged), bisected between the 1st
# and the 10th with perfgate's A/B verdict; passes when perfgate names the 6th commit.
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
  write_bench "$([ "$i" -ge 6 ] && echo 13 || echo 10)" "$i"
  git add -A
  git commit --quiet -m "commit $i"
done
branch="$(git symbolic-ref HEAD)"
tip="$(git rev-parse HEAD)"
good="$(git rev-parse HEAD~9)"
sixth="$(git rev-parse HEAD~4)"
start=$(date +%s)
# Rounds are capped by time, not count: under a parallel load one round's ratio swings by 20%,
# and 30 rounds left a 1.19x slowdown AMBIGUOUS (interval 0.99-1.35 against 1.11 allowed);
# ~200 rounds fit in 75 s there. Four steps at most stay inside CTest's 600 s.
set +e
"$perfgate" bisect --good "$good" --bad HEAD --device "$device" --kernels '^BM_sum$' \
  --build 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null' \
  --executable build/bench --repetitions 5 --max-rounds 200 --time-budget 75 \
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
