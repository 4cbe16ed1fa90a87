#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NeuSight's tables (ASPLOS'25 artifact, tests/data/neusight/README.md) as perfgate profiles.

The same fp32 PyTorch operations timed on six GPUs, with no counters: the work of each follows
from its sizes, as a Google Benchmark or nvbench user would declare it.
  linear  y = x W^T:   2·M·N·K flops, 4·(M·K + N·K + M·N) bytes (each tensor once)
  bmm     2·B·M·N·K flops, 4·B·(M·K + K·N + M·N) bytes
  binary elementwise (add, mul, div, pow; B x H):      read 2, write 1 tensor
  unary elementwise (addu, mulu, divu, powu, relu, gelu, tanh: a tensor and a scalar or none):
                                                       read 1, write 1 tensor
  ln, softmax over H:                                  read 1, write 1 tensor
The flops declared for an elementwise, layer-norm or softmax op are one per output element, the
least it does: a roof must not be beaten, and the work's true flops differ per op. The
GEMMs declare `matrix: true` (the work is a matrix product: a roof may use the matrix units
that compute fp32 exactly). Their working set is the bytes themselves (each tensor once).
An op's name is the same on every GPU ("linear [B=1 M=1024 N=2560 K=2560]"), so predictions
match measurements by name; `time_s` is NeuSight's latency (the mean of the 5 fastest of 25
calls, CUDA events around one call: launch gaps included).

usage: neusight.py DATA_DIR OUT_DIR      writes OUT_DIR/<gpu>.json for every GPU of GPUS
       neusight.py DATA_DIR --fit   the figures fitted on the calibration half (the device
                                    files and measured_scaling.cpp cite it): each GPU's
                                    elementwise_gbs and fp32_gemm_gflops, the sustained clocks
                                    of the power-limited parts, and the exponent of the GEMM
                                    efficiency carried across architectures

The split is fixed: an op is in the calibration half when the CRC-32 of its name is even, in
the check half when odd (the same op on every GPU: no size is in both halves).
"""
import csv
import gzip
import io
import itertools
import json
import math
import statistics
import sys
import zlib
from pathlib import Path

# NeuSight's device name -> (label, the profile's device name). The built-in device each is
# predicted as is the benchmark's business (accuracy.py), not the converter's.
GPUS = {
    "Tesla V100-PCIE-32GB": "V100",
    "NVIDIA A100-PCIE-40GB": "A100-40",
    "NVIDIA A100 80GB PCIe": "A100-80",
    "NVIDIA H100 80GB HBM3": "H100",
    "NVIDIA L4": "L4",
    "AMD Instinct MI210": "MI210",
}
FILES = ("nv_test_linear", "nv_test_bmm", "nv_test_vec", "amd_mi210_test_linear",
         "amd_mi210_test_bmm")
BINARY = {"add", "mul", "div", "pow"}
UNARY = {"addu", "mulu", "divu", "powu", "relu", "gelu", "tanh", "ln", "softmax"}
FP32 = 4


def rows(path):
    with gzip.open(path, "rb") as f:
        yield from csv.DictReader(io.TextIOWrapper(f, encoding="utf-8", newline=""))


def work_of(r):
    """(name, family, declared_work) of one NeuSight row; None for an op it does not know."""
    op = r["OPName"]
    if op in ("linear", "bmm"):
        b, m, n, k = (int(r[c]) for c in "BMNK")
        nbytes = FP32 * b * (m * k + k * n + m * n)
        name = "%s [B=%d M=%d N=%d K=%d]" % (op, b, m, n, k)
        return name, op, {"fp32_flops": 2.0 * b * m * n * k, "fp64_flops": 0, "int_ops": 0,
                          "bytes": float(nbytes), "write_bytes": float(FP32 * b * m * n),
                          "working_set_bytes": float(nbytes), "matrix": True}
    if op in BINARY or op in UNARY:
        b, h = int(r["B"]), int(r["H"])
        elements = b * h
        reads = 2 if op in BINARY else 1
        nbytes = FP32 * elements * (reads + 1)
        family = op if op in ("ln", "softmax") else "elementwise"
        return "%s [B=%d H=%d]" % (op, b, h), family, {
            "fp32_flops": float(elements), "fp64_flops": 0, "int_ops": 0,
            "bytes": float(nbytes), "write_bytes": float(FP32 * elements),
            "working_set_bytes": float(nbytes)}
    return None


def library_kernel(r):
    """The kernel the library ran (the matrix one when a call launched several)."""
    names = [k for k in r.get("Kernels", "").split(";") if k]
    gemm = [k for k in names if "gemm" in k.lower() or k.lower().startswith("cijk_")]
    return (gemm or names or [r["Kernel Name"]])[0][:200]


def read_tables(data):
    """label -> {op name: (time_s, family, declared work, library kernel)}. A size timed twice
    on one GPU keeps its first row (three elementwise sizes on the A100s and L4)."""
    out = {label: {} for label in GPUS.values()}
    for stem in FILES:
        path = Path(data) / (stem + ".csv.gz")
        for r in rows(path):
            label = GPUS.get(r["Device"])
            w = work_of(r) if label else None
            if w is None or w[0] in out[label]:
                continue
            name, family, work = w
            out[label][name] = (float(r["Latency"]) * 1e-3, family, work, library_kernel(r))
    return out


def profile(label, device_name, ops, matrix=True):
    """The perfgate profile of one GPU's ops; matrix=False leaves out every `matrix`
    declaration (what a user who does not know the keyword writes). The library kernel stays in
    the tables: a profile holds only keys perfgate reads."""
    def declared(work):
        return work if matrix else {k: v for k, v in work.items() if k != "matrix"}
    kernels = [{"name": name, "invocations": 1, "declared_work": declared(work), "time_s": t}
               for name, (t, _family, work, _kernel) in sorted(ops.items())]
    return {"schema": "perfgate-profile/1",
            "source": {"format": "perfgate-profile/1",
                       "file": "scripts/bench/neusight.py: NeuSight (ASPLOS'25) artifact, %s"
                               % device_name},
            "device": {"name": device_name, "warp_size": 64 if label == "MI210" else 32},
            "kernels": kernels}


def write_profiles(data, out, matrix=True):
    """Write OUT/<label>.json per GPU (matrix=False: without the GEMMs' `matrix` declarations);
    return {label: {op name: (time_s, family)}}."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tables = read_tables(data)
    names = {label: dev for dev, label in GPUS.items()}
    for label, ops in tables.items():
        (out / (label + ".json")).write_text(json.dumps(profile(label, names[label], ops,
                                                                matrix)))
    return {label: {n: (v[0], v[1]) for n, v in ops.items()} for label, ops in tables.items()}


def calibration_half(name):
    return zlib.crc32(name.encode()) % 2 == 0


# The power-limited parts and a reference that holds its clock with the same FP32 lanes per SM:
# the reference's SGEMM efficiency is what the limited part would reach at its boost clock.
# A100-80 PCIe (300 W) for the A100-40 PCIe (250 W, same GA100); H100 SXM (700 W) for the L4
# (72 W, Ada: 128 FP32 lanes per SM, like Hopper, which no SGEMM fills as Volta's and GA100's
# 64 are filled).
LIMITED = {"L4": "H100", "A100-40": "A100-80"}
DEVICE_IDS = {"V100": "v100-pcie", "A100-40": "a100-pcie-40gb", "A100-80": "a100-pcie-80gb",
              "H100": "h100-sxm", "L4": "l4", "MI210": "mi210"}
DEVICES = Path(__file__).resolve().parents[2] / "perfgate" / "devices"
MIN_FIT_S = 1e-3  # ops of 1 ms or more: launch gaps below 3% of their time


def fit_ops(ops, families):
    """The calibration half's ops of `families` of at least MIN_FIT_S: (name, time_s, work)."""
    return [(name, t, w) for name, (t, family, w, _k) in ops.items()
            if family in families and t >= MIN_FIT_S and calibration_half(name)]


def elementwise_gbs(ops):
    """The DRAM rate PyTorch's elementwise kernels sustain (bytes / time, median), or None for a
    GPU without them in the data."""
    rates = [w["bytes"] / t / 1e9 for _n, t, w in fit_ops(ops, ("elementwise",))]
    return statistics.median(rates) if rates else None


def gemm_rate(ops, stream_gbs):
    """The rate an SGEMM's multiply runs at, at the clock the GPU ran: the median over the GEMMs
    of flops / (time - bytes at the stream rate): the model a prediction uses (docs/model.md,
    compute and compulsory traffic added)."""
    rates = [w["fp32_flops"] / (t - w["bytes"] / (stream_gbs * 1e9)) / 1e9
             for _n, t, w in fit_ops(ops, ("linear", "bmm"))
             if t > w["bytes"] / (stream_gbs * 1e9)]
    return statistics.median(rates)


def carried_exponent(tables, dev, stream, rate_at_clock):
    """How much of a GEMM's efficiency carries to another architecture: the least-squares slope
    of log(efficiency on the destination) on log(efficiency on the source), efficiency being the
    model's time / the measured time, over every ordered pair of GPUs of different
    architectures and every calibration-half GEMM of at least MIN_FIT_S on both."""
    def log_eff(label, name):
        t, _f, w, _k = tables[label][name]
        model = w["fp32_flops"] / (rate_at_clock[label] * 1e9) + w["bytes"] / (stream[label] * 1e9)
        return math.log(model / t)
    xs, ys = [], []
    for src, dst in itertools.permutations(tables, 2):
        if dev[src]["arch"] == dev[dst]["arch"]:
            continue
        for name, _t, _w in fit_ops(tables[src], ("linear", "bmm")):
            if name in tables[dst] and tables[dst][name][0] >= MIN_FIT_S:
                xs.append(log_eff(src, name))
                ys.append(log_eff(dst, name))
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) /
            sum((x - mx) ** 2 for x in xs), len(xs))


def fit(data, out=print):
    """Each GPU's elementwise_gbs, the sustained clocks of LIMITED, each GPU's fp32_gemm_gflops
    (the rate library SGEMMs' multiply sustains, stated at the clock the device's peaks hold at,
    so that its sustained clock scales it) and the exponent of the efficiency a GEMM carries
    across architectures (measured_scaling.cpp's gemm_efficiency_carried). Returns them as
    {"elementwise_gbs": {label: GB/s}, "sustained_clock_mhz": {label: MHz},
     "fp32_gemm_gflops": {label: GFLOPS}, "gemm_efficiency_carried": exponent}."""
    tables = read_tables(data)
    dev = {label: json.loads((DEVICES / (i + ".json")).read_text())
           for label, i in DEVICE_IDS.items()}
    for d in dev.values():
        d["arch"] = d.get("compute_capability") or d.get("gfx_target")
    # The clock the peaks hold at: the highest the card runs (max_clock_mhz), else its boost.
    boost = {label: d.get("max_clock_mhz", d["boost_clock_mhz"]) for label, d in dev.items()}
    # The fastest exact-fp32 path at the boost clock: the vector pipes, or CDNA's FP32 MFMA.
    path = {label: max(d["peaks"]["fp32_gflops"], d["peaks"].get("tensor_fp32_gflops", 0))
            for label, d in dev.items()}
    fitted = {"elementwise_gbs": {}, "sustained_clock_mhz": {}, "fp32_gemm_gflops": {}}
    stream = {}
    for label, d in dev.items():
        gbs = elementwise_gbs(tables[label])
        stream[label] = gbs or d["peaks"]["dram_gbs"]
        if gbs:
            fitted["elementwise_gbs"][label] = gbs
            out("%-8s elementwise_gbs %.0f (%.3f of dram_gbs %.0f)" % (
                label, gbs, gbs / d["peaks"]["dram_gbs"], d["peaks"]["dram_gbs"]))
    at_clock = {label: gemm_rate(tables[label], stream[label]) for label in dev}
    clock = dict(boost)
    for label, ref in LIMITED.items():
        own, other = at_clock[label] / path[label], at_clock[ref] / path[ref]
        clock[label] = fitted["sustained_clock_mhz"][label] = round(boost[label] * own / other)
        out("%-8s SGEMM multiply at %.3f of the %d MHz peak, %s at %.3f: sustained_clock_mhz "
            "%d" % (label, own, boost[label], ref, other, clock[label]))
    for label in dev:
        rate = fitted["fp32_gemm_gflops"][label] = at_clock[label] * boost[label] / clock[label]
        out("%-8s SGEMM multiply %.0f GFLOPS at %d MHz: fp32_gemm_gflops %.1f (%.3f of %.0f)" % (
            label, at_clock[label], clock[label], rate, rate / path[label], path[label]))
    beta, n = carried_exponent(tables, dev, stream, at_clock)
    fitted["gemm_efficiency_carried"] = beta
    out("efficiency carried across architectures: exponent %.3f (%d GEMM pairs)" % (beta, n))
    return fitted


def main():
    if len(sys.argv) == 3 and sys.argv[2] == "--fit":
        fit(sys.argv[1])
        return 0
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for label, ops in write_profiles(sys.argv[1], sys.argv[2]).items():
        print("%-8s %5d operations" % (label, len(ops)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
