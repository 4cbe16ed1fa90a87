#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's test command: installs what is missing, builds with tests, runs every test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DPERFGATE_WITH_TESTS=ON
build="${PERFGATE_BUILD_DIR:-$root/build}"
echo "==> test"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)"
