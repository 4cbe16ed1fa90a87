#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/ccache-launch: a single -std flag goes first (CMake 3.25 and 4 place it differently and
# ccache hashes arguments in order), everything else keeps its order, two -std flags stay where
# they were (the last wins). A fake ccache on PATH prints the arguments it was given.
#   check_ccache_launch.sh SOURCE_DIR
set -euo pipefail
launch="$1/scripts/ccache-launch"
fake="$(mktemp -d)"
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\nprintf "%%s|" "$@"\n' >"$fake/ccache"
chmod +x "$fake/ccache"
expect() { # expect WANT ARGS...
  local want=$1 got
  shift
  got="$(PATH="$fake:$PATH" "$launch" "$@")"
  if [ "$got" != "$want" ]; then
    echo "ccache-launch $*: ccache was given '$got', expected '$want'" >&2
    exit 1
  fi
}
# CMake 3.25's order and CMake 4's give ccache the same arguments.
expect "c++|-std=c++20|-O2|-fPIC|-Wall|-c|a.cpp|" c++ -O2 -fPIC -Wall -std=c++20 -c a.cpp
expect "c++|-std=c++20|-O2|-fPIC|-Wall|-c|a.cpp|" c++ -O2 -std=c++20 -fPIC -Wall -c a.cpp
expect "nvcc|-O2|-std=c++14|-std=c++17|-c|a.cu|" nvcc -O2 -std=c++14 -std=c++17 -c a.cu
expect "c++|-c|a cpp.cpp|" c++ -c "a cpp.cpp"
echo "ccache-launch: -std first, the rest in order, two -std left alone"
