#!/bin/sh
# A stand-in for a Google Benchmark binary: writes recorded Google Benchmark output (by default
# that of tests/consumer/stream_benchmarks.cpp, else tests/data/gbench/NAME for --fake-json=NAME)
# where --benchmark_out= asks, so the gbench collector and the gate can be tested with fixed,
# known times.
# --fake-json-sequence=STATE:A.json,B.json,...: the gate's first run writes A; each run asking
# for benchmarks by exact name (`--benchmark_filter=^(...)$`, the gate's confirmation runs)
# writes the next file, the last one again once the list is spent; STATE counts them.
# --fake-sleep=S: sleep S seconds before writing (a benchmark that takes time).
# --fake-log=FILE: append this invocation's arguments to FILE, one invocation a line.
# --benchmark_list_tests=true: print the recorded file's benchmark names, as Google Benchmark
# lists its benchmarks, and run none (the gate lists them in its first run, for --kernels: a
# sequence's state starts again there).
json=stream_benchmarks.json
sequence=
confirming=no
for arg in "$@"; do
  case "$arg" in
    --fake-json=*) json="${arg#--fake-json=}" ;;
    --fake-json-sequence=*) sequence="${arg#--fake-json-sequence=}" ;;
    --fake-sleep=*) sleep "${arg#--fake-sleep=}" ;;
    --fake-log=*) echo "$*" >>"${arg#--fake-log=}" ;;
    --benchmark_filter=^\(*) confirming=yes ;;
  esac
done
for arg in "$@"; do
  if [ "$arg" = --benchmark_list_tests=true ]; then
    # Listed first by the gate's first run only (--kernels): the sequence starts again.
    [ -z "$sequence" ] || rm -f "${sequence%%:*}"
    python3 -c 'import json, sys
names = []
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    n = b.get("run_name", b["name"])
    if b.get("run_type", "iteration") == "iteration" and n not in names:
        names.append(n)
print("\n".join(names))' "$(dirname "$0")/../data/gbench/$json"
    exit 0
  fi
done
if [ -n "$sequence" ]; then
  state="${sequence%%:*}"
  files="${sequence#*:}"
  n=0
  if [ "$confirming" = yes ] && [ -f "$state" ]; then
    n=$(($(cat "$state") + 1))
  fi
  echo "$n" >"$state"
  i=0
  for f in $(echo "$files" | tr ',' ' '); do
    json="$f"
    [ "$i" -eq "$n" ] && break
    i=$((i + 1))
  done
fi
for arg in "$@"; do
  case "$arg" in
    --benchmark_out=*) cp "$(dirname "$0")/../data/gbench/$json" "${arg#--benchmark_out=}" ;;
  esac
done
echo "fake benchmark console output"
