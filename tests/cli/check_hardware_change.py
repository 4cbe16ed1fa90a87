#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A baseline that notices other hardware, end to end: a run's report records this machine's
identity and `baseline accept` keeps it; a baseline whose identity is another (fake) device's
makes a later run warn (no kept build) or decide by the kept build's A/B session, and the report
says so in its `hardware` field. The same hardware: no `hardware` field. A baseline accepted
from two runners' reports keeps both identities: a run on either is not other hardware. Asserts
JSON fields, never wording.

usage: check_hardware_change.py PERFGATE FAKE_GBENCH DEVICE_JSON WORK_DIR
"""
import json
import os
import stat
import subprocess
import sys
from pathlib import Path


def run(perfgate, *args):
    p = subprocess.run([perfgate, *args], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"perfgate {' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def main(perfgate, fake_gbench, device, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    build = work / "build.sh"  # a kept copy leaves this folder: the fake's absolute path
    build.write_text(f'#!/bin/sh\nexec "{fake_gbench}" --fake-json=triad_10_repetitions.json "$@"\n')
    build.chmod(build.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    gate = ["run", "--collector", "gbench", "--device", device, "--kernels", "^BM_triad$"]

    first = work / "first.json"
    run(perfgate, *gate, "--report", str(first), "--", str(build))
    identity = json.loads(first.read_text())["identity"]
    assert identity["device"] == "bad" and identity["calibration_fnv1a64"], identity

    plain, kept = work / "plain.json", work / "kept.json"
    run(perfgate, "baseline", "accept", str(first), "-o", str(plain))
    run(perfgate, "baseline", "accept", str(first), "-o", str(kept), "--keep-build", str(build))
    assert json.loads(plain.read_text())["device_identities"] == [identity]

    # The same hardware: compared as ever, no hardware field.
    same = work / "same.json"
    run(perfgate, *gate, "--baseline", str(plain), "--report", str(same), "--", str(build))
    assert "hardware" not in json.loads(same.read_text())

    # The baselines as if accepted on another machine: another device name and calibration.
    for b in (plain, kept):
        doc = json.loads(b.read_text())
        doc["device_identities"][0]["name"] = "Fake Accelerator 9000"
        doc["device_identities"][0]["calibration_fnv1a64"] = "0123456789abcdef"
        b.write_text(json.dumps(doc))

    warned = work / "warned.json"
    run(perfgate, *gate, "--baseline", str(plain), "--report", str(warned), "--", str(build))
    report = json.loads(warned.read_text())
    h = report["hardware"]
    assert h["action"] == "warn", h
    assert h["stored"]["name"] == "Fake Accelerator 9000", h
    assert h["now"] == identity, (h["now"], identity)
    fields = {d["field"]: d["matters"] for d in h["differences"]}
    assert fields.get("name") is True and fields.get("calibration") is True, fields
    assert report["kernels"][0]["verdict"]["status"] == "warn", report["kernels"][0]["verdict"]

    switched = work / "switched.json"
    run(perfgate, *gate, "--baseline", str(kept), "--report", str(switched), "--", str(build))
    report = json.loads(switched.read_text())
    assert report["hardware"]["action"] == "ab", report["hardware"]
    verdict = report["kernels"][0]["verdict"]
    assert "ab" in verdict and verdict["ab"]["kind"] == "SAME", verdict  # the session decided
    check_two_runners(perfgate, gate, build, first, work)
    print("hardware change: warned without a kept build, switched to it with one; a baseline of "
          "two runners knows both")


def check_two_runners(perfgate, gate, build, first, work):
    """`baseline accept` of this runner's report and another's (same device file, another GPU
    name and calibration hash, as a second runner of a pool would have): both identities kept;
    a run here matches the first, so it is compared as ever; against a baseline of two other
    runners it warns."""
    doc = json.loads(first.read_text())
    doc["identity"]["name"] = "Fake Accelerator 9000"
    doc["identity"]["calibration_fnv1a64"] = "0123456789abcdef"
    other = work / "other-runner.json"
    other.write_text(json.dumps(doc))
    doc["identity"]["name"] = "Fake Accelerator 9001"
    third = work / "third-runner.json"
    third.write_text(json.dumps(doc))
    pool = work / "pool.json"
    run(perfgate, "baseline", "accept", str(other), str(first), "-o", str(pool))
    names = [i["name"] for i in json.loads(pool.read_text())["device_identities"]]
    here = json.loads(first.read_text())["identity"]["name"]
    assert names == ["Fake Accelerator 9000", here], names
    matched = work / "pool-run.json"
    run(perfgate, *gate, "--baseline", str(pool), "--report", str(matched), "--", str(build))
    assert "hardware" not in json.loads(matched.read_text())  # the second runner is this one
    others = work / "others.json"
    run(perfgate, "baseline", "accept", str(other), str(third), "-o", str(others))
    warned = work / "others-run.json"
    run(perfgate, *gate, "--baseline", str(others), "--report", str(warned), "--", str(build))
    h = json.loads(warned.read_text())["hardware"]
    assert h["action"] == "warn" and h["stored"]["name"] == "Fake Accelerator 9000", h


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
