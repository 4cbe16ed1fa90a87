#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Many runners (docs/ci.md, "Many runners"): two GPU runners' reports merged into one, and one
baseline with an entry per device, checked against golden files in tests/data/golden/multi_runner/.

Two runners run the same two perf tests, each on its own GPU, as the perf-matrix workflow does:
  runner-h100  local device h100-sxm (l40s predicted too), runner-l40s  local device l40s
  (h100-sxm predicted too);
  perf.gemm   a BF16 GEMM benchmark (tests/data/gbench/declared_tensor_work.json, 1 ms an
              iteration), MIN_EFFICIENCY 0.2: 0.13 of the H100's roof fails, 0.37 of the
              L40S's passes;
  perf.triad  a STREAM triad of 10 repetitions (triad_10_repetitions.json on the H100 runner,
              the same 1.3x slower on the L40S runner), EXPECT_BOUND memory: passes on both.
Each runner merges its reports into all.json (scripts/main.sh), then

  merge     `perfgate merge runner-h100/all.json runner-l40s/all.json -o merged.json` and
            `perfgate report merged.json --format md`: golden merged.json and merged.md;
  baseline  `perfgate baseline accept runner-h100/all.json runner-l40s/all.json`: golden
            baseline.json, and the same entries from `baseline accept merged.json`; then a run
            on each GPU is judged against its own device's entry.

Then the same in calibrated/, where both runners' GPUs are calibrated, so both are named
`local-cuda-0` (perfgate calibrate's default id), with other peaks (a device file each, made from
tests/data/devices/valid_device.json): runner-a on host `runner-a.example` (written into its
reports' meta.host, as its own machine would), runner-b on this machine's host, so that a later
`perfgate run` here is a run on runner-b. Only perf.triad runs there (EXPECT_BOUND memory): 0.83
of runner-a's roof, 0.19 of runner-b's. The merge keeps the two GPUs apart (runner-b's renamed
`local-cuda-0@<host>` everywhere its report names it): golden calibrated_merged.json; the baseline
holds one entry per runner, each with its own efficiency, also when accepted from the merged
report: golden calibrated_baseline.json; a later run on runner-b's host is SAME against its own
entry (against runner-a's 0.83 it would be SLOWER).

Before the golden comparison the script asserts what the golden files must show (devices kept
apart, each kernel under each runner, the verdicts), so a regenerated golden file cannot hide a
wrong merge. Volatile fields are normalised: meta.timestamp, meta.host (also in each kernel's
origin and in a renamed device id), meta.perfgate_version, argv[0], and this checkout's and
the work folder's paths.
A wanted change of the output is approved by regenerating the files and reviewing the diff:
  PERFGATE_UPDATE_GOLDEN=1 ctest --test-dir build -R cli.multi_runner

usage: check_multi_runner.py merge|baseline PERFGATE SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from check_support import check, run_main

RUNNERS = {"runner-h100": "h100-sxm", "runner-l40s": "l40s"}
# test -> (its recorded Google Benchmark output on each runner, in RUNNERS' order; the gate's
# options)
TESTS = {
    "perf.gemm": (["declared_tensor_work.json"] * 2, ["--min-efficiency", "0.2"]),
    "perf.triad": (["triad_10_repetitions.json", "triad_10_repetitions_1.3x.json"],
                   ["--expect-bound", "memory"]),
}
# (kernel, local device) -> the verdict each runner's gate must give
EXPECTED_STATUS = {
    ("BM_gemm_bf16", "h100-sxm"): "fail",
    ("BM_gemm_bf16", "l40s"): "pass",
    ("BM_triad", "h100-sxm"): "pass",
    ("BM_triad", "l40s"): "pass",
}
# The calibrated runners: runner -> (its GPU's DRAM peak in its local-cuda-0.json, its triad, the
# efficiency its gate gives, rounded); runner-a's host is written into its reports, runner-b's is
# this machine's.
CALIBRATED = {
    "runner-a": (30, "triad_10_repetitions.json", 0.83),
    "runner-b": (100, "triad_10_repetitions_1.3x.json", 0.19),
}
HOST_A = "runner-a.example"


class Runner:
    def __init__(self, perfgate, source, work):
        self.perfgate, self.source, self.work = perfgate, Path(source), Path(work)

    def perfgate_cmd(self, args, expect_codes, expect=None):
        """Runs perfgate in the work folder (so report paths stay relative); returns its output."""
        command = [self.perfgate, *args]
        done = subprocess.run(command, cwd=self.work, capture_output=True, text=True)
        out = done.stdout + done.stderr
        shown = " ".join(["perfgate", *args])
        check(done.returncode in expect_codes,
              f"`{shown}` exited {done.returncode}, expected {expect_codes}:\n{out}")
        if expect is not None:
            check(re.search(expect, out, re.S) is not None,
                  f"`{shown}`: its output does not match '{expect}':\n{out}")
        return out

    def run_all(self):
        """Each runner's two perf tests and its all.json, as scripts/main.sh leaves them."""
        gbench = self.source / "tests/data/gbench"
        for index, (runner, local) in enumerate(RUNNERS.items()):
            other = [d for d in RUNNERS.values() if d != local]
            reports = []
            for test, (jsons, options) in TESTS.items():
                report = f"{runner}/{test}.json"
                expected = EXPECTED_STATUS[("BM_gemm_bf16" if test == "perf.gemm" else "BM_triad",
                                            local)]
                self.perfgate_cmd(
                    ["run", "--collector", "profile", "--profile", str(gbench / jsons[index]),
                     "--device", local, *[a for d in other for a in ("--device", d)], *options,
                     "--report", report],
                    [1 if expected == "fail" else 0])
                reports.append(report)
            self.perfgate_cmd(["merge", *reports, "-o", f"{runner}/all.json"], [0])

    def run_calibrated(self):
        """Each calibrated runner's triad and all.json (see the module's doc); returns the host of
        each runner, as its reports say."""
        gbench = self.source / "tests/data/gbench"
        fixture = load(self.source / "tests/data/devices/valid_device.json")
        hosts = {}
        for runner, (dram, triad, _) in CALIBRATED.items():
            (self.work / runner).mkdir(parents=True)
            gpu = dict(fixture, id="local-cuda-0", name="NVIDIA test GPU",
                       peaks=dict(fixture["peaks"], dram_gbs=dram))
            (self.work / runner / "local-cuda-0.json").write_text(json.dumps(gpu), encoding="utf-8")
            report = f"{runner}/perf.triad.json"
            self.perfgate_cmd(
                ["run", "--collector", "profile", "--profile", str(gbench / triad), "--device",
                 f"{runner}/local-cuda-0.json", "--device", "h100-sxm", "--expect-bound", "memory",
                 "--report", report], [0])
            if runner == "runner-a":
                set_host(self.work / report, HOST_A)
            self.perfgate_cmd(["merge", report, "-o", f"{runner}/all.json"], [0])
            if runner == "runner-a":
                set_host(self.work / runner / "all.json", HOST_A)
            hosts[runner] = load(self.work / runner / "all.json")["meta"]["host"]
        check(hosts["runner-b"] not in ("", HOST_A),
              f"this machine's host name is {hosts['runner-b']!r}: runner-b needs another host "
              f"than runner-a's {HOST_A!r}")
        return hosts


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def set_host(path, host):
    """The report as written on `host`: the runner's own machine would have put it in meta."""
    doc = load(path)
    doc["meta"]["host"] = host
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def normalise_strings(value, replacements):
    """Replaces in every string, dictionary keys too (a baseline's bounds are keyed by device)."""
    if isinstance(value, str):
        for old, new in replacements:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [normalise_strings(v, replacements) for v in value]
    if isinstance(value, dict):
        return {normalise_strings(k, replacements): normalise_strings(v, replacements)
                for k, v in value.items()}
    return value


def normalise_document(doc, source, work, renamed_hosts=()):
    """The document without what differs between machines and runs (see the module's doc);
    `renamed_hosts`: the hosts whose devices a merge or baseline renamed `<id>@<host>`."""
    doc = json.loads(json.dumps(doc))
    doc = normalise_strings(doc, [(f"@{host}", "@<host>") for host in renamed_hosts])
    hosts = set()
    meta = doc.get("meta")
    if meta is not None:
        hosts.add(meta["host"])
        meta["host"] = "<host>"
        meta["timestamp"] = "<timestamp>"
        meta["perfgate_version"] = "<version>"
        if meta.get("argv"):
            meta["argv"][0] = "perfgate"
    for k in doc.get("kernels", []):
        origin = k.get("origin")
        match = re.fullmatch(r"(.*) \((.*)\)", origin or "")
        if match:
            hosts.add(match.group(2))
            k["origin"] = f"{match.group(1)} (<host>)"
    # Longest first: the work folder may lie inside the checkout (a build tree) or not.
    paths = sorted([(str(Path(work).resolve()), "<work>"), (str(Path(work)), "<work>"),
                    (str(Path(source).resolve()), "<source>"), (str(Path(source)), "<source>")],
                   key=lambda p: -len(p[0]))
    return normalise_strings(doc, paths), hosts


def to_text(doc):
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def first_difference(want, got):
    a, b = want.splitlines(), got.splitlines()
    for i in range(max(len(a), len(b))):
        la = a[i] if i < len(a) else "<end>"
        lb = b[i] if i < len(b) else "<end>"
        if la != lb:
            return f"line {i + 1}:\n  golden: {la}\n  now:    {lb}"
    return "same lines, different bytes (line endings?)"


UPDATED = []  # golden files written because PERFGATE_UPDATE_GOLDEN is set


def expect_golden(golden_dir, name, got):
    path = golden_dir / name
    if os.environ.get("PERFGATE_UPDATE_GOLDEN"):
        golden_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
        print(f"updated {path}: review it in the diff")
        UPDATED.append(path)  # and fail at the end: a leaked variable can never pass
        return
    check(path.exists(),
          f"{path} is missing: run with PERFGATE_UPDATE_GOLDEN=1 and review the new file")
    want = path.read_text(encoding="utf-8")
    check(want == got,
          f"{name} differs from its golden file {path}, first at {first_difference(want, got)}\n"
          "(approve a wanted change with PERFGATE_UPDATE_GOLDEN=1 ctest -R cli.multi_runner "
          "and review the diff)")
    print(f"ok: {name} matches {path}")


def runner_of(kernel, runners=RUNNERS):
    """The runner a merged kernel came from, by its origin ("runner-x/perf.y.json (host)")."""
    runner = kernel.get("origin", "").split("/", 1)[0]
    check(runner in runners, f"kernel {kernel['name']}: origin '{kernel.get('origin')}' names no "
                             f"runner of {sorted(runners)}")
    return runner


def check_merged(merged, work):
    check(merged["schema"] == "perfgate-report/2", f"merged.json: schema {merged['schema']}")
    check(merged["profile"]["format"] == "merged",
          f"merged.json: profile.format is {merged['profile']['format']!r}, expected 'merged'")
    check(merged["profile"]["local_device"] is None,
          "merged.json: profile.local_device is "
          f"{merged['profile']['local_device']!r}: two runners measured on two devices, so none "
          "is the report's one local device")
    ids = [d["id"] for d in merged["devices"]]
    check(ids == ["h100-sxm", "l40s"], f"merged.json: devices {ids}, expected h100-sxm, l40s "
                                       "(united by id, each once)")
    seen = set()
    for k in merged["kernels"]:
        runner = runner_of(k)
        local = RUNNERS[runner]
        key = (k["name"], local)
        check(key not in seen, f"merged.json: {key} twice")
        seen.add(key)
        # The verdict stays on the device the runner measured, with that runner's numbers.
        check(k["verdict"]["device"] == local,
              f"merged.json: {k['name']} from {runner} is judged on {k['verdict']['device']}, "
              f"expected its runner's device {local}")
        check(k["verdict"]["status"] == EXPECTED_STATUS[key],
              f"merged.json: {k['name']} on {local}: verdict {k['verdict']['status']}, expected "
              f"{EXPECTED_STATUS[key]}: {k['verdict']['reasons']}")
        own = load(work / k["origin"].split(" (")[0])
        mine = [x for x in own["kernels"] if x["name"] == k["name"]]
        check(len(mine) == 1 and mine[0]["verdict"] == k["verdict"]
              and mine[0]["predictions"] == k["predictions"],
              f"merged.json: {k['name']} from {runner} differs from its report {k['origin']}: "
              "merging must not change a kernel")
        check([p["device"] for p in k["predictions"]] == [local] + [d for d in RUNNERS.values()
                                                                   if d != local],
              f"merged.json: {k['name']} from {runner}: predictions on "
              f"{[p['device'] for p in k['predictions']]}, expected its local device first")
    check(seen == set(EXPECTED_STATUS),
          f"merged.json: kernels {sorted(seen)}, expected each of BM_gemm_bf16 and BM_triad "
          f"under each runner: {sorted(EXPECTED_STATUS)}")
    print("ok: merged.json keeps each runner's kernels on its own device, verdicts as expected")


def check_merged_md(md):
    check(md.startswith("## perfgate: 4 kernels: 1 failed, 0 warned, 3 passed, 0 not gated\n"),
          f"merged.md: unexpected first line: {md.splitlines()[0] if md else '<empty>'}")
    sections = re.split(r"^### ", md, flags=re.M)
    for device, name in (("h100-sxm", "NVIDIA H100 SXM5 80GB"), ("l40s", "NVIDIA L40S")):
        section = [s for s in sections if s.startswith(f"{device}: ")]
        check(len(section) == 1, f"merged.md: {len(section)} sections for {device}, expected 1")
        gated = section[0].split("Predicted only:")[0]
        check(f"{device}: {name} (datasheet peaks, the device measured)" in gated,
              f"merged.md: the {device} section does not say it was measured:\n{section[0]}")
        rows = re.findall(r"^\| (✅ pass|❌ fail) \| `([^`]+)` \|", gated, flags=re.M)
        want = sorted((f"{'❌ fail' if EXPECTED_STATUS[(k, device)] == 'fail' else '✅ pass'}", k)
                      for k in ("BM_gemm_bf16", "BM_triad"))
        check(sorted(rows) == want,
              f"merged.md: the {device} table gates {sorted(rows)}, expected {want} (the kernels "
              "its runner measured, and only those)")
        check(f" on {device}: measured" in gated and all(
            f" on {other}: measured" not in gated for other in RUNNERS.values() if other != device),
              f"merged.md: the {device} table holds another device's verdicts:\n{gated}")
    for runner in RUNNERS:
        for test in TESTS:
            check(f"From {runner}/{test}.json (<host>)." in md,
                  f"merged.md: no origin line 'From {runner}/{test}.json (<host>).'")
    print("ok: merged.md gates each runner's kernels in its own device's table")


def check_baseline(baseline, work):
    check(baseline["schema"] == "perfgate-baseline/2",
          f"baseline.json: schema {baseline['schema']}")
    entries = {}
    for e in baseline["kernels"]:
        key = (e["name"], e["local_device"])
        check(key not in entries, f"baseline.json: two entries for {key}")
        entries[key] = e
    check(set(entries) == set(EXPECTED_STATUS),
          f"baseline.json: entries {sorted(entries)}, expected one per kernel and device: "
          f"{sorted(EXPECTED_STATUS)}")
    for runner, local in RUNNERS.items():
        report = load(work / runner / "all.json")
        for k in report["kernels"]:
            e = entries[(k["name"], local)]
            check(e["efficiency"] == k["verdict"]["efficiency"],
                  f"baseline.json: {k['name']} on {local}: efficiency {e['efficiency']}, "
                  f"expected {runner}'s {k['verdict']['efficiency']} (the other runner's must not "
                  "mix in)")
            samples = k["measured"].get("samples_s", [])
            runs = e.get("efficiency_runs", [])
            check(len(runs) == 1 and len(runs[0]) == len(samples),
                  f"baseline.json: {k['name']} on {local}: efficiency_runs "
                  f"{[len(r) for r in runs]} samples, expected one run of {len(samples)}")
            check(sorted(e["bounds"]) == sorted(RUNNERS.values()),
                  f"baseline.json: {k['name']} on {local}: bounds on {sorted(e['bounds'])}")
    print("ok: baseline.json has one entry per kernel and device, each from its own runner")


def calibrated_ids(hosts):
    """runner -> the id its GPU has in a merge or baseline of both: runner-b's is renamed."""
    return {"runner-a": "local-cuda-0", "runner-b": f"local-cuda-0@{hosts['runner-b']}"}


def check_calibrated_merged(merged, work, hosts):
    own = calibrated_ids(hosts)
    ids = [d["id"] for d in merged["devices"]]
    check(ids == [own["runner-a"], "h100-sxm", own["runner-b"]],
          f"calibrated/merged.json: devices {ids}, expected runner-a's local-cuda-0, h100-sxm "
          f"(the same built-in on both runners: once) and runner-b's GPU as {own['runner-b']}")
    for runner, (dram, _, _) in CALIBRATED.items():
        peaks = [d["peaks"] for d in merged["devices"] if d["id"] == own[runner]][0]
        check(peaks["dram_gbs"] == dram,
              f"calibrated/merged.json: {own[runner]} has dram_gbs {peaks['dram_gbs']}, expected "
              f"{runner}'s {dram}")
    check(merged["profile"]["local_device"] is None,
          "calibrated/merged.json: profile.local_device is "
          f"{merged['profile']['local_device']!r}: the two runners' GPUs are two devices")
    runners = [runner_of(k, CALIBRATED) for k in merged["kernels"]]
    check(sorted(runners) == sorted(CALIBRATED),
          f"calibrated/merged.json: kernels from {runners}, expected one from each runner")
    for k, runner in zip(merged["kernels"], runners):
        mine = own[runner]
        check(k["verdict"]["device"] == mine
              and [p["device"] for p in k["predictions"]] == [mine, "h100-sxm"],
              f"calibrated/merged.json: {runner}'s {k['name']} is judged on "
              f"{k['verdict']['device']}, predicted on {[p['device'] for p in k['predictions']]}; "
              f"expected {mine}, then h100-sxm")
        check(round(k["verdict"]["efficiency"], 2) == CALIBRATED[runner][2],
              f"calibrated/merged.json: {runner}'s efficiency {k['verdict']['efficiency']}, "
              f"expected {CALIBRATED[runner][2]}")
        report = load(work / runner / "all.json")["kernels"][0]
        renamed = [dict(p, device=mine if p["device"] == "local-cuda-0" else p["device"])
                   for p in report["predictions"]]
        check(k["predictions"] == renamed
              and k["verdict"] == dict(report["verdict"], device=mine),
              f"calibrated/merged.json: {runner}'s {k['name']} differs from its report beyond its "
              "device's id")
    print("ok: calibrated/merged.json keeps the two runners' local-cuda-0 apart (runner-b's "
          "renamed)")


def check_calibrated_md(md, hosts):
    sections = re.split(r"^### ", md, flags=re.M)
    for runner, device in calibrated_ids(hosts).items():
        section = [s for s in sections if s.startswith(f"{device}: NVIDIA test GPU (measured "
                                                       "peaks, the device measured)")]
        check(len(section) == 1, f"calibrated merged.md: {len(section)} sections for {device}")
        rows = re.findall(r"^\| ✅ pass \| `BM_triad` \|[^|]*\|[^|]*\| ([0-9.]+) \|",
                          section[0], flags=re.M)
        check(rows == [f"{CALIBRATED[runner][2]:.2f}"],
              f"calibrated merged.md: the {device} table gates {rows}, expected {runner}'s triad "
              f"at {CALIBRATED[runner][2]}")
    print("ok: calibrated merged.md gates each runner's triad under its own GPU")


def check_calibrated_baseline(baseline, work, hosts):
    own = calibrated_ids(hosts)
    entries = {e["local_device"]: e for e in baseline["kernels"]}
    check(len(baseline["kernels"]) == 2 and set(entries) == set(own.values()),
          f"calibrated/baseline.json: entries on {[e['local_device'] for e in baseline['kernels']]}"
          f", expected one BM_triad on each of {sorted(own.values())}")
    for runner, device in own.items():
        e = entries[device]
        k = load(work / runner / "all.json")["kernels"][0]
        check(e["efficiency"] == k["verdict"]["efficiency"] and len(e["efficiency_runs"]) == 1,
              f"calibrated/baseline.json: on {device} efficiency {e['efficiency']} from "
              f"{len(e['efficiency_runs'])} runs, expected {runner}'s "
              f"{k['verdict']['efficiency']} alone")
        check(sorted(e["bounds"]) == sorted([device, "h100-sxm"]),
              f"calibrated/baseline.json: on {device} bounds on {sorted(e['bounds'])}")
    print("ok: calibrated/baseline.json holds each runner's own entry")


def same_entries(a, b):
    """Two baselines' kernels alike (their sources name the files they came from)."""
    return a["kernels"] == b["kernels"]


def run_calibrated(mode, perfgate, source, work):
    """The calibrated runners (see the module's doc), in work/calibrated."""
    work = work / "calibrated"
    runner = Runner(perfgate, source, work)
    hosts = runner.run_calibrated()
    renamed_hosts = [hosts["runner-b"]]
    runner.perfgate_cmd(["merge", "runner-a/all.json", "runner-b/all.json", "-o", "merged.json"],
                        [0])
    merged = load(work / "merged.json")
    if mode == "merge":
        check_calibrated_merged(merged, work, hosts)
        md = runner.perfgate_cmd(["report", "merged.json", "--format", "md"], [0])
        check_calibrated_md(md, hosts)
        normalised, _ = normalise_document(merged, source, work, renamed_hosts)
        expect_golden(source / "tests/data/golden/multi_runner", "calibrated_merged.json",
                      to_text(normalised))
        return
    runner.perfgate_cmd(["baseline", "accept", "runner-a/all.json", "runner-b/all.json", "-o",
                         "baseline.json"], [0])
    runner.perfgate_cmd(["baseline", "accept", "merged.json", "-o", "from_merged.json"], [0])
    baseline = load(work / "baseline.json")
    check_calibrated_baseline(baseline, work, hosts)
    check(same_entries(baseline, load(work / "from_merged.json")),
          "calibrated: `baseline accept merged.json` gives other entries than accepting the "
          "runners' all.json")
    normalised, _ = normalise_document(baseline, source, work, renamed_hosts)
    expect_golden(source / "tests/data/golden/multi_runner", "calibrated_baseline.json",
                  to_text(normalised))
    # This machine is runner-b's host: its triad times again are SAME against its own entry
    # (0.19); against runner-a's (0.83) they would be 4x SLOWER.
    triad = str(source / "tests/data/gbench" / CALIBRATED["runner-b"][1])
    runner.perfgate_cmd(
        ["run", "--collector", "profile", "--profile", triad, "--device",
         "runner-b/local-cuda-0.json", "--device", "h100-sxm", "--baseline", "baseline.json",
         "--report", "later.json"], [0],
        "PASS  BM_triad .*SAME: [^\n]* on local-cuda-0: time ratio [0-9.]+x[^\n]*"
        "\\(10 vs 10 samples\\)")
    later = load(work / "later.json")["kernels"][0]["verdict"]["baseline_efficiency"]
    want = [e["efficiency"] for e in baseline["kernels"]
            if e["local_device"] == calibrated_ids(hosts)["runner-b"]]
    check([later] == want, f"calibrated: a later run on runner-b's host was held to efficiency "
                           f"{later}, expected runner-b's entry's {want}")
    print("ok: a later run on runner-b's host is judged against runner-b's entry")


def main(mode, perfgate, source, work):
    source, work = Path(source), Path(work)
    golden_dir = source / "tests/data/golden/multi_runner"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for runner in RUNNERS:
        (work / runner).mkdir()
    runner = Runner(perfgate, source, work)
    runner.run_all()
    if mode == "merge":
        runner.perfgate_cmd(["merge", "runner-h100/all.json", "runner-l40s/all.json",
                             "-o", "merged.json"], [0], "wrote merged\\.json")
        merged = load(work / "merged.json")
        normalised, hosts = normalise_document(merged, source, work)
        check_merged(merged, work)
        md = runner.perfgate_cmd(["report", "merged.json", "--format", "md"], [0])
        for host in hosts:
            md = md.replace(f" ({host}).\n", " (<host>).\n")
        check_merged_md(md)
        expect_golden(golden_dir, "merged.json", to_text(normalised))
        expect_golden(golden_dir, "merged.md", md)
        run_calibrated(mode, perfgate, source, work)
    elif mode == "baseline":
        runner.perfgate_cmd(["baseline", "accept", "runner-h100/all.json", "runner-l40s/all.json",
                             "-o", "baseline.json"], [0], "wrote baseline\\.json")
        baseline = load(work / "baseline.json")
        check_baseline(baseline, work)
        normalised, _ = normalise_document(baseline, source, work)
        expect_golden(golden_dir, "baseline.json", to_text(normalised))
        # A merged report's kernels are each filed under their own runner's device.
        runner.perfgate_cmd(["merge", "runner-h100/all.json", "runner-l40s/all.json",
                             "-o", "merged.json"], [0])
        runner.perfgate_cmd(["baseline", "accept", "merged.json", "-o", "from_merged.json"], [0])
        check(same_entries(baseline, load(work / "from_merged.json")),
              "`baseline accept merged.json` gives other entries than accepting the runners' "
              "all.json")
        print("ok: accepting the merged report gives the runners' baseline")
        # A later run on each GPU is judged against its own device's entry: the L40S runner's
        # triad times again are SAME (10 vs 10 samples of l40s), the same times on the H100 are
        # 1.3x slower than the H100's entry (SLOWER: exit 1).
        triad = str(source / "tests/data/gbench/triad_10_repetitions_1.3x.json")
        for local, other, code, verdict in (("l40s", "h100-sxm", 0, "PASS  BM_triad .*SAME: "),
                                            ("h100-sxm", "l40s", 1, "FAIL  BM_triad .*SLOWER: ")):
            runner.perfgate_cmd(
                ["run", "--collector", "profile", "--profile", triad, "--device", local,
                 "--device", other, "--baseline", "baseline.json"], [code],
                verdict + f"[^\n]* on {local}: time ratio [0-9.]+x[^\n]*\\(10 vs 10 samples\\)")
        print("ok: later runs are judged against their own device's baseline entry")
        run_calibrated(mode, perfgate, source, work)
    else:
        sys.exit(__doc__)
    if UPDATED:
        print(f"FAIL: {len(UPDATED)} golden file(s) written (PERFGATE_UPDATE_GOLDEN is set): "
              "review the diff, then run again without the variable")
        return 1
    return 0


if __name__ == "__main__":
    run_main(main, 4, __doc__)
