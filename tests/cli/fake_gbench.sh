#!/bin/sh
# A stand-in for a Google Benchmark binary: writes the recorded output of
# tests/consumer/stream_benchmarks.cpp (tests/data/gbench/) where --benchmark_out= asks, so the
# gbench collector and the gate can be tested with fixed, known times.
for arg in "$@"; do
  case "$arg" in
    --benchmark_out=*) cp "$(dirname "$0")/../data/gbench/stream_benchmarks.json" "${arg#--benchmark_out=}" ;;
  esac
done
echo "fake benchmark console output"
