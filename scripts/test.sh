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
# Fuzzing smoke: every reader's libFuzzer harness for 10 s (ASan + UBSan, clang; about 8 min with
# the sanitizer build). PERFGATE_FUZZ_SMOKE=0 leaves it out; no clang: skipped with the reason.
if [ "${PERFGATE_FUZZ_SMOKE:-1}" != 0 ]; then
  echo "==> fuzz smoke"
  rc=0
  "$root/scripts/fuzz.sh" --seconds 10 || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || exit $rc
fi
