#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The base side of perf.yml's A/B mode (docs/ci.md): checks COMMIT out beside this tree (a git
# worktree in DIR/src), builds perfgate and the examples of that commit there exactly as
# scripts/main.sh builds this tree's, and prints the base examples' build tree. scripts/main.sh
# with PERFGATE_AB_BASE_DIR set to it then runs every example as `perfgate ab` of the base
# binary against this tree's:
#   base="$(scripts/ab-base.sh "$BASE_SHA" ../perfgate-base | tail -1)"
#   PERFGATE_AB_BASE_DIR="$base" scripts/main.sh
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 COMMIT DIR" >&2
  exit 2
fi
commit="$1"
dir="$(mkdir -p "$2" && cd "$2" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "==> fetch $commit (a shallow checkout lacks it)" >&2
  git -C "$root" fetch --no-tags --depth=1 origin "$commit" >&2
fi
rm -rf "$dir/src"
git -C "$root" worktree prune
git -C "$root" worktree add --detach "$dir/src" "$commit" >&2
build="$dir/build"
echo "==> build the base commit's perfgate ($build)" >&2
PERFGATE_BUILD_DIR="$build" "$dir/src/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release >&2
cmake --install "$build" --prefix "$build/install" >/dev/null
echo "==> build the base commit's examples ($build/examples)" >&2
cmake -S "$dir/src/examples" -B "$build/examples" -DCMAKE_PREFIX_PATH="$build/install" \
  -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$build/examples" --parallel "$(nproc)" >&2
echo "$build/examples"
