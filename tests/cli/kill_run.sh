#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `perfgate run` stopped from outside (issue 16 #4, #10): SIGKILL or SIGTERM to perfgate while
# the program runs leaves no process of the program's (its background children included), no
# temporary file and no report; SIGTERM also ends perfgate with exit 3 naming the signal.
#   kill_run.sh PERFGATE DEVICE_FILE SCRATCH_DIR
set -u
perfgate=$1 device=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }

# A process is gone when /proc has no entry for it or it is a zombie no one reaps.
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }

for sig in KILL TERM; do
  dir="$work/$sig"
  rm -rf "$dir" && mkdir -p "$dir/reports"
  # The program leaves a background child in its group, then waits: the child's pid is the
  # sign that everything is running.
  "$perfgate" run --collector gbench --device "$device" --report "$dir/reports/r.json" \
    -- sh -c 'sleep 30 & echo $! > "$0"; wait' "$dir/child.pid" >"$dir/out" 2>&1 &
  pg=$!
  for _ in $(seq 100); do [ -s "$dir/child.pid" ] && break; sleep 0.05; done
  [ -s "$dir/child.pid" ] || fail "SIG$sig: the program never started"
  child=$(cat "$dir/child.pid")
  kill -s "$sig" "$pg"
  wait "$pg"
  rc=$?
  for _ in $(seq 100); do alive "$child" || break; sleep 0.02; done
  if alive "$child"; then
    kill -KILL "$child"
    fail "SIG$sig to perfgate left the program's child $child running"
  fi
  leftovers=$(ls -A "$dir/reports")
  [ -z "$leftovers" ] || fail "SIG$sig to perfgate left files in the report folder: $leftovers"
  if [ "$sig" = TERM ]; then
    [ "$rc" = 3 ] || fail "SIGTERM: perfgate exited with $rc, expected 3: $(cat "$dir/out")"
    grep -q "sh was stopped: perfgate received SIGTERM" "$dir/out" ||
      fail "SIGTERM: no message naming it in: $(cat "$dir/out")"
  else
    [ "$rc" = 137 ] || fail "SIGKILL: perfgate exited with $rc, expected 137"
  fi
  echo "ok: SIG$sig to perfgate run: the program's group is gone, no file left"
done
