#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""perfgate history end to end: append gated reports (two runs of one commit make one point,
the floor of both), find a planted step in a 30-commit history with the commit that starts it,
mute and unmute a kernel, refuse a bad line naming the file and line.

usage: check_history.py PERFGATE REPORT WORK_DIR   (REPORT: a gated perfgate-report/2)
"""
import json
import subprocess
import sys
from pathlib import Path


def run(perfgate, *args, code=0):
    p = subprocess.run([perfgate, *args], capture_output=True, text=True)
    if p.returncode != code:
        sys.exit(f"perfgate {' '.join(args)}: exit {p.returncode}, expected {code}\n{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def main(perfgate, report, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)

    # Two runs of one commit, then another commit: a series of two points.
    appended = work / "appended.jsonl"
    appended.unlink(missing_ok=True)
    run(perfgate, "history", "append", report, report, "--history", str(appended),
        "--commit", "c0", "--date", "2026-11-01")
    run(perfgate, "history", "append", report, "--history", str(appended), "--commit", "c1")
    lines = appended.read_text().splitlines()
    kernels = {json.loads(l)["kernel"] for l in lines}
    got = json.loads(run(perfgate, "history", "changes", "--history", str(appended), "--format", "json"))
    assert got["schema"] == "perfgate-history-changes/1", got["schema"]
    assert len(got["series"]) == len(kernels), (len(got["series"]), kernels)
    s = got["series"][0]
    assert s["commits"] == ["c0", "c1"], s["commits"]
    # A report's runs: the measurement's and its confirmation runs'; c0 has two reports.
    verdict = next(k for k in json.loads(Path(report).read_text())["kernels"]
                   if k["name"] == s["kernel"])["verdict"]
    per_report = 1 + len(verdict.get("confirmation", {}).get("efficiency_runs", []))
    assert s["runs"] == [2 * per_report, per_report], (s["runs"], per_report)
    assert s["changes"] == [], s["changes"]

    # 30 commits, kernel "k" 8% slower from commit c17 on, "steady" unchanged.
    planted = work / "planted.jsonl"
    rows = []
    for c in range(30):
        for kernel, level in (("k", 1.08 if c >= 17 else 1.0), ("steady", 1.0)):
            e = [0.4 / level / (1 + 0.003 * ((c * 5 + r) % 4)) for r in range(5)]
            rows.append(json.dumps({"schema": "perfgate-history/1", "commit": f"c{c}",
                                    "date": f"2026-10-{c + 1:02d}", "kernel": kernel,
                                    "device": "local-cpu", "efficiency": e[0], "runs": [e]}))
    planted.write_text("\n".join(rows) + "\n")
    got = json.loads(run(perfgate, "history", "changes", "--history", str(planted), "--format", "json"))
    by = {s["kernel"]: s for s in got["series"]}
    changes = by["k"]["changes"]
    assert len(changes) == 1 and changes[0]["commit"] == "c17", changes
    assert abs(changes[0]["ratio"] - 1.08) < 0.01, changes
    assert changes[0]["p_value"] <= 0.01, changes
    assert by["steady"]["changes"] == [], by["steady"]["changes"]
    md = run(perfgate, "history", "changes", "--history", str(planted))
    assert "| `k` | local-cpu | `c17` (2026-10-18) | +8.0% (slower) |" in md, md

    # Muted: out of the table, listed with its reason; unmuted: back.
    run(perfgate, "history", "mute", "k", "--history", str(planted), "--reason", "flaky on shared runners")
    md = run(perfgate, "history", "changes", "--history", str(planted))
    assert "0 change points" in md and "`k` on local-cpu (1 change point): flaky on shared runners" in md, md
    run(perfgate, "history", "unmute", "k", "--history", str(planted))
    md = run(perfgate, "history", "changes", "--history", str(planted))
    assert "1 change point in 2 series" in md, md
    out = run(perfgate, "history", "mute", "nope", "--history", str(planted), "--reason", "x", code=2)
    assert "'nope' is not a kernel of the history" in out, out
    # Mutes kept apart (a file committed to the repository): applied after the history's own.
    mutes = work / "mutes.jsonl"
    mutes.unlink(missing_ok=True)
    run(perfgate, "history", "mute", "k", "--history", str(mutes), "--reason", "known noisy")
    md = run(perfgate, "history", "changes", "--history", str(planted), "--mutes", str(mutes))
    assert "`k` on local-cpu (1 change point): known noisy" in md, md

    # A bad line: exit 2 naming the file and the line.
    bad = work / "bad.jsonl"
    bad.write_text(rows[0] + "\n" + rows[1] + "\n" + '{"schema": "perfgate-history/1", "commit": "c9"}\n')
    out = run(perfgate, "history", "changes", "--history", str(bad), code=2)
    assert "bad.jsonl:3" in out and "kernel" in out, out
    out = run(perfgate, "history", "append", report, "--history", str(bad), "--commit", "c3", code=2)
    assert "bad.jsonl:3" in out, out
    print("check_history: ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
