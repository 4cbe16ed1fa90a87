#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the constructed nvbench fixtures of this folder (see README.md): nvbench's JSON as its
writer (nvbench/json_printer.cu) builds it, with numbers we chose. Run from this folder:
    python3 construct.py
The layout follows nvbench 66212f1 (2026-08-12, = cuda-bench 0.3.0) for copy_h200.json; no GPU
wrote these numbers. The 2022-01 .. 2025-04 layout is no longer constructed: real files of it are
in tests/data/external/ (NVIDIA/nvbench's test_ref.json, spark-rapids-jni's results)."""
import json
import math
import os
import random
import struct


def fmt_double(x):
    """fmt::to_string(double): shortest round trip, no trailing .0, inf/nan as words."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    s = repr(float(x))
    return s[:-2] if s.endswith(".0") else s


def value(name, v):
    if isinstance(v, str):
        return {"name": name, "type": "string", "value": v}
    if isinstance(v, int):
        return {"name": name, "type": "int64", "value": str(v)}
    return {"name": name, "type": "float64", "value": fmt_double(v)}


def summary(tag, v, name=None, description=None, hint=None, hide=None, data=None):
    s = {"tag": tag}
    for key, text in (("name", name), ("description", description), ("hint", hint),
                      ("hide", hide)):
        if text is not None:
            s[key] = text
    s["data"] = data if data is not None else [value("value", v)]
    return s


HIDDEN = "Hidden by default."


def quartiles(xs):
    ys = sorted(xs)
    n = len(ys)

    def at(q):
        pos = q * (n - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        return ys[lo] + (ys[hi] - ys[lo]) * (pos - lo)
    return at(0.25), at(0.5), at(0.75)


def stats(xs):
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    q1, med, q3 = quartiles(xs)
    return mean, sd, min(xs), max(xs), q1, med, q3


def time_summaries(prefix, where, xs, full):
    """nv/cold/time/{cpu,gpu}/*, or the older mean + relative noise only."""
    mean, sd, lo, hi, q1, med, q3 = stats(xs)
    noise = sd / mean if len(xs) >= 5 else math.inf
    label = "CPU" if where == "cpu" else "GPU"
    how = "measured on host CPU" if where == "cpu" else "measured with CUDA events"
    out = []
    if full:
        out += [summary(prefix + "min", lo, "Min %s Time" % label, "Fastest isolated kernel execution time (%s)" % how, "duration", HIDDEN),
                summary(prefix + "max", hi, "Max %s Time" % label, "Slowest isolated kernel execution time (%s)" % how, "duration", HIDDEN)]
    out.append(summary(prefix + "mean", mean, "%s Time" % label, "Mean isolated kernel execution time (%s)" % how, "duration"))
    if full:
        out.append(summary(prefix + "stdev/absolute", sd if len(xs) >= 5 else math.inf, "Noise", "Standard deviation of isolated kernel execution %s times" % label, "duration", HIDDEN))
    out.append(summary(prefix + "stdev/relative", noise, "Noise", "Relative standard deviation of isolated kernel execution %s times" % label, "percentage"))
    if full:
        out += [summary(prefix + "q1", q1, "Q1 %s Time" % label, "First quartile of isolated kernel execution %s times" % label, "duration", HIDDEN),
                summary(prefix + "median", med, "Median %s Time" % label, "Median of isolated kernel execution %s times" % label, "duration", HIDDEN),
                summary(prefix + "q3", q3, "Q3 %s Time" % label, "Third quartile of isolated kernel execution %s times" % label, "duration", HIDDEN),
                summary(prefix + "iqr/absolute", q3 - q1, "IQR", "Interquartile range of isolated kernel execution %s times" % label, "duration", HIDDEN)]
        if len(xs) >= 5:
            out.append(summary(prefix + "iqr/relative", (q3 - q1) / med, "Rel IQR", "Relative interquartile range of isolated kernel execution %s times" % label, "percentage", HIDDEN))
    return out, mean


def samples(rng, n, centre, spread):
    # float32, as --jsonbin stores them: the statistics are those of the stored values
    return [struct.unpack("<f", struct.pack("<f", centre * (1 + rng.gauss(0, spread))))[0]
            for _ in range(n)]


H200 = {"id": 0, "name": "NVIDIA H200", "sm_version": 900, "ptx_version": 900,
        "sm_default_clock_rate": 1980000000, "number_of_sms": 132, "max_blocks_per_sm": 32,
        "max_threads_per_sm": 2048, "max_threads_per_block": 1024, "registers_per_sm": 65536,
        "registers_per_block": 65536, "global_memory_size": 150754820096,
        "global_memory_bus_peak_clock_rate": 3201000000, "global_memory_bus_width": 6144,
        "global_memory_bus_bandwidth": 2 * 3201000000 * 6144 // 8, "l2_cache_size": 52428800,
        "shared_memory_per_sm": 233472, "shared_memory_per_block": 49152, "ecc_state": True}


def meta(argv, git_version, sha):
    return {"argv": argv,
            "version": {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"},
                        "nvbench": {"major": 0, "minor": 1, "patch": 0, "string": "0.1.0",
                                    "git_branch": "HEAD", "git_sha": sha,
                                    "git_version": git_version, "git_is_dirty": False}}}


SETTINGS_2026 = {"min_samples": 10, "cold_warmup_runs": 1, "cold_max_warmup_walltime": -1.0,
                 "batch_target_time": 0.5, "skip_time": -1.0, "timeout": 15.0}


def copy_axes():
    return [{"name": "T", "type": "type", "flags": "",
             "values": [{"input_string": "I32", "description": "int32_t", "is_active": True},
                        {"input_string": "F64", "description": "double", "is_active": True}]},
            {"name": "Elements", "type": "int64", "flags": "pow2",
             "values": [{"input_string": str(e), "description": "2^%d = %d" % (e, 2 ** e),
                         "value": 2 ** e} for e in (20, 24)]}]


def h200_file(rng):
    states = []
    index = 0
    # bytes / time at about 4.3 TB/s for the large copies; the 4 MiB int32 copy is latency-bound
    timing = {("I32", 20): (4.9e-6, 4), ("I32", 24): (3.12e-5, 2107), ("F64", 20): (6.1e-6, 1873),
              ("F64", 24): (6.24e-5, 1122)}
    for tci, (t, size) in enumerate((("I32", 4), ("F64", 8))):
        for e in (20, 24):
            n = 2 ** e
            centre, count = timing[(t, e)]
            gpu = samples(rng, count, centre, 0.01)
            cpu = [g + 5.2e-6 * (1 + abs(rng.gauss(0, 0.1))) for g in gpu]
            s = [summary("nv/element_count/Elements", n, "Elements", "Number of elements: Elements"),
                 summary("nv/gmem/reads/ReadBytes", n * size, "ReadBytes", hint="bytes"),
                 summary("nv/gmem/writes/WriteBytes", n * size, "WriteBytes", hint="bytes"),
                 summary("nv/cold/sample_size", count, "Samples", "Number of isolated kernel executions", "sample_size"),
                 summary("nv/cold/walltime", 0.5 + rng.random() * 0.01, "Walltime", "Walltime used for isolated measurements", "duration", HIDDEN)]
            cpu_s, _ = time_summaries("nv/cold/time/cpu/", "cpu", cpu, True)
            gpu_s, mean = time_summaries("nv/cold/time/gpu/", "gpu", gpu, True)
            s += cpu_s + gpu_s
            s.append(summary("nv/cold/bw/item_rate", n / mean, "Elem/s", "Number of input elements processed per second", "item_rate"))
            bw = 2 * n * size / mean
            s.append(summary("nv/cold/bw/global/bytes_per_second", bw, "GlobalMem BW", "Number of bytes read/written per second", "byte_rate"))
            s.append(summary("nv/cold/bw/global/utilization", bw / H200["global_memory_bus_bandwidth"], "BWUtil", "Global device memory utilization as a percentage of peak", "percentage"))
            clock = 1.9754e9
            s.append(summary("nv/cold/sm_clock_rate/mean", clock, "Clock Rate", "Mean SM clock rate", "frequency", HIDDEN))
            s.append(summary("nv/cold/sm_clock_rate/scaling/percent", clock / H200["sm_default_clock_rate"], "Clock Scaling", "Mean SM clock rate as a percentage of default clock rate", "percentage", HIDDEN))
            binfile = "copy_h200.json-bin/%d.bin" % index
            with open(binfile, "wb") as f:
                f.write(struct.pack("<%df" % count, *gpu))
            s.append(summary("nv/json/bin:nv/cold/sample_times", None, "Sample Times File", "Binary file containing sample times", "file/sample_times", "Not needed in table.",
                             data=[value("filename", binfile), value("size", count)]))
            s += [summary("nv/batch/sample_size", 20000, "Samples", "Number of batch kernel executions", "sample_size"),
                  summary("nv/batch/time/gpu/mean", mean * 0.93, "Batch GPU", "Mean batch kernel execution time (measured by CUDA events)", "duration"),
                  summary("nv/batch/walltime", 0.51, "Walltime", "Walltime used for batch measurements", "duration", HIDDEN)]
            state = {"name": "Device=0 T=%s Elements=2^%d" % (t, e)}
            state.update(SETTINGS_2026)
            state.update({"device": 0, "type_config_index": tci,
                          "axis_values": [value("T", t), value("Elements", n)],
                          "summaries": s, "is_skipped": False})
            states.append(state)
            index += 1
    copy = {"name": "copy", "index": 0}
    copy.update(SETTINGS_2026)
    copy.update({"devices": [0], "axes": copy_axes(), "states": states})

    host_states = []
    for how in ("memcpy", "byte loop"):
        nbytes = 16777216
        centre = 2.1e-3 if how == "memcpy" else 9.8e-3
        cpu = samples(rng, 200, centre, 0.03)
        s = [summary("nv/element_count/Bytes", nbytes, "Bytes", "Number of elements: Bytes"),
             summary("nv/gmem/reads/ReadBytes", nbytes, "ReadBytes", hint="bytes"),
             summary("nv/gmem/writes/WriteBytes", nbytes, "WriteBytes", hint="bytes"),
             summary("nv/cpu_only/sample_size", len(cpu), "Samples", "Number of isolated kernel executions", "sample_size")]
        cpu_s, mean = time_summaries("nv/cpu_only/time/cpu/", "cpu", cpu, True)
        s += cpu_s
        s.append(summary("nv/cpu_only/bw/item_rate", nbytes / mean, "Elem/s", "Number of input elements processed per second", "item_rate"))
        s.append(summary("nv/cpu_only/bw/global/bytes_per_second", 2 * nbytes / mean, "GlobalMem BW", "Number of bytes read/written per second", "byte_rate"))
        s.append(summary("nv/cpu_only/walltime", 0.52, "Walltime", "Walltime used for CPU-only measurements", "duration", HIDDEN))
        state = {"name": "Bytes=16777216 How=%s" % how}
        state.update(SETTINGS_2026)
        state.update({"device": 0, "type_config_index": 0,
                      "axis_values": [value("Bytes", nbytes), value("How", how)],
                      "summaries": s, "is_skipped": False})
        host_states.append(state)
    host = {"name": "host_copy", "index": 1}
    host.update(SETTINGS_2026)
    host.update({"devices": None, "axes": [
        {"name": "Bytes", "type": "int64", "flags": "",
         "values": [{"input_string": "16777216", "description": "", "value": 16777216}]},
        {"name": "How", "type": "string", "flags": "",
         "values": [{"input_string": h, "description": "", "value": h} for h in ("memcpy", "byte loop")]}],
        "states": host_states})

    skipped = {"name": "Device=0 Algo=legacy"}
    skipped.update(SETTINGS_2026)
    skipped.update({"device": 0, "type_config_index": 0,
                    "axis_values": [value("Algo", "legacy")], "summaries": None,
                    "is_skipped": True, "skip_reason": "Algo=legacy needs sm_80 or older"})
    skip = {"name": "transform", "index": 2}
    skip.update(SETTINGS_2026)
    skip.update({"devices": [0], "axes": [{"name": "Algo", "type": "string", "flags": "",
                 "values": [{"input_string": "legacy", "description": "", "value": "legacy"}]}],
                 "states": [skipped]})
    return {"meta": meta(["./copy_bench", "--jsonbin", "copy_h200.json"],
                         "python-0.3.0-5-g66212f1", "66212f1da71cc9afb2894a46fa8f234cbdd6c0d8"),
            "devices": [H200], "benchmarks": [copy, host, skip]}


def write(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    os.makedirs("copy_h200.json-bin", exist_ok=True)
    write("copy_h200.json", h200_file(random.Random(20261126)))
