#!/bin/sh
# A stand-in for a Google Benchmark binary: writes recorded Google Benchmark output (by default
# that of tests/consumer/stream_benchmarks.cpp, else tests/data/gbench/NAME for --fake-json=NAME)
# where --benchmark_out= asks, so the gbench collector and the gate can be tested with fixed,
# known times.
# --fake-json-sequence=STATE:A.json,B.json,...: the gate's first run writes A; each run asking
# for benchmarks by exact name (`--benchmark_filter=^(...)$`, the gate's confirmation runs)
# writes the next file, the last one again once the list is spent; STATE counts them.
# --fake-sleep=S: sleep S seconds before writing (a benchmark that takes time).
json=stream_benchmarks.json
sequence=
confirming=no
for arg in "$@"; do
  case "$arg" in
    --fake-json=*) json="${arg#--fake-json=}" ;;
    --fake-json-sequence=*) sequence="${arg#--fake-json-sequence=}" ;;
    --fake-sleep=*) sleep "${arg#--fake-sleep=}" ;;
    --benchmark_filter=^\(*) confirming=yes ;;
  esac
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
