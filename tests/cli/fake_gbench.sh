#!/bin/sh
# A stand-in for a Google Benchmark binary: writes recorded Google Benchmark output (by default
# that of tests/consumer/stream_benchmarks.cpp, else tests/data/gbench/NAME for --fake-json=NAME)
# where --benchmark_out= asks, so the gbench collector and the gate can be tested with fixed,
# known times.
json=stream_benchmarks.json
for arg in "$@"; do
  case "$arg" in
    --fake-json=*) json="${arg#--fake-json=}" ;;
  esac
done
for arg in "$@"; do
  case "$arg" in
    --benchmark_out=*) cp "$(dirname "$0")/../data/gbench/$json" "${arg#--benchmark_out=}" ;;
  esac
done
echo "fake benchmark console output"
