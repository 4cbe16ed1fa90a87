#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The evaluation steps of scripts/gpu-check.sh, kept apart so they can be tested offline.

  gpu_check_summary.py --compare-datasheet CALIBRATED.json DEVICES.json
      one line: each measured peak / the datasheet peak of the built-in device with the same
      architecture and SM count; exit 1 when a measured peak exceeds its datasheet value by
      more than 2% (then the datasheet is no bound for this GPU)
  gpu_check_summary.py --checks DIR
      TSV lines (step, status, detail) from DIR/run-<collector>-<example>.json reports: the
      cupti/ncu cross-check of each example and the bound over every measured kernel
  gpu_check_summary.py RESULTS.tsv DIR VENDOR
      DIR/summary.json and DIR/summary.md from the TSV; exit 1 when a step failed
"""
import json
import sys
from pathlib import Path


def compare_datasheet(calibrated_file, devices_file):
    cal = json.loads(Path(calibrated_file).read_text())
    devices = json.loads(Path(devices_file).read_text())
    arch = cal.get("provenance", {}).get("arch", "")
    cc = arch[3:-1] + "." + arch[-1] if arch.startswith("sm_") and len(arch) >= 5 else arch
    same = [d for d in devices if d.get("compute_units") == cal.get("compute_units") and
            d.get("vendor") == cal.get("vendor") and
            cc in (d.get("compute_capability"), d.get("gfx_target"))]
    if not same:
        print(f"no built-in device with architecture {arch} and {cal.get('compute_units')} units")
        return 0
    ref = same[0]
    parts, above = [], []
    for key, value in sorted(cal["peaks"].items()):
        if key in ref["peaks"]:
            ratio = value / ref["peaks"][key]
            parts.append(f"{key} {ratio:.3f}")
            if ratio > 1.02:
                above.append(key)
    print(f"measured / datasheet of {ref['id']}: " + ", ".join(parts) +
          (f"; ABOVE THE DATASHEET: {', '.join(above)}" if above else ""))
    return 1 if above else 0


def kernels(report_file):
    r = json.loads(Path(report_file).read_text())
    return {k["name"]: k for k in r["kernels"]}


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
        bad = []
        for name in common:
            pa, pb = ka[name]["params"], kb[name]["params"]
            traf = pb["W_traf"] / pa["W_traf"]
            if pa["W_comp"] != pb["W_comp"] or abs(traf - 1) > 0.01:
                bad.append(f"{name}: W_comp {pa['W_comp']:.6g} vs {pb['W_comp']:.6g}, "
                           f"W_traf ratio {traf:.4f}")
        print(f"cross-check-{e}\t{'fail' if bad else 'pass'}\t" +
              ("; ".join(bad) if bad else f"{len(common)} kernels: W_comp equal, W_traf within 1%"))
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
    if a[:1] == ["--compare-datasheet"] and len(a) == 3:
        sys.exit(compare_datasheet(a[1], a[2]))
    if a[:1] == ["--checks"] and len(a) == 2:
        sys.exit(checks(a[1]))
    if len(a) == 3:
        sys.exit(summary(*a))
    sys.exit(__doc__)
