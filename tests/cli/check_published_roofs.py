#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Measurements other people published (tests/data/published, converted by
scripts/bench/published.py) against the built-in devices (issue 53):
  1. no measurement beats its device's roof: every one, through `perfgate predict` (the roof
     machinery itself: matrix units, accumulate precision, cache levels), tolerance none;
  2. every GPU entry names its datasheet, the source of its clock and, per rate its roofs use,
     exactly the measurements kept here with their best values (or why there is none);
  3. every max_clock_mhz that a published nvidia-smi -q gives is that maximum clock;
  4. the check itself finds what it guards: two entries as the issue found them (h100-pcie at
     2000 GB/s, rtx-4090 at its 2520 MHz boost) are beaten by these measurements. (No public FP32
     measurement of an MI300X was found, so its packed-FP32 fix rests on the datasheet alone.)

usage: check_published_roofs.py PERFGATE SOURCE_DIR WORK_DIR
"""
import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path


def beaten(perfgate, work, tag, profile, device):
    """(kernel, measured s, roof s, limiter) of every kernel measured faster than its roof."""
    out = work / ("%s.report.json" % tag)
    subprocess.run([perfgate, "predict", "--profile", profile, "--device", device, "--format",
                    "json", "-o", out], check=True, capture_output=True)
    kernels = json.loads(out.read_text())["kernels"]
    times = {k["name"]: k["time_s"] for k in json.loads(Path(profile).read_text())["kernels"]}
    found = []
    for k in kernels:
        roof = k["predictions"][0]["roof"]
        if times[k["name"]] < roof["time_s"] * (1 - 1e-9):
            found.append((k["name"], times[k["name"]], roof["time_s"], roof["limiter"]))
    return found, len(kernels)


def check_roofs(perfgate, devices, work):
    failures, checked = [], 0
    for profile in sorted(work.glob("*.json")):
        if profile.name == "measurements.json" or profile.name.endswith(".report.json"):
            continue
        device = profile.stem
        if device not in devices:
            failures.append("%s: measurements of a device perfgate does not have" % device)
            continue
        found, n = beaten(perfgate, work, device, profile, device)
        checked += n
        for name, t, roof, limiter in found[:5]:
            failures.append("%s: %s ran in %.6g s, below its roof %.6g s (%s): %.4fx" % (
                device, name, t, roof, limiter, roof / t))
        if len(found) > 5:
            failures.append("%s: %d more measurements beat the roof" % (device, len(found) - 5))
    return failures, checked


def check_sources(published, devices, groups):
    failures = []
    for id, d in sorted(devices.items()):
        if d.get("kind", "gpu") != "gpu":
            continue
        s = d.get("sources")
        if not s or not s.get("datasheet") or not s.get("max_clock"):
            failures.append("%s: no sources.datasheet or sources.max_clock" % id)
            continue
        want = published.measured_sources(d, groups)
        have = s.get("measured", {})
        for key in sorted(set(want) | set(have)):
            w, h = want.get(key), have.get(key)
            if isinstance(w, str) and isinstance(h, str) and h.startswith("none: "):
                continue
            if w != h:
                failures.append("%s: sources.measured.%s is %s; the published data say %s "
                                "(scripts/bench/published.py tests/data/published "
                                "--update-sources perfgate/devices)" % (
                                    id, key, json.dumps(h)[:200], json.dumps(w)[:200]))
    return failures


def check_clocks(data, devices):
    failures, n = [], 0
    with open(data / "nvidia-smi-max-clocks.csv", newline="") as f:
        for r in csv.DictReader(f):
            d = devices[r["device"]]
            n += 1
            if d.get("max_clock_mhz") != float(r["max_sm_clock_mhz"]):
                failures.append("%s: max_clock_mhz %s, nvidia-smi -q of a %s says %s MHz (%s)" % (
                    r["device"], d.get("max_clock_mhz"), r["product_name"],
                    r["max_sm_clock_mhz"], r["path"]))
    return failures, n


def as_found(devices, work):
    """Two entries as issue 53 found them, each in a file of its own."""
    old = {}
    d = json.loads(json.dumps(devices["h100-pcie"]))
    d["peaks"]["dram_gbs"] = 2000.0
    old["h100-pcie"] = d
    d = json.loads(json.dumps(devices["rtx-4090"]))
    scale = 2520 / 3105
    for key in list(d["peaks"]):
        if not key.endswith("gbs"):
            d["peaks"][key] *= scale
    d["max_clock_mhz"] = d["sustained_clock_mhz"] = 2520
    old["rtx-4090"] = d
    paths = {}
    (work / "as-found").mkdir(exist_ok=True)
    for id, d in old.items():
        d.pop("sources", None)
        paths[id] = work / "as-found" / (id + ".json")
        paths[id].write_text(json.dumps(d))
    return paths


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    perfgate, source, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    sys.path.insert(0, str(source / "scripts" / "bench"))
    import published
    data = source / "tests" / "data" / "published"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    collected = published.write(data, work)
    devices = {p.stem: json.loads(p.read_text())
               for p in (source / "perfgate" / "devices").glob("*.json")}
    failures, checked = check_roofs(perfgate, devices, work)
    failures += check_sources(published, devices, list(collected.groups.values()))
    clock_failures, clocks = check_clocks(data, devices)
    failures += clock_failures

    # The check finds what it guards: the old entries are beaten by the data above.
    for id, path in as_found(devices, work).items():
        found, _ = beaten(perfgate, work, "as-found-" + id, work / (id + ".json"), path)
        if not found:
            failures.append("%s as issue 53 found it: no published measurement beats it, so this "
                            "check would not have caught it" % id)
        else:
            print("as found, %s: %d measurements beat its roof (worst %.3fx, %s)" % (
                id, len(found), max(r / t for _, t, r, _ in found), found[0][3]))

    for f in failures:
        print("FAIL: " + f)
    print("%d published measurements of %d devices against their roofs, %d groups named in the "
          "device files, %d maximum clocks: %s" % (checked, len(collected.kernels),
                                                   len(collected.groups), clocks,
                                                   "ok" if not failures else "%d failures" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
