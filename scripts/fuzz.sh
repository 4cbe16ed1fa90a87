#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the readers' libFuzzer harnesses (clang, ASan + UBSan) into ${PERFGATE_FUZZ_BUILD_DIR:-
# build-fuzz} and runs each, one at a time, seeded from tests/data, examples/profiles and
# tests/fuzz/seeds (plus $PERFGATE_FUZZ_EXTRA_SEEDS, a folder of more samples, when set).
#   scripts/fuzz.sh --runs N [READER...]     N executions per harness (the 10^6 campaign)
#   scripts/fuzz.sh --seconds S [READER...]  S seconds per harness (CI's smoke: --seconds 10)
#   (both: whichever comes first)
# PERFGATE_FUZZ_OPT sets the optimisation of a new build (default -O1, as OSS-Fuzz builds; CI's
# smoke builds at -O0 in a folder of its own: half the compile time, and a 2 s smoke needs
# executions less than a campaign does).
# Prints one line per harness (executions, time, result) and exits 1 on any crash, hang, leak or
# sanitizer report; the input that caused it is kept in build-fuzz/artifacts/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
all=(nvprof ncu_raw ncu_details rocprofv3_csv rocprof_v1_csv rocpd gbench_json nvbench_json detect
     device_json report_json history_json cupti_json hull_app pipeline_json sass gpu_answers)
limit=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) limit+=(-runs="$2"); shift 2 ;;
    --seconds) limit+=(-max_total_time="$2"); shift 2 ;;
    -*) echo "usage: $0 [--runs N] [--seconds S] [READER...]  (readers: ${all[*]})" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ ${#limit[@]} -eq 0 ]; then
  echo "usage: $0 [--runs N] [--seconds S] [READER...]: give at least one limit" >&2; exit 2
fi
readers=("$@")
[ ${#readers[@]} -gt 0 ] || readers=("${all[@]}")

cxx="$(command -v clang++-15 || command -v clang++-14 || command -v clang++ || true)"
if [ -z "$cxx" ]; then
  echo "fuzz: SKIPPED: no clang++ (libFuzzer needs clang)"; exit 77
fi
cc="${cxx/clang++/clang}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
  # -O1 and asserts on, as OSS-Fuzz builds: a fifth less compile time than -O2 (22 s -> 17 s for
  # gate.cpp with the sanitizers), and an assert that fires is a finding. -O0: 9 s where -O1
  # takes 16 s (json_writer.cpp with the sanitizers, clang 15). The readers need no GPU
  # toolchain: configured without them (CUDA's and HIP's compiler checks took half a minute).
  # The library compiles as a unity build (the project's default): the smoke's cold build and
  # run took 216 s alone; 7.5 min in a cold CI with every source compiled alone (2-core VM).
  CC="$cc" CXX="$cxx" cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${PERFGATE_FUZZ_OPT:--O1} -g" \
    -DPERFGATE_WITH_TESTS=OFF -DPERFGATE_ENABLE_INSTALL=OFF -DPERFGATE_WITH_FUZZERS=ON \
    -DPERFGATE_WITH_CUDA=OFF -DPERFGATE_WITH_HIP=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    >/dev/null
fi
echo "==> fuzz: build ${readers[*]}"
cmake --build "$build" --parallel "$(nproc)" --target "${readers[@]/#/perfgate.fuzz.}" >/dev/null

# Seeds per reader: the files it should accept or refuse cleanly.
seeds_of() {
  local d="$root/tests/data" s="$root/tests/fuzz/seeds" x="${PERFGATE_FUZZ_EXTRA_SEEDS:-/nonexistent}"
  case "$1" in
    nvprof) ls "$d"/malformed/nvprof*.csv "$d"/real-profiles/*.csv "$root"/examples/profiles/*.csv ;;
    ncu_raw|ncu_details) ls "$d"/ncu/*.csv "$d"/malformed/ncu*.csv; ls "$x"/*ncu*.csv 2>/dev/null || true ;;
    rocprofv3_csv|rocprof_v1_csv) ls "$d"/rocprof/*.csv; ls "$x"/*counter_collection*.csv 2>/dev/null || true ;;
    rocpd) ls "$d"/rocprof/*.db; ls "$x"/*.db 2>/dev/null || true ;;
    # Files other projects wrote (tests/data/external/), those within the inputs' length limit.
    gbench_json) ls "$d"/gbench/*.json; find "$d"/external -name 'gbench_*.json' -size -128k
                 ls "$x"/*gbench*.json 2>/dev/null || true ;;
    nvbench_json) ls "$d"/nvbench/*.json; find "$d"/external -name 'nvbench_*.json' -size -128k
                  ls "$x"/*nvbench*.json 2>/dev/null || true ;;
    detect) for r in nvprof ncu_raw rocprofv3_csv rocpd gbench_json nvbench_json; do seeds_of "$r"; done
            ls "$d"/profiles/*.json "$s"/profile*.json ;;
    device_json) ls "$root"/perfgate/devices/*.json "$d"/devices/*.json "$d"/malformed/device*.json
                 ls "$s"/device*.json ;;
    report_json) ls "$s"/report*.json "$s"/baseline*.json "$d"/golden/multi_runner/baseline.json ;;
    history_json) ls "$s"/history*.jsonl ;;
    cupti_json) ls "$s"/cupti*.json ;;
    hull_app) ls "$root"/examples/hull/*.app.json "$d"/malformed/hull_app*.json ;;
    pipeline_json) ls "$d"/pipeline/*.json "$d"/malformed/idg*.json ;;
    sass) ls "$d"/sass/*.sass ;;
    gpu_answers) ls "$d"/resources/*.json ;;
  esac
}

status=0
for r in "${readers[@]}"; do
  corpus="$build/corpus/$r" seeds="$build/seeds/$r" log="$build/logs/$r.log"
  mkdir -p "$corpus" "$build/artifacts" "$build/logs"
  rm -rf "$seeds" && mkdir -p "$seeds"
  { seeds_of "$r" || true; } | sort -u | while read -r f; do [ -f "$f" ] && cp "$f" "$seeds/"; done || true
  start=$(date +%s)
  set +e
  max_len=32768
  [ "$r" != rocpd ] || max_len=262144 # a whole database: the seed is 180 kB of SQLite pages
  [ "$r" != nvbench_json ] || max_len=131072 # copy_h200.json: 84 kB of summaries
  "$build/fuzz/fuzz_$r" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$r-" "$corpus" "$seeds" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if [ $rc -eq 0 ]; then result="0 crashes, 0 hangs, 0 sanitizer reports"
  else result="FAILED (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY|timeout|accepted nonsense' "$log" || true)"; status=1; fi
  printf 'fuzz %-15s %10s executions %6ss  %s\n' "$r" "$runs" "$(( $(date +%s) - start ))" "$result"
done
exit $status
