#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Measurements other people published (tests/data/published, README there) as perfgate profiles.

Every measurement becomes one kernel whose declared work follows from what was measured, with
the time it took (a rate of R per second is R units of work in one second):
  gpu-benches gpu-stream     every GB/s cell: that many bytes (DRAM: arrays far beyond L2)
  gpu-benches gpu-l2-cache   every row: its effective bytes, working set = the row's data volume
  gpu-benches gpu-roofline   every row: its fp32 flops (FMA = 2) and DRAM bytes
  torch.mm (issues, database.md)   n x n x n GEMM, 2 n^3 operations, each matrix once:
        FP32 (TF32 off): fp32 flops, matrix; TF32: tensor_tf32 ops; FP16, BF16: tensor ops,
        accumulate fp32 (PyTorch and cuBLAS accumulate in FP32); time = 2 n^3 / TFLOPS
  MAMF (stas00/ml-engineering)  M x N x K BF16 or FP8 matmul, accumulate fp32
  AI-benchmarking-guide (Azure's results)  cuBLASLt / hipBLASLt FP16 or FP8 GEMMs (accumulate
        fp32) and its HBM bandwidth table (STREAM kernels: TB/s)
  NeuSight (T4 rows and tests/data/neusight)  the ops scripts/bench/neusight.py declares
  the thesis's six GPUs (tests/data/thesis)   its micro-benchmarked FP32, FP64 and DRAM rates
  the boat hull paper's GPUs (tests/data/hull)  its bandwidthTest DRAM rates (Table 2)
Each measurement has a rate it measures (`dram`, `l2`, `fp32_vector`, `fp32_gemm`, `tf32`,
`fp16`, `bf16`, `fp8`) and a source (repository and commit, issue, or file and line); the
best value per device, rate and source is what a device file's `sources.measured` names.

usage: published.py DATA_DIR OUT_DIR   writes OUT_DIR/<device>.json profiles and
                                        OUT_DIR/measurements.json (every group's best value)
       published.py DATA_DIR --update-sources DEVICES_DIR
                                        rewrites `sources.measured` of every GPU file there from the
                                        measurements (a rate without any keeps its "none: ..." reason)
"""
import csv
import gzip
import io
import json
import sys
from pathlib import Path

import neusight

GPU_BENCHES = "te42kyfo/gpu-benches@1c36d509ee717dca9215c27135fa1e611bb03ed1"
TORCH_MM = "zzc0721/torch-performance-test-data"
TORCH_MM_DATABASE = TORCH_MM + "@9d82827637262c4351e3f9483f96b8cff57a601f database.md"
MAMF = "stas00/ml-engineering@744d01e18b79512572f64a6bbd8b5f4a725203a7 " \
       "compute/accelerator/README.md"
AZURE = "samuel-bohman/AI-benchmarking-guide@2b25b6966d7a14de809214e8b37b1b1e74d4e0e0 " \
        "Azure_Results"
AZURE_FILES = {"ND_A100_v4": "a100-80gb", "ND_H100_v5": "h100-sxm", "ND_H200_v5": "h200",
               "ND_MI300X_v5": "mi300x"}
NEUSIGHT = "trsharm25/NeuSight@db1fdc966633fe96c0717e0706e7621ad0921ed2 " \
           "scripts/asplos/data/dataset"

# gpu-benches result files -> the built-in device (the FAU "alex" cluster's A100 SXM4 40GB and
# 80GB and A40; the README's V100 is a PCIe card; the DRAM rates of a PCIe and an SXM card of one
# memory are the same).
STREAM = {"v100": "v100-pcie", "a100_40": "a100-40gb", "a100_80": "a100-80gb", "a40": "a40",
          "h100_pcie": "h100-pcie", "h200": "h200", "l40": "l40", "mi100": "mi100",
          "mi210": "mi210"}
L2 = {"a100_80": "a100-80gb", "h100_pcie": "h100-pcie", "h200": "h200", "l40": "l40",
      "mi100": "mi100", "mi210": "mi210"}
ROOFLINE = {"alex_a100_40": "a100-40gb", "alex_a40": "a40", "genoa_l40": "l40"}
# NeuSight's device names -> built-in ids (T4 rows in published/neusight-t4; the others are
# tests/data/neusight, which check_neusight.py converts the same way).
NEUSIGHT_IDS = {"Tesla T4": "t4", "Tesla V100-PCIE-32GB": "v100-pcie",
                "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb", "NVIDIA A100 80GB PCIe": "a100-pcie-80gb",
                "NVIDIA H100 80GB HBM3": "h100-sxm", "NVIDIA L4": "l4", "AMD Instinct MI210": "mi210"}
# Precisions a device has no tensor path for run elsewhere (cuBLAS computes BF16 on a V100 or a
# T4 with its FP32 lanes, and "TF32" there is FP32): those cells say nothing of a tensor rate.
NO_TENSOR = {"v100-sxm2": {"BF16", "TF32"}, "v100s": {"BF16", "TF32"}, "t4": {"BF16", "TF32"}}


class Collector:
    """Kernels per device, and the best value per (device, rate, source)."""

    def __init__(self):
        self.kernels = {}
        self.groups = {}

    def add(self, device, rate, source, what, name, work, time_s, value):
        self.kernels.setdefault(device, []).append(
            {"name": "%s: %s" % (source, name), "invocations": 1, "declared_work": work,
             "time_s": time_s, "published_rate": rate})
        key = (device, rate, source)
        g = self.groups.setdefault(key, {"device": device, "rate": rate, "source": source,
                                         "what": what, "best": 0.0, "count": 0})
        g["best"] = max(g["best"], value)
        g["count"] += 1


def bytes_work(nbytes, working_set=None):
    w = {"fp32_flops": 0, "fp64_flops": 0, "int_ops": 0, "bytes": float(nbytes)}
    if working_set:
        w["working_set_bytes"] = float(working_set)
    return w


def stream_rows(text):
    """The GB/s cells of a gpu-stream table: (row label, column, GB/s)."""
    lines = text.splitlines()
    columns = lines[0].split("|")[1].split()
    for line in lines[1:]:
        if "GB/s:" not in line:
            continue
        head, cells = line.split("GB/s:")
        for column, cell in zip(columns, cells.split()):
            yield head.split("|")[0].split()[0], column, float(cell)


def gpu_benches(data, c):
    base = data / "gpu-benches"
    for stem, device in STREAM.items():
        src = "%s gpu-stream/%s.txt" % (GPU_BENCHES, stem)
        for block, column, gbs in stream_rows((base / "gpu-stream" / (stem + ".txt")).read_text()):
            c.add(device, "dram", src, "stream kernels (init, read, scale, triad, stencils) at "
                  "every occupancy", "%s blockSize %s" % (column, block),
                  bytes_work(gbs * 1e9), 1.0, gbs)
    for stem, device in L2.items():
        src = "%s gpu-l2-cache/%s.txt" % (GPU_BENCHES, stem)
        for line in (base / "gpu-l2-cache" / (stem + ".txt")).read_text().splitlines()[1:]:
            f = line.split()
            if len(f) < 8 or f[1] != "kB":
                continue
            volume_kb, gbs = float(f[2]), float(f[6])
            c.add(device, "l2", src, "every block reads the same buffer: L2 below its capacity, "
                  "DRAM above", "data %s kB" % f[2], bytes_work(gbs * 1e9, volume_kb * 1024),
                  1.0, gbs)
    for stem, device in ROOFLINE.items():
        src = "%s gpu-roofline/%s.txt" % (GPU_BENCHES, stem)
        for line in (base / "gpu-roofline" / (stem + ".txt")).read_text().splitlines():
            f = line.split()
            if len(f) < 12 or f[2] != "blocks":
                continue
            gbs, gfs = float(f[7]), float(f[9])
            w = bytes_work(gbs * 1e9)
            w["fp32_flops"] = gfs * 1e9
            c.add(device, "fp32_vector", src, "fp32 FMA chains over streamed arrays (float: "
                  "Fl/B = (2 + 2 its) / 8)", "GPU %s, %s its" % (f[0], f[4]), w, 1.0, gfs)


def gemm_work(precision, m, n, k):
    """Declared work of an M x N x K matmul in one precision, each matrix once."""
    ops = 2.0 * m * n * k
    size = {"FP32": 4, "TF32": 4, "FP16": 2, "BF16": 2, "FP8": 1}[precision]
    nbytes = float(size * (m * k + k * n) + (4 if precision in ("FP32", "TF32") else 2) * m * n)
    w = {"fp32_flops": 0, "fp64_flops": 0, "int_ops": 0, "bytes": nbytes, "matrix": True}
    if precision == "FP32":
        w["fp32_flops"] = ops
        return w, "fp32_gemm"
    key = {"TF32": "tensor_tf32_ops", "FP16": "tensor_fp16_ops", "BF16": "tensor_bf16_ops",
           "FP8": "tensor_fp8_ops"}[precision]
    w["tensor_ops"] = {key: ops}
    if precision != "TF32":
        w["accumulate"] = "fp32"
    return w, precision.lower()


def add_gemm(c, device, source, what, precision, m, n, k, tflops, label):
    if precision in NO_TENSOR.get(device, ()):
        return
    work, rate = gemm_work(precision, m, n, k)
    c.add(device, rate, source, what, "%s %s %dx%dx%d" % (label, precision, m, n, k), work,
          2.0 * m * n * k / (tflops * 1e12), tflops * 1e3)


def torch_mm(data, c):
    what = "torch.mm of square matrices, n = 1024 to 10240, 30 calls between CUDA events"
    with open(data / "torch-mm" / "issues.csv", newline="") as f:
        for r in csv.DictReader(f):
            n = int(r["n"])
            add_gemm(c, r["device"], "%s issue #%s" % (TORCH_MM, r["issue"]), what,
                     r["precision"], n, n, n, float(r["tflops"]), "issue %s" % r["issue"])
    with open(data / "torch-mm" / "database.csv", newline="") as f:
        for r in csv.DictReader(f):
            for precision in ("FP32", "TF32", "FP16", "BF16"):
                cell = r[precision.lower()]
                if cell:  # the best of n = 1024 .. 10240; the size is not recorded: n = 8192
                    add_gemm(c, r["device"], "%s line %s" % (TORCH_MM_DATABASE, r["line"]),
                             what + " (the best size)", precision, 8192, 8192, 8192,
                             float(cell), "line %s" % r["line"])


def mamf(data, c):
    with open(data / "mamf.csv", newline="") as f:
        for r in csv.DictReader(f):
            add_gemm(c, r["device"], "%s line %s" % (MAMF, r["line"]),
                     "torch matmul, the best shape of a search (mean of 100 iterations)",
                     r["precision"].upper(), int(r["m"]), int(r["n"]), int(r["k"]),
                     float(r["tflops"]), "MAMF")


def azure_file(data, c, stem, device):
    """The GEMM table (m | n | k | TFLOPS, the precision named in the sentence above it) and the
    HBM bandwidth table (kernel | TB/s) of one results file."""
    src = "%s/%s_results.md" % (AZURE, stem)
    section, precision = "", None
    for line in (data / "ai-benchmarking-guide" / (stem + "_results.md")).read_text().splitlines():
        if line.startswith("### "):
            section = line[4:].strip()
        if section.startswith("GEMM") and "warmup iterations" in line:
            precision = next(p for p in ("FP16", "FP8", "BF16") if ", %s," % p in line)
        cells = [x.strip() for x in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if section.startswith("GEMM") and len(cells) == 4 and cells[0].isdigit():
            m, n, k = (int(x) for x in cells[:3])
            add_gemm(c, device, src, "%s GEMM, random data, the mean after 10,000 warmup "
                     "iterations" % section.split()[1], precision, m, n, k, float(cells[3]), stem)
        if section == "HBM Bandwidth" and len(cells) == 2 and cells[0] in (
                "Copy", "Mul", "Add", "Triad", "Dot"):
            gbs = float(cells[1]) * 1e3
            c.add(device, "dram", src, "HBM bandwidth, STREAM kernels (copy, mul, add, triad, "
                  "dot)", "%s %s" % (stem, cells[0]), bytes_work(gbs * 1e9), 1.0, gbs)


def azure(data, c):
    for stem, device in AZURE_FILES.items():
        azure_file(data, c, stem, device)


def neusight_rows(data, c):
    sets = [(data / "neusight-t4", ("nv_test_linear", "nv_test_bmm", "nv_test_vec")),
            (data.parent / "neusight", neusight.FILES)]
    for folder, stems in sets:
        seen = set()
        for stem in stems:
            path = folder / (stem + ".csv.gz")
            sub = "dataset_amd" if stem.startswith("amd") else "dataset"
            for r in neusight.rows(path):
                device = NEUSIGHT_IDS.get(r["Device"])
                w = neusight.work_of(r) if device else None
                if w is None or (device, w[0]) in seen:
                    continue
                seen.add((device, w[0]))
                name, family, work = w
                t = float(r["Latency"]) * 1e-3
                src = "%s%s/%s.csv (%s)" % (NEUSIGHT, sub[len("dataset"):], stem, r["Device"])
                if family in ("linear", "bmm"):
                    c.add(device, "fp32_gemm", src, "PyTorch fp32 %s (TF32 off), the mean of "
                          "the 5 fastest of 25 calls" % family, name, work, t,
                          work["fp32_flops"] / t / 1e9)
                else:
                    c.add(device, "dram", src, "PyTorch fp32 elementwise, layer norm, softmax "
                          "(each tensor read or written once)", name, work, t,
                          work["bytes"] / t / 1e9)


THESIS_IDS = {"GTX-480": "gtx-480", "GTX-660": "gtx-660", "GTX-960": "gtx-960",
              "GTX-1060": "gtx-1060", "Tesla-M2050": "tesla-m2050", "Tesla-K20c": "tesla-k20c"}


def thesis(data, c):
    """The thesis's micro-benchmarked rates (Tables 5.1 and 5.2): one kernel per rate at exactly
    that rate, so the roof of the device that carries them is met, not beaten."""
    doc = json.loads((data.parent / "thesis" / "gpu_parameters.json").read_text())
    src = "E. Konstantinidis, PhD thesis (University of Athens, 2017), Tables 5.1 and 5.2"
    for g in doc["gpus"]:
        device = THESIS_IDS[g["gpu_id"]]
        for rate, key, what in (("fp32_vector", "T_SP", "mixbench-style FP32 FMA peak"),
                                ("fp64_vector", "T_DP", "FP64 FMA peak"),
                                ("dram", "B_mem", "mean of read, write and copy bandwidth")):
            value = g[key]
            w = bytes_work(value * 1e9) if rate == "dram" else {
                "fp32_flops": value * 1e9 if rate == "fp32_vector" else 0,
                "fp64_flops": value * 1e9 if rate == "fp64_vector" else 0, "int_ops": 0, "bytes": 1.0}
            c.add(device, rate, src, what, "%s %s" % (g["gpu_id"], key), w, 1.0, value)


def hull(data, c):
    doc = json.loads((data.parent / "hull" / "worked_examples.json").read_text())
    src = "C. Nugteren, H. Corporaal, CF'12, Table 2"
    for device, g in doc["inputs"]["table_2_gpus"].items():
        if isinstance(g, dict):
            c.add(device, "dram", src, "CUDA SDK bandwidthTest (P_coalesced)", device + " P_coalesced",
                  bytes_work(g["P_coalesced_gbs"] * 1e9), 1.0, g["P_coalesced_gbs"])


def collect(data):
    c = Collector()
    gpu_benches(data, c)
    torch_mm(data, c)
    mamf(data, c)
    azure(data, c)
    neusight_rows(data, c)
    thesis(data, c)
    hull(data, c)
    return c


def rate_key(device, rate):
    """The device peak a measured rate is held to (what its roofs use): a GEMM's fp32 work takes
    the matrix units that compute fp32 exactly where they are faster (CDNA 1's FP32 MFMA)."""
    peaks = device["peaks"]
    if rate == "fp32_gemm":
        mfma = peaks.get("tensor_fp32_gflops", 0)
        return "tensor_fp32_gflops" if mfma > peaks["fp32_gflops"] else "fp32_gflops"
    return {"dram": "dram_gbs", "l2": "l2", "fp32_vector": "fp32_gflops",
            "fp64_vector": "fp64_gflops", "tf32": "tensor_tf32_gflops",
            "fp16": "tensor_fp16_gflops", "bf16": "tensor_bf16_gflops",
            "fp8": "tensor_fp8_gflops"}[rate]


def roof_rates(device):
    """The rates a GPU's roofs use: DRAM, L2 where the file states one, FP32, FP64 where the
    hardware has it, every tensor path."""
    peaks = device["peaks"]
    keys = ["dram_gbs"] + (["l2"] if "l2" in device.get("cache_bytes", {}) else [])
    keys += ["fp32_gflops"] + (["fp64_gflops"] if "fp64_gflops" in peaks else [])
    return keys + sorted(k for k in peaks if k.startswith("tensor_"))


NO_MEASUREMENT = "none: no public measurement of this rate was found (2026-11-28)"


def measured_sources(device, groups):
    """`sources.measured` of one device file: per roof rate its measurements, best first, or the
    reason there is none (a reason the file gives is kept)."""
    old = device.get("sources", {}).get("measured", {})
    out = {}
    for key in roof_rates(device):
        found = [g for g in groups if g["device"] == device["id"] and rate_key(device, g["rate"]) == key]
        found.sort(key=lambda g: (-g["best"], g["source"]))
        if found:
            out[key] = [{"source": g["source"], "best": round(g["best"], 2), "what": g["what"]}
                        for g in found]
        else:
            reason = old.get(key)
            out[key] = reason if isinstance(reason, str) else NO_MEASUREMENT
    return out


def update_sources(data, devices_dir):
    groups = list(collect(data).groups.values())
    for path in sorted(Path(devices_dir).glob("*.json")):
        device = json.loads(path.read_text())
        if device.get("kind", "gpu") != "gpu" or "sources" not in device:
            continue
        device["sources"]["measured"] = measured_sources(device, groups)
        path.write_text(json.dumps(device, indent=2, ensure_ascii=False) + "\n")


def write(data, out):
    out.mkdir(parents=True, exist_ok=True)
    c = collect(data)
    for device, kernels in c.kernels.items():
        (out / (device + ".json")).write_text(json.dumps({
            "schema": "perfgate-profile/1",
            "source": {"format": "perfgate-profile/1",
                       "file": "scripts/bench/published.py: measurements others published"},
            "device": {"name": device, "warp_size": 64 if device.startswith("mi") else 32},
            "kernels": [{k: v for k, v in kernel.items() if k != "published_rate"}
                        for kernel in kernels]}, indent=1))
    (out / "measurements.json").write_text(json.dumps(sorted(
        c.groups.values(), key=lambda g: (g["device"], g["rate"], g["source"])), indent=1))
    return c


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "--update-sources":
        update_sources(Path(sys.argv[1]), Path(sys.argv[3]))
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    collected = write(Path(sys.argv[1]), Path(sys.argv[2]))
    print("%d measurements of %d devices, %d groups" % (
        sum(len(k) for k in collected.kernels.values()), len(collected.kernels),
        len(collected.groups)))
