# SPDX-License-Identifier: Apache-2.0
# Sourced by scripts/test.sh and scripts/busy-runner.sh (with $root set to the repository): a
# compiler cache shared by the configurations and the consumer projects the tests build, so a
# source compiled with the same flags in two build trees is compiled once.
# scripts/ccache-launch puts the -std flag first, where CMake 3.25 and 4 disagree on its place.
# A launcher the caller set wins; without ccache nothing changes.
if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  launch="$root/scripts/ccache-launch"
  export CMAKE_C_COMPILER_LAUNCHER="$launch" CMAKE_CXX_COMPILER_LAUNCHER="$launch" \
    CMAKE_CUDA_COMPILER_LAUNCHER="$launch" CMAKE_HIP_COMPILER_LAUNCHER="$launch"
  export CCACHE_DIR="${CCACHE_DIR:-$root/build-ccache}" CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  # The tests compile with a precompiled header (tests/CMakeLists.txt): ccache caches the header
  # and the sources using it only with this sloppiness (its manual, "Precompiled headers").
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
  echo "==> compiler cache: ccache in $CCACHE_DIR"
elif [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  echo "==> compiler cache: none (no ccache): each configuration compiles all of its sources"
fi
