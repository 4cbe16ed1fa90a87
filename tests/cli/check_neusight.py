#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NeuSight's tables (tests/data/neusight: six GPUs, fp32 PyTorch ops timed by others) through
scripts/bench/neusight.py and `perfgate predict`: the converter declares the work its docstring
states, the figures fitted on its calibration half are the ones the device files hold, and no
operation, on any of the six GPUs, ran faster than that GPU's roof (issue 42: the
roof is a bound on every configured GPU, MFMA and L2 included), with the GEMMs' `matrix`
declarations and without any (issue 53: a roof that holds without hints). Each GPU's roof is the one every
prediction into it is held to, so this covers all ~81,000 cross-GPU predictions.

usage: check_neusight.py PERFGATE SOURCE_DIR WORK_DIR
"""
import json
import re
import subprocess
import sys
from pathlib import Path

def check_converter(neusight, profiles):
    failures = []
    expect = lambda ok, what: ok or failures.append(what)
    tables = neusight.read_tables(profiles)
    # Operations per GPU (sizes timed on it, duplicates dropped): the artifact's row counts.
    counts = {label: len(ops) for label, ops in tables.items()}
    expect(counts == {"V100": 1922, "A100-40": 4187, "A100-80": 4351, "H100": 3517, "L4": 3963,
                      "MI210": 3475}, "operations per GPU: %s" % counts)
    # nv_test_linear's first row: linear on an L4, 1.1338 ms, B=1 M=1024 N=2560 K=2560.
    t, family, work, kernel = tables["L4"]["linear [B=1 M=1024 N=2560 K=2560]"]
    expect(abs(t - 1.1338346401850383e-3) < 1e-12, "L4 linear time %r" % t)
    expect(family == "linear" and work["matrix"], "linear is matrix work")
    expect(work["fp32_flops"] == 2 * 1024 * 2560 * 2560, "linear flops %r" % work["fp32_flops"])
    expect(work["bytes"] == 4 * (1024 * 2560 + 2560 * 2560 + 1024 * 2560), "linear bytes")
    expect(kernel == "ampere_sgemm_128x64_tn", "library kernel %r" % kernel)
    # A binary elementwise op reads two tensors and writes one; no matrix declaration.
    add = next(v for n, v in tables["V100"].items() if n.startswith("add [B="))
    expect(add[2]["bytes"] == 3 * add[2]["write_bytes"] and "matrix" not in add[2],
           "add reads 2, writes 1: %s" % add[2])
    # MI210's linear launches a copy and a Tensile GEMM: the GEMM is the library kernel.
    mi = tables["MI210"]["linear [B=1 M=1024 N=2560 K=2560]"]
    expect(mi[3].startswith("cijk_"), "MI210 library kernel %r" % mi[3][:40])
    return failures, tables


def check_fitted_figures(neusight, source, data):
    """The figures fitted on the calibration half are the ones the device files and
    measured_scaling.cpp hold (as they round them): a refit that changes one fails here until
    its file says so."""
    failures = []
    fitted = neusight.fit(data, out=lambda *_: None)
    for key, per_gpu in fitted.items():
        if key == "gemm_efficiency_carried":
            continue
        for label, value in per_gpu.items():
            d = json.loads((neusight.DEVICES / (neusight.DEVICE_IDS[label] + ".json")).read_text())
            held = d.get(key) if key == "sustained_clock_mhz" else d["peaks"].get(key)
            # elementwise_gbs and clocks are held to the unit, the GEMM rates to 0.1 GFLOPS.
            tolerance = 0.05 if key == "fp32_gemm_gflops" else 0.5
            if held is None or abs(held - value) > tolerance:
                failures.append("%s %s: fitted %.2f, the device file holds %s" % (
                    label, key, value, held))
    cpp = (source / "perfgate" / "model" / "measured_scaling.cpp").read_text()
    m = re.search(r"constexpr double gemm_efficiency_carried = ([0-9.]+);", cpp)
    beta = fitted["gemm_efficiency_carried"]
    if not m or abs(float(m.group(1)) - beta) > 0.005:
        failures.append("gemm_efficiency_carried: fitted %.3f, measured_scaling.cpp holds %s" % (
            beta, m.group(1) if m else "none"))
    return failures


def check_roofs(neusight, perfgate, work, tables, declared=True):
    """declared=False: the profiles without any `matrix` declaration (issue 53): the roofs must
    hold all the same, the MI210's GEMMs on its FP32 matrix units, saying it was not declared."""
    failures, checked, via_matrix, via_l2 = [], 0, 0, 0
    for label, dev in neusight.DEVICE_IDS.items():
        out = work / (label + ".report.json")
        subprocess.run([perfgate, "predict", "--profile", work / (label + ".json"), "--device",
                        dev, "--format", "json", "-o", out], check=True, capture_output=True)
        for k in json.loads(out.read_text())["kernels"]:
            roof = k["predictions"][0]["roof"]
            measured = tables[label][k["name"]][0]
            checked += 1
            # The MI210's fp32 GEMMs at its FP32 MFMA rate or above: the packed FP32 vector rate
            # (45.3 TFLOPS, v_pk_fma_f32; issue 53) equals it, the matrix path reached it before.
            via_matrix += label == "MI210" and any(
                t["resource"] == "fp32" and t["rate"] >= 45260.8 for t in roof["terms"])
            via_l2 += roof["limiter"] == "l2"
            if measured < roof["time_s"]:
                failures.append("%s %s: %.4g ms beats its roof %.4g ms (%s)" % (
                    label, k["name"], measured * 1e3, roof["time_s"] * 1e3, roof["limiter"]))
    # At the MI210's non-packed 22.6 TFLOPS, 7,467 of these predictions beat the roof, without
    # the L2 seven on the L4: both rates must be taken.
    if via_matrix < 3000:
        failures.append("only %d roofs held the MI210's GEMMs to 45.3 TFLOPS" % via_matrix)
    if via_l2 == 0:
        failures.append("no roof held a working set to L2")
    print("%s: %d operations on their own GPU, %d MI210 roofs at 45.3 TFLOPS fp32, %d on L2" % (
        "declared" if declared else "no matrix declaration", checked, via_matrix, via_l2))
    return failures


def main():
    perfgate, source, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    sys.path.insert(0, str(source / "scripts" / "bench"))
    import neusight
    work.mkdir(parents=True, exist_ok=True)
    data = source / "tests" / "data" / "neusight"
    failures, tables = check_converter(neusight, data)
    failures += check_fitted_figures(neusight, source, data)
    neusight.write_profiles(data, work)
    failures += check_roofs(neusight, perfgate, work, tables)
    undeclared = work / "no-matrix"
    neusight.write_profiles(data, undeclared, matrix=False)
    failures += check_roofs(neusight, perfgate, undeclared, tables, declared=False)
    for f in failures[:30]:
        print("FAIL:", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
