#!/bin/sh
# A Google Benchmark binary timing "GPU" kernels that records which GPU it was given: each run
# appends "<start ns> <end ns> <CUDA_VISIBLE_DEVICES or unset>" to <log>.<name>, holding its GPU
# FAKE_GPU_SECONDS (default 2) so that overlapping runs show, then writes recorded benchmark
# output (tests/cli/fake_gbench.sh). Listing the benchmarks (--benchmark_list_tests, which
# perfgate asks before a --kernels run) runs nothing, so it is not logged.
log=
name=
for arg in "$@"; do
  case "$arg" in
    --log=*) log="${arg#--log=}" ;;
    --name=*) name="${arg#--name=}" ;;
    --benchmark_list_tests*) exec "$(dirname "$0")/../cli/fake_gbench.sh" "$@" ;;
  esac
done
start=$(date +%s%N)
sleep "${FAKE_GPU_SECONDS:-2}"
end=$(date +%s%N)
echo "$start $end ${CUDA_VISIBLE_DEVICES:-unset}" >> "$log.$name"
exec "$(dirname "$0")/../cli/fake_gbench.sh" "$@"
