#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Timings others measured of the same kernels on several GPUs (tests/data/published), as one
perfgate profile per GPU run, for the accuracy benchmark (scripts/bench/accuracy.py): nothing in
perfgate was fitted on them (the fitted figures come from NeuSight's data).

  torch.mm (zzc0721/torch-performance-test-data issues)  n x n x n GEMMs, n = 1024 .. 10240, in
        FP32 (TF32 off), TF32, FP16, BF16 on 11 GPU runs: one kernel per precision and size,
        time = 2 n^3 / TFLOPS (30 back-to-back calls between CUDA events)
  AI-benchmarking-guide (Azure)  cuBLASLt / hipBLASLt GEMMs of the same shapes (FP8 on H100, H200,
        MI300X; FP16 on A100) and the same STREAM kernels (copy, mul, add, triad, dot)
  gpu-benches gpu-stream (te42kyfo)  init, read, scale, triad, 3pt, 5pt at 32 occupancies (one
        block per SM, block sizes 32 .. 1024) on 9 GPUs: 1 GB of traffic at the measured GB/s

The work is declared as published.py declares it (the same definitions): GEMMs 2 m n k
operations and each matrix once, FP16/BF16/FP8 accumulating in FP32; a stream 1e9 bytes (the
files give rates, and the same kernel moves the same bytes on every GPU).
"""
import csv
import json
from pathlib import Path

import published

DEVICES = Path(__file__).resolve().parents[2] / "perfgate" / "devices"


def skipped(device):
    """The precisions a built-in device has no tensor path for (a V100's BF16 and TF32, an
    A100's FP8): kernels of those cannot run there as measured elsewhere."""
    peaks = json.loads((DEVICES / (device + ".json")).read_text())["peaks"]
    return frozenset(p for p in ("TF32", "FP16", "BF16", "FP8")
                     if "tensor_%s_gflops" % p.lower() not in peaks)


def torch_runs(data):
    """label -> (device, {kernel name: (time_s, work, family)})."""
    runs = {}
    with open(data / "torch-mm" / "issues.csv", newline="") as f:
        for r in csv.DictReader(f):
            precision, n = r["precision"], int(r["n"])
            if precision in published.NO_TENSOR.get(r["device"], ()):
                continue
            label = "%s #%s" % (r["device"], r["issue"])
            work, _rate = published.gemm_work(precision, n, n, n)
            t = 2.0 * n ** 3 / (float(r["tflops"]) * 1e12)
            runs.setdefault(label, (r["device"], {}))[1]["torch.mm %s n=%d" % (precision, n)] = (
                t, work, "GEMM " + precision)
    return runs


def azure_runs(data):
    runs = {}
    for stem, device in published.AZURE_FILES.items():
        collector = published.Collector()
        published.azure_file(data, collector, stem, device)
        ops = {}
        for k in collector.kernels.get(device, []):
            name = k["name"].split(": ", 1)[1]
            if k["published_rate"] != "dram":
                kernel = name.split(" ", 1)[1]  # "FP8 8192x8192x8192"
                ops["BLASLt GEMM " + kernel] = (k["time_s"], k["declared_work"],
                                                 "GEMM " + kernel.split()[0])
            else:
                gbs = k["declared_work"]["bytes"] / 1e9
                ops["HBM " + name.split()[-1]] = (1.0 / gbs, published.bytes_work(1e9), "stream")
        runs["%s (Azure)" % device] = (device, ops)
    return runs


def stream_runs(data):
    runs = {}
    for stem, device in published.STREAM.items():
        text = (data / "gpu-benches" / "gpu-stream" / (stem + ".txt")).read_text()
        ops = {}
        rows = list(published.stream_rows(text))
        last = max(int(block) for block, _c, _g in rows)
        for block, column, gbs in rows:
            family = "stream, full occupancy" if int(block) == last else "stream"
            ops["gpu-stream %s blockSize %s" % (column, block)] = (1.0 / gbs,
                                                                    published.bytes_work(1e9),
                                                                    family)
        runs["%s (gpu-benches)" % device] = (device, ops)
    return runs


def all_runs(data):
    """label -> (device, ops) of every dataset, and the dataset of each label."""
    out, dataset = {}, {}
    for name, runs in (("torch.mm", torch_runs(data)), ("Azure", azure_runs(data)),
                       ("gpu-stream", stream_runs(data))):
        for label, run in runs.items():
            out[label] = run
            dataset[label] = name
    return out, dataset


def write_profile(path, device, ops):
    path.write_text(json.dumps({
        "schema": "perfgate-profile/1",
        "source": {"format": "perfgate-profile/1",
                   "file": "scripts/bench/independent.py: timings others published"},
        "device": {"name": device, "warp_size": 64 if device.startswith("mi") else 32},
        "kernels": [{"name": name, "invocations": 1, "declared_work": work, "time_s": t}
                    for name, (t, work, _family) in sorted(ops.items())]}, indent=1))
