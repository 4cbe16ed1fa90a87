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
               "samples_ms": {STATE: [5 repetition times]},
               "cpu_samples_ms": {STATE: [the same repetitions' CPU times]},
               "others_cpu_share": F}]}
(samples_ms holds Google Benchmark's real_time, cpu_samples_ms its cpu_time: the CPU time the
benchmark's thread had. others_cpu_share is the part of the machine's CPU time, over the run,
that went to anything but the run itself: /proc/stat's busy time less the run's own rusage.)
(The counters are the work each state declares, the same every run: what a report needs to
place the state under its roof.)

With --load-cycle, the recorder makes the machine busy itself, in phases of --phase seconds
taken in turn from the cycle's names: idle (nothing), cpu1 / cpu2 / cpu4 (stress-ng --cpu with one,
two, four workers), vm1 / vm2 (stress-ng --vm: one worker writing and reading 512 MiB, two
256 MiB each: the memory's load), or a sum such as cpu1+vm1; each round records the phase it started in ("load").

usage: record-aa-runs.py BINARY OUT_JSON [--rounds N] [--pause S] [--what TEXT]
                         [--load-cycle idle,cpu2,vm2,cpu4 --phase S]
"""
import argparse
import json
import os
import platform
import resource
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


def busy_and_total_s() -> tuple:
    """The machine's busy and total CPU seconds since boot (/proc/stat's first line)."""
    with open("/proc/stat", encoding="utf-8") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user
    return (total - idle) / tick, total / tick


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_round(binary: str, counters: dict) -> tuple:
    """One run of the binary: every state's repetition real and CPU times in milliseconds (its
    declared counters into `counters`, the first time a state is seen), and the share of the
    machine's CPU time that went to other work meanwhile."""
    busy0, total0 = busy_and_total_s()
    own0 = children_cpu_s()
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [binary, f"--benchmark_repetitions={REPETITIONS}",
                   f"--benchmark_min_time={MIN_TIME}", f"--benchmark_out={out.name}",
                   "--benchmark_out_format=json"]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        doc = json.load(open(out.name, encoding="utf-8"))
    busy1, total1 = busy_and_total_s()
    others = max(0.0, (busy1 - busy0) - (children_cpu_s() - own0)) / max(total1 - total0, 1e-9)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    samples, cpu_samples = {}, {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        samples.setdefault(b["run_name"], []).append(
            round(b["real_time"] * scale[b.get("time_unit", "ns")], 6))
        cpu_samples.setdefault(b["run_name"], []).append(
            round(b["cpu_time"] * scale[b.get("time_unit", "ns")], 6))
        counters.setdefault(b["run_name"],
                            {k: v for k, v in b.items() if k.startswith("perfgate_")})
    bad = {k: len(v) for k, v in samples.items() if len(v) != REPETITIONS}
    if bad:
        sys.exit(f"record-aa-runs: expected {REPETITIONS} repetitions per state, got {bad}")
    return samples, cpu_samples, round(others, 4)


STRESS = {"cpu1": ["--cpu", "1"], "cpu2": ["--cpu", "2"], "cpu4": ["--cpu", "4"],
          "vm1": ["--vm", "1", "--vm-bytes", "512M"], "vm2": ["--vm", "2", "--vm-bytes", "256M"]}


class LoadCycle:
    """stress-ng in phases, one phase's load at a time (none for "idle")."""

    def __init__(self, names: list, phase_s: float):
        for name in names:
            for part in name.split("+"):
                if part != "idle" and part not in STRESS:
                    sys.exit(f"record-aa-runs: unknown load '{part}' in --load-cycle; "
                             f"expected idle or one of {', '.join(STRESS)}")
        self.names, self.phase_s = names, phase_s
        self.start = time.monotonic()
        self.current, self.proc = None, None

    def update(self) -> str:
        name = self.names[int((time.monotonic() - self.start) // self.phase_s) % len(self.names)]
        if name != self.current:
            self.stop()
            args = [a for part in name.split("+") if part != "idle" for a in STRESS[part]]
            if args:
                # Its own process group, but the recorder's session: Linux's scheduler shares
                # the CPUs between sessions first (autogroup), so a load in a session of its
                # own leaves the benchmark a whole core, which a CI job's neighbours do not.
                self.proc = subprocess.Popen(["stress-ng", *args, "--quiet"],
                                             stdout=subprocess.DEVNULL, process_group=0)
            self.current = name
        return name

    def stop(self) -> None:
        if self.proc is not None:
            os.killpg(self.proc.pid, 15)
            self.proc.wait()
            self.proc = None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("out_json")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--pause", type=float, default=120, help="seconds between round starts")
    ap.add_argument("--what", default="", help="the machine's state while recording")
    ap.add_argument("--load-cycle", default="", help="comma-separated phases (see above)")
    ap.add_argument("--phase", type=float, default=150, help="seconds per load phase")
    args = ap.parse_args()
    cycle = LoadCycle(args.load_cycle.split(","), args.phase) if args.load_cycle else None
    try:
        return record_rounds(args, cycle)
    finally:
        if cycle:
            cycle.stop()


def record_rounds(args, cycle) -> int:
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
        if cycle:
            entry["load"] = cycle.update()
        (entry["samples_ms"], entry["cpu_samples_ms"],
         entry["others_cpu_share"]) = one_round(args.binary, record["counters"])
        entry["loadavg_after"] = round(loadavg(), 2)
        record["rounds"].append(entry)
        tmp = args.out_json + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
        os.replace(tmp, args.out_json)
        print(f"round {i + 1}/{args.rounds} {entry['start_utc']} load {entry['loadavg_before']}"
              f"-{entry['loadavg_after']} others {entry['others_cpu_share']:.2f}", flush=True)
        if i + 1 < args.rounds:
            time.sleep(max(0.0, args.pause - (time.monotonic() - start)))
            if cycle:
                cycle.update()
    return 0


if __name__ == "__main__":
    sys.exit(main())
