#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's test command: installs what is missing, builds with tests, runs every test; then
# the same in the configurations users have without GPU toolchains (docs/ci.md):
#   default  every toolchain found here (CUDA with CUPTI, HIP)        build/ (PERFGATE_BUILD_DIR)
#   nogpu    no CUDA toolkit found, no HIP: CPU-only users             build-nogpu/
#   nocupti  -DPERFGATE_WITH_CUPTI=OFF (a CUDA toolkit without CUPTI)  build-nocupti/ (or build-nogpu/ reconfigured)
#   cmake4   the default configuration with pip's CMake 4.4 (GPU hosts   build-cmake4/
#            and many users have CMake 4; Debian has 3.25): same tests, same outcomes;
#            then configured again as without the toolkit's NVML (nonvml): build-nonvml/
# The extra configurations skip the GPU micro-benchmarks (they need the missing toolchains
# anyway) and run the whole test suite but what would only repeat an earlier run:
# consumer.fetchcontent and consumer.examples_build build perfgate's source (a CPU-only project
# taking it by FetchContent: configuration-independent), or the examples with the toolchains this
# machine has whatever the configuration (cmake4 skips the first too: it compiles perfgate's core
# again); ci.action and ci.gitlab_template run the same scripts on recorded profiles in every
# configuration (the default run covers them); the full CPU micro-benchmark run (90 s) and perfgate
# bisect's generated repository (about 2 min) measure code compiled alike in every configuration;
# and nocupti's consumer.deb (120 s) would package nogpu's binaries and files again (its tree is
# nogpu's reconfigured, ninja rebuilds nothing, PerfGateConfig.cmake.in substitutes no option),
# then build and calibrate the same consumer. Where a configuration's compiled code is an earlier
# run's, only what can differ runs again: cmake4's objects are compared with the default tree's
# byte for byte (scripts/same_compilation.py), and when they match (all but the two that embed
# their tree's path) it runs the tests that drive a CMake project with CMake 4 (label
# cmake_project) and the CUPTI tests; nocupti, in nogpu's tree, runs the tests its configure
# registers otherwise and those of label cmake_project. Both still configure and build, and
# cmake4 must register as many tests as the default tree.
# PERFGATE_TEST_CONFIGS picks some, e.g. PERFGATE_TEST_CONFIGS=default; PERFGATE_TEST_CONFIGS=clean
# is the clean-machine proof (scripts/clean-machine.sh, docs/ci.md), never run by default.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
configs="${PERFGATE_TEST_CONFIGS:-default cmake4 nogpu nocupti}"

rm -f "$root/build-nogpu/.perfgate-nogpu-this-run"
if [[ " $configs " == *" cmake4 "* ]]; then
  "$root/scripts/install-deps.sh" --cmake4
else
  "$root/scripts/install-deps.sh"
fi
# A compiler cache shared by the configurations (and the consumers the tests build). After the
# dependencies: on a fresh machine ccache is one of them, and a launcher chosen before it was
# there is none: every configuration then compiled everything again (a cold run of 2026-11-29).
. "$root/scripts/ccache-env.sh"
if [ "${CMAKE_CXX_COMPILER_LAUNCHER:-}" = "$root/scripts/ccache-launch" ]; then
  ccache --zero-stats >/dev/null
fi

build_config() { # build_config NAME BUILD_DIR CMAKE_ARGS...
  local name=$1 build=$2
  shift 2
  echo "==> configuration: $name"
  # CI checks the schemas: a missing validator fails schema.reports_and_devices here.
  # The C++ compiled as the default build type compiles it (-O2, NDEBUG) without its debug
  # information, which nothing here reads and which costs a fifth of the compile time
  # (gate.cpp: 44 s -> 36 s on the loaded 2-core VM).
  # Warnings are errors here (CMake 3.24's CMAKE_COMPILE_WARNING_AS_ERROR): a warning only one
  # configuration shows (an unused function without CUPTI) reaches no one reading a green log.
  PERFGATE_BUILD_DIR="$build" "$root/scripts/build.sh" -DPERFGATE_WITH_TESTS=ON \
    -DPERFGATE_REQUIRE_SCHEMA_VALIDATOR=ON -DPERFGATE_FETCH_DEPENDENCIES=OFF \
    -DCMAKE_COMPILE_WARNING_AS_ERROR=ON \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "$@"
}
test_config() { # test_config NAME BUILD_DIR EXCLUDE_REGEX [INCLUDE_REGEX]
  local name=$1 build=$2 exclude=$3 include=${4:-}
  echo "==> test ($name)"
  ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" ${exclude:+-E "$exclude"} \
    ${include:+-R "$include"}
}
run_config() { # run_config NAME BUILD_DIR EXCLUDE_REGEX CMAKE_ARGS...
  local name=$1 build=$2 exclude=$3
  shift 3
  build_config "$name" "$build" "$@"
  test_config "$name" "$build" "$exclude"
}
# The tests of a configuration whose compiled code is an earlier tree's: those that configure,
# build or run a CMake project with this configuration's CMake (label cmake_project), and those
# of the objects allowed to differ (the CUPTI collector and injection test embed their tree's
# path): the rest would run the same code again. Every object is compared (same_compilation.py);
# any other difference runs the whole suite, and says so.
same_code_tests() { # same_code_tests EARLIER_BUILD BUILD: prints a ctest -R regex, or nothing
  local earlier=$1 build=$2 listing
  if "$root/scripts/same_compilation.py" objects "$earlier" "$build" \
       'cupti_collector\.cpp\.o$|injection_without_driver\.cpp\.o$' >&2; then
    listing="$(mktemp)"
    ctest --test-dir "$build" --show-only=json-v1 >"$listing"
    "$root/scripts/same_compilation.py" selected "$listing" cmake_project '^cupti\.'
    rm -f "$listing"
  else
    echo "==> $build compiles other code than $earlier: its whole suite runs" >&2
  fi
}
# The GitHub action's and the GitLab template's checks run scripts and recorded profiles: the
# same in every configuration.
ci_scripts='^ci\.(action|action_install|gitlab_template)$'
same_everywhere="^consumer\.(fetchcontent|examples_build)\$|^integration\.CpuMicrobench\.FullRunGivesConsistentPeaks\$|^bisect\.finds_the_slow_commit\$|$ci_scripts"
same_as_nogpu="$same_everywhere|^consumer\.deb$"

# The number of tests a build tree registers (CTest's JSON listing, not its wording); with
# "configured", only those add_test registered (GoogleTest's discovered tests have no backtrace).
test_count() {
  ctest --test-dir "$1" --show-only=json-v1 | python3 -c '
import json, sys
tests = json.load(sys.stdin)["tests"]
if sys.argv[1:] == ["configured"]:
    tests = [t for t in tests if t.get("backtrace") is not None]
print(len(tests))' ${2:+"$2"}
}

# The cmake4 configuration again, configured only, as on a machine whose CUDA toolkit has no NVML
# (-DCUDA_nvml_LIBRARY=OFF: FindCUDAToolkit then makes no CUDA::nvml, whose absence nvbench's
# package turns into a configure error; cmake/PerfGateNvbench.cmake): the configuration must
# succeed and register as many tests as the tree it mirrors, nvbench.run_copy as a skip.
no_nvml_check() { # no_nvml_check MIRRORED_BUILD_DIR CMAKE_ARGS...
  local mirrored=$1 build="$root/build-nonvml"
  shift
  echo "==> configuration: nonvml (configure only: the cmake4 tree as without NVML)"
  rm -rf "$build"
  if ! PATH="$root/.cmake4/bin:$PATH" cmake -S "$root" -B "$build" -DPERFGATE_WITH_TESTS=ON \
       -DCUDA_nvml_LIBRARY=OFF "$@" >"$build.log" 2>&1; then
    cat "$build.log" >&2
    echo "scripts/test.sh: the configuration without NVML failed (log above)" >&2
    exit 1
  fi
  # The tree is not built, so GoogleTest's discovered tests are not there yet: compare the tests
  # that configuring registers (those with a backtrace into a CMakeLists.txt).
  local n_mirrored n_nonvml
  n_mirrored="$(PATH="$root/.cmake4/bin:$PATH" test_count "$mirrored" configured)"
  n_nonvml="$(PATH="$root/.cmake4/bin:$PATH" test_count "$build" configured)"
  echo "==> tests registered at configure without NVML: $n_nonvml (cmake4: $n_mirrored)"
  if [ "$n_mirrored" != "$n_nonvml" ]; then
    echo "scripts/test.sh: without NVML $n_nonvml tests are registered, $n_mirrored with it" >&2
    exit 1
  fi
  # nvbench.run_copy is the skip there, for want of NVML, whatever this machine's toolkit has.
  if ! PATH="$root/.cmake4/bin:$PATH" ctest --test-dir "$build" --show-only=json-v1 | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin)["tests"] if t["name"] == "nvbench.run_copy"]
sys.exit(not (len(t) == 1 and any("no NVML" in a for a in t[0]["command"])))'; then
    echo "scripts/test.sh: without NVML nvbench.run_copy is not the skip for want of NVML" >&2
    exit 1
  fi
  rm -rf "$build" "$build.log"
}

for config in $configs; do
  case "$config" in
    default) run_config default "${PERFGATE_BUILD_DIR:-$root/build}" "" ;;
    cmake4)
      # pip's CMake 4.4 in a virtual environment of its own (scripts/install-deps.sh makes it);
      # the CPU micro-benchmark run measures code compiled as in the default tree.
      # nvbench's CMake package from the cuda-bench wheel there (tests/nvbench/).
      nvbench_dir="$(ls -d "$root"/.cmake4/lib/python3*/site-packages/cuda/bench/cu13/nvbench/lib/cmake/nvbench 2>/dev/null | head -1)"
      default_build="${PERFGATE_BUILD_DIR:-$root/build}"
      PATH="$root/.cmake4/bin:$PATH" build_config cmake4 "$root/build-cmake4" \
        ${nvbench_dir:+"-Dnvbench_DIR=$nvbench_dir"}
      only=""
      [ ! -f "$default_build/build.ninja" ] || only="$(PATH="$root/.cmake4/bin:$PATH" same_code_tests "$default_build" "$root/build-cmake4")"
      PATH="$root/.cmake4/bin:$PATH" test_config cmake4 "$root/build-cmake4" \
        "^integration\.CpuMicrobench\.FullRunGivesConsistentPeaks\$|^bisect\.finds_the_slow_commit\$|^consumer\.fetchcontent\$|$ci_scripts" \
        "$only"
      if [ -f "$default_build/CTestTestfile.cmake" ]; then
        n3="$(test_count "$default_build")"
        n4="$(PATH="$root/.cmake4/bin:$PATH" test_count "$root/build-cmake4")"
        echo "==> tests registered: $n3 with $(cmake --version | head -1), $n4 with CMake 4"
        if [ "$n3" != "$n4" ]; then
          echo "scripts/test.sh: CMake 4 registers $n4 tests, $(cmake --version | head -1) $n3:" \
               "a find step or a test depends on the CMake version" >&2
          exit 1
        fi
      fi
      no_nvml_check "$root/build-cmake4" ${nvbench_dir:+"-Dnvbench_DIR=$nvbench_dir"} ;;
    nogpu)
      # CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit: the configure path of a machine without a
      # toolkit (CUPTI AUTO finds none), whatever this machine has.
      run_config nogpu "$root/build-nogpu" "$same_everywhere" -DPERFGATE_WITH_CUDA=OFF -DPERFGATE_WITH_HIP=OFF \
        -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
      touch "$root/build-nogpu/.perfgate-nogpu-this-run" ;;
    nocupti)
      # The same sources compiled the same way as nogpu; only the configure path differs (the
      # toolkit found, CUPTI refused). When this run built nogpu, reconfigure that tree: ninja
      # then rebuilds nothing (checked: "no work to do"), so the library is not compiled a third
      # time (about 7 minutes), and its binaries are nogpu's own files: only the tests its
      # configure registers otherwise than nogpu's, and those of label cmake_project, can have
      # another outcome, and only they run. Without nogpu's tree, the whole suite runs.
      if [ -f "$root/build-nogpu/.perfgate-nogpu-this-run" ]; then
        before="$(mktemp)" after="$(mktemp)"
        ctest --test-dir "$root/build-nogpu" --show-only=json-v1 >"$before"
        build_config nocupti "$root/build-nogpu" \
          -UCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit -DPERFGATE_WITH_CUPTI=OFF \
          -DPERFGATE_WITH_CUDA=OFF -DPERFGATE_WITH_HIP=OFF
        ctest --test-dir "$root/build-nogpu" --show-only=json-v1 >"$after"
        changed="$("$root/scripts/same_compilation.py" registered "$before" "$after")"
        project="$("$root/scripts/same_compilation.py" selected "$after" cmake_project '^$')"
        echo "==> nocupti: tests registered otherwise than nogpu's: ${changed:-none}"
        only="${changed:+${changed}|}${project}"
        rm -f "$before" "$after"
        test_config nocupti "$root/build-nogpu" "$same_as_nogpu" "$only"
      else
        run_config nocupti "$root/build-nocupti" "$same_everywhere" -DPERFGATE_WITH_CUPTI=OFF \
          -DPERFGATE_WITH_CUDA=OFF -DPERFGATE_WITH_HIP=OFF
      fi ;;
    clean)
      # Not in the default list: a minimal Debian made with mmdebstrap, perfgate built, packaged,
      # installed and gated there (scripts/clean-machine.sh; root, the mirror, DEPS_DIR).
      "$root/scripts/clean-machine.sh" "${PERFGATE_CLEAN_DIR:-/tmp/perfgate-clean-machine}" ;;
    *) echo "scripts/test.sh: unknown configuration '$config' (default, cmake4, nogpu, nocupti, clean)" >&2
       exit 2 ;;
  esac
done
# Fuzzing smoke: every reader's libFuzzer harness for 2 s (ASan + UBSan, clang), built at -O0 in
# a folder of its own (about 4 min from an empty compiler cache, unity build; -O1 took 9); the
# long runs are scripts/fuzz.sh's at -O1, docs/fuzzing.md.
# PERFGATE_FUZZ_SMOKE=0 leaves it out; no clang: skipped with the reason.
if [ "${PERFGATE_FUZZ_SMOKE:-1}" != 0 ]; then
  echo "==> fuzz smoke"
  rc=0
  PERFGATE_FUZZ_OPT=-O0 PERFGATE_FUZZ_BUILD_DIR="$root/build-fuzz-smoke" \
    "$root/scripts/fuzz.sh" --seconds 2 || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || exit $rc
fi
if [ "${CMAKE_CXX_COMPILER_LAUNCHER:-}" = "$root/scripts/ccache-launch" ]; then
  echo "==> compiler cache over this run:"
  ccache --show-stats
fi
