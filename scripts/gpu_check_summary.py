#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The evaluation steps of scripts/gpu-check.sh, kept apart so they can be tested offline.

  gpu_check_summary.py --compare-datasheet CALIBRATED.json DEVICES.json [TABLE.md]
      one line: each measured peak / the datasheet peak of the built-in device the calibration
      matched (its "datasheet" key), per clock; exit 1 when a measured peak exceeds its datasheet
      value by more than 2% (then the datasheet is no bound for this GPU); TABLE.md: the peaks
      side by side
  gpu_check_summary.py --compare-latencies SWEEP.csv REFERENCE.csv
      one line: each chain's cycles at 1 warp and at 32 against the reference chains of this
      GPU (tests/data/h100/pipeline_latency_h100.csv); exit 1 when one is more than 5% off
  gpu_check_summary.py --junit JUNIT.xml
      one line: the tests CTest's JUnit report counts passed, failed and skipped, failures named
  gpu_check_summary.py --checks DIR
      TSV lines (step, status, detail) from DIR/run-<collector>-<example>.json reports: the
      cupti/ncu cross-check of each example and the bound over every measured kernel
  gpu_check_summary.py RESULTS.tsv DIR VENDOR
      DIR/summary.json and DIR/summary.md from the TSV; exit 1 when a step failed
"""
import json
import sys
from pathlib import Path


def compare_datasheet(calibrated_file, devices_file, table_file=None):
    """Each measured peak beside the datasheet entry `perfgate calibrate` matched to this GPU
    (its "datasheet" key: by name, memory, architecture and SM count; an H200 is not an H100),
    compared per clock: a compute peak at the clock it was measured at against the datasheet's
    rate at its boost clock; memory rates as they are."""
    cal = json.loads(Path(calibrated_file).read_text())
    devices = json.loads(Path(devices_file).read_text())
    ref_id = cal.get("datasheet")
    if not ref_id:
        print(f"no datasheet entry for {cal.get('name')}: perfgate calibrate matched none "
              "(name, memory, architecture and SM count), nothing to compare")
        return 0
    ref = next((d for d in devices if d.get("id") == ref_id), None)
    if ref is None:
        print(f"the calibrated file names datasheet entry {ref_id}, which perfgate devices lacks")
        return 1
    own_clock = cal.get("sm_clock_mhz")
    ref_clock = ref.get("sm_clock_mhz") or ref.get("boost_clock_mhz")
    parts, above, rows = [], [], []
    for key, value in sorted(cal["peaks"].items()):
        if key not in ref["peaks"]:
            continue
        clock = cal.get("peak_clocks_mhz", {}).get(key, own_clock)
        per_clock = "gbs" not in key and clock and ref_clock
        ratio = (value / clock) / (ref["peaks"][key] / ref_clock) if per_clock \
            else value / ref["peaks"][key]
        parts.append(f"{key} {ratio:.3f}")
        rows.append(f"| {key} | {value:.1f} | {f'{clock:.0f}' if per_clock else '-'} | "
                    f"{ref['peaks'][key]:.1f} | {f'{ref_clock:.0f}' if per_clock else '-'} | "
                    f"{ratio:.3f} |")
        if ratio > 1.02:
            above.append(key)
    if table_file:
        Path(table_file).write_text(
            f"Measured peaks of {cal.get('name')} beside datasheet entry {ref_id} "
            "(ratio per clock for compute peaks)\n\n"
            "| peak | measured (1e9/s) | at MHz | datasheet | at MHz | ratio |\n"
            "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    print(f"measured / datasheet of {ref_id} (per clock): " + ", ".join(parts) +
          (f"; ABOVE THE DATASHEET: {', '.join(above)}" if above else ""))
    return 1 if above else 0


def compare_latencies(sweep_file, reference_file, tolerance=0.05):
    """The chains this GPU timed against its reference chains, where both have a row (op, warps)
    at 1 warp and at 32: cycles_max, the slowest block."""
    def rows(path):
        import csv
        with open(path) as f:
            return {(r["op"], int(r["warps_per_sm"])): float(r["cycles_max"])
                    for r in csv.DictReader(f)}
    own, ref = rows(sweep_file), rows(reference_file)
    parts, off = [], []
    for key in sorted(ref):
        if key[1] not in (1, 32) or key not in own:
            continue
        ratio = own[key] / ref[key]
        parts.append(f"{key[0]}@{key[1]} {ratio:.3f}")
        if abs(ratio - 1) > tolerance:
            off.append(f"{key[0]}@{key[1]} ({own[key]:.0f} vs {ref[key]:.0f} cycles)")
    if not parts:
        print(f"no chain of {sweep_file} is in {reference_file}")
        return 1
    print(f"cycles / reference ({Path(reference_file).name}): " + ", ".join(parts) +
          (f"; MORE THAN {tolerance:.0%} OFF: " + ", ".join(off) if off else ""))
    return 1 if off else 0


def junit(junit_file):
    """Counts of CTest's JUnit report (ctest --output-junit): outcomes without reading CTest's
    console wording, which changes between CMake versions."""
    import xml.etree.ElementTree as ET
    try:
        cases = ET.parse(junit_file).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        print(f"no JUnit report ({e})")
        return 1
    status = {}
    for c in cases:
        status.setdefault(c.get("status"), []).append(c.get("name"))
    failed = status.get("fail", [])
    print(f"{len(status.get('run', []))} passed, {len(failed)} failed, "
          f"{len(status.get('notrun', []))} skipped" +
          (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def signature(name):
    """A kernel's name as two demanglers agree on it: CUPTI's (the C++ runtime's) writes
    `float const*`, Nsight Compute's `const float *`; without spaces and `const` they match."""
    import re
    return re.sub(r"\bconst\b|\s+", "", name)


def kernels(report_file):
    r = json.loads(Path(report_file).read_text())
    return {signature(k["name"]): k for k in r["kernels"]}


def memory_bound(k):
    p = k["predictions"][0] if k.get("predictions") else {}
    return (p.get("roof") or {}).get("bound", p.get("bound")) == "memory"


def checks(directory):
    d = Path(directory)
    reports = sorted(d.glob("run-*.json"))
    examples = sorted({p.stem.split("-", 2)[2] for p in reports})
    for e in examples:
        a, b = d / f"run-cupti-{e}.json", d / f"run-ncu-{e}.json"
        if not (a.exists() and b.exists()):
            continue
        ka, kb = kernels(a), kernels(b)
        common = sorted(set(ka) & set(kb))
        if not common:
            print(f"cross-check-{e}\tfail\tcupti and ncu saw no kernel of the same name")
            continue
        # W_comp counts instructions: equal. W_traf counts DRAM bytes, which depend on what the
        # L2 held when each tool replayed the kernel (ncu flushes caches between passes) and on
        # when dirty lines were written back: held within 5% where the kernel streams from DRAM
        # (memory-bound in both, over 256 MB a launch: twice the largest L2 of the DB), shown
        # elsewhere.
        bad, shown = [], []
        for name in common:
            pa, pb = ka[name]["params"], kb[name]["params"]
            traf = pb["W_traf"] / pa["W_traf"]
            per_launch = pa["W_traf"] / max(ka[name].get("invocations", 1), 1)
            streams = memory_bound(ka[name]) and memory_bound(kb[name]) and per_launch > 256e6
            if pa["W_comp"] != pb["W_comp"] or (streams and abs(traf - 1) > 0.05):
                bad.append(f"{ka[name]['name']}: W_comp {pa['W_comp']:.6g} vs {pb['W_comp']:.6g}, "
                           f"W_traf ratio {traf:.4f}")
            shown.append(f"W_traf ratio {traf:.3f}{'' if streams else ' (not held: not streaming)'}")
        print(f"cross-check-{e}\t{'fail' if bad else 'pass'}\t" +
              ("; ".join(bad) if bad else
               f"{len(common)} kernels: W_comp equal, {', '.join(shown)}"))
    worst, beaten, n = 0.0, [], 0
    for p in reports:
        for name, k in kernels(p).items():
            if not k.get("measured") or not k["predictions"] or not k["predictions"][0].get("roof"):
                continue
            eff = k["predictions"][0]["roof"]["time_s"] / k["measured"]["time_s"]
            n += 1
            worst = max(worst, eff)
            if eff > 1.0:
                beaten.append(f"{p.stem}: {name} at {eff:.3f}")
    if n:
        print(f"bound\t{'fail' if beaten else 'pass'}\t" +
              ("; ".join(beaten) if beaten else f"{n} kernels, highest roof/measured {worst:.3f}"))
    return 0


def summary(results_file, directory, vendor):
    rows = [line.rstrip("\n").split("\t", 2) for line in Path(results_file).read_text().splitlines()
            if line.count("\t") >= 2]
    doc = {"vendor": vendor, "steps": [{"step": s, "status": st, "detail": de}
                                        for s, st, de in rows]}
    out = Path(directory)
    (out / "summary.json").write_text(json.dumps(doc, indent=2) + "\n")
    md = ["| step | status | detail |", "|---|---|---|"]
    md += [f"| {s} | {st} | {de.replace('|', '/')} |" for s, st, de in rows]
    (out / "summary.md").write_text(f"# perfgate gpu-check ({vendor})\n\n" + "\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if any(st == "fail" for _, st, _ in rows) or not rows else 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["--compare-datasheet"] and len(a) in (3, 4):
        sys.exit(compare_datasheet(*a[1:]))
    if a[:1] == ["--compare-latencies"] and len(a) == 3:
        sys.exit(compare_latencies(a[1], a[2]))
    if a[:1] == ["--junit"] and len(a) == 2:
        sys.exit(junit(a[1]))
    if a[:1] == ["--checks"] and len(a) == 2:
        sys.exit(checks(a[1]))
    if len(a) == 3:
        sys.exit(summary(*a))
    sys.exit(__doc__)
