#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's main command: installs what is missing, builds perfgate, and predicts the bundled
# example profiles (the thesis's case studies, profiled on a GTX-480) on the thesis GPUs and on
# current GPUs. Reports (text, JSON, Markdown) are left in ${PERFGATE_REPORT_DIR:-reports}.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${PERFGATE_BUILD_DIR:-$root/build}"
reports="${PERFGATE_REPORT_DIR:-$root/reports}"
mkdir -p "$reports"
perfgate="$build/bin/perfgate"

devices=(gtx-480 gtx-660 gtx-960 gtx-1060 tesla-m2050 tesla-k20c
         v100-sxm2 a100-80gb h100-sxm h200 l40s rtx-4090 mi250x mi300x)
device_args=()
for d in "${devices[@]}"; do device_args+=(--device "$d"); done

profiles=("$root"/examples/profiles/*.csv)
n=0
for profile in "${profiles[@]}"; do
  n=$((n + 1))
  name="$(basename "$profile" .csv)"
  echo
  echo "==> [$n/${#profiles[@]}] perfgate predict --profile examples/profiles/$(basename "$profile") (${#devices[@]} devices)"
  "$perfgate" predict --profile "$profile" "${device_args[@]}" | tee "$reports/$name.txt"
  "$perfgate" predict --profile "$profile" "${device_args[@]}" --format json -o "$reports/$name.json" 2>/dev/null
  "$perfgate" predict --profile "$profile" "${device_args[@]}" --format md -o "$reports/$name.md" 2>/dev/null
done
echo
echo "==> reports (text, perfgate-report/1 JSON, Markdown) in $reports"
ls -1 "$reports"
