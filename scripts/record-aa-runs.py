#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Records A/A runs: one unchanged Google Benchmark binary run again and again, minutes apart,
each run as perfgate's gbench collector runs it by default (5 repetitions, the default 0.5 s
split among them: --benchmark_min_time=0.1), keeping every repetition's time. Issue 54 item 5's
data: how far runs of unchanged code drift on a machine, so that a comparison against a stored
run can be checked for false significance (A/A pairs) and for catching a slowdown (a pair's
second run scaled by 1.2).

The set is written after every round (a killed recording keeps its rounds), as one JSON file:
  {"what", "command", "machine", "counters": {STATE: {the program's perfgate_* counters}},
   "rounds": [{"start_utc", "loadavg_before", "loadavg_after",
               "samples_ms": {STATE: [5 repetition times]}}]}
(The counters are the work each state declares, the same every run: what a report needs to
place the state under its roof.)

usage: record-aa-runs.py BINARY OUT_JSON [--rounds N] [--pause S] [--what TEXT]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

REPETITIONS = 5
MIN_TIME = "0.1"  # the collector's default: Google Benchmark's 0.5 s over 5 repetitions


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loadavg() -> float:
    return os.getloadavg()[0]


def one_round(binary: str, counters: dict) -> dict:
    """One run of the binary; every state's repetition times in milliseconds (its declared
    counters into `counters`, the first time a state is seen)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [binary, f"--benchmark_repetitions={REPETITIONS}",
                   f"--benchmark_min_time={MIN_TIME}", f"--benchmark_out={out.name}",
                   "--benchmark_out_format=json"]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        doc = json.load(open(out.name, encoding="utf-8"))
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    samples = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        samples.setdefault(b["run_name"], []).append(
            round(b["real_time"] * scale[b.get("time_unit", "ns")], 6))
        counters.setdefault(b["run_name"],
                            {k: v for k, v in b.items() if k.startswith("perfgate_")})
    bad = {k: len(v) for k, v in samples.items() if len(v) != REPETITIONS}
    if bad:
        sys.exit(f"record-aa-runs: expected {REPETITIONS} repetitions per state, got {bad}")
    return samples


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("out_json")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--pause", type=float, default=120, help="seconds between round starts")
    ap.add_argument("--what", default="", help="the machine's state while recording")
    args = ap.parse_args()
    record = {
        "what": args.what,
        "command": f"{os.path.basename(args.binary)} --benchmark_repetitions={REPETITIONS} "
                   f"--benchmark_min_time={MIN_TIME}",
        "machine": f"{cpu_model()}, {os.cpu_count()} CPUs",
        "counters": {},
        "rounds": [],
    }
    for i in range(args.rounds):
        start = time.monotonic()
        entry = {"start_utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "loadavg_before": round(loadavg(), 2)}
        entry["samples_ms"] = one_round(args.binary, record["counters"])
        entry["loadavg_after"] = round(loadavg(), 2)
        record["rounds"].append(entry)
        tmp = args.out_json + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
        os.replace(tmp, args.out_json)
        print(f"round {i + 1}/{args.rounds} {entry['start_utc']} load {entry['loadavg_before']}"
              f"-{entry['loadavg_after']}", flush=True)
        if i + 1 < args.rounds:
            time.sleep(max(0.0, args.pause - (time.monotonic() - start)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
