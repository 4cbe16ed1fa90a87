#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds perfgate into ${PERFGATE_BUILD_DIR:-build}. Arguments go to cmake.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ -f "$build/CMakeCache.txt" ]; then generator=(); fi # keep the generator it was made with
echo "==> configure: $build"
cmake -S "$root" -B "$build" "${generator[@]}" "$@"
echo "==> build ($(nproc) jobs)"
cmake --build "$build" --parallel "$(nproc)"
