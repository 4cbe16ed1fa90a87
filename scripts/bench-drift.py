#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How the gate judges a run against a stored report of an unchanged binary, on recorded A/A
runs (scripts/record-aa-runs.py; tests/data/statistics/aa_*.json): issue 54 item 5's rates.

For every pair of rounds i < j of the set, round i is gated and its report stored, then round j
is gated against it (`perfgate run --collector gbench --baseline`, confirmation runs off: the
first verdict, as a recorded profile gets it); with --baseline-runs K the baseline is instead
rounds i .. i+K-1 (`perfgate baseline accept` of their K reports: their spread is what a later
run is allowed) and j > i+K-1. Each head is gated once as recorded (A/A: the code did not change)
and once with every time of round j multiplied by --slowdown (a true slowdown under the same
drift). The rounds are replayed through the gbench collector by a stand-in program that writes
the recorded times where --benchmark_out= asks, so the whole path from the collector to the
verdict is the product's.

Prints, per state and in all: the A/A pairs called SLOWER beyond the allowance (false
significance), those called SLOWER or FASTER at all, the slowed pairs called SLOWER beyond the
allowance (caught), and the state's log spread between runs (of the run medians) and within a
run (the median run's). Exits 1 when more than 1 in 20 A/A pairs are called beyond the
allowance or fewer than 19 in 20 slowdowns are caught (the issue's targets), 0 otherwise.

usage: bench-drift.py SET_JSON [--perfgate PATH] [--device DEVICE_JSON] [--slowdown 1.2]
                      [--max-efficiency-drop 0.1] [--baseline-runs K] [--run-spread S]
                      [--max-pairs N]
                      [--min-load L] [--max-load L] [--min-others S] [--max-others S]
                      [--work DIR]
(--min-load / --max-load: only the rounds whose load average, before and after, lay within;
--min-others / --max-others: only those whose others' share of the CPU time over the run lay
within: the rates of a busy and of a quiet machine apart. A set with the repetitions' CPU
times replays them as cpu_time, the clock the gate times these benchmarks on; the spread
columns are of that clock's times.)
(--device: a perfgate-device/1 file of a CPU; default: `perfgate calibrate --backend cpu
--quick` into the work folder. It only sets the roof both sides share: the ratios do not
depend on it.)
"""
import argparse
import itertools
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

REPLAY = """#!/bin/sh
# Writes the recorded Google Benchmark output $1 where --benchmark_out= asks.
src=$1; shift
for a in "$@"; do case "$a" in --benchmark_out=*) cp "$src" "${a#--benchmark_out=}" ;; esac; done
"""


def gbench_json(rnd: dict, counters: dict, scale: float) -> dict:
    """A round as Google Benchmark writes it: one entry per repetition, times in ms (its
    recorded CPU times where the set has them; a set recorded before them gives real_time for
    both, the clock perfgate then timed on)."""
    benchmarks = []
    for state, times in rnd["samples_ms"].items():
        cpu = rnd.get("cpu_samples_ms", {}).get(state, times)
        for i, (t, c) in enumerate(zip(times, cpu)):
            benchmarks.append({
                "name": state, "run_name": state, "run_type": "iteration",
                "repetitions": len(times), "repetition_index": i, "threads": 1,
                "iterations": 1, "real_time": t * scale, "cpu_time": c * scale,
                "time_unit": "ms", **counters.get(state, {})})
    return {"context": {"date": rnd["start_utc"], "num_cpus": 2, "library_build_type": "release"},
            "benchmarks": benchmarks}


def raised_roofs(device: str, out: Path) -> str:
    """A copy of the device file with every peak 4x: the verdicts compare runs with each other
    and do not depend on the roof, but a run that beat a roof of this machine's own calibration
    would have the gate calibrate the machine again (20 s, and a measurement of now, not a
    replay)."""
    doc = json.loads(Path(device).read_text())
    for key in ("peaks", "peaks_one_core"):
        for name, value in (doc.get(key) or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                doc[key][name] = value * 4
    out.write_text(json.dumps(doc))
    return str(out)


def gate(perfgate, device, drop, work, profile, report, baseline=None, run_spread=0.0):
    cmd = [perfgate, "run", "--collector", "gbench", "--device", device, "--confirm-budget", "0",
           "--max-efficiency-drop", str(drop), "--report", str(report)]
    if run_spread:
        cmd += ["--run-spread", str(run_spread)]
    if baseline:
        cmd += ["--baseline", str(baseline)]
    cmd += ["--", str(work / "replay.sh"), str(profile)]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if rc.returncode not in (0, 1):
        sys.exit(f"bench-drift: {' '.join(cmd)} exited {rc.returncode}: {rc.stderr.strip()}")
    return json.loads(Path(report).read_text())


def verdicts(report: dict) -> dict:
    """Each kernel's change verdict against the baseline: (kind, beyond_allowed)."""
    out = {}
    for k in report["kernels"]:
        change = (k.get("verdict") or {}).get("change")
        if change:
            out[k["name"]] = (change["kind"], bool(change.get("beyond_allowed")))
    return out


def spreads(rounds: list, state: str, key: str):
    """The log standard deviation of the state's run medians (between runs), and the median of
    its runs' own log standard deviations (within a run), of the times under `key`."""
    def sd(values):
        logs = [math.log(v) for v in values]
        mean = sum(logs) / len(logs)
        return math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    runs = [r[key][state] for r in rounds if state in r.get(key, {})]
    return sd([statistics.median(r) for r in runs]), statistics.median(sd(r) for r in runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set_json")
    ap.add_argument("--perfgate", default=str(ROOT / "build" / "bin" / "perfgate"))
    ap.add_argument("--device")
    ap.add_argument("--slowdown", type=float, default=1.2)
    ap.add_argument("--max-efficiency-drop", type=float, default=0.1)
    ap.add_argument("--baseline-runs", type=int, default=1)
    ap.add_argument("--run-spread", type=float, default=0.0,
                    help="the gate's --run-spread for the comparisons (0: not given)")
    ap.add_argument("--max-pairs", type=int, default=0, help="0: every pair")
    ap.add_argument("--min-load", type=float, default=0)
    ap.add_argument("--max-load", type=float, default=float("inf"))
    ap.add_argument("--min-others", type=float, default=0)
    ap.add_argument("--max-others", type=float, default=1)
    ap.add_argument("--work")
    args = ap.parse_args()
    record = json.loads(Path(args.set_json).read_text())
    counters = record.get("counters", {})
    rounds = [r for r in record["rounds"]
              if args.min_load <= min(r["loadavg_before"], r["loadavg_after"])
              and max(r["loadavg_before"], r["loadavg_after"]) <= args.max_load
              and args.min_others <= r.get("others_cpu_share", 0) <= args.max_others]
    if (args.min_others > 0 or args.max_others < 1) and \
            any("others_cpu_share" not in r for r in record["rounds"]):
        sys.exit("bench-drift: --min-others / --max-others need a set that recorded "
                 "others_cpu_share")
    # The clock the gate times these benchmarks on: the CPU time where the set recorded it.
    clock = "cpu_samples_ms" if all("cpu_samples_ms" in r for r in rounds) else "samples_ms"
    work = Path(args.work or tempfile.mkdtemp(prefix="perfgate-drift-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "replay.sh").write_text(REPLAY)
    os.chmod(work / "replay.sh", 0o755)
    device = args.device
    if not device:
        device = str(work / "local-cpu.json")
        subprocess.run([args.perfgate, "calibrate", "--backend", "cpu", "--quick", "-o", device],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    device = raised_roofs(device, work / "device-raised.json")
    drop = args.max_efficiency_drop
    for i, rnd in enumerate(rounds):
        for tag, scale in (("as", 1.0), ("slow", args.slowdown)):
            (work / f"round{i}-{tag}.json").write_text(json.dumps(gbench_json(rnd, counters, scale)))
        gate(args.perfgate, device, drop, work, work / f"round{i}-as.json", work / f"base{i}.json")
    k = args.baseline_runs
    if k < 1 or k >= len(rounds):
        sys.exit(f"bench-drift: --baseline-runs {k} needs more than {k} rounds ({len(rounds)})")
    pairs = [(i, j) for i, j in itertools.combinations(range(len(rounds)), 2) if j >= i + k]
    if args.max_pairs and len(pairs) > args.max_pairs:
        pairs = sorted(random.Random(54).sample(pairs, args.max_pairs))
    baselines = {}
    for i in sorted({i for i, _ in pairs}):
        if k == 1:
            baselines[i] = work / f"base{i}.json"
            continue
        baselines[i] = work / f"baseline{i}-{k}.json"
        subprocess.run([args.perfgate, "baseline", "accept",
                        *[str(work / f"base{r}.json") for r in range(i, i + k)],
                        "-o", str(baselines[i])], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    tally = {}  # state -> [pairs, A/A beyond, A/A any, slowed caught]
    for i, j in pairs:
        base = baselines[i]
        same = verdicts(gate(args.perfgate, device, drop, work, work / f"round{j}-as.json",
                             work / "head.json", base, args.run_spread))
        slow = verdicts(gate(args.perfgate, device, drop, work, work / f"round{j}-slow.json",
                             work / "head.json", base, args.run_spread))
        for state, (kind, beyond) in same.items():
            t = tally.setdefault(state, [0, 0, 0, 0])
            t[0] += 1
            t[1] += kind == "SLOWER" and beyond
            t[2] += kind in ("SLOWER", "FASTER")
            skind, sbeyond = slow.get(state, ("", False))
            t[3] += skind == "SLOWER" and sbeyond
    print(f"{args.set_json}: {len(rounds)} rounds (load average {args.min_load:g} to "
          f"{args.max_load:g}, others' CPU share {args.min_others:g} to {args.max_others:g}), "
          f"{len(pairs)} pairs, baseline of {k} run(s), run spread {args.run_spread:g}, "
          f"timed on {'CPU' if clock == 'cpu_samples_ms' else 'real'} time, "
          f"allowance "
          f"{1 / (1 - drop):.3f}x, slowdown {args.slowdown}x")
    print(f"{'state':<20} {'pairs':>6} {'A/A beyond':>11} {'A/A signif.':>12} "
          f"{'slow caught':>12} {'between':>8} {'within':>7}")
    total = [0, 0, 0, 0]
    for state, t in tally.items():
        total = [a + b for a, b in zip(total, t)]
        between, within = spreads(rounds, state, clock)
        print(f"{state:<20} {t[0]:>6} {t[1]:>11} {t[2]:>12} {t[3]:>12} {between:>8.3f} "
              f"{within:>7.3f}")
    n = max(total[0], 1)
    print(f"{'all':<20} {total[0]:>6} {total[1]:>11} {total[2]:>12} {total[3]:>12}")
    print(f"false significance beyond the allowance {100 * total[1] / n:.1f}% (target <= 5%), "
          f"any significance {100 * total[2] / n:.1f}%, {args.slowdown}x caught "
          f"{100 * total[3] / n:.1f}% (target >= 95%)")
    return 0 if total[1] * 20 <= n and total[3] * 20 >= 19 * n else 1


if __name__ == "__main__":
    sys.exit(main())
