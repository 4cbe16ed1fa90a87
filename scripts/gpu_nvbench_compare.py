#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gpu-nvbench-suite.sh's comparison: nvbench's own JSON of a program's run beside perfgate's
report of its gated run, state by state, and the gate's cost.

usage: gpu_nvbench_compare.py OUT_DIR (NAME RC_PLAIN SECONDS_PLAIN RC_GATE SECONDS_GATE)...

For every state nvbench timed (cold GPU median, or mean in files before 2025), the kernel
perfgate reports for it: its measured time (perfgate's own run of the program: run-to-run noise
of nvbench's, and whatever CUPTI's launch tracing in that run adds), its
DRAM traffic and compute work from CUPTI's counters, its efficiency; states nvbench skipped and
kernels that are nvbench's setup (not a state) are counted apart. Writes nvbench-suite.md/.json;
exits 1 when a timed state has no kernel in perfgate's report or a time differs by more than
25% (a different measurement, not noise)."""
import json
import os
import statistics
import sys

COLD_MEAN = "nv/cold/time/gpu/mean"
COLD_MEDIAN = "nv/cold/time/gpu/median"  # nvbench since 2025


def nvbench_states(path):
    """(kernel name as perfgate writes it, {"mean": s, "median": s}, skipped) for every state."""
    with open(path) as f:
        doc = json.load(f)
    out = []
    for bench in doc.get("benchmarks", []):
        for state in bench.get("states", []):
            times = {}
            for s in state.get("summaries") or []:
                for key, tag in (("mean", COLD_MEAN), ("median", COLD_MEDIAN)):
                    if s.get("tag") == tag:
                        times[key] = float(next(d["value"] for d in s["data"]
                                                if d["name"] == "value"))
            out.append((bench["name"] + " [" + state["name"] + "]", times,
                        bool(state.get("is_skipped"))))
    return out


def compare(out_dir, name, rc_plain, s_plain, rc_gate, s_gate):
    row = {"program": name, "exit_nvbench": rc_plain, "seconds_nvbench": s_plain,
           "exit_perfgate": rc_gate, "seconds_perfgate": s_gate,
           "cost": s_gate / s_plain if s_plain > 0 else None, "problems": []}
    ref = os.path.join(out_dir, name + ".nvbench.json")
    rep = os.path.join(out_dir, name + ".report.json")
    if rc_plain != 0 or not os.path.exists(ref):
        row["problems"].append("nvbench's own run failed (exit %d)" % rc_plain)
        return row
    if rc_gate not in (0, 1) or not os.path.exists(rep):
        row["problems"].append("perfgate run failed (exit %d)" % rc_gate)
        return row
    states = nvbench_states(ref)
    kernels = {k["name"]: k for k in json.load(open(rep))["kernels"]}
    diffs, with_counters, eff = [], 0, []
    timed = [(n, t) for n, t, skipped in states if t and not skipped]
    row["states"] = len(states)
    row["states_timed"] = len(timed)
    row["states_skipped"] = sum(1 for _, _, s in states if s)
    for kname, t in timed:
        # perfgate names a state's kernel "bench [state]"; the device may be named apart.
        k = kernels.get(kname) or next((v for n, v in kernels.items()
                                        if n.endswith(kname.split(" [", 1)[1])
                                        and n.startswith(kname.split(" [", 1)[0])), None)
        if k is None or not k.get("measured"):
            row["problems"].append("state %s: no kernel in perfgate's report" % kname)
            continue
        m = k["measured"]
        # Medians where both have them (a traced run has rare long samples), else means.
        got, ref = ((m.get("median_s"), t.get("median")) if m.get("median_s") and t.get("median")
                    else (m.get("mean_s") or m.get("time_s"), t.get("mean")))
        if got and ref:
            diffs.append(got / ref - 1)
            if abs(got / ref - 1) > 0.25:
                row["problems"].append("state %s: %.4g s in perfgate, %.4g s in nvbench" %
                                       (kname, got, ref))
        params = k.get("params") or {}
        if params.get("W_traf") and params.get("compute_declared", True):
            with_counters += 1
        e = (k.get("verdict") or {}).get("efficiency")
        if e:
            eff.append(e)
    row["kernels_reported"] = len(kernels)
    row["states_with_counters"] = with_counters
    if diffs:
        row["time_diff_median"] = statistics.median(abs(d) for d in diffs)
        row["time_diff_max"] = max(abs(d) for d in diffs)
    if eff:
        row["efficiency_min"], row["efficiency_max"] = min(eff), max(eff)
    return row


def main(argv):
    out_dir, rest = argv[1], argv[2:]
    rows = []
    for i in range(0, len(rest), 5):
        name, rc_p, s_p, rc_g, s_g = rest[i:i + 5]
        rows.append(compare(out_dir, name, int(rc_p), float(s_p), int(rc_g), float(s_g)))
    with open(os.path.join(out_dir, "nvbench-suite.json"), "w") as f:
        json.dump(rows, f, indent=1)
    lines = ["| program | states (timed, skipped) | judged with counters | |time/nvbench - 1|: median, max "
             "| efficiency | nvbench alone | under perfgate | cost |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    fmt = lambda v, f: (f % v) if v is not None else "-"
    for r in rows:
        lines.append("| %s | %s (%s, %s) | %s | %s, %s | %s-%s | %.1f s | %.1f s | %s |" % (
            r["program"], r.get("states", "-"), r.get("states_timed", "-"),
            r.get("states_skipped", "-"), r.get("states_with_counters", "-"),
            fmt(r.get("time_diff_median"), "%.3f"),
            fmt(r.get("time_diff_max"), "%.3f"), fmt(r.get("efficiency_min"), "%.2f"),
            fmt(r.get("efficiency_max"), "%.2f"), r["seconds_nvbench"], r["seconds_perfgate"],
            fmt(r.get("cost"), "%.2fx")))
        lines += ["  - " + p for p in r["problems"]]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, "nvbench-suite.md"), "w") as f:
        f.write(text)
    print(text)
    return 1 if any(r["problems"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
