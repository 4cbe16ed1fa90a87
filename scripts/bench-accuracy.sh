#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 33's accuracy benchmark: every public pair of captures (H100 <-> H200 at natural and
# locked clocks, the tensor GEMMs, the thesis's six GPUs in every direction; issue 42: NeuSight's
# fp32 PyTorch ops on V100, A100 40/80, H100, L4 and MI210 in every direction), predicted by each
# predictor and compared with the measured times (scripts/bench/accuracy.py says how). Prints
# the summary table, and with --kernels every kernel's error; docs/accuracy.md keeps the table.
# Offline and deterministic: replays captures in tests/data, measures nothing on this machine.
# Exit 1 when a target of the issue is missed.
#   scripts/bench-accuracy.sh [--kernels]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PERFGATE_BUILD_DIR:-$root/build}"
perfgate="$build/bin/perfgate"
[ -x "$perfgate" ] || { echo "bench-accuracy: no $perfgate: build first (scripts/build.sh)" >&2; exit 2; }
work="$build/bench-accuracy"
rm -rf "$work" && mkdir -p "$work"
exec python3 "$root/scripts/bench/accuracy.py" "$perfgate" "$root/tests/data" "$work" "$@"
